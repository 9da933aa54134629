// Test files in the formats cameras and other programs write, through OpenCV's imgcodecs (linked here:
// only the tests load this target).
#include <csetjmp>
#include <cstdio> // before jpeglib.h, which needs FILE
#include <cstdlib>
#include <cstring>
#include <vector>
#include <jpeglib.h>
#include <opencv2/imgcodecs.hpp>
#include "cvbridge_test_references.h"

static_assert(int(CVB_IMWRITE_JPEG_QUALITY) == int(cv::IMWRITE_JPEG_QUALITY) && int(CVB_IMWRITE_WEBP_QUALITY) == int(cv::IMWRITE_WEBP_QUALITY),
              "the header's parameter values are OpenCV's");

extern "C" int32_t cvb_image_encode_samples(const void *samples, int32_t width, int32_t height, int32_t stride,
                                            int32_t channels, int32_t bits, const char *extension,
                                            const int32_t *parameters, int32_t parameter_count, cvb_image *out) {
    return bridge::guarded("encode image", [&]() -> int32_t {
        const int size = bits == 8 ? 1 : bits == 16 ? 2 : bits == 32 ? 4 : 0;
        if (samples == nullptr || width <= 0 || height <= 0 || (channels != 1 && channels != 3 && channels != 4) ||
            size == 0 || stride < width * channels * size || extension == nullptr || out == nullptr ||
            parameter_count < 0 || (parameter_count > 0 && parameters == nullptr))
            return bridge::fail(BRIDGE_ERR_ARGUMENT, "encode image: bad argument");
        const int depth = bits == 8 ? CV_8U : bits == 16 ? CV_16U : CV_32F;
        const cv::Mat image(height, width, CV_MAKETYPE(depth, channels), const_cast<void *>(samples), size_t(stride));
        std::vector<uint8_t> bytes;
        const std::vector<int> options(parameters, parameters + parameter_count);
        if (!cv::imencode(extension, image, bytes, options))
            return bridge::fail(BRIDGE_ERR_IO, std::string("cannot encode image as ") + extension);
        auto *data = static_cast<uint8_t *>(std::malloc(bytes.size() + 1));
        if (data == nullptr) return bridge::fail(BRIDGE_ERR_IO, "encode image: out of memory");
        std::memcpy(data, bytes.data(), bytes.size());
        *out = cvb_image{static_cast<int32_t>(bytes.size()), 1, static_cast<int32_t>(bytes.size()), 1, data};
        return BRIDGE_OK;
    });
}

// A copy of `image` (8-bit) in malloc'd memory, as cvb_image_release frees it.
static int32_t copied(const cv::Mat &image, cvb_image *out) {
    const size_t row = size_t(image.cols) * size_t(image.channels());
    auto *data = static_cast<uint8_t *>(std::malloc(row * size_t(image.rows) + 1));
    if (data == nullptr) return bridge::fail(BRIDGE_ERR_IO, "out of memory");
    for (int y = 0; y < image.rows; ++y) std::memcpy(data + row * size_t(y), image.ptr(y), row);
    *out = cvb_image{image.cols, image.rows, int32_t(row), image.channels(), data};
    return BRIDGE_OK;
}

extern "C" int32_t cvb_imdecode_opencv(const uint8_t *bytes, int32_t count, int32_t channels, cvb_image *out) {
    return bridge::guarded("imdecode", [&]() -> int32_t {
        if (bytes == nullptr || count <= 0 || (channels != 1 && channels != 3) || out == nullptr)
            return bridge::fail(BRIDGE_ERR_ARGUMENT, "imdecode: bad argument");
        const cv::Mat encoded(1, count, CV_8UC1, const_cast<uint8_t *>(bytes));
        const cv::Mat image = cv::imdecode(encoded, (channels == 1 ? cv::IMREAD_GRAYSCALE : cv::IMREAD_COLOR) | cv::IMREAD_IGNORE_ORIENTATION);
        if (image.empty()) return bridge::fail(BRIDGE_ERR_IO, "imdecode: not decodable");
        return copied(image, out);
    });
}

namespace {
struct EncodeErrors {
    jpeg_error_mgr pub;
    jmp_buf failed;
};
void encode_failed(j_common_ptr cinfo) { longjmp(reinterpret_cast<EncodeErrors *>(cinfo->err)->failed, 1); }
} // namespace

extern "C" int32_t cvb_jpeg_encode_sampled(const uint8_t *pixels, int32_t width, int32_t height, int32_t stride, int32_t channels,
                                           int32_t luma_h, int32_t luma_v, int32_t quality, int32_t restart_rows,
                                           cvb_image *out) {
    if (pixels == nullptr || width <= 0 || height <= 0 || (channels != 1 && channels != 3) || stride < width * channels ||
        luma_h < 1 || luma_h > 2 || luma_v < 1 || luma_v > 2 || quality < 1 || quality > 100 || restart_rows < 0 || out == nullptr)
        return bridge::fail(BRIDGE_ERR_ARGUMENT, "encode JPEG: bad argument");
    jpeg_compress_struct c{};
    EncodeErrors errors{};
    c.err = jpeg_std_error(&errors.pub);
    errors.pub.error_exit = encode_failed;
    unsigned char *bytes = nullptr;
    unsigned long size = 0;
    if (setjmp(errors.failed)) {
        jpeg_destroy_compress(&c);
        std::free(bytes);
        return bridge::fail(BRIDGE_ERR_IO, "encode JPEG: libjpeg failed");
    }
    jpeg_create_compress(&c);
    jpeg_mem_dest(&c, &bytes, &size);
    c.image_width = JDIMENSION(width);
    c.image_height = JDIMENSION(height);
    c.input_components = channels;
    c.in_color_space = channels == 1 ? JCS_GRAYSCALE : JCS_EXT_BGR;
    jpeg_set_defaults(&c);
    jpeg_set_quality(&c, quality, TRUE);
    c.restart_in_rows = restart_rows;
    if (channels == 3) {
        c.comp_info[0].h_samp_factor = luma_h;
        c.comp_info[0].v_samp_factor = luma_v;
    }
    jpeg_start_compress(&c, TRUE);
    while (c.next_scanline < c.image_height) {
        JSAMPROW row = const_cast<uint8_t *>(pixels) + size_t(c.next_scanline) * size_t(stride);
        jpeg_write_scanlines(&c, &row, 1);
    }
    jpeg_finish_compress(&c);
    jpeg_destroy_compress(&c);
    *out = cvb_image{int32_t(size), 1, int32_t(size), 1, bytes}; // malloc'd by jpeg_mem_dest: cvb_image_release frees it
    return BRIDGE_OK;
}
