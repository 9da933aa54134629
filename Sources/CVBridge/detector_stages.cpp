// The image-wide stages of the marker detector: whole operations, never per pixel across the boundary.
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <opencv2/imgproc.hpp>
#include <opencv2/imgproc/imgproc_c.h>
#include "bridge_error.hpp"

extern "C" int32_t cvb_adaptive_threshold(const uint8_t *gray, int32_t width, int32_t height, int32_t stride,
                                          int32_t window, double constant, uint8_t *binary) {
    return cvb::guarded("adaptive threshold", [&]() -> int32_t {
        if (!cvb::valid_gray(gray, width, height, stride) || binary == nullptr || window < 3 || window % 2 == 0)
            return cvb::fail(CVB_ERR_ARGUMENT, "adaptive threshold: bad image or window");
        cv::Mat out(height, width, CV_8UC1, binary);
        cv::adaptiveThreshold(cvb::gray_view(gray, width, height, stride), out, 255, cv::ADAPTIVE_THRESH_MEAN_C,
                              cv::THRESH_BINARY_INV, window, constant);
        return CVB_OK;
    });
}

namespace {
// What the contour stage keeps from frame to frame on one thread: the bordered copy the scanner
// writes into, the scanner's memory blocks (cleared, not freed), and the flat output.
struct ContourWorkspace {
    cv::Mat bordered;
    cv::Ptr<CvMemStorage> storage{cvCreateMemStorage(0), [](CvMemStorage *s) { cvReleaseMemStorage(&s); }};
    std::vector<int32_t> offsets, points;
};
}

extern "C" int32_t cvb_find_contours(const uint8_t *binary, int32_t width, int32_t height, int32_t stride,
                                     int32_t min_points, int32_t max_points, cvb_contours *out) {
    return cvb::guarded("find contours", [&]() -> int32_t {
        if (!cvb::valid_gray(binary, width, height, stride) || out == nullptr)
            return cvb::fail(CVB_ERR_ARGUMENT, "find contours: bad image");
        *out = cvb_contours{0, nullptr, nullptr};
        static thread_local ContourWorkspace work;
        // As cv::findContours does: a one-pixel zero frame, so regions touching the image edge keep
        // their edge pixels (the scanner clears the outermost pixels of what it is given).
        cv::copyMakeBorder(cvb::gray_view(binary, width, height, stride), work.bordered, 1, 1, 1, 1,
                           cv::BORDER_CONSTANT | cv::BORDER_ISOLATED, cv::Scalar(0));
        cvClearMemStorage(work.storage);
        CvMat header = cvMat(work.bordered);
        CvSeq *first = nullptr;
        cvFindContours(&header, work.storage, &first, sizeof(CvContour), CV_RETR_LIST, CV_CHAIN_APPROX_NONE,
                       cvPoint(-1, -1));
        work.offsets.clear();
        work.points.clear();
        for (CvSeq *c = first; c != nullptr; c = c->h_next) {
            if (c->total < min_points || c->total > max_points) continue;
            work.offsets.push_back(static_cast<int32_t>(work.points.size() / 2));
            CvSeqReader reader;
            cvStartReadSeq(c, &reader);
            for (int i = 0; i < c->total; ++i) {
                const CvPoint &p = *reinterpret_cast<const CvPoint *>(reader.ptr);
                work.points.push_back(p.x);
                work.points.push_back(p.y);
                CV_NEXT_SEQ_ELEM(sizeof(CvPoint), reader);
            }
        }
        const int32_t count = static_cast<int32_t>(work.offsets.size());
        work.offsets.push_back(static_cast<int32_t>(work.points.size() / 2));
        *out = cvb_contours{count, work.offsets.data(), work.points.data()};
        return CVB_OK;
    });
}

extern "C" int32_t cvb_approx_polygon(const int32_t *points, int32_t count, double epsilon, int32_t *out,
                                      int32_t capacity) {
    return cvb::guarded("approximate polygon", [&]() -> int32_t {
        if (points == nullptr || count < 1 || (capacity > 0 && out == nullptr))
            return cvb::fail(CVB_ERR_ARGUMENT, "approximate polygon: bad contour");
        cv::Mat contour(count, 1, CV_32SC2, const_cast<int32_t *>(points));
        static thread_local std::vector<cv::Point> polygon; // keeps its capacity between calls
        cv::approxPolyDP(contour, polygon, epsilon, true);
        for (size_t i = 0; i < polygon.size() && int32_t(i) < capacity; ++i) {
            out[2 * i] = polygon[i].x;
            out[2 * i + 1] = polygon[i].y;
        }
        return static_cast<int32_t>(polygon.size());
    });
}

// The quadrilateral's inside sampled onto a size x size square by the homography that takes the square's
// corners (0,0), (size-1,0), (size-1,size-1), (0,size-1) to corners 0..3 (Heckbert's square-to-quad
// form), bilinear, outside pixels black: what warpPerspective with INTER_LINEAR does, in double precision
// and without the heap allocations OpenCV makes per call (candidates are unwarped thousands of times a second).
extern "C" int32_t cvb_warp_quad(const uint8_t *gray, int32_t width, int32_t height, int32_t stride,
                                 const double *corners, int32_t size, uint8_t *out) {
    if (!cvb::valid_gray(gray, width, height, stride) || corners == nullptr || out == nullptr || size < 2)
        return cvb::fail(CVB_ERR_ARGUMENT, "warp quad: bad argument");
    const double x0 = corners[0], y0 = corners[1], x1 = corners[2], y1 = corners[3];
    const double x2 = corners[4], y2 = corners[5], x3 = corners[6], y3 = corners[7];
    const double sx = x0 - x1 + x2 - x3, sy = y0 - y1 + y2 - y3;
    double a, b, d, e, g = 0, h = 0;
    if (sx == 0 && sy == 0) {
        a = x1 - x0; b = x2 - x1; d = y1 - y0; e = y2 - y1;
    } else {
        const double dx1 = x1 - x2, dx2 = x3 - x2, dy1 = y1 - y2, dy2 = y3 - y2;
        const double den = dx1 * dy2 - dx2 * dy1;
        if (den == 0) return cvb::fail(CVB_ERR_ARGUMENT, "warp quad: degenerate quadrilateral");
        g = (sx * dy2 - dx2 * sy) / den;
        h = (dx1 * sy - sx * dy1) / den;
        a = x1 - x0 + g * x1; b = x3 - x0 + h * x3; d = y1 - y0 + g * y1; e = y3 - y0 + h * y3;
    }
    const double scale = 1.0 / double(size - 1);
    auto at = [&](int x, int y) -> double {
        return (x < 0 || y < 0 || x >= width || y >= height) ? 0.0 : double(gray[size_t(y) * size_t(stride) + size_t(x)]);
    };
    for (int row = 0; row < size; ++row) {
        const double v = row * scale;
        for (int col = 0; col < size; ++col) {
            const double u = col * scale;
            const double w = g * u + h * v + 1;
            const double x = (a * u + b * v + x0) / w, y = (d * u + e * v + y0) / w;
            uint8_t value = 0;
            if (std::isfinite(x) && std::isfinite(y) && x > -1 && y > -1 && x < width && y < height) {
                // Positions to 1/32 pixel, as OpenCV's bilinear tables have them.
                const double qx = std::round(x * 32) / 32, qy = std::round(y * 32) / 32;
                const int px = int(std::floor(qx)), py = int(std::floor(qy));
                const double fx = qx - px, fy = qy - py;
                const double top = at(px, py) * (1 - fx) + at(px + 1, py) * fx;
                const double bottom = at(px, py + 1) * (1 - fx) + at(px + 1, py + 1) * fx;
                value = uint8_t(std::lround(top * (1 - fy) + bottom * fy));
            }
            out[size_t(row) * size_t(size) + size_t(col)] = value;
        }
    }
    return CVB_OK;
}
