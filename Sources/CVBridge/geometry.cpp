// A square marker's pose through calib3d's solvePnP (IPPE_SQUARE): for fisheye and tilted-sensor models, and
// as the reference for MarkerKitKernels' own (mkk_solve_pnp_square); both of IPPE's poses through
// solvePnPGeneric.
#include <vector>
#include <opencv2/calib3d.hpp>
#include "bridge_error.hpp"

namespace {
cv::Mat camera(const double *k) { return cv::Mat(3, 3, CV_64F, const_cast<double *>(k)).clone(); }
cv::Mat coefficients(const double *d, int32_t n) {
    // No distortion is five zeros: some OpenCV functions refuse an empty coefficient matrix.
    return n > 0 ? cv::Mat(1, n, CV_64F, const_cast<double *>(d)).clone() : cv::Mat::zeros(1, 5, CV_64F);
}
bool valid_distortion_count(int32_t n) { return n == 0 || n == 4 || n == 5 || n == 8 || n == 12 || n == 14; }
} // namespace

extern "C" int32_t cvb_solve_pnp_square(const double *image_corners, double side, const double *camera_matrix,
                                        const double *distortion, int32_t distortion_count, cvb_model model,
                                        double *rvec, double *tvec) {
    return cvb::guarded("solvePnP", [&]() -> int32_t {
        if (image_corners == nullptr || camera_matrix == nullptr || rvec == nullptr || tvec == nullptr ||
            !(side > 0) || !valid_distortion_count(distortion_count) || (distortion_count > 0 && distortion == nullptr))
            return cvb::fail(BRIDGE_ERR_ARGUMENT, "solvePnP: bad argument");
        const double h = side / 2;
        std::vector<cv::Point3d> object = {{-h, h, 0}, {h, h, 0}, {h, -h, 0}, {-h, -h, 0}};
        std::vector<cv::Point2d> image;
        for (int i = 0; i < 4; ++i) image.emplace_back(image_corners[2 * i], image_corners[2 * i + 1]);
        cv::Mat r, t, k = camera(camera_matrix), d = coefficients(distortion, distortion_count);
        if (model == CVB_MODEL_FISHEYE) {
            if (distortion_count != 4) return cvb::fail(BRIDGE_ERR_ARGUMENT, "solvePnP: fisheye needs 4 coefficients");
            std::vector<cv::Point2d> undistorted;
            cv::fisheye::undistortPoints(image, undistorted, k, d, cv::noArray(), k);
            image = undistorted;
            d = cv::Mat();
        }
        if (!cv::solvePnP(object, image, k, d, r, t, false, cv::SOLVEPNP_IPPE_SQUARE))
            return cvb::fail(BRIDGE_ERR_ARGUMENT, "solvePnP found no pose");
        for (int i = 0; i < 3; ++i) {
            rvec[i] = r.at<double>(i);
            tvec[i] = t.at<double>(i);
        }
        return BRIDGE_OK;
    });
}


extern "C" int32_t cvb_solve_pnp_square_both(const double *image_corners, double side, const double *camera_matrix,
                                             const double *distortion, int32_t distortion_count, cvb_model model,
                                             double *poses) {
    return cvb::guarded("solvePnPGeneric", [&]() -> int32_t {
        if (image_corners == nullptr || camera_matrix == nullptr || poses == nullptr || !(side > 0) ||
            !valid_distortion_count(distortion_count) || (distortion_count > 0 && distortion == nullptr) ||
            (model == CVB_MODEL_FISHEYE && distortion_count != 4))
            return cvb::fail(BRIDGE_ERR_ARGUMENT, "solvePnP: bad argument");
        const double h = side / 2;
        std::vector<cv::Point3d> object = {{-h, h, 0}, {h, h, 0}, {h, -h, 0}, {-h, -h, 0}};
        std::vector<cv::Point2d> image, solved;
        for (int i = 0; i < 4; ++i) image.emplace_back(image_corners[2 * i], image_corners[2 * i + 1]);
        cv::Mat k = camera(camera_matrix), d = coefficients(distortion, distortion_count), solveD = d;
        solved = image;
        if (model == CVB_MODEL_FISHEYE) {
            cv::fisheye::undistortPoints(image, solved, k, d, cv::noArray(), k);
            solveD = cv::Mat();
        }
        std::vector<cv::Mat> rs, ts;
        if (cv::solvePnPGeneric(object, solved, k, solveD, rs, ts, false, cv::SOLVEPNP_IPPE_SQUARE) < 1)
            return cvb::fail(BRIDGE_ERR_ARGUMENT, "solvePnP found no pose");
        for (size_t s = 0; s < 2; ++s) {
            // One solution only (a degenerate square): the second is the first again.
            const cv::Mat &r = rs[std::min(s, rs.size() - 1)], &t = ts[std::min(s, ts.size() - 1)];
            std::vector<cv::Point2d> projected;
            if (model == CVB_MODEL_FISHEYE)
                cv::fisheye::projectPoints(object, projected, r, t, k, d);
            else
                cv::projectPoints(object, r, t, k, d, projected);
            double sum = 0;
            for (int i = 0; i < 4; ++i) {
                const cv::Point2d e = projected[i] - image[i];
                sum += e.dot(e);
            }
            for (int i = 0; i < 3; ++i) {
                poses[7 * s + i] = r.at<double>(i);
                poses[7 * s + 3 + i] = t.at<double>(i);
            }
            poses[7 * s + 6] = std::sqrt(sum / 4);
        }
        return BRIDGE_OK;
    });
}
