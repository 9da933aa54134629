// Test files in the formats cameras and other programs write, through OpenCV's imgcodecs (linked here:
// only the tests load this target).
#include <cstdlib>
#include <cstring>
#include <vector>
#include <opencv2/imgcodecs.hpp>
#include "cvbridge_test_references.h"

static_assert(CVB_IMWRITE_JPEG_QUALITY == cv::IMWRITE_JPEG_QUALITY && CVB_IMWRITE_WEBP_QUALITY == cv::IMWRITE_WEBP_QUALITY,
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
