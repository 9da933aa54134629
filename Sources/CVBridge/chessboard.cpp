// OpenCV's chessboard finders: the classic one with cornerSubPix, and the sector-based one.
#include <algorithm>
#include <cmath>
#include <vector>
#include <opencv2/calib3d.hpp>
#include <opencv2/imgproc.hpp>
#include "bridge_error.hpp"

namespace {
// Half the refinement window from the board as seen: a fifth of the shortest distance between
// neighbouring corners, so the window never reaches the next corner (2 to 11 pixels).
int half_window_for(const std::vector<cv::Point2f> &points, int cols, int rows) {
    double shortest = 1e9;
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) {
            const cv::Point2f p = points[r * cols + c];
            if (c + 1 < cols) shortest = std::min(shortest, double(cv::norm(p - points[r * cols + c + 1])));
            if (r + 1 < rows) shortest = std::min(shortest, double(cv::norm(p - points[(r + 1) * cols + c])));
        }
    return std::max(2, std::min(11, int(std::lround(shortest / 5))));
}
} // namespace

extern "C" int32_t cvb_find_chessboard(const uint8_t *gray, int32_t width, int32_t height, int32_t stride,
                                       int32_t cols, int32_t rows, cvb_chessboard_method method, int32_t half_window,
                                       double *corners) {
    return cvb::guarded("find chessboard", [&]() -> int32_t {
        if (!cvb::valid_gray(gray, width, height, stride) || corners == nullptr || cols < 2 || rows < 2 ||
            half_window < 0)
            return cvb::fail(BRIDGE_ERR_ARGUMENT, "find chessboard: bad image, board size or output buffer");
        cv::Mat image = cvb::gray_view(gray, width, height, stride);
        std::vector<cv::Point2f> points;
        bool found;
        const int defaults = cv::CALIB_CB_ADAPTIVE_THRESH | cv::CALIB_CB_NORMALIZE_IMAGE;
        if (method == CVB_CHESSBOARD_SECTOR_BASED) {
            found = cv::findChessboardCornersSB(image, cv::Size(cols, rows), points,
                                                cv::CALIB_CB_NORMALIZE_IMAGE | cv::CALIB_CB_ACCURACY);
        } else if (method == CVB_CHESSBOARD_SECTOR_BASED_PLAIN) {
            found = cv::findChessboardCornersSB(image, cv::Size(cols, rows), points, cv::CALIB_CB_NORMALIZE_IMAGE);
        } else if (method == CVB_CHESSBOARD_OPENCV_DEFAULT || method == CVB_CHESSBOARD_OPENCV_FAST_CHECK) {
            const int fast = method == CVB_CHESSBOARD_OPENCV_FAST_CHECK ? cv::CALIB_CB_FAST_CHECK : 0;
            found = cv::findChessboardCorners(image, cv::Size(cols, rows), points, defaults | fast);
        } else if (method == CVB_CHESSBOARD_QUICK_LOOK) {
            found = cv::findChessboardCorners(image, cv::Size(cols, rows), points, 0);
        } else {
            found = cv::findChessboardCorners(image, cv::Size(cols, rows), points, defaults | (method == CVB_CHESSBOARD_CLASSIC_FAST_CHECK ? cv::CALIB_CB_FAST_CHECK : 0));
            if (found) {
                const int half = half_window > 0 ? half_window : half_window_for(points, cols, rows);
                cv::cornerSubPix(image, points, cv::Size(half, half), cv::Size(-1, -1),
                                 cv::TermCriteria(cv::TermCriteria::EPS + cv::TermCriteria::COUNT, 30, 0.001));
            }
        }
        if (!found) return 0;
        for (size_t i = 0; i < points.size(); ++i) {
            corners[2 * i] = points[i].x;
            corners[2 * i + 1] = points[i].y;
        }
        return 1;
    });
}

extern "C" int32_t cvb_refine_corners(const uint8_t *gray, int32_t width, int32_t height, int32_t stride, double *corners,
                                      int32_t count, int32_t half_window, int32_t max_iterations, double epsilon) {
    return cvb::guarded("refine corners", [&]() -> int32_t {
        if (!cvb::valid_gray(gray, width, height, stride) || corners == nullptr || count < 1 || half_window < 1 ||
            max_iterations < 1 || !(epsilon > 0))
            return cvb::fail(BRIDGE_ERR_ARGUMENT, "refine corners: bad argument");
        std::vector<cv::Point2f> points;
        for (int32_t i = 0; i < count; ++i) points.emplace_back(float(corners[2 * i]), float(corners[2 * i + 1]));
        const cv::Mat image = cvb::gray_view(gray, width, height, stride);
        const cv::TermCriteria criteria(cv::TermCriteria::EPS + cv::TermCriteria::COUNT, max_iterations, epsilon);
        // Each corner is refined on its own, so the corners are split over the cores (same result).
        const int chunks = std::max(1, std::min(cv::getNumThreads(), int(count) / 8));
        cv::parallel_for_(cv::Range(0, chunks), [&](const cv::Range &range) {
            for (int chunk = range.start; chunk < range.end; ++chunk) {
                const int from = int(count) * chunk / chunks, to = int(count) * (chunk + 1) / chunks;
                std::vector<cv::Point2f> part(points.begin() + from, points.begin() + to);
                cv::cornerSubPix(image, part, cv::Size(half_window, half_window), cv::Size(-1, -1), criteria);
                std::copy(part.begin(), part.end(), points.begin() + from);
            }
        });
        for (int32_t i = 0; i < count; ++i) {
            corners[2 * i] = points[i].x;
            corners[2 * i + 1] = points[i].y;
        }
        return BRIDGE_OK;
    });
}

extern "C" int32_t cvb_resize_gray(const uint8_t *gray, int32_t width, int32_t height, int32_t stride, int32_t out_width,
                                   int32_t out_height, cvb_resize_mode mode, uint8_t *out) {
    return cvb::guarded("resize", [&]() -> int32_t {
        if (!cvb::valid_gray(gray, width, height, stride) || out == nullptr || out_width < 1 || out_height < 1)
            return cvb::fail(BRIDGE_ERR_ARGUMENT, "resize: bad argument");
        cv::Mat target(out_height, out_width, CV_8UC1, out);
        // Area averaging when the factor is a whole number (OpenCV has a fast path for it), else bilinear.
        const bool whole = mode == CVB_RESIZE_AREA_WHEN_WHOLE && width % out_width == 0 && height % out_height == 0;
        cv::resize(cvb::gray_view(gray, width, height, stride), target, target.size(), 0, 0,
                   whole ? cv::INTER_AREA : cv::INTER_LINEAR);
        return BRIDGE_OK;
    });
}
