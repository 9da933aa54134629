// Camera calibration, projection and undistortion through calib3d (pinhole and fisheye models).
#include <algorithm>
#include <cmath>
#include <vector>
#include <opencv2/calib3d.hpp>
#include <opencv2/imgproc.hpp>
#include "bridge_error.hpp"

namespace {
// Standard deviations of the fisheye intrinsics (fx fy cx cy k1..k4), which cv::fisheye::calibrate does
// not give: the Gauss-Newton covariance sigma^2 (J^T J)^-1 at the solution, with each view's pose
// eliminated by its Schur complement, and sigma^2 from the residuals over the degrees of freedom (as
// calibrateCamera computes its own).
void fisheye_std_deviations(const std::vector<std::vector<cv::Point3d>> &boards, const std::vector<std::vector<cv::Point2d>> &images,
                            const std::vector<cv::Mat> &r, const std::vector<cv::Mat> &t, const cv::Mat &k,
                            const cv::Mat &d, double *std_out) {
    cv::Mat S = cv::Mat::zeros(8, 8, CV_64F);
    double squares = 0;
    size_t observations = 0;
    for (size_t v = 0; v < images.size(); ++v) {
        std::vector<cv::Point2d> projected;
        cv::Mat jacobian;
        cv::fisheye::projectPoints(boards[v], projected, r[v], t[v], k, d, 0, jacobian);
        cv::Mat ji = jacobian.colRange(0, 8), je = jacobian.colRange(8, 14);
        cv::Mat A = ji.t() * ji, B = ji.t() * je, D = je.t() * je;
        S += A - B * D.inv(cv::DECOMP_SVD) * B.t();
        for (size_t i = 0; i < projected.size(); ++i) {
            const cv::Point2d e = projected[i] - images[v][i];
            squares += e.dot(e);
        }
        observations += 2 * projected.size();
    }
    const double dof = double(observations) - 8 - 6 * double(images.size());
    const double sigma2 = dof > 0 ? squares / dof : 0;
    cv::Mat covariance = S.inv(cv::DECOMP_SVD) * sigma2;
    for (int i = 0; i < 8; ++i) std_out[i] = std::sqrt(std::max(0.0, covariance.at<double>(i, i)));
}

cv::Mat matrix3(const double *k) { return cv::Mat(3, 3, CV_64F, const_cast<double *>(k)).clone(); }
cv::Mat row(const double *d, int32_t n) {
    // No distortion is five zeros: some OpenCV functions refuse an empty coefficient matrix.
    return n > 0 ? cv::Mat(1, n, CV_64F, const_cast<double *>(d)).clone() : cv::Mat::zeros(1, 5, CV_64F);
}
} // namespace

namespace {
// The views' points as the caller gave them, in double precision.
struct Views {
    std::vector<std::vector<cv::Point3d>> boards;
    std::vector<std::vector<cv::Point2d>> images;
};

Views read_views(const double *object_points, const int32_t *view_points, const double *image_points, int32_t views) {
    Views out{std::vector<std::vector<cv::Point3d>>(views), std::vector<std::vector<cv::Point2d>>(views)};
    size_t at = 0;
    for (int32_t v = 0; v < views; ++v)
        for (int32_t i = 0; i < view_points[v]; ++i, ++at) {
            const double *o = object_points + 3 * at, *p = image_points + 2 * at;
            out.boards[v].emplace_back(o[0], o[1], o[2]);
            out.images[v].emplace_back(p[0], p[1]);
        }
    return out;
}

// cv::fisheye::calibrate, in double precision, with the standard deviations it does not give itself.
int32_t solve_fisheye(const Views &views, cv::Size size, bool guessed, cvb_calibration_options options, cv::Mat &k, cv::Mat &d,
                      std::vector<cv::Mat> &r, std::vector<cv::Mat> &t, cvb_calibration *out) {
    int flags = cv::fisheye::CALIB_RECOMPUTE_EXTRINSIC | cv::fisheye::CALIB_FIX_SKEW;
    if (guessed) flags |= cv::fisheye::CALIB_USE_INTRINSIC_GUESS;
    if (options & CVB_CALIB_FIX_ASPECT) return cvb::fail(BRIDGE_ERR_ARGUMENT, "the fisheye model cannot fix the aspect ratio");
    if (!guessed || d.total() != 4) d = cv::Mat::zeros(1, 4, CV_64F);
    out->rms = cv::fisheye::calibrate(views.boards, views.images, size, k, d, r, t, flags,
                                      cv::TermCriteria(cv::TermCriteria::COUNT + cv::TermCriteria::EPS, 100, 1e-12));
    fisheye_std_deviations(views.boards, views.images, r, t, k, d, out->std_deviations);
    out->std_count = 8;
    out->flags = flags;
    return BRIDGE_OK;
}

// cv::calibrateCamera for the pinhole models. It takes single-precision points only (its
// collectCalibrationData asks for Point3f and Point2f), so the points are narrowed for it alone.
int32_t solve_pinhole(const Views &views, cv::Size size, cvb_model model, bool guessed, cvb_calibration_options options, cv::Mat &k,
                      cv::Mat &d, std::vector<cv::Mat> &r, std::vector<cv::Mat> &t, cvb_calibration *out) {
    int flags = 0;
    if (model == CVB_MODEL_OPENCV8) flags |= cv::CALIB_RATIONAL_MODEL;
    if (guessed) flags |= cv::CALIB_USE_INTRINSIC_GUESS;
    if (options & CVB_CALIB_FIX_ASPECT) flags |= cv::CALIB_FIX_ASPECT_RATIO;
    if (options & CVB_CALIB_ZERO_TANGENT) flags |= cv::CALIB_ZERO_TANGENT_DIST;
    if (options & CVB_CALIB_FIX_K3) {
        flags |= cv::CALIB_FIX_K3;
        if (d.total() >= 5) d.at<double>(0, 4) = 0;
    }
    std::vector<std::vector<cv::Point3f>> boards(views.boards.size());
    std::vector<std::vector<cv::Point2f>> images(views.images.size());
    for (size_t v = 0; v < boards.size(); ++v) {
        for (const auto &p : views.boards[v]) boards[v].emplace_back(float(p.x), float(p.y), float(p.z));
        for (const auto &p : views.images[v]) images[v].emplace_back(float(p.x), float(p.y));
    }
    cv::Mat std_intrinsics, std_extrinsics, per_view;
    out->rms = cv::calibrateCamera(boards, images, size, k, d, r, t, std_intrinsics, std_extrinsics, per_view, flags);
    const int count = model == CVB_MODEL_OPENCV8 ? 8 : 5;
    d = d.reshape(1, 1).colRange(0, count).clone();
    out->std_count = 4 + count;
    for (int i = 0; i < 4 + count && i < std_intrinsics.rows; ++i) out->std_deviations[i] = std_intrinsics.at<double>(i);
    out->flags = flags;
    return BRIDGE_OK;
}

// Each view's pose, and its RMS computed the same way for every model: reprojection with the solved pose.
void report_views(const Views &views, cvb_model model, const cv::Mat &k, const cv::Mat &d, const std::vector<cv::Mat> &r,
                  const std::vector<cv::Mat> &t, double *rvecs, double *tvecs, double *per_view_rms) {
    for (size_t v = 0; v < views.boards.size(); ++v) {
        cv::Mat rv = r[v].reshape(1, 3), tv = t[v].reshape(1, 3);
        rv.convertTo(rv, CV_64F);
        tv.convertTo(tv, CV_64F);
        for (int i = 0; i < 3; ++i) {
            rvecs[3 * v + i] = rv.at<double>(i);
            tvecs[3 * v + i] = tv.at<double>(i);
        }
        std::vector<cv::Point2d> projected;
        if (model == CVB_MODEL_FISHEYE)
            cv::fisheye::projectPoints(views.boards[v], projected, rv, tv, k, d);
        else
            cv::projectPoints(views.boards[v], rv, tv, k, d, projected);
        double sum = 0;
        for (size_t i = 0; i < projected.size(); ++i) {
            const cv::Point2d e = projected[i] - views.images[v][i];
            sum += e.dot(e);
        }
        per_view_rms[v] = std::sqrt(sum / double(projected.size()));
    }
}
} // namespace

extern "C" int32_t cvb_calibrate(const double *object_points, const int32_t *view_points, const double *image_points,
                                 int32_t views, int32_t width, int32_t height, cvb_model model, cvb_calibration_options options,
                                 const cvb_calibration *guess, cvb_calibration *out, double *rvecs, double *tvecs,
                                 double *per_view_rms) {
    return cvb::guarded("calibrate", [&]() -> int32_t {
        if (object_points == nullptr || view_points == nullptr || image_points == nullptr || out == nullptr || rvecs == nullptr ||
            tvecs == nullptr || per_view_rms == nullptr || views < 1 || width <= 0 || height <= 0 || model < 0 || model > 2)
            return cvb::fail(BRIDGE_ERR_ARGUMENT, "calibrate: bad argument");
        for (int32_t v = 0; v < views; ++v)
            if (view_points[v] < 4) return cvb::fail(BRIDGE_ERR_ARGUMENT, "calibrate: a view with fewer than 4 points");
        const cvb_calibration start = guess != nullptr ? *guess : cvb_calibration{};
        *out = cvb_calibration{};
        const Views input = read_views(object_points, view_points, image_points, views);
        cv::Mat k = cv::Mat::eye(3, 3, CV_64F), d;
        if (guess != nullptr) {
            k = matrix3(start.camera_matrix);
            d = cv::Mat(1, start.distortion_count, CV_64F, const_cast<double *>(start.distortion)).clone();
        }
        std::vector<cv::Mat> r, t;
        const cv::Size size(width, height);
        const int32_t status = model == CVB_MODEL_FISHEYE ? solve_fisheye(input, size, guess != nullptr, options, k, d, r, t, out)
                                                          : solve_pinhole(input, size, model, guess != nullptr, options, k, d, r, t, out);
        if (status != BRIDGE_OK) return status;
        for (int i = 0; i < 9; ++i) out->camera_matrix[i] = k.at<double>(i / 3, i % 3);
        out->distortion_count = int32_t(d.total());
        for (int i = 0; i < int(d.total()); ++i) out->distortion[i] = d.at<double>(0, i);
        report_views(input, model, k, d, r, t, rvecs, tvecs, per_view_rms);
        return BRIDGE_OK;
    });
}

extern "C" int32_t cvb_project_model(const double *object_points, int32_t count, const double *rvec,
                                     const double *tvec, const double *camera_matrix, const double *distortion,
                                     int32_t distortion_count, cvb_model model, double *image_points) {
    return cvb::guarded("project", [&]() -> int32_t {
        if (object_points == nullptr || count < 1 || rvec == nullptr || tvec == nullptr || camera_matrix == nullptr ||
            image_points == nullptr || (model == CVB_MODEL_FISHEYE && distortion_count != 4))
            return cvb::fail(BRIDGE_ERR_ARGUMENT, "project: bad argument");
        std::vector<cv::Point3d> object;
        for (int32_t i = 0; i < count; ++i)
            object.emplace_back(object_points[3 * i], object_points[3 * i + 1], object_points[3 * i + 2]);
        std::vector<cv::Point2d> image;
        cv::Mat r(3, 1, CV_64F, const_cast<double *>(rvec)), t(3, 1, CV_64F, const_cast<double *>(tvec));
        if (model == CVB_MODEL_FISHEYE)
            cv::fisheye::projectPoints(object, image, r, t, matrix3(camera_matrix), row(distortion, distortion_count));
        else
            cv::projectPoints(object, r, t, matrix3(camera_matrix), row(distortion, distortion_count), image);
        for (int32_t i = 0; i < count; ++i) {
            image_points[2 * i] = image[i].x;
            image_points[2 * i + 1] = image[i].y;
        }
        return BRIDGE_OK;
    });
}

extern "C" int32_t cvb_optimal_camera_matrix(const double *camera_matrix, const double *distortion,
                                             int32_t distortion_count, cvb_model model, int32_t width, int32_t height,
                                             double alpha, double *new_matrix) {
    return cvb::guarded("optimal camera matrix", [&]() -> int32_t {
        if (camera_matrix == nullptr || new_matrix == nullptr || width <= 0 || height <= 0 || !(alpha >= 0 && alpha <= 1))
            return cvb::fail(BRIDGE_ERR_ARGUMENT, "optimal camera matrix: bad argument");
        cv::Mat k = matrix3(camera_matrix), d = row(distortion, distortion_count), result;
        if (model == CVB_MODEL_FISHEYE)
            cv::fisheye::estimateNewCameraMatrixForUndistortRectify(k, d, cv::Size(width, height), cv::Mat::eye(3, 3, CV_64F),
                                                                    result, alpha);
        else
            result = cv::getOptimalNewCameraMatrix(k, d, cv::Size(width, height), alpha);
        for (int i = 0; i < 9; ++i) new_matrix[i] = result.at<double>(i / 3, i % 3);
        return BRIDGE_OK;
    });
}

extern "C" int32_t cvb_undistort(const uint8_t *pixels, int32_t width, int32_t height, int32_t stride,
                                 int32_t channels, const double *camera_matrix, const double *distortion,
                                 int32_t distortion_count, cvb_model model, const double *new_matrix, uint8_t *out) {
    return cvb::guarded("undistort", [&]() -> int32_t {
        if (!cvb::valid_image(pixels, width, height, stride, channels) || camera_matrix == nullptr ||
            new_matrix == nullptr || out == nullptr)
            return cvb::fail(BRIDGE_ERR_ARGUMENT, "undistort: bad argument");
        cv::Mat source = cvb::view(pixels, width, height, stride, channels);
        cv::Mat target(height, width, source.type(), out, size_t(stride));
        cv::Mat k = matrix3(camera_matrix), d = row(distortion, distortion_count), knew = matrix3(new_matrix);
        cv::Mat map1, map2;
        if (model == CVB_MODEL_FISHEYE)
            cv::fisheye::initUndistortRectifyMap(k, d, cv::Mat::eye(3, 3, CV_64F), knew, cv::Size(width, height), CV_16SC2,
                                                 map1, map2);
        else
            cv::initUndistortRectifyMap(k, d, cv::Mat(), knew, cv::Size(width, height), CV_16SC2, map1, map2);
        cv::remap(source, target, map1, map2, cv::INTER_LINEAR, cv::BORDER_CONSTANT);
        return BRIDGE_OK;
    });
}

extern "C" int32_t cvb_undistort_points(const double *pixels, int32_t count, const double *camera_matrix,
                                        const double *distortion, int32_t distortion_count, cvb_model model,
                                        double *normalized) {
    return cvb::guarded("undistort points", [&]() -> int32_t {
        if (pixels == nullptr || normalized == nullptr || camera_matrix == nullptr || count < 0)
            return cvb::fail(BRIDGE_ERR_ARGUMENT, "undistort points: bad argument");
        if (count == 0) return BRIDGE_OK;
        cv::Mat source(count, 1, CV_64FC2, const_cast<double *>(pixels));
        cv::Mat target(count, 1, CV_64FC2, normalized);
        const cv::TermCriteria criteria(cv::TermCriteria::COUNT + cv::TermCriteria::EPS, 100, 1e-14);
        if (model == CVB_MODEL_FISHEYE)
            cv::fisheye::undistortPoints(source, target, matrix3(camera_matrix), row(distortion, distortion_count),
                                         cv::noArray(), cv::noArray(), criteria);
        else
            cv::undistortPoints(source, target, matrix3(camera_matrix), row(distortion, distortion_count), cv::noArray(),
                                cv::noArray(), criteria);
        return BRIDGE_OK;
    });
}

extern "C" int32_t cvb_gaussian_blur(uint8_t *gray, int32_t width, int32_t height, int32_t stride, double sigma) {
    return cvb::guarded("blur", [&]() -> int32_t {
        if (!cvb::valid_gray(gray, width, height, stride) || !(sigma >= 0)) return cvb::fail(BRIDGE_ERR_ARGUMENT, "blur: bad argument");
        if (sigma == 0) return BRIDGE_OK;
        cv::Mat image = cvb::gray_view(gray, width, height, stride);
        cv::GaussianBlur(image.clone(), image, cv::Size(0, 0), sigma, sigma, cv::BORDER_REFLECT);
        return BRIDGE_OK;
    });
}
