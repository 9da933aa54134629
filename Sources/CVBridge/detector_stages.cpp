// The image-wide stages of the marker detector: whole operations, never per pixel across the boundary.
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <emmintrin.h>
#include <opencv2/imgproc.hpp>
#include <opencv2/imgproc/imgproc_c.h>
#include "bridge_error.hpp"
#include "homography.hpp"
#include "multiversion.hpp"

extern "C" int32_t cvb_adaptive_threshold_opencv(const uint8_t *gray, int32_t width, int32_t height, int32_t stride,
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
// What the OpenCV contour reference keeps from frame to frame on one thread: the bordered copy the scanner
// writes into, the scanner's memory blocks (cleared, not freed), and the flat output.
struct ContourWorkspace {
    cv::Mat bordered;
    cv::Ptr<CvMemStorage> storage{cvCreateMemStorage(0), [](CvMemStorage *s) { cvReleaseMemStorage(&s); }};
    std::vector<int32_t> offsets, points;
};
}

extern "C" int32_t cvb_find_contours_opencv(const uint8_t *binary, int32_t width, int32_t height, int32_t stride,
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
// form), bilinear, outside pixels black: what warpPerspective with INTER_LINEAR does (positions to 1/32
// pixel, integer weights), in double precision and without the heap allocations OpenCV makes per call
// (candidates are unwarped thousands of times a second).
namespace {
struct SquareToQuad {
    double a, b, d, e, g, h, x0, y0;
};

constexpr int kMaxRow = 512;

// One row of the square when every sample is known to lie inside the image with its right and lower
// neighbours: no sample is tested, and the positions (with their pixel offsets and weights) are worked
// out first in a loop the compiler vectorises (the two divisions per pixel are most of the stage's
// time). Positions are rounded to 1/32 pixel, as OpenCV's bilinear tables have them; the weights are
// then whole multiples of 1/1024 and the rounded sum is exact. Built for AVX2 and for any x86-64, picked
// at run time (multiversion.hpp: the same arithmetic, about 2.5 times as fast with AVX2).
CVB_TWICE(void, warp_row_inside,
          (const uint8_t *__restrict gray, int32_t stride, const SquareToQuad &m, double scale, double v, int32_t size,
           uint8_t *__restrict out),
          (gray, stride, m, scale, v, size, out)) {
    int offsets[kMaxRow], fxs[kMaxRow], fys[kMaxRow];
    for (int col = 0; col < size; ++col) {
        const double u = col * scale;
        const double w = m.g * u + m.h * v + 1;
        const double x = (m.a * u + m.b * v + m.x0) / w, y = (m.d * u + m.e * v + m.y0) / w;
        const int qx = int(x * 32 + 0.5), qy = int(y * 32 + 0.5);
        offsets[col] = (qy >> 5) * stride + (qx >> 5);
        fxs[col] = qx & 31;
        fys[col] = qy & 31;
    }
    for (int col = 0; col < size; ++col) {
        const uint8_t *p = gray + offsets[col];
        const int fx = fxs[col], fy = fys[col];
        const int top = p[0] * (32 - fx) + p[1] * fx;
        const int bottom = p[stride] * (32 - fx) + p[stride + 1] * fx;
        out[col] = uint8_t((top * (32 - fy) + bottom * fy + 512) >> 10);
    }
}

// The same for a row that may leave the image: every sample and neighbour tested, black outside.
void warp_row_checked(const uint8_t *gray, int32_t width, int32_t height, int32_t stride, const SquareToQuad &m,
                      double scale, double v, int32_t size, uint8_t *out) {
    auto at = [&](int x, int y) -> int {
        if (x < 0 || y < 0 || x >= width || y >= height) return 0;
        return gray[size_t(y) * size_t(stride) + size_t(x)];
    };
    for (int col = 0; col < size; ++col) {
        const double u = col * scale;
        const double w = m.g * u + m.h * v + 1;
        const double x = (m.a * u + m.b * v + m.x0) / w, y = (m.d * u + m.e * v + m.y0) / w;
        if (!(std::isfinite(x) && std::isfinite(y) && x > -1 && y > -1 && x < width && y < height)) {
            out[col] = 0;
            continue;
        }
        const int qx = int(std::floor(x * 32 + 0.5)), qy = int(std::floor(y * 32 + 0.5));
        const int px = qx >> 5, py = qy >> 5, fx = qx & 31, fy = qy & 31;
        const int top = at(px, py) * (32 - fx) + at(px + 1, py) * fx;
        const int bottom = at(px, py + 1) * (32 - fx) + at(px + 1, py + 1) * fx;
        out[col] = uint8_t((top * (32 - fy) + bottom * fy + 512) >> 10);
    }
}
} // namespace

extern "C" int32_t cvb_warp_quad(const uint8_t *gray, int32_t width, int32_t height, int32_t stride,
                                 const double *corners, int32_t size, uint8_t *out) {
    if (!cvb::valid_gray(gray, width, height, stride) || corners == nullptr || out == nullptr || size < 2)
        return cvb::fail(CVB_ERR_ARGUMENT, "warp quad: bad argument");
    const double quad[4][2] = {{corners[0], corners[1]}, {corners[2], corners[3]}, {corners[4], corners[5]}, {corners[6], corners[7]}};
    double H[3][3];
    if (!cvb::unit_square_to_quad(quad, H)) return cvb::fail(CVB_ERR_ARGUMENT, "warp quad: degenerate quadrilateral");
    const SquareToQuad m{H[0][0], H[0][1], H[1][0], H[1][1], H[2][0], H[2][1], H[0][2], H[1][2]};
    // With w > 0 at the four corners the map has no pole over the square and carries it onto the convex
    // quad, so when every corner lies a pixel inside the image, so does every sample.
    bool inside = size <= kMaxRow && 1 + m.g > 0 && 1 + m.h > 0 && 1 + m.g + m.h > 0 &&
                  int64_t(stride) * height < (int64_t(1) << 31); // pixel offsets in an int
    for (int i = 0; i < 4 && inside; ++i) {
        const double x = corners[2 * i], y = corners[2 * i + 1];
        inside = x >= 1 && y >= 1 && x <= width - 3 && y <= height - 3;
    }
    const double scale = 1.0 / double(size - 1);
    for (int row = 0; row < size; ++row) {
        uint8_t *line = out + size_t(row) * size_t(size);
        if (inside)
            warp_row_inside(gray, stride, m, scale, row * scale, size, line);
        else
            warp_row_checked(gray, width, height, stride, m, scale, row * scale, size, line);
    }
    return CVB_OK;
}

// Douglas-Peucker on a closed contour without heap allocation: cv::approxPolyDP allocates two work
// buffers for every contour longer than about 130 points, tens of times per frame. Only polygons of a
// few vertices matter to the caller (a marker's outline has four), so the split gives up past 64: the
// stack is then bounded and lives on this function's frame.
namespace {
struct Chain {
    int32_t start, end; // indices into the contour, end exclusive of the chain's last vertex
};

double squared(double x) { return x * x; }
} // namespace

// The scans of Douglas-Peucker, four points at a time in 16-bit lanes (SSE2): every coordinate below
// 16384, so differences fit 16 bits and a squared distance or a cross product (one multiply-add of two
// 16-bit pairs) fits 32. Each finds the first point with the largest value, as the scalar loop with a
// strict comparison does: every lane keeps its first largest, and of the lanes with the largest value the
// one with the smallest index wins.
namespace {
struct Farthest {
    int32_t value = 0;  // 0: no point above 0
    int32_t index = -1;
};

inline __m128i select(__m128i mask, __m128i a, __m128i b) {
    return _mm_or_si128(_mm_and_si128(mask, a), _mm_andnot_si128(mask, b));
}

inline Farthest reduce(__m128i best, __m128i index) {
    alignas(16) int32_t values[4], indices[4];
    _mm_store_si128(reinterpret_cast<__m128i *>(values), best);
    _mm_store_si128(reinterpret_cast<__m128i *>(indices), index);
    Farthest f;
    for (int lane = 0; lane < 4; ++lane)
        if (values[lane] > f.value || (values[lane] == f.value && values[lane] > 0 && indices[lane] < f.index)) {
            f.value = values[lane];
            f.index = indices[lane];
        }
    return f;
}

// The point of [begin, end) farthest from (ax, ay) (squared distance), its index reported + offset.
inline Farthest farthest_from(const int32_t *points, int32_t begin, int32_t end, int32_t ax, int32_t ay, int32_t offset) {
    const __m128i origin = _mm_set_epi16(int16_t(ay), int16_t(ax), int16_t(ay), int16_t(ax), int16_t(ay), int16_t(ax),
                                         int16_t(ay), int16_t(ax));
    __m128i best = _mm_setzero_si128(), best_index = _mm_set1_epi32(-1);
    __m128i index = _mm_setr_epi32(begin + offset, begin + offset + 1, begin + offset + 2, begin + offset + 3);
    const __m128i four = _mm_set1_epi32(4);
    int32_t i = begin;
    for (; i + 4 <= end; i += 4) {
        const __m128i low = _mm_loadu_si128(reinterpret_cast<const __m128i *>(points + 2 * i));
        const __m128i high = _mm_loadu_si128(reinterpret_cast<const __m128i *>(points + 2 * i + 4));
        const __m128i v = _mm_sub_epi16(_mm_packs_epi32(low, high), origin);
        const __m128i d = _mm_madd_epi16(v, v);
        const __m128i larger = _mm_cmpgt_epi32(d, best);
        best = select(larger, d, best);
        best_index = select(larger, index, best_index);
        index = _mm_add_epi32(index, four);
    }
    Farthest f = reduce(best, best_index);
    for (; i < end; ++i) {
        const int32_t dx = points[2 * i] - ax, dy = points[2 * i + 1] - ay, d = dx * dx + dy * dy;
        if (d > f.value) { f.value = d; f.index = i + offset; }
    }
    return f;
}

// The point of [begin, end) farthest from the line through (sx, sy) with direction (dx, dy), as
// |cross product| (the distance times the direction's length), its index reported + offset.
inline Farthest farthest_from_line(const int32_t *points, int32_t begin, int32_t end, int32_t sx, int32_t sy, int32_t dx,
                                   int32_t dy, int32_t offset) {
    const __m128i origin = _mm_set_epi16(int16_t(sy), int16_t(sx), int16_t(sy), int16_t(sx), int16_t(sy), int16_t(sx),
                                         int16_t(sy), int16_t(sx));
    const __m128i normal = _mm_set_epi16(int16_t(dx), int16_t(-dy), int16_t(dx), int16_t(-dy), int16_t(dx), int16_t(-dy),
                                         int16_t(dx), int16_t(-dy));
    __m128i best = _mm_setzero_si128(), best_index = _mm_set1_epi32(-1);
    __m128i index = _mm_setr_epi32(begin + offset, begin + offset + 1, begin + offset + 2, begin + offset + 3);
    const __m128i four = _mm_set1_epi32(4);
    int32_t i = begin;
    for (; i + 4 <= end; i += 4) {
        const __m128i low = _mm_loadu_si128(reinterpret_cast<const __m128i *>(points + 2 * i));
        const __m128i high = _mm_loadu_si128(reinterpret_cast<const __m128i *>(points + 2 * i + 4));
        const __m128i cross = _mm_madd_epi16(_mm_sub_epi16(_mm_packs_epi32(low, high), origin), normal);
        const __m128i sign = _mm_srai_epi32(cross, 31);
        const __m128i d = _mm_sub_epi32(_mm_xor_si128(cross, sign), sign);
        const __m128i larger = _mm_cmpgt_epi32(d, best);
        best = select(larger, d, best);
        best_index = select(larger, index, best_index);
        index = _mm_add_epi32(index, four);
    }
    Farthest f = reduce(best, best_index);
    for (; i < end; ++i) {
        const int32_t cross = (points[2 * i + 1] - sy) * dx - (points[2 * i] - sx) * dy, d = cross < 0 ? -cross : cross;
        if (d > f.value) { f.value = d; f.index = i + offset; }
    }
    return f;
}
} // namespace

// The same for contours with coordinates of 16384 or more, in wider arithmetic (one point at a time).
static int32_t simplify_contour_wide(const int32_t *points, int32_t count, double epsilon, int32_t *out,
                                        int32_t capacity) {
    if (points == nullptr || count < 1 || capacity < 1 || capacity > 64 || out == nullptr)
        return cvb::fail(CVB_ERR_ARGUMENT, "simplify contour: bad contour");
    // Indices run unwrapped up to 2 * count; every loop over a range is split where it wraps, so no
    // point is found by a division (a modulo per point was most of this function's time).
    auto px = [&](int32_t i) { return double(points[2 * (i < count ? i : i - count)]); };
    auto py = [&](int32_t i) { return double(points[2 * (i < count ? i : i - count) + 1]); };
    const double eps2 = epsilon * epsilon;
    // Ends of the split: an approximate diameter (three rounds of "farthest from the last end"), as
    // OpenCV starts; a contour no wider than epsilon is a single point. Squared distances of integer
    // points are exact in integers.
    int32_t a = 0, b = 0;
    int64_t widest = 0;
    for (int round = 0; round < 3; ++round) {
        a = b;
        widest = 0;
        const int64_t ax = points[2 * a], ay = points[2 * a + 1];
        // j = 1 ..< count in the order i = a + 1 ..< count, then 0 ..< a.
        for (int32_t i = a + 1; i < count; ++i) {
            const int64_t dx = points[2 * i] - ax, dy = points[2 * i + 1] - ay, d = dx * dx + dy * dy;
            if (d > widest) { widest = d; b = i; }
        }
        for (int32_t i = 0; i < a; ++i) {
            const int64_t dx = points[2 * i] - ax, dy = points[2 * i + 1] - ay, d = dx * dx + dy * dy;
            if (d > widest) { widest = d; b = i; }
        }
    }
    if (double(widest) <= eps2) {
        out[0] = points[2 * a];
        out[1] = points[2 * a + 1];
        return 1;
    }
    // Vertices found so far, in contour order from a (indices, unwrapped: a <= v < a + count).
    constexpr int32_t limit = 64;
    int32_t vertices[limit + 2];
    int32_t found = 0;
    const int32_t bu = b > a ? b : b + count;
    // Chains still to split, the last on top; each ends at the start of the one below it.
    Chain stack[limit + 2];
    int32_t top = 0;
    stack[top++] = {bu, a + count};
    stack[top++] = {a, bu};
    while (top > 0) {
        const Chain chain = stack[--top];
        const double sx = px(chain.start), sy = py(chain.start), dx = px(chain.end) - sx, dy = py(chain.end) - sy;
        double farthest = 0;
        int32_t split = -1;
        // The chain's inner points, in the part before the wrap and the part after it.
        const int32_t first = chain.start + 1, wrap = chain.end < count ? chain.end : count;
        for (int32_t i = first; i < wrap; ++i) {
            const double d = std::fabs((double(points[2 * i + 1]) - sy) * dx - (double(points[2 * i]) - sx) * dy);
            if (d > farthest) { farthest = d; split = i; }
        }
        for (int32_t i = first > count ? first : count; i < chain.end; ++i) {
            const int32_t k = i - count;
            const double d = std::fabs((double(points[2 * k + 1]) - sy) * dx - (double(points[2 * k]) - sx) * dy);
            if (d > farthest) { farthest = d; split = i; }
        }
        if (split < 0 || farthest * farthest <= eps2 * (dx * dx + dy * dy)) {
            vertices[found++] = chain.start;
            continue;
        }
        stack[top++] = {split, chain.end};
        stack[top++] = {chain.start, split};
        if (top + found > limit) return capacity + 1; // each chain still gives at least one vertex
    }
    // A vertex within epsilon of the line through its neighbours (between them) adds nothing.
    for (int32_t i = 0; i < found && found > 3;) {
        const int32_t p = vertices[(i + found - 1) % found], v = vertices[i], n = vertices[(i + 1) % found];
        const double dx = px(n) - px(p), dy = py(n) - py(p);
        const double cross = (px(v) - px(p)) * dy - (py(v) - py(p)) * dx;
        const double along = (px(v) - px(p)) * (px(n) - px(v)) + (py(v) - py(p)) * (py(n) - py(v));
        if (cross * cross <= 0.5 * eps2 * (dx * dx + dy * dy) && along >= 0) {
            for (int32_t j = i; j + 1 < found; ++j) vertices[j] = vertices[j + 1];
            --found;
        } else {
            ++i;
        }
    }
    if (found > capacity) return capacity + 1;
    for (int32_t i = 0; i < found; ++i) {
        out[2 * i] = points[2 * (vertices[i] % count)];
        out[2 * i + 1] = points[2 * (vertices[i] % count) + 1];
    }
    return found;
}


extern "C" int32_t cvb_simplify_contour(const int32_t *points, int32_t count, double epsilon, int32_t *out,
                                        int32_t capacity) {
    if (points == nullptr || count < 1 || capacity < 1 || capacity > 64 || out == nullptr)
        return cvb::fail(CVB_ERR_ARGUMENT, "simplify contour: bad contour");
    bool small = true; // every coordinate in 0 ..< 16384 (any frame the detector takes)
    for (int32_t k = 0; k < 2 * count; ++k) small &= uint32_t(points[k]) < 16384u;
    if (!small) return simplify_contour_wide(points, count, epsilon, out, capacity);
    // Indices run unwrapped up to 2 * count; every scan over a range is split where it wraps.
    auto px = [&](int32_t i) { return points[2 * (i < count ? i : i - count)]; };
    auto py = [&](int32_t i) { return points[2 * (i < count ? i : i - count) + 1]; };
    const double eps2 = epsilon * epsilon;
    // Ends of the split: an approximate diameter (three rounds of "farthest from the last end"), as
    // OpenCV starts; a contour no wider than epsilon is a single point.
    int32_t a = 0, b = 0;
    int32_t widest = 0;
    for (int round = 0; round < 3; ++round) {
        a = b;
        // In the order a + 1 ..< count, then 0 ..< a; a later point must be strictly farther.
        Farthest f = farthest_from(points, a + 1, count, points[2 * a], points[2 * a + 1], 0);
        const Farthest g = farthest_from(points, 0, a, points[2 * a], points[2 * a + 1], 0);
        if (g.value > f.value) f = g;
        widest = f.value;
        if (f.index >= 0) b = f.index;
    }
    if (double(widest) <= eps2) {
        out[0] = points[2 * a];
        out[1] = points[2 * a + 1];
        return 1;
    }
    // Vertices found so far, in contour order from a (indices, unwrapped: a <= v < a + count).
    constexpr int32_t limit = 64;
    int32_t vertices[limit + 2];
    int32_t found = 0;
    const int32_t bu = b > a ? b : b + count;
    // Chains still to split, the last on top; each ends at the start of the one below it.
    Chain stack[limit + 2];
    int32_t top = 0;
    stack[top++] = {bu, a + count};
    stack[top++] = {a, bu};
    while (top > 0) {
        const Chain chain = stack[--top];
        const int32_t sx = px(chain.start), sy = py(chain.start), dx = px(chain.end) - sx, dy = py(chain.end) - sy;
        // The chain's inner points, in the part before the wrap and the part after it.
        const int32_t first = chain.start + 1, wrap = chain.end < count ? chain.end : count;
        Farthest f = farthest_from_line(points, first, wrap, sx, sy, dx, dy, 0);
        const int32_t second = first > count ? first : count;
        if (second < chain.end) {
            const Farthest g = farthest_from_line(points, second - count, chain.end - count, sx, sy, dx, dy, count);
            if (g.value > f.value) f = g;
        }
        const double farthest = f.value;
        if (f.index < 0 || farthest * farthest <= eps2 * (double(dx) * dx + double(dy) * dy)) {
            vertices[found++] = chain.start;
            continue;
        }
        stack[top++] = {f.index, chain.end};
        stack[top++] = {chain.start, f.index};
        if (top + found > limit) return capacity + 1; // each chain still gives at least one vertex
    }
    // A vertex within epsilon of the line through its neighbours (between them) adds nothing.
    for (int32_t i = 0; i < found && found > 3;) {
        const int32_t p = vertices[(i + found - 1) % found], v = vertices[i], n = vertices[(i + 1) % found];
        const double dx = px(n) - px(p), dy = py(n) - py(p);
        const double cross = (double(px(v)) - px(p)) * dy - (double(py(v)) - py(p)) * dx;
        const double along = (double(px(v)) - px(p)) * (px(n) - px(v)) + (double(py(v)) - py(p)) * (py(n) - py(v));
        if (cross * cross <= 0.5 * eps2 * (dx * dx + dy * dy) && along >= 0) {
            for (int32_t j = i; j + 1 < found; ++j) vertices[j] = vertices[j + 1];
            --found;
        } else {
            ++i;
        }
    }
    if (found > capacity) return capacity + 1;
    for (int32_t i = 0; i < found; ++i) {
        out[2 * i] = points[2 * (vertices[i] % count)];
        out[2 * i + 1] = points[2 * (vertices[i] % count) + 1];
    }
    return found;
}
