// Projection with its Jacobian, shared by the projection covariance (uncertainty.cpp) and the rig solve (rig.cpp).
#pragma once
#include <vector>
#include <opencv2/calib3d.hpp>
#include "cvbridge.h"

namespace cvb {

inline cv::Mat matrix3_of(const double *k) { return cv::Mat(3, 3, CV_64F, const_cast<double *>(k)).clone(); }
inline cv::Mat coefficients_of(const double *d, int32_t n) {
    return n > 0 ? cv::Mat(1, n, CV_64F, const_cast<double *>(d)).clone() : cv::Mat::zeros(1, 5, CV_64F);
}

// Projects `points` (camera or board frame) with their Jacobian ordered [intrinsics (fx fy cx cy, then the
// coefficients), rvec, tvec]: 2N x (n + 6), n = 4 + coefficients.
inline void project_with_jacobian(const std::vector<cv::Point3d> &points, const cv::Mat &r, const cv::Mat &t, const cv::Mat &k,
                                  const cv::Mat &d, int32_t count, cvb_model model, std::vector<cv::Point2d> &projected,
                                  cv::Mat &jacobian) {
    const int n = 4 + count;
    cv::Mat raw;
    jacobian.create(int(2 * points.size()), n + 6, CV_64F);
    if (model == CVB_MODEL_FISHEYE) {
        // fisheye: f (2), c (2), k (4), om (3), T (3), alpha.
        cv::fisheye::projectPoints(points, projected, r, t, k, d, 0, raw);
        raw.colRange(0, 8).copyTo(jacobian.colRange(0, 8));
        raw.colRange(8, 14).copyTo(jacobian.colRange(8, 14));
    } else {
        // pinhole: rvec (3), tvec (3), f (2), c (2), then every coefficient of d (5 at least).
        cv::projectPoints(points, r, t, k, d, projected, raw);
        raw.colRange(6, 6 + n).copyTo(jacobian.colRange(0, n));
        raw.colRange(0, 6).copyTo(jacobian.colRange(n, n + 6));
    }
}

} // namespace cvb
