// Shared by the bridge's .cpp files: the thread-local last error and the exception fence.
#pragma once
#include <exception>
#include <string>
#include <opencv2/core.hpp>
#include "cvbridge.h"

namespace cvb {

void set_error(const std::string &message);
void clear_error();

// Runs `body`; any exception becomes a negative code and a message instead of unwinding into Swift.
template <typename Body>
int32_t guarded(const char *operation, Body body) noexcept {
    try {
        clear_error();
        return body();
    } catch (const cv::Exception &e) {
        set_error(std::string(operation) + ": OpenCV: " + e.err);
        return CVB_ERR_OPENCV;
    } catch (const std::exception &e) {
        set_error(std::string(operation) + ": " + e.what());
        return CVB_ERR_OPENCV;
    } catch (...) {
        set_error(std::string(operation) + ": unknown C++ exception");
        return CVB_ERR_OPENCV;
    }
}

inline int32_t fail(int32_t code, const std::string &message) {
    set_error(message);
    return code;
}

// A gray Mat header over caller memory (no copy).
inline cv::Mat gray_view(const uint8_t *gray, int32_t width, int32_t height, int32_t stride) {
    return cv::Mat(height, width, CV_8UC1, const_cast<uint8_t *>(gray), static_cast<size_t>(stride));
}

// A Mat header over caller memory with 1, 3 or 4 channels.
inline cv::Mat view(const uint8_t *pixels, int32_t width, int32_t height, int32_t stride, int32_t channels) {
    return cv::Mat(height, width, CV_8UC(channels), const_cast<uint8_t *>(pixels), static_cast<size_t>(stride));
}

inline bool valid_image(const uint8_t *pixels, int32_t width, int32_t height, int32_t stride, int32_t channels) {
    return pixels != nullptr && width > 0 && height > 0 && (channels == 1 || channels == 3 || channels == 4) &&
           stride >= width * channels;
}

inline bool valid_gray(const uint8_t *gray, int32_t width, int32_t height, int32_t stride) {
    return gray != nullptr && width > 0 && height > 0 && stride >= width;
}

} // namespace cvb
