// OpenCV's aruco module (legacy 4.6 API) and its predefined dictionaries: the independent reference.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <vector>
#include <opencv2/aruco.hpp>
#include <opencv2/aruco/charuco.hpp>
#include <opencv2/imgproc.hpp>
#include "bridge_error.hpp"

namespace {
// OpenCV's PREDEFINED_DICTIONARY_NAME values run 0 (DICT_4X4_50) to 20 (DICT_APRILTAG_36h11).
bool known_dictionary(int32_t name) { return name >= 0 && name <= 20; }

const cv::Ptr<cv::aruco::Dictionary> &dictionary(int32_t name) {
    static const std::vector<cv::Ptr<cv::aruco::Dictionary>> all = [] {
        std::vector<cv::Ptr<cv::aruco::Dictionary>> d;
        for (int i = 0; i <= 20; ++i) d.push_back(cv::aruco::getPredefinedDictionary(i));
        return d;
    }();
    return all[name];
}
} // namespace

extern "C" int32_t cvb_aruco_dictionary_info(int32_t name, int32_t *marker_size, int32_t *max_correction_bits) {
    return cvb::guarded("aruco dictionary", [&]() -> int32_t {
        if (!known_dictionary(name)) return cvb::fail(BRIDGE_ERR_ARGUMENT, "aruco dictionary: unknown dictionary");
        const auto &d = dictionary(name);
        if (marker_size) *marker_size = d->markerSize;
        if (max_correction_bits) *max_correction_bits = d->maxCorrectionBits;
        return d->bytesList.rows;
    });
}

extern "C" int32_t cvb_aruco_dictionary_bits(int32_t name, int32_t id, uint8_t *bits, int32_t capacity) {
    return cvb::guarded("aruco dictionary", [&]() -> int32_t {
        if (!known_dictionary(name)) return cvb::fail(BRIDGE_ERR_ARGUMENT, "aruco dictionary: unknown dictionary");
        const auto &d = dictionary(name);
        if (bits == nullptr || id < 0 || id >= d->bytesList.rows || capacity < d->markerSize * d->markerSize)
            return cvb::fail(BRIDGE_ERR_ARGUMENT, "aruco dictionary: id out of range or buffer too small");
        cv::Mat grid = cv::aruco::Dictionary::getBitsFromByteList(d->bytesList.rowRange(id, id + 1), d->markerSize);
        for (int y = 0; y < grid.rows; ++y)
            for (int x = 0; x < grid.cols; ++x) bits[y * grid.cols + x] = grid.at<uint8_t>(y, x) ? 1 : 0;
        return d->markerSize;
    });
}

extern "C" int32_t cvb_aruco_detect(const uint8_t *gray, int32_t width, int32_t height, int32_t stride,
                                    int32_t dictionary_name, cvb_aruco_mode mode, cvb_marker *out, int32_t capacity) {
    return cvb::guarded("aruco detect", [&]() -> int32_t {
        if (!cvb::valid_gray(gray, width, height, stride) || capacity < 0 || (capacity > 0 && out == nullptr) ||
            !known_dictionary(dictionary_name))
            return cvb::fail(BRIDGE_ERR_ARGUMENT, "aruco detect: bad image or output buffer");
        cv::Mat image = cvb::gray_view(gray, width, height, stride);
        auto parameters = cv::aruco::DetectorParameters::create();
        if (mode == CVB_ARUCO_SUBPIXEL) parameters->cornerRefinementMethod = cv::aruco::CORNER_REFINE_SUBPIX;
        if (mode == CVB_ARUCO_3) parameters->useAruco3Detection = true;
        std::vector<std::vector<cv::Point2f>> corners;
        std::vector<int> ids;
        cv::aruco::detectMarkers(image, dictionary(dictionary_name), corners, ids, parameters);
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

extern "C" int32_t cvb_aruco_candidate_stage(const uint8_t *gray, int32_t width, int32_t height, int32_t stride, double *window_ms) {
    return cvb::guarded("aruco candidate stage", [&]() -> int32_t {
        if (!cvb::valid_gray(gray, width, height, stride)) return cvb::fail(BRIDGE_ERR_ARGUMENT, "aruco candidate stage: bad argument");
        const cv::Mat grey = cvb::gray_view(gray, width, height, stride);
        const auto params = cv::aruco::DetectorParameters::create();
        const int longest = std::max(width, height);
        const double min_perimeter = params->minMarkerPerimeterRate * longest, max_perimeter = params->maxMarkerPerimeterRate * longest;
        int32_t candidates = 0;
        cv::Mat thresh;
        std::vector<std::vector<cv::Point>> contours;
        std::vector<cv::Point> polygon;
        // detectMarkers' first stage (_detectInitialCandidates, _findMarkerContours in OpenCV 4.6), its
        // threshold windows one after another here where detectMarkers runs them as one parallel_for_ job
        // each.
        int index = 0;
        for (int window = params->adaptiveThreshWinSizeMin; window <= params->adaptiveThreshWinSizeMax;
             window += params->adaptiveThreshWinSizeStep, ++index) {
            const auto start = std::chrono::steady_clock::now();
            cv::adaptiveThreshold(grey, thresh, 255, cv::ADAPTIVE_THRESH_MEAN_C, cv::THRESH_BINARY_INV, window | 1,
                                  params->adaptiveThreshConstant);
            cv::findContours(thresh, contours, cv::RETR_LIST, cv::CHAIN_APPROX_NONE);
            for (const auto &contour : contours) {
                if (contour.size() < min_perimeter || contour.size() > max_perimeter) continue;
                cv::approxPolyDP(contour, polygon, double(contour.size()) * params->polygonalApproxAccuracyRate, true);
                if (polygon.size() != 4 || !cv::isContourConvex(polygon)) continue;
                double min_side = 1e300;
                for (int i = 0; i < 4; ++i) {
                    const cv::Point d = polygon[i] - polygon[(i + 1) % 4];
                    min_side = std::min(min_side, double(d.x) * d.x + double(d.y) * d.y);
                }
                if (min_side < std::pow(contour.size() * params->minCornerDistanceRate, 2)) continue;
                bool near_border = false;
                for (const auto &corner : polygon)
                    near_border |= corner.x < params->minDistanceToBorder || corner.y < params->minDistanceToBorder ||
                                   corner.x > width - 1 - params->minDistanceToBorder || corner.y > height - 1 - params->minDistanceToBorder;
                if (!near_border) ++candidates;
            }
            if (window_ms != nullptr && index < 3)
                window_ms[index] = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        }
        return candidates;
    });
}

extern "C" int32_t cvb_threshold_pass(const uint8_t *gray, int32_t width, int32_t height, int32_t stride, uint8_t *binary) {
    return cvb::guarded("threshold", [&]() -> int32_t {
        if (!cvb::valid_gray(gray, width, height, stride) || binary == nullptr) return cvb::fail(BRIDGE_ERR_ARGUMENT, "threshold: bad argument");
        cv::Mat out(height, width, CV_8UC1, binary);
        cv::threshold(cvb::gray_view(gray, width, height, stride), out, 0, 255, cv::THRESH_BINARY | cv::THRESH_OTSU);
        return BRIDGE_OK;
    });
}

extern "C" int32_t cvb_charuco_interpolate(const uint8_t *gray, int32_t width, int32_t height, int32_t stride,
                                           int32_t squares_x, int32_t squares_y, double square, double marker,
                                           int32_t dictionary_name, const double *camera_matrix, const double *distortion,
                                           int32_t distortion_count, int32_t *ids, double *corners, int32_t capacity) {
    return cvb::guarded("charuco detection", [&]() -> int32_t {
        if (gray == nullptr || width <= 0 || height <= 0 || stride < width || ids == nullptr || corners == nullptr ||
            !known_dictionary(dictionary_name) || squares_x < 2 || squares_y < 2 || !(marker > 0) || !(square > marker) ||
            distortion_count < 0 || distortion_count > 14 || (distortion_count > 0 && distortion == nullptr))
            return cvb::fail(BRIDGE_ERR_ARGUMENT, "charuco detection: bad argument");
        cv::Mat image(height, width, CV_8UC1, const_cast<uint8_t *>(gray), static_cast<size_t>(stride));
        const auto &d = dictionary(dictionary_name);
        auto board = cv::aruco::CharucoBoard::create(squares_x, squares_y, float(square), float(marker), d);
        std::vector<std::vector<cv::Point2f>> marker_corners;
        std::vector<int> marker_ids;
        cv::aruco::detectMarkers(image, d, marker_corners, marker_ids);
        if (marker_ids.empty()) return 0;
        std::vector<cv::Point2f> charuco_corners;
        std::vector<int> charuco_ids;
        if (camera_matrix != nullptr) {
            cv::Mat k(3, 3, CV_64F, const_cast<double *>(camera_matrix));
            cv::Mat dist = distortion_count > 0 ? cv::Mat(1, distortion_count, CV_64F, const_cast<double *>(distortion))
                                                : cv::Mat::zeros(1, 5, CV_64F);
            cv::aruco::interpolateCornersCharuco(marker_corners, marker_ids, image, board, charuco_corners, charuco_ids, k, dist);
        } else {
            cv::aruco::interpolateCornersCharuco(marker_corners, marker_ids, image, board, charuco_corners, charuco_ids);
        }
        const int32_t found = static_cast<int32_t>(charuco_ids.size());
        for (int32_t i = 0; i < found && i < capacity; i++) {
            ids[i] = charuco_ids[i];
            corners[2 * i] = charuco_corners[i].x;
            corners[2 * i + 1] = charuco_corners[i].y;
        }
        return found;
    });
}
