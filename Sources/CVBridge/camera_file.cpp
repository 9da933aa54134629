// Camera intrinsics from OpenCV FileStorage files (the format of OpenCV's calibration sample).
#include <opencv2/core.hpp>
#include "bridge_error.hpp"

extern "C" int32_t cvb_read_camera(const char *path, double *camera_matrix, double *distortion,
                                   int32_t *distortion_count, int32_t *image_width, int32_t *image_height) {
    return cvb::guarded("read camera file", [&]() -> int32_t {
        if (path == nullptr || camera_matrix == nullptr || distortion == nullptr || distortion_count == nullptr ||
            image_width == nullptr || image_height == nullptr)
            return cvb::fail(CVB_ERR_ARGUMENT, "read camera file: null argument");
        cv::FileStorage storage(path, cv::FileStorage::READ);
        if (!storage.isOpened()) return cvb::fail(CVB_ERR_IO, "not an OpenCV FileStorage file");
        cv::Mat k, d;
        storage["camera_matrix"] >> k;
        storage["distortion_coefficients"] >> d;
        if (k.empty() || k.rows != 3 || k.cols != 3) return cvb::fail(CVB_ERR_IO, "no 3x3 camera_matrix");
        if (!d.empty() && d.total() > 14) return cvb::fail(CVB_ERR_IO, "more than 14 distortion_coefficients");
        k.convertTo(k, CV_64F);
        for (int i = 0; i < 9; ++i) camera_matrix[i] = k.at<double>(i / 3, i % 3);
        *distortion_count = 0;
        if (!d.empty()) {
            d = d.reshape(1, 1);
            d.convertTo(d, CV_64F);
            for (int i = 0; i < int(d.total()); ++i) distortion[i] = d.at<double>(0, i);
            *distortion_count = static_cast<int32_t>(d.total());
        }
        int w = 0, h = 0;
        if (!storage["image_width"].empty()) storage["image_width"] >> w;
        if (!storage["image_height"].empty()) storage["image_height"] >> h;
        *image_width = w;
        *image_height = h;
        return CVB_OK;
    });
}
