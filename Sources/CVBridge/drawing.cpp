// Drawing annotations onto BGR images with OpenCV's imgproc.
#include <vector>
#include <opencv2/imgproc.hpp>
#include "bridge_error.hpp"

namespace {
// Sub-pixel drawing: OpenCV takes fixed-point coordinates with `shift` fractional bits.
constexpr int kShift = 4;
cv::Point fixed(double x, double y) { return cv::Point(cvRound(x * (1 << kShift)), cvRound(y * (1 << kShift))); }
} // namespace

extern "C" int32_t cvb_draw_polyline(uint8_t *bgr, int32_t width, int32_t height, int32_t stride,
                                     const double *points, int32_t count, int32_t closed, int32_t blue, int32_t green,
                                     int32_t red, int32_t thickness) {
    return cvb::guarded("draw polyline", [&]() -> int32_t {
        if (!cvb::valid_image(bgr, width, height, stride, 3) || points == nullptr || count < 2 || thickness < 1)
            return cvb::fail(BRIDGE_ERR_ARGUMENT, "draw polyline: bad argument");
        std::vector<cv::Point> pts;
        for (int32_t i = 0; i < count; ++i) pts.push_back(fixed(points[2 * i], points[2 * i + 1]));
        cv::Mat image = cvb::view(bgr, width, height, stride, 3);
        cv::polylines(image, pts, closed != 0, cv::Scalar(blue, green, red), thickness, cv::LINE_AA, kShift);
        return BRIDGE_OK;
    });
}

extern "C" int32_t cvb_draw_circle(uint8_t *bgr, int32_t width, int32_t height, int32_t stride, double x, double y,
                                   double radius, int32_t blue, int32_t green, int32_t red, int32_t thickness) {
    return cvb::guarded("draw circle", [&]() -> int32_t {
        if (!cvb::valid_image(bgr, width, height, stride, 3) || !(radius > 0))
            return cvb::fail(BRIDGE_ERR_ARGUMENT, "draw circle: bad argument");
        cv::Mat image = cvb::view(bgr, width, height, stride, 3);
        cv::circle(image, fixed(x, y), cvRound(radius * (1 << kShift)), cv::Scalar(blue, green, red),
                   thickness, cv::LINE_AA, kShift);
        return BRIDGE_OK;
    });
}

extern "C" int32_t cvb_draw_text(uint8_t *bgr, int32_t width, int32_t height, int32_t stride, const char *text,
                                 double x, double y, double scale, int32_t blue, int32_t green, int32_t red,
                                 int32_t thickness) {
    return cvb::guarded("draw text", [&]() -> int32_t {
        if (!cvb::valid_image(bgr, width, height, stride, 3) || text == nullptr || !(scale > 0))
            return cvb::fail(BRIDGE_ERR_ARGUMENT, "draw text: bad argument");
        cv::Mat image = cvb::view(bgr, width, height, stride, 3);
        cv::putText(image, text, cv::Point(cvRound(x), cvRound(y)), cv::FONT_HERSHEY_SIMPLEX, scale,
                    cv::Scalar(blue, green, red), thickness, cv::LINE_AA);
        return BRIDGE_OK;
    });
}
