// The frame shrunk by a whole factor by averaging each factor x factor block: what cv::resize with
// INTER_AREA gives for a whole factor, without its per-call table (about 8 KB for a 1920 px row: one
// heap allocation per frame).
#include <opencv2/core/hal/intrin.hpp>
#include <opencv2/imgproc.hpp>
#include "bridge_error.hpp"

extern "C" int32_t cvb_reduce_gray(const uint8_t *gray, int32_t width, int32_t height, int32_t stride, int32_t factor,
                                   uint8_t *out) {
    return cvb::guarded("reduce", [&]() -> int32_t {
        if (!cvb::valid_gray(gray, width, height, stride) || out == nullptr || factor < 1 || width < factor || height < factor)
            return cvb::fail(CVB_ERR_ARGUMENT, "reduce: bad argument");
        const int out_width = width / factor, out_height = height / factor;
        if (width % factor != 0 || height % factor != 0) {
            // No whole blocks: bilinear, as cv::resize would do for this size.
            cv::Mat target(out_height, out_width, CV_8UC1, out);
            cv::resize(cvb::gray_view(gray, width, height, stride), target, target.size(), 0, 0, cv::INTER_LINEAR);
            return CVB_OK;
        }
        const int area = factor * factor;
        for (int y = 0; y < out_height; ++y) {
            const uint8_t *top = gray + size_t(y) * factor * stride;
            uint8_t *row = out + size_t(y) * out_width;
            if (factor == 2) {
                const uint8_t *bottom = top + stride;
                int x = 0;
#if CV_SIMD128
                // 16 pixels at a time (OpenCV's portable SIMD): even and odd columns apart, sums in 16 bits.
                const cv::v_uint16x8 two = cv::v_setall_u16(2);
                for (; x + 16 <= out_width; x += 16) {
                    cv::v_uint8x16 top_even, top_odd, bottom_even, bottom_odd;
                    cv::v_load_deinterleave(top + 2 * x, top_even, top_odd);
                    cv::v_load_deinterleave(bottom + 2 * x, bottom_even, bottom_odd);
                    cv::v_uint16x8 a0, a1, b0, b1, c0, c1, d0, d1;
                    cv::v_expand(top_even, a0, a1);
                    cv::v_expand(top_odd, b0, b1);
                    cv::v_expand(bottom_even, c0, c1);
                    cv::v_expand(bottom_odd, d0, d1);
                    cv::v_store(row + x, cv::v_pack((a0 + b0 + c0 + d0 + two) >> 2, (a1 + b1 + c1 + d1 + two) >> 2));
                }
#endif
                for (; x < out_width; ++x)
                    row[x] = uint8_t((top[2 * x] + top[2 * x + 1] + bottom[2 * x] + bottom[2 * x + 1] + 2) >> 2);
                continue;
            }
            for (int x = 0; x < out_width; ++x) {
                int sum = 0;
                for (int dy = 0; dy < factor; ++dy) {
                    const uint8_t *block = top + size_t(dy) * stride + size_t(x) * factor;
                    for (int dx = 0; dx < factor; ++dx) sum += block[dx];
                }
                row[x] = uint8_t(cvRound(float(sum) * (1.f / float(area))));
            }
        }
        return CVB_OK;
    });
}
