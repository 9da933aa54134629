// The image-wide stages of the marker detector: whole operations, never per pixel across the boundary.
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

extern "C" int32_t cvb_warp_quad(const uint8_t *gray, int32_t width, int32_t height, int32_t stride,
                                 const double *corners, int32_t size, uint8_t *out) {
    return cvb::guarded("warp quad", [&]() -> int32_t {
        if (!cvb::valid_gray(gray, width, height, stride) || corners == nullptr || out == nullptr || size < 2)
            return cvb::fail(CVB_ERR_ARGUMENT, "warp quad: bad argument");
        cv::Point2f source[4], target[4];
        const float last = float(size - 1);
        const cv::Point2f square[4] = {{0, 0}, {last, 0}, {last, last}, {0, last}};
        for (int i = 0; i < 4; ++i) {
            source[i] = cv::Point2f(float(corners[2 * i]), float(corners[2 * i + 1]));
            target[i] = square[i];
        }
        cv::Mat result(size, size, CV_8UC1, out);
        cv::warpPerspective(cvb::gray_view(gray, width, height, stride), result,
                            cv::getPerspectiveTransform(source, target), cv::Size(size, size), cv::INTER_LINEAR);
        return CVB_OK;
    });
}
