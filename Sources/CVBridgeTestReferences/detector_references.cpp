// OpenCV's own adaptive threshold, contour scanner and polygon approximation: what the tests hold
// MarkerKitKernels' allocation-free kernels to.
#include <vector>
#include <opencv2/imgproc.hpp>
#include <opencv2/imgproc/imgproc_c.h>
#include "cvbridge_test_references.h"

namespace {
cv::Mat gray_view(const uint8_t *gray, int32_t width, int32_t height, int32_t stride) {
    return cv::Mat(height, width, CV_8UC1, const_cast<uint8_t *>(gray), static_cast<size_t>(stride));
}
} // namespace

extern "C" int32_t cvb_adaptive_threshold_opencv(const uint8_t *gray, int32_t width, int32_t height, int32_t stride,
                                                 int32_t window, double constant, uint8_t *binary) {
    return bridge::guarded("adaptive threshold", [&]() -> int32_t {
        if (!bridge::valid_gray(gray, width, height, stride) || binary == nullptr || window < 3 || window % 2 == 0)
            return bridge::fail(BRIDGE_ERR_ARGUMENT, "adaptive threshold: bad image or window");
        cv::Mat out(height, width, CV_8UC1, binary);
        cv::adaptiveThreshold(gray_view(gray, width, height, stride), out, 255, cv::ADAPTIVE_THRESH_MEAN_C,
                              cv::THRESH_BINARY_INV, window, constant);
        return BRIDGE_OK;
    });
}

namespace {
// What the OpenCV contour reference keeps from frame to frame on one thread: the bordered copy the scanner
// writes into, the scanner's memory blocks (cleared, not freed), and the flat output.
struct ContourWorkspace {
    cv::Mat bordered;
    cv::Ptr<CvMemStorage> storage{cvCreateMemStorage(0), [](CvMemStorage *s) { cvReleaseMemStorage(&s); }};
    std::vector<int32_t> offsets, points;
};
}

extern "C" int32_t cvb_find_contours_opencv(const uint8_t *binary, int32_t width, int32_t height, int32_t stride,
                                            int32_t min_points, int32_t max_points, int32_t holes, mkk_contours *out) {
    return bridge::guarded("find contours", [&]() -> int32_t {
        if (!bridge::valid_gray(binary, width, height, stride) || out == nullptr)
            return bridge::fail(BRIDGE_ERR_ARGUMENT, "find contours: bad image");
        *out = mkk_contours{0, nullptr, nullptr};
        static thread_local ContourWorkspace work;
        // As cv::findContours does: a one-pixel zero frame, so regions touching the image edge keep
        // their edge pixels (the scanner clears the outermost pixels of what it is given).
        cv::copyMakeBorder(gray_view(binary, width, height, stride), work.bordered, 1, 1, 1, 1,
                           cv::BORDER_CONSTANT | cv::BORDER_ISOLATED, cv::Scalar(0));
        cvClearMemStorage(work.storage);
        CvMat header = cvMat(work.bordered);
        CvSeq *first = nullptr;
        cvFindContours(&header, work.storage, &first, sizeof(CvContour), CV_RETR_LIST, CV_CHAIN_APPROX_NONE,
                       cvPoint(-1, -1));
        work.offsets.clear();
        work.points.clear();
        for (CvSeq *c = first; c != nullptr; c = c->h_next) {
            if (c->total < min_points || c->total > max_points || (!holes && CV_IS_SEQ_HOLE(c)) ||
                (holes == MKK_TRACE_HOLES_ONLY && !CV_IS_SEQ_HOLE(c)))
                continue;
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
        *out = mkk_contours{count, work.offsets.data(), work.points.data()};
        return BRIDGE_OK;
    });
}

extern "C" int32_t cvb_approx_polygon(const int32_t *points, int32_t count, double epsilon, int32_t *out,
                                      int32_t capacity) {
    return bridge::guarded("approximate polygon", [&]() -> int32_t {
        if (points == nullptr || count < 1 || (capacity > 0 && out == nullptr))
            return bridge::fail(BRIDGE_ERR_ARGUMENT, "approximate polygon: bad contour");
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
