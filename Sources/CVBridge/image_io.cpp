// Image files in and out through OpenCV's imgcodecs.
#include <cstdlib>
#include <cstring>
#include <opencv2/imgcodecs.hpp>
#include "bridge_error.hpp"

extern "C" int32_t cvb_image_read_gray(const char *path, cvb_image *out) {
    return cvb::guarded("read image", [&]() -> int32_t {
        if (path == nullptr || out == nullptr) return cvb::fail(CVB_ERR_ARGUMENT, "read image: null argument");
        *out = cvb_image{0, 0, 0, 0, nullptr};
        cv::Mat image = cv::imread(path, cv::IMREAD_GRAYSCALE);
        if (image.empty()) return cvb::fail(CVB_ERR_IO, std::string("cannot read or decode image '") + path + "'");
        const size_t bytes = image.total();
        auto *data = static_cast<uint8_t *>(std::malloc(bytes));
        if (data == nullptr) return cvb::fail(CVB_ERR_IO, "read image: out of memory");
        for (int y = 0; y < image.rows; ++y) std::memcpy(data + size_t(y) * image.cols, image.ptr(y), image.cols);
        *out = cvb_image{image.cols, image.rows, image.cols, 1, data};
        return CVB_OK;
    });
}

extern "C" void cvb_image_release(cvb_image *image) {
    if (image == nullptr) return;
    std::free(image->data);
    *image = cvb_image{0, 0, 0, 0, nullptr};
}
