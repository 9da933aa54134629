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

namespace {
// cv::solvePnPGeneric by `method` through the model: fisheye points are undistorted first (to the same
// camera matrix) and solved without distortion. Returns how many poses it gave.
int solve_generic(const std::vector<cv::Point3d> &object, const std::vector<cv::Point2d> &image, const cv::Mat &k,
                  const cv::Mat &d, cvb_model model, cv::SolvePnPMethod method, std::vector<cv::Mat> &rs, std::vector<cv::Mat> &ts) {
    if (model != CVB_MODEL_FISHEYE) return cv::solvePnPGeneric(object, image, k, d, rs, ts, false, method);
    std::vector<cv::Point2d> undistorted;
    cv::fisheye::undistortPoints(image, undistorted, k, d, cv::noArray(), k);
    return cv::solvePnPGeneric(object, undistorted, k, cv::Mat(), rs, ts, false, method);
}

// Writes rvec, tvec and the RMS distance in pixels per point between `image` and `object` projected at
// the pose through the model into out[0..6].
void write_pose(const std::vector<cv::Point3d> &object, const std::vector<cv::Point2d> &image, const cv::Mat &r, const cv::Mat &t,
                const cv::Mat &k, const cv::Mat &d, cvb_model model, double *out) {
    std::vector<cv::Point2d> projected;
    if (model == CVB_MODEL_FISHEYE)
        cv::fisheye::projectPoints(object, projected, r, t, k, d);
    else
        cv::projectPoints(object, r, t, k, d, projected);
    double sum = 0;
    for (size_t i = 0; i < image.size(); ++i) {
        const cv::Point2d e = projected[i] - image[i];
        sum += e.dot(e);
    }
    for (int i = 0; i < 3; ++i) {
        out[i] = r.at<double>(i);
        out[3 + i] = t.at<double>(i);
    }
    out[6] = std::sqrt(sum / double(image.size()));
}

bool bad_model(const double *distortion, int32_t distortion_count, cvb_model model) {
    return !valid_distortion_count(distortion_count) || (distortion_count > 0 && distortion == nullptr) ||
           (model == CVB_MODEL_FISHEYE && distortion_count != 4);
}
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
        if (model == CVB_MODEL_FISHEYE && distortion_count != 4) return cvb::fail(BRIDGE_ERR_ARGUMENT, "solvePnP: fisheye needs 4 coefficients");
        cv::Mat k = camera(camera_matrix), d = coefficients(distortion, distortion_count);
        std::vector<cv::Mat> rs, ts;
        // cv::solvePnP's pose: solvePnPGeneric's first.
        if (solve_generic(object, image, k, d, model, cv::SOLVEPNP_IPPE_SQUARE, rs, ts) < 1)
            return cvb::fail(BRIDGE_ERR_ARGUMENT, "solvePnP found no pose");
        const cv::Mat &r = rs[0], &t = ts[0];
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
            bad_model(distortion, distortion_count, model))
            return cvb::fail(BRIDGE_ERR_ARGUMENT, "solvePnP: bad argument");
        const double h = side / 2;
        std::vector<cv::Point3d> object = {{-h, h, 0}, {h, h, 0}, {h, -h, 0}, {-h, -h, 0}};
        std::vector<cv::Point2d> image;
        for (int i = 0; i < 4; ++i) image.emplace_back(image_corners[2 * i], image_corners[2 * i + 1]);
        cv::Mat k = camera(camera_matrix), d = coefficients(distortion, distortion_count);
        std::vector<cv::Mat> rs, ts;
        if (solve_generic(object, image, k, d, model, cv::SOLVEPNP_IPPE_SQUARE, rs, ts) < 1)
            return cvb::fail(BRIDGE_ERR_ARGUMENT, "solvePnP found no pose");
        // One solution only (a degenerate square): the second is the first again.
        for (size_t s = 0; s < 2; ++s)
            write_pose(object, image, rs[std::min(s, rs.size() - 1)], ts[std::min(s, ts.size() - 1)], k, d, model, poses + 7 * s);
        return BRIDGE_OK;
    });
}

namespace {
// The poses of `count` points by `method` (up to `most`, each refined by Levenberg-Marquardt with `refine`, not for
// fisheye): 7 values per pose into `poses` (rvec, tvec, RMS reprojection error), how many into `solutions`.
int32_t solve_points(const double *object_points, const double *image_points, int32_t count, const double *camera_matrix,
                     const double *distortion, int32_t distortion_count, cvb_model model, cv::SolvePnPMethod method, bool refine,
                     int most, double *poses, int32_t *solutions) {
    return cvb::guarded("solvePnP", [&]() -> int32_t {
        if (object_points == nullptr || image_points == nullptr || camera_matrix == nullptr || poses == nullptr ||
            solutions == nullptr || count < 4 || count > 1000000 || bad_model(distortion, distortion_count, model))
            return cvb::fail(BRIDGE_ERR_ARGUMENT, "solvePnP: bad argument");
        std::vector<cv::Point3d> object;
        std::vector<cv::Point2d> image;
        for (int32_t i = 0; i < count; ++i) {
            object.emplace_back(object_points[3 * i], object_points[3 * i + 1], object_points[3 * i + 2]);
            image.emplace_back(image_points[2 * i], image_points[2 * i + 1]);
        }
        cv::Mat k = camera(camera_matrix), d = coefficients(distortion, distortion_count);
        std::vector<cv::Mat> rs, ts;
        const int n = solve_generic(object, image, k, d, model, method, rs, ts);
        if (n < 1) return cvb::fail(BRIDGE_ERR_ARGUMENT, "solvePnP found no pose");
        *solutions = std::min(n, most);
        for (int s = 0; s < *solutions; ++s) {
            // Levenberg-Marquardt from each solution, on the points as found (through the lens model).
            if (refine && model != CVB_MODEL_FISHEYE) cv::solvePnPRefineLM(object, image, k, d, rs[s], ts[s]);
            write_pose(object, image, rs[s], ts[s], k, d, model, poses + 7 * s);
        }
        return BRIDGE_OK;
    });
}
} // namespace

extern "C" int32_t cvb_solve_pnp_points(const double *object_points, const double *image_points, int32_t count,
                                        const double *camera_matrix, const double *distortion, int32_t distortion_count,
                                        cvb_model model, int32_t planar, double *poses, int32_t *solutions) {
    return solve_points(object_points, image_points, count, camera_matrix, distortion, distortion_count, model,
                        planar ? cv::SOLVEPNP_IPPE : cv::SOLVEPNP_SQPNP, true, 2, poses, solutions);
}

extern "C" int32_t cvb_solve_pnp_iterative(const double *object_points, const double *image_points, int32_t count,
                                           const double *camera_matrix, const double *distortion, int32_t distortion_count,
                                           cvb_model model, double *pose) {
    int32_t solutions = 0;
    return solve_points(object_points, image_points, count, camera_matrix, distortion, distortion_count, model,
                        cv::SOLVEPNP_ITERATIVE, false, 1, pose, &solutions);
}
