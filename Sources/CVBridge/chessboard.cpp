// OpenCV's classic chessboard finder with sub-pixel refinement.
#include <vector>
#include <opencv2/calib3d.hpp>
#include <opencv2/imgproc.hpp>
#include "bridge_error.hpp"

extern "C" int32_t cvb_find_chessboard(const uint8_t *gray, int32_t width, int32_t height, int32_t stride,
                                       int32_t cols, int32_t rows, double *corners) {
    return cvb::guarded("find chessboard", [&]() -> int32_t {
        if (!cvb::valid_gray(gray, width, height, stride) || corners == nullptr || cols < 2 || rows < 2)
            return cvb::fail(CVB_ERR_ARGUMENT, "find chessboard: bad image, board size or output buffer");
        cv::Mat image = cvb::gray_view(gray, width, height, stride);
        std::vector<cv::Point2f> points;
        const bool found = cv::findChessboardCorners(image, cv::Size(cols, rows), points,
                                                     cv::CALIB_CB_ADAPTIVE_THRESH | cv::CALIB_CB_NORMALIZE_IMAGE);
        if (!found) return 0;
        cv::cornerSubPix(image, points, cv::Size(11, 11), cv::Size(-1, -1),
                         cv::TermCriteria(cv::TermCriteria::EPS + cv::TermCriteria::COUNT, 30, 0.01));
        for (size_t i = 0; i < points.size(); ++i) {
            corners[2 * i] = points[i].x;
            corners[2 * i + 1] = points[i].y;
        }
        return 1;
    });
}
