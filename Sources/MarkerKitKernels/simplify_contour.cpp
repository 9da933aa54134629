// Douglas-Peucker on a closed contour without heap allocation: cv::approxPolyDP allocates two work
// buffers for every contour longer than about 130 points, tens of times per frame. Only polygons of a
// few vertices matter to the caller (a marker's outline has four), so the split gives up past 64: the
// stack is then bounded and lives on this function's frame.
#include <cmath>
#include <cstdint>
#include <emmintrin.h>
#include "bridge_status.h"
#include "markerkit_kernels.h"

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

// The scans Douglas-Peucker makes, in two kinds of arithmetic: `NarrowScans` four points at a time in
// 16-bit lanes (every coordinate below 16384, any frame the detector takes), `WideScans` one point at a
// time in 64-bit integers and doubles (any coordinate). Both report the first point with the largest
// value, its index plus `offset`.
struct NarrowScans {
    const int32_t *points;

    // The point of [begin, end) farthest from point a.
    Farthest from_point(int32_t begin, int32_t end, int32_t a) const {
        return farthest_from(points, begin, end, points[2 * a], points[2 * a + 1], 0);
    }

    // The point of [begin, end) farthest from the line through points s and e (raw indices), as
    // |cross product|.
    Farthest from_line(int32_t begin, int32_t end, int32_t offset, int32_t s, int32_t e) const {
        const int32_t sx = points[2 * s], sy = points[2 * s + 1];
        return farthest_from_line(points, begin, end, sx, sy, points[2 * e] - sx, points[2 * e + 1] - sy, offset);
    }
};

struct WideScans {
    const int32_t *points;

    struct Found {
        int64_t value = 0; // squared distance; 0: no point above 0
        int32_t index = -1;
    };
    struct FoundLine {
        double value = 0;
        int32_t index = -1;
    };

    Found from_point(int32_t begin, int32_t end, int32_t a) const {
        const int64_t ax = points[2 * a], ay = points[2 * a + 1];
        Found f;
        for (int32_t i = begin; i < end; ++i) {
            const int64_t dx = points[2 * i] - ax, dy = points[2 * i + 1] - ay, d = dx * dx + dy * dy;
            if (d > f.value) { f.value = d; f.index = i; }
        }
        return f;
    }

    FoundLine from_line(int32_t begin, int32_t end, int32_t offset, int32_t s, int32_t e) const {
        const double sx = points[2 * s], sy = points[2 * s + 1], dx = points[2 * e] - sx, dy = points[2 * e + 1] - sy;
        FoundLine f;
        for (int32_t i = begin; i < end; ++i) {
            const double d = std::fabs((double(points[2 * i + 1]) - sy) * dx - (double(points[2 * i]) - sx) * dy);
            if (d > f.value) { f.value = d; f.index = i + offset; }
        }
        return f;
    }
};

// Douglas-Peucker itself, once, over either kind of scans. Indices run unwrapped up to 2 * count; every
// scan over a range is split where it wraps, so no point is found by a division (a modulo per point was
// most of this function's time).
template <class Scans>
int32_t douglas_peucker(const int32_t *points, int32_t count, double epsilon, int32_t *out, int32_t capacity, const Scans &scans) {
    auto raw = [&](int32_t i) { return i < count ? i : i - count; };
    auto px = [&](int32_t i) { return double(points[2 * raw(i)]); };
    auto py = [&](int32_t i) { return double(points[2 * raw(i) + 1]); };
    const double eps2 = epsilon * epsilon;
    // Ends of the split: an approximate diameter (three rounds of "farthest from the last end"), as
    // OpenCV starts; a contour no wider than epsilon is a single point.
    int32_t a = 0, b = 0;
    double widest = 0;
    for (int round = 0; round < 3; ++round) {
        a = b;
        // In the order a + 1 ..< count, then 0 ..< a; a later point must be strictly farther.
        auto f = scans.from_point(a + 1, count, a);
        const auto g = scans.from_point(0, a, a);
        if (g.value > f.value) f = g;
        widest = double(f.value);
        if (f.index >= 0) b = f.index;
    }
    if (widest <= eps2) {
        out[0] = points[2 * a];
        out[1] = points[2 * a + 1];
        return 1;
    }
    // Vertices found so far, in contour order from a (indices, unwrapped: a <= v < a + count).
    constexpr int32_t limit = 64;
    const int32_t bail = 2 * capacity < limit ? 2 * capacity : limit;
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
        const int32_t s = raw(chain.start), e = raw(chain.end);
        // The chain's inner points, in the part before the wrap and the part after it.
        const int32_t first = chain.start + 1, wrap = chain.end < count ? chain.end : count;
        auto f = scans.from_line(first, wrap, 0, s, e);
        const int32_t second = first > count ? first : count;
        if (second < chain.end) {
            const auto g = scans.from_line(second - count, chain.end - count, count, s, e);
            if (g.value > f.value) f = g;
        }
        const double farthest = double(f.value), dx = px(chain.end) - px(chain.start), dy = py(chain.end) - py(chain.start);
        if (f.index < 0 || farthest * farthest <= eps2 * (dx * dx + dy * dy)) {
            vertices[found++] = chain.start;
            continue;
        }
        stack[top++] = {f.index, chain.end};
        stack[top++] = {chain.start, f.index};
        // Each chain still gives at least one vertex; the last pass below takes back only vertices within
        // epsilon of their neighbours' line, a few at most: a polygon past twice the capacity here ends
        // past it (on a page of text most contours do, and splitting them on was most of this function).
        if (top + found > bail) return capacity + 1;
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
} // namespace

extern "C" int32_t mkk_simplify_contour(const int32_t *points, int32_t count, double epsilon, int32_t *out,
                                        int32_t capacity) {
    if (points == nullptr || count < 1 || capacity < 1 || capacity > 64 || out == nullptr)
        return bridge::fail(BRIDGE_ERR_ARGUMENT, "simplify contour: bad contour");
    bool small = true; // every coordinate in 0 ..< 16384
    for (int32_t k = 0; k < 2 * count; ++k) small &= uint32_t(points[k]) < 16384u;
    return small ? douglas_peucker(points, count, epsilon, out, capacity, NarrowScans{points})
                 : douglas_peucker(points, count, epsilon, out, capacity, WideScans{points});
}
