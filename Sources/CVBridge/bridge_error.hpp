// Shared by CVBridge's .cpp files: the exception fence with OpenCV's messages, and Mat views of caller memory.
#pragma once
#include <string>
#include <opencv2/core.hpp>
#include "bridge_status.h"
#include "cvbridge.h"

namespace cvb {

using bridge::fail;
using bridge::valid_gray;
using bridge::valid_image;

// Runs `body`; any exception becomes a negative code and a message instead of unwinding into Swift:
// OpenCV's own message for a cv::Exception (its text without file and line), else as bridge::guarded.
template <typename Body>
int32_t guarded(const char *operation, Body body) noexcept {
    return bridge::guarded(operation, [&]() -> int32_t {
        try {
            return body();
        } catch (const cv::Exception &e) {
            return fail(BRIDGE_ERR_EXCEPTION, std::string(operation) + ": OpenCV: " + e.err);
        }
    });
}

// A gray Mat header over caller memory (no copy).
inline cv::Mat gray_view(const uint8_t *gray, int32_t width, int32_t height, int32_t stride) {
    return cv::Mat(height, width, CV_8UC1, const_cast<uint8_t *>(gray), static_cast<size_t>(stride));
}

// A Mat header over caller memory with 1, 3 or 4 channels.
inline cv::Mat view(const uint8_t *pixels, int32_t width, int32_t height, int32_t stride, int32_t channels) {
    return cv::Mat(height, width, CV_8UC(channels), const_cast<uint8_t *>(pixels), static_cast<size_t>(stride));
}

} // namespace cvb
