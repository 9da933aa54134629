// OpenCV's stereo calibration (the reference the joint solve is compared with), rectification and its
// maps, and remapping a picture through them.
#include <cmath>
#include <vector>
#include <opencv2/calib3d.hpp>
#include <opencv2/imgproc.hpp>
#include "bridge_error.hpp"
#include "projection.hpp"

namespace {
cv::Mat mat(const double *values, int rows, int cols) { return cv::Mat(rows, cols, CV_64F, const_cast<double *>(values)).clone(); }
void put(const cv::Mat &m, double *out) {
    cv::Mat d;
    m.convertTo(d, CV_64F);
    d = d.reshape(1, 1);
    for (int i = 0; i < d.cols; ++i) out[i] = d.at<double>(i);
}
} // namespace

extern "C" int32_t cvb_stereo_calibrate(const double *object_points, const int32_t *view_points, const double *image_points_1,
                                        const double *image_points_2, int32_t views, int32_t width, int32_t height, cvb_model model,
                                        double *camera_matrix_1, double *distortion_1, double *camera_matrix_2, double *distortion_2,
                                        int32_t distortion_count, int32_t fix_intrinsic, double *rotation, double *translation, double *rms) {
    return cvb::guarded("stereo calibrate", [&]() -> int32_t {
        if (object_points == nullptr || view_points == nullptr || image_points_1 == nullptr || image_points_2 == nullptr || views < 1 ||
            width <= 0 || height <= 0 || camera_matrix_1 == nullptr || camera_matrix_2 == nullptr || rotation == nullptr ||
            translation == nullptr || rms == nullptr || model < 0 || model > 2 || (model == CVB_MODEL_FISHEYE && distortion_count != 4))
            return cvb::fail(BRIDGE_ERR_ARGUMENT, "stereo calibrate: bad argument");
        std::vector<std::vector<cv::Point3d>> object(views);
        std::vector<std::vector<cv::Point2d>> first(views), second(views);
        size_t at = 0;
        for (int v = 0; v < views; ++v)
            for (int i = 0; i < view_points[v]; ++i, ++at) {
                object[v].emplace_back(object_points[3 * at], object_points[3 * at + 1], object_points[3 * at + 2]);
                first[v].emplace_back(image_points_1[2 * at], image_points_1[2 * at + 1]);
                second[v].emplace_back(image_points_2[2 * at], image_points_2[2 * at + 1]);
            }
        cv::Mat k1 = mat(camera_matrix_1, 3, 3), k2 = mat(camera_matrix_2, 3, 3);
        cv::Mat d1 = cvb::coefficients_of(distortion_1, distortion_count), d2 = cvb::coefficients_of(distortion_2, distortion_count);
        cv::Mat r, t, e, f;
        const cv::TermCriteria criteria(cv::TermCriteria::COUNT + cv::TermCriteria::EPS, 100, 1e-10);
        // OpenCV's stereo solvers take float points only.
        std::vector<std::vector<cv::Point3f>> o(views);
        std::vector<std::vector<cv::Point2f>> a(views), b(views);
        for (int v = 0; v < views; ++v) {
            for (auto &p : object[v]) o[v].emplace_back(float(p.x), float(p.y), float(p.z));
            for (auto &p : first[v]) a[v].emplace_back(float(p.x), float(p.y));
            for (auto &p : second[v]) b[v].emplace_back(float(p.x), float(p.y));
        }
        if (model == CVB_MODEL_FISHEYE) {
            const int flags = fix_intrinsic ? cv::fisheye::CALIB_FIX_INTRINSIC : (cv::fisheye::CALIB_USE_INTRINSIC_GUESS | cv::fisheye::CALIB_FIX_SKEW);
            *rms = cv::fisheye::stereoCalibrate(o, a, b, k1, d1, k2, d2, cv::Size(width, height), r, t, flags, criteria);
        } else {
            int flags = fix_intrinsic ? cv::CALIB_FIX_INTRINSIC : cv::CALIB_USE_INTRINSIC_GUESS;
            if (model == CVB_MODEL_OPENCV8) flags |= cv::CALIB_RATIONAL_MODEL;
            *rms = cv::stereoCalibrate(o, a, b, k1, d1, k2, d2, cv::Size(width, height), r, t, e, f, flags, criteria);
        }
        put(k1, camera_matrix_1);
        put(k2, camera_matrix_2);
        if (distortion_count > 0) {
            cv::Mat a = d1.reshape(1, 1), b = d2.reshape(1, 1);
            for (int i = 0; i < distortion_count; ++i) {
                distortion_1[i] = a.at<double>(i);
                distortion_2[i] = b.at<double>(i);
            }
        }
        if (r.rows == 3 && r.cols == 3) put(r, rotation);
        else {
            cv::Mat m;
            cv::Rodrigues(r, m);
            put(m, rotation);
        }
        put(t, translation);
        return BRIDGE_OK;
    });
}

extern "C" int32_t cvb_stereo_rectify(const double *camera_matrix_1, const double *distortion_1, const double *camera_matrix_2,
                                      const double *distortion_2, int32_t distortion_count, cvb_model model, int32_t width, int32_t height,
                                      const double *rotation, const double *translation, double alpha, double *r1, double *r2, double *p1,
                                      double *p2, double *q) {
    return cvb::guarded("stereo rectify", [&]() -> int32_t {
        if (camera_matrix_1 == nullptr || camera_matrix_2 == nullptr || rotation == nullptr || translation == nullptr || width <= 0 ||
            height <= 0 || !(alpha >= 0 && alpha <= 1) || r1 == nullptr || r2 == nullptr || p1 == nullptr || p2 == nullptr ||
            q == nullptr || model < 0 || model > 2 || (model == CVB_MODEL_FISHEYE && distortion_count != 4))
            return cvb::fail(BRIDGE_ERR_ARGUMENT, "stereo rectify: bad argument");
        const cv::Mat k1 = mat(camera_matrix_1, 3, 3), k2 = mat(camera_matrix_2, 3, 3), r = mat(rotation, 3, 3), t = mat(translation, 3, 1);
        const cv::Mat d1 = cvb::coefficients_of(distortion_1, distortion_count), d2 = cvb::coefficients_of(distortion_2, distortion_count);
        cv::Mat a, b, c, d, e;
        const cv::Size size(width, height);
        if (model == CVB_MODEL_FISHEYE)
            cv::fisheye::stereoRectify(k1, d1, k2, d2, size, r, t, a, b, c, d, e, cv::CALIB_ZERO_DISPARITY, size, alpha);
        else
            cv::stereoRectify(k1, d1, k2, d2, size, r, t, a, b, c, d, e, cv::CALIB_ZERO_DISPARITY, alpha, size);
        put(a, r1);
        put(b, r2);
        put(c, p1);
        put(d, p2);
        put(e, q);
        return BRIDGE_OK;
    });
}

extern "C" int32_t cvb_rectify_map(const double *camera_matrix, const double *distortion, int32_t distortion_count, cvb_model model,
                                   const double *rectification, const double *projection, int32_t width, int32_t height, float *map_x,
                                   float *map_y) {
    return cvb::guarded("rectify map", [&]() -> int32_t {
        if (camera_matrix == nullptr || rectification == nullptr || projection == nullptr || width <= 0 || height <= 0 ||
            map_x == nullptr || map_y == nullptr || model < 0 || model > 2 || (model == CVB_MODEL_FISHEYE && distortion_count != 4))
            return cvb::fail(BRIDGE_ERR_ARGUMENT, "rectify map: bad argument");
        const cv::Mat k = mat(camera_matrix, 3, 3), d = cvb::coefficients_of(distortion, distortion_count);
        const cv::Mat r = mat(rectification, 3, 3), p = mat(projection, 3, 4);
        cv::Mat x(height, width, CV_32FC1, map_x), y(height, width, CV_32FC1, map_y);
        if (model == CVB_MODEL_FISHEYE)
            cv::fisheye::initUndistortRectifyMap(k, d, r, p, cv::Size(width, height), CV_32FC1, x, y);
        else
            cv::initUndistortRectifyMap(k, d, r, p, cv::Size(width, height), CV_32FC1, x, y);
        if (x.data != reinterpret_cast<uchar *>(map_x) || y.data != reinterpret_cast<uchar *>(map_y))
            return cvb::fail(BRIDGE_ERR_EXCEPTION, "rectify map: OpenCV reallocated the maps");
        return BRIDGE_OK;
    });
}

extern "C" int32_t cvb_remap(const uint8_t *pixels, int32_t width, int32_t height, int32_t stride, int32_t channels, const float *map_x,
                             const float *map_y, uint8_t *out) {
    return cvb::guarded("remap", [&]() -> int32_t {
        if (!cvb::valid_image(pixels, width, height, stride, channels) || out == nullptr || map_x == nullptr || map_y == nullptr)
            return cvb::fail(BRIDGE_ERR_ARGUMENT, "remap: bad argument");
        const cv::Mat source = cvb::view(pixels, width, height, stride, channels);
        cv::Mat target = cvb::view(out, width, height, stride, channels);
        const cv::Mat x(height, width, CV_32FC1, const_cast<float *>(map_x)), y(height, width, CV_32FC1, const_cast<float *>(map_y));
        cv::remap(source, target, x, y, cv::INTER_LINEAR, cv::BORDER_CONSTANT);
        return BRIDGE_OK;
    });
}
