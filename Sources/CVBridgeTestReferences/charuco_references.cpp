// OpenCV's own ChArUco board layout (legacy aruco API of 4.6): what MarkerKit's CharucoBoard is held to.
#include <opencv2/aruco/charuco.hpp>
#include "cvbridge_test_references.h"

extern "C" int32_t cvb_charuco_board_opencv(int32_t squares_x, int32_t squares_y, float square, float marker,
                                            int32_t dictionary_name, int32_t *ids, float *marker_corners,
                                            int32_t marker_capacity, float *chessboard_corners,
                                            int32_t corner_capacity, int32_t *corner_count) {
    return bridge::guarded("charuco board", [&]() -> int32_t {
        if (ids == nullptr || marker_corners == nullptr || chessboard_corners == nullptr || corner_count == nullptr)
            return bridge::fail(BRIDGE_ERR_ARGUMENT, "charuco board: null output");
        auto dictionary = cv::aruco::getPredefinedDictionary(dictionary_name);
        auto board = cv::aruco::CharucoBoard::create(squares_x, squares_y, square, marker, dictionary);
        const int32_t markers = static_cast<int32_t>(board->ids.size());
        const int32_t corners = static_cast<int32_t>(board->chessboardCorners.size());
        if (markers > marker_capacity || corners > corner_capacity)
            return bridge::fail(BRIDGE_ERR_ARGUMENT, "charuco board: output too small");
        for (int32_t i = 0; i < markers; i++) {
            ids[i] = board->ids[i];
            for (int k = 0; k < 4; k++) {
                marker_corners[8 * i + 2 * k] = board->objPoints[i][k].x;
                marker_corners[8 * i + 2 * k + 1] = board->objPoints[i][k].y;
            }
        }
        for (int32_t i = 0; i < corners; i++) {
            chessboard_corners[2 * i] = board->chessboardCorners[i].x;
            chessboard_corners[2 * i + 1] = board->chessboardCorners[i].y;
        }
        *corner_count = corners;
        return markers;
    });
}
