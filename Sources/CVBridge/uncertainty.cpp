// Projection uncertainty as mrcal defines it (its "mean frames" method): the covariance of a solved
// calibration's parameters, reduced to what the projection of a fixed point needs, and its propagation
// to the projection of a pixel's ray at a range or at infinity.
#include <cmath>
#include <vector>
#include <opencv2/calib3d.hpp>
#include "bridge_error.hpp"
#include "projection.hpp"

namespace {
cv::Mat matrix3(const double *k) { return cvb::matrix3_of(k); }
cv::Mat coefficients(const double *d, int32_t n) { return cvb::coefficients_of(d, n); }

void project(const std::vector<cv::Point3d> &points, const cv::Mat &r, const cv::Mat &t, const cv::Mat &k, const cv::Mat &d, int32_t count,
             cvb_model model, std::vector<cv::Point2d> &projected, cv::Mat &jacobian) {
    cvb::project_with_jacobian(points, r, t, k, d, count, model, projected, jacobian);
}

cv::Mat skew(const cv::Vec3d &v) { return (cv::Mat_<double>(3, 3) << 0, -v[2], v[1], v[2], 0, -v[0], -v[1], v[0], 0); }

// d(theta) / d(rvec): the small rotation, in the camera frame, that a change of the rotation vector makes.
cv::Mat rotation_jacobian(const cv::Vec3d &r) {
    cv::Mat g(3, 3, CV_64F);
    const double e = 1e-6;
    for (int k = 0; k < 3; ++k) {
        cv::Vec3d plus = r, minus = r;
        plus[k] += e;
        minus[k] -= e;
        cv::Mat rp, rm;
        cv::Rodrigues(plus, rp);
        cv::Rodrigues(minus, rm);
        const cv::Mat m = rp * rm.t(); // exp([2e g_k]x)
        g.at<double>(0, k) = (m.at<double>(2, 1) - m.at<double>(1, 2)) / (4 * e);
        g.at<double>(1, k) = (m.at<double>(0, 2) - m.at<double>(2, 0)) / (4 * e);
        g.at<double>(2, k) = (m.at<double>(1, 0) - m.at<double>(0, 1)) / (4 * e);
    }
    return g;
}
} // namespace

extern "C" int32_t cvb_projection_covariance(const double *object_points, const int32_t *view_points, const double *image_points,
                                            int32_t views, const double *camera_matrix, const double *distortion,
                                            int32_t distortion_count, cvb_model model, const double *parameterization,
                                            int32_t free_count, const double *rvecs, const double *tvecs, double *covariance,
                                            double *noise) {
    return cvb::guarded("projection covariance", [&]() -> int32_t {
        const int n = 4 + distortion_count;
        if (object_points == nullptr || view_points == nullptr || image_points == nullptr || views < 1 || camera_matrix == nullptr ||
            parameterization == nullptr || free_count < 1 || free_count > n || rvecs == nullptr || tvecs == nullptr ||
            covariance == nullptr || noise == nullptr || model < 0 || model > 2 || (model == CVB_MODEL_FISHEYE && distortion_count != 4))
            return cvb::fail(BRIDGE_ERR_ARGUMENT, "projection covariance: bad argument");
        const cv::Mat k = matrix3(camera_matrix), d = coefficients(distortion, distortion_count);
        const cv::Mat P(n, free_count, CV_64F, const_cast<double *>(parameterization));
        cv::Mat A = cv::Mat::zeros(free_count, free_count, CV_64F);
        std::vector<cv::Mat> B(views), Dinv(views), K(views);
        double squares = 0;
        size_t observations = 0, at = 0;
        for (int32_t v = 0; v < views; ++v) {
            std::vector<cv::Point3d> board;
            std::vector<cv::Point2d> seen;
            for (int32_t i = 0; i < view_points[v]; ++i, ++at) {
                board.emplace_back(object_points[3 * at], object_points[3 * at + 1], object_points[3 * at + 2]);
                seen.emplace_back(image_points[2 * at], image_points[2 * at + 1]);
            }
            const cv::Vec3d r(rvecs + 3 * v), t(tvecs + 3 * v);
            std::vector<cv::Point2d> projected;
            cv::Mat j;
            project(board, cv::Mat(r), cv::Mat(t), k, d, distortion_count, model, projected, j);
            const cv::Mat ji = j.colRange(0, n) * P, je = j.colRange(n, n + 6);
            A += ji.t() * ji;
            B[v] = ji.t() * je;
            Dinv[v] = (je.t() * je).inv(cv::DECOMP_SVD);
            for (size_t i = 0; i < projected.size(); ++i) {
                const cv::Point2d e = projected[i] - seen[i];
                squares += e.dot(e);
            }
            observations += 2 * projected.size();
            // The pose's share of how the mean frame moves a fixed point p: its rotation error theta_v (G times
            // the rvec error) turns p - t about the camera, its translation error adds, so p moves by
            // theta x p + (dt + t x theta): (theta, u) += (1/N) [[G, 0], [[t]x G, I]] (drvec, dtvec).
            const cv::Mat g = rotation_jacobian(r);
            cv::Mat kv = cv::Mat::zeros(6, 6, CV_64F);
            g.copyTo(kv(cv::Rect(0, 0, 3, 3)));
            cv::Mat(skew(t) * g).copyTo(kv(cv::Rect(0, 3, 3, 3)));
            cv::Mat(cv::Mat::eye(3, 3, CV_64F)).copyTo(kv(cv::Rect(3, 3, 3, 3)));
            K[v] = kv / double(views);
        }
        const double dof = double(observations) - double(free_count) - 6.0 * double(views);
        if (dof <= 0) return cvb::fail(BRIDGE_ERR_ARGUMENT, "projection covariance: fewer observations than parameters");
        const double sigma2 = squares / dof;
        cv::Mat S = A.clone(), W = cv::Mat::zeros(6, free_count, CV_64F), E = cv::Mat::zeros(6, 6, CV_64F);
        for (int32_t v = 0; v < views; ++v) {
            S -= B[v] * Dinv[v] * B[v].t();
            W += K[v] * Dinv[v] * B[v].t();
            E += K[v] * Dinv[v] * K[v].t();
        }
        const cv::Mat Sinv = S.inv(cv::DECOMP_SVD);
        const cv::Mat intrinsics = P * Sinv * P.t(), cross = -P * Sinv * W.t(), frame = E + W * Sinv * W.t();
        const int m = n + 6;
        for (int a = 0; a < m; ++a)
            for (int b = 0; b < m; ++b) {
                double value;
                if (a < n && b < n) value = intrinsics.at<double>(a, b);
                else if (a < n) value = cross.at<double>(a, b - n);
                else if (b < n) value = cross.at<double>(b, a - n);
                else value = frame.at<double>(a - n, b - n);
                covariance[a * m + b] = value * sigma2;
            }
        *noise = std::sqrt(sigma2);
        return BRIDGE_OK;
    });
}

extern "C" int32_t cvb_projection_uncertainty(const double *pixels, int32_t count, const double *camera_matrix, const double *distortion,
                                             int32_t distortion_count, cvb_model model, const double *covariance, double range,
                                             double *covariances) {
    return cvb::guarded("projection uncertainty", [&]() -> int32_t {
        const int n = 4 + distortion_count, m = n + 6;
        if (pixels == nullptr || count < 0 || camera_matrix == nullptr || covariance == nullptr || covariances == nullptr || model < 0 ||
            model > 2 || !(range >= 0) || (model == CVB_MODEL_FISHEYE && distortion_count != 4))
            return cvb::fail(BRIDGE_ERR_ARGUMENT, "projection uncertainty: bad argument");
        if (count == 0) return BRIDGE_OK;
        const cv::Mat k = matrix3(camera_matrix), d = coefficients(distortion, distortion_count);
        cv::Mat source(count, 1, CV_64FC2, const_cast<double *>(pixels)), rays(count, 1, CV_64FC2);
        const cv::TermCriteria criteria(cv::TermCriteria::COUNT + cv::TermCriteria::EPS, 100, 1e-14);
        if (model == CVB_MODEL_FISHEYE)
            cv::fisheye::undistortPoints(source, rays, k, d, cv::noArray(), cv::noArray(), criteria);
        else
            cv::undistortPoints(source, rays, k, d, cv::noArray(), cv::noArray(), criteria);
        const cv::Mat C(m, m, CV_64F, const_cast<double *>(covariance));
        const cv::Mat zero = cv::Mat::zeros(3, 1, CV_64F);
        for (int32_t i = 0; i < count; ++i) {
            const cv::Vec2d ray = rays.at<cv::Vec2d>(i);
            // The point the pixel sees: on its ray at `range` (0: at infinity, a direction, so that only
            // the mean frame's rotation moves it).
            const double norm = std::sqrt(ray[0] * ray[0] + ray[1] * ray[1] + 1), scale = range > 0 ? range / norm : 1 / norm;
            std::vector<cv::Point3d> point{cv::Point3d(ray[0] * scale, ray[1] * scale, scale)};
            std::vector<cv::Point2d> projected;
            cv::Mat j;
            project(point, zero, zero, k, d, distortion_count, model, projected, j);
            if (range == 0) j.colRange(n + 3, n + 6).setTo(0);
            const cv::Mat q = j * C * j.t();
            for (int a = 0; a < 4; ++a) covariances[4 * i + a] = q.at<double>(a / 2, a % 2);
        }
        return BRIDGE_OK;
    });
}
