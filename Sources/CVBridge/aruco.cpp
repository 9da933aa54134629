// OpenCV's aruco module (legacy 4.6 API) with DICT_ARUCO_ORIGINAL: the independent reference.
#include <vector>
#include <opencv2/aruco.hpp>
#include <opencv2/imgproc.hpp>
#include "bridge_error.hpp"

namespace {
const cv::Ptr<cv::aruco::Dictionary> &original_dictionary() {
    static const cv::Ptr<cv::aruco::Dictionary> dictionary =
        cv::aruco::getPredefinedDictionary(cv::aruco::DICT_ARUCO_ORIGINAL);
    return dictionary;
}
} // namespace

extern "C" int32_t cvb_aruco_original_count(void) {
    return cvb::guarded("aruco dictionary", []() -> int32_t { return original_dictionary()->bytesList.rows; });
}

extern "C" int32_t cvb_aruco_original_bits(int32_t id, uint8_t *bits) {
    return cvb::guarded("aruco dictionary", [&]() -> int32_t {
        const auto &dictionary = original_dictionary();
        if (bits == nullptr || id < 0 || id >= dictionary->bytesList.rows)
            return cvb::fail(CVB_ERR_ARGUMENT, "aruco dictionary: id out of range");
        cv::Mat grid = cv::aruco::Dictionary::getBitsFromByteList(dictionary->bytesList.rowRange(id, id + 1),
                                                                  dictionary->markerSize);
        for (int y = 0; y < grid.rows; ++y)
            for (int x = 0; x < grid.cols; ++x) bits[y * grid.cols + x] = grid.at<uint8_t>(y, x) ? 1 : 0;
        return CVB_OK;
    });
}

extern "C" int32_t cvb_aruco_detect(const uint8_t *gray, int32_t width, int32_t height, int32_t stride,
                                    int32_t mode, cvb_marker *out, int32_t capacity) {
    return cvb::guarded("aruco detect", [&]() -> int32_t {
        if (!cvb::valid_gray(gray, width, height, stride) || capacity < 0 || (capacity > 0 && out == nullptr))
            return cvb::fail(CVB_ERR_ARGUMENT, "aruco detect: bad image or output buffer");
        cv::Mat image = cvb::gray_view(gray, width, height, stride);
        auto parameters = cv::aruco::DetectorParameters::create();
        if (mode == 1) parameters->cornerRefinementMethod = cv::aruco::CORNER_REFINE_SUBPIX;
        if (mode == 2) parameters->useAruco3Detection = true;
        std::vector<std::vector<cv::Point2f>> corners;
        std::vector<int> ids;
        cv::aruco::detectMarkers(image, original_dictionary(), corners, ids, parameters);
        const int32_t found = static_cast<int32_t>(ids.size());
        for (int32_t i = 0; i < found && i < capacity; ++i) {
            out[i].id = ids[i];
            for (int c = 0; c < 4; ++c) {
                out[i].corners[2 * c] = corners[i][c].x;
                out[i].corners[2 * c + 1] = corners[i][c].y;
            }
        }
        return found;
    });
}

extern "C" int32_t cvb_threshold_pass(const uint8_t *gray, int32_t width, int32_t height, int32_t stride, uint8_t *binary) {
    return cvb::guarded("threshold", [&]() -> int32_t {
        if (!cvb::valid_gray(gray, width, height, stride) || binary == nullptr) return cvb::fail(CVB_ERR_ARGUMENT, "threshold: bad argument");
        cv::Mat out(height, width, CV_8UC1, binary);
        cv::threshold(cvb::gray_view(gray, width, height, stride), out, 0, 255, cv::THRESH_BINARY | cv::THRESH_OTSU);
        return CVB_OK;
    });
}
