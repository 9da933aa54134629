// Pose and projection through calib3d.
#include <vector>
#include <opencv2/calib3d.hpp>
#include "bridge_error.hpp"

namespace {
cv::Mat camera(const double *k) { return cv::Mat(3, 3, CV_64F, const_cast<double *>(k)).clone(); }
cv::Mat coefficients(const double *d, int32_t n) {
    return n > 0 ? cv::Mat(1, n, CV_64F, const_cast<double *>(d)).clone() : cv::Mat();
}
bool valid_distortion_count(int32_t n) { return n == 0 || n == 4 || n == 5 || n == 8 || n == 12 || n == 14; }
} // namespace

extern "C" int32_t cvb_solve_pnp_square(const double *image_corners, double side, const double *camera_matrix,
                                        const double *distortion, int32_t distortion_count, double *rvec,
                                        double *tvec) {
    return cvb::guarded("solvePnP", [&]() -> int32_t {
        if (image_corners == nullptr || camera_matrix == nullptr || rvec == nullptr || tvec == nullptr ||
            !(side > 0) || !valid_distortion_count(distortion_count) || (distortion_count > 0 && distortion == nullptr))
            return cvb::fail(CVB_ERR_ARGUMENT, "solvePnP: bad argument");
        const double h = side / 2;
        std::vector<cv::Point3d> object = {{-h, h, 0}, {h, h, 0}, {h, -h, 0}, {-h, -h, 0}};
        std::vector<cv::Point2d> image;
        for (int i = 0; i < 4; ++i) image.emplace_back(image_corners[2 * i], image_corners[2 * i + 1]);
        cv::Mat r, t;
        if (!cv::solvePnP(object, image, camera(camera_matrix), coefficients(distortion, distortion_count), r, t,
                          false, cv::SOLVEPNP_IPPE_SQUARE))
            return cvb::fail(CVB_ERR_ARGUMENT, "solvePnP found no pose");
        for (int i = 0; i < 3; ++i) {
            rvec[i] = r.at<double>(i);
            tvec[i] = t.at<double>(i);
        }
        return CVB_OK;
    });
}

extern "C" int32_t cvb_project_points(const double *object_points, int32_t count, const double *rvec,
                                      const double *tvec, const double *camera_matrix, const double *distortion,
                                      int32_t distortion_count, double *image_points) {
    return cvb::guarded("projectPoints", [&]() -> int32_t {
        if (object_points == nullptr || count < 1 || rvec == nullptr || tvec == nullptr || camera_matrix == nullptr ||
            image_points == nullptr || !valid_distortion_count(distortion_count))
            return cvb::fail(CVB_ERR_ARGUMENT, "projectPoints: bad argument");
        std::vector<cv::Point3d> object;
        for (int32_t i = 0; i < count; ++i)
            object.emplace_back(object_points[3 * i], object_points[3 * i + 1], object_points[3 * i + 2]);
        std::vector<cv::Point2d> image;
        cv::projectPoints(object, cv::Mat(3, 1, CV_64F, const_cast<double *>(rvec)),
                          cv::Mat(3, 1, CV_64F, const_cast<double *>(tvec)), camera(camera_matrix),
                          coefficients(distortion, distortion_count), image);
        for (int32_t i = 0; i < count; ++i) {
            image_points[2 * i] = image[i].x;
            image_points[2 * i + 1] = image[i].y;
        }
        return CVB_OK;
    });
}
