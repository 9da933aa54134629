// The image-wide stages of the marker detector: whole operations, never per pixel across the boundary.
#include <cstdlib>
#include <cstring>
#include <vector>
#include <opencv2/imgproc.hpp>
#include "bridge_error.hpp"

extern "C" int32_t cvb_adaptive_threshold(const uint8_t *gray, int32_t width, int32_t height, int32_t stride,
                                          int32_t window, double constant, uint8_t *binary) {
    return cvb::guarded("adaptive threshold", [&]() -> int32_t {
        if (!cvb::valid_gray(gray, width, height, stride) || binary == nullptr || window < 3 || window % 2 == 0)
            return cvb::fail(CVB_ERR_ARGUMENT, "adaptive threshold: bad image or window");
        cv::Mat out(height, width, CV_8UC1, binary);
        cv::adaptiveThreshold(cvb::gray_view(gray, width, height, stride), out, 255, cv::ADAPTIVE_THRESH_MEAN_C,
                              cv::THRESH_BINARY_INV, window, constant);
        return CVB_OK;
    });
}

extern "C" int32_t cvb_find_contours(const uint8_t *binary, int32_t width, int32_t height, int32_t stride,
                                     int32_t min_points, int32_t max_points, cvb_contours *out) {
    return cvb::guarded("find contours", [&]() -> int32_t {
        if (!cvb::valid_gray(binary, width, height, stride) || out == nullptr)
            return cvb::fail(CVB_ERR_ARGUMENT, "find contours: bad image");
        *out = cvb_contours{0, nullptr, nullptr};
        cv::Mat image = cvb::gray_view(binary, width, height, stride).clone(); // findContours may modify
        std::vector<std::vector<cv::Point>> contours;
        cv::findContours(image, contours, cv::RETR_LIST, cv::CHAIN_APPROX_NONE);
        std::vector<const std::vector<cv::Point> *> kept;
        size_t total = 0;
        for (const auto &c : contours) {
            if (int32_t(c.size()) < min_points || int32_t(c.size()) > max_points) continue;
            kept.push_back(&c);
            total += c.size();
        }
        auto *offsets = static_cast<int32_t *>(std::malloc(sizeof(int32_t) * (kept.size() + 1)));
        auto *points = static_cast<int32_t *>(std::malloc(sizeof(int32_t) * (2 * total + 1)));
        if (offsets == nullptr || points == nullptr) {
            std::free(offsets);
            std::free(points);
            return cvb::fail(CVB_ERR_IO, "find contours: out of memory");
        }
        size_t at = 0;
        for (size_t i = 0; i < kept.size(); ++i) {
            offsets[i] = static_cast<int32_t>(at);
            for (const auto &p : *kept[i]) {
                points[2 * at] = p.x;
                points[2 * at + 1] = p.y;
                ++at;
            }
        }
        offsets[kept.size()] = static_cast<int32_t>(at);
        *out = cvb_contours{static_cast<int32_t>(kept.size()), offsets, points};
        return CVB_OK;
    });
}

extern "C" void cvb_contours_release(cvb_contours *contours) {
    if (contours == nullptr) return;
    std::free(contours->offsets);
    std::free(contours->points);
    *contours = cvb_contours{0, nullptr, nullptr};
}

extern "C" int32_t cvb_approx_polygon(const int32_t *points, int32_t count, double epsilon, int32_t *out,
                                      int32_t capacity) {
    return cvb::guarded("approximate polygon", [&]() -> int32_t {
        if (points == nullptr || count < 1 || (capacity > 0 && out == nullptr))
            return cvb::fail(CVB_ERR_ARGUMENT, "approximate polygon: bad contour");
        cv::Mat contour(count, 1, CV_32SC2, const_cast<int32_t *>(points));
        std::vector<cv::Point> polygon;
        cv::approxPolyDP(contour, polygon, epsilon, true);
        for (size_t i = 0; i < polygon.size() && int32_t(i) < capacity; ++i) {
            out[2 * i] = polygon[i].x;
            out[2 * i + 1] = polygon[i].y;
        }
        return static_cast<int32_t>(polygon.size());
    });
}

extern "C" int32_t cvb_warp_quad(const uint8_t *gray, int32_t width, int32_t height, int32_t stride,
                                 const double *corners, int32_t size, uint8_t *out) {
    return cvb::guarded("warp quad", [&]() -> int32_t {
        if (!cvb::valid_gray(gray, width, height, stride) || corners == nullptr || out == nullptr || size < 2)
            return cvb::fail(CVB_ERR_ARGUMENT, "warp quad: bad argument");
        cv::Point2f source[4], target[4];
        const float last = float(size - 1);
        const cv::Point2f square[4] = {{0, 0}, {last, 0}, {last, last}, {0, last}};
        for (int i = 0; i < 4; ++i) {
            source[i] = cv::Point2f(float(corners[2 * i]), float(corners[2 * i + 1]));
            target[i] = square[i];
        }
        cv::Mat result(size, size, CV_8UC1, out);
        cv::warpPerspective(cvb::gray_view(gray, width, height, stride), result,
                            cv::getPerspectiveTransform(source, target), cv::Size(size, size), cv::INTER_LINEAR);
        return CVB_OK;
    });
}
