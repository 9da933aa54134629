// The frame shrunk by a whole factor by averaging each factor x factor block: what cv::resize with
// INTER_AREA gives for a whole factor, without its per-call table (about 8 KB for a 1920 px row: one
// heap allocation per frame). A size that is no multiple of the factor is the caller's to resize.
#include <emmintrin.h>
#include "bridge_status.h"
#include "markerkit_kernels.h"

extern "C" int32_t mkk_reduce_gray(const uint8_t *gray, int32_t width, int32_t height, int32_t stride, int32_t factor,
                                   uint8_t *out) {
    if (!bridge::valid_gray(gray, width, height, stride) || out == nullptr || factor < 1 || width < factor || height < factor)
        return bridge::fail(BRIDGE_ERR_ARGUMENT, "reduce: bad argument");
    if (width % factor != 0 || height % factor != 0)
        return bridge::fail(BRIDGE_ERR_ARGUMENT, "reduce: the size is not a multiple of the factor");
    const int out_width = width / factor, out_height = height / factor;
    const int area = factor * factor;
    for (int y = 0; y < out_height; ++y) {
        const uint8_t *top = gray + size_t(y) * factor * stride;
        uint8_t *row = out + size_t(y) * out_width;
        if (factor == 2) {
            const uint8_t *bottom = top + stride;
            int x = 0;
            // 16 pixels at a time (SSE2): even and odd columns apart, sums in 16 bits.
            const __m128i even = _mm_set1_epi16(0x00FF), two = _mm_set1_epi16(2);
            auto pairs = [&](const uint8_t *p) {
                const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p));
                return _mm_add_epi16(_mm_and_si128(v, even), _mm_srli_epi16(v, 8));
            };
            for (; x + 16 <= out_width; x += 16) {
                const __m128i low = _mm_add_epi16(pairs(top + 2 * x), pairs(bottom + 2 * x));
                const __m128i high = _mm_add_epi16(pairs(top + 2 * x + 16), pairs(bottom + 2 * x + 16));
                _mm_storeu_si128(reinterpret_cast<__m128i *>(row + x),
                                 _mm_packus_epi16(_mm_srli_epi16(_mm_add_epi16(low, two), 2),
                                                  _mm_srli_epi16(_mm_add_epi16(high, two), 2)));
            }
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
            // Rounded half to even, as OpenCV's cvRound (cvtss2si) rounds.
            row[x] = uint8_t(_mm_cvtss_si32(_mm_set_ss(float(sum) * (1.f / float(area)))));
        }
    }
    return BRIDGE_OK;
}
