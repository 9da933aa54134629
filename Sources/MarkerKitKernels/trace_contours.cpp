// Contours of a binary image by border following (Suzuki and Abe, 1985), every border point kept, no
// hierarchy: what OpenCV's contour scanner gives in RETR_LIST mode with CHAIN_APPROX_NONE, point for point
// and in the same order, but with all memory kept per thread from frame to frame (cvFindContours
// allocates its scanner, and bounding boxes of long contours, on every call). Without holes, hole
// borders are still followed (the scan needs their marks) but not recorded: the outer borders alone,
// as the same scan with holes lists them.
#include <cstring>
#include <new>
#include <vector>
#include <emmintrin.h>
#include "bridge_status.h"
#include "markerkit_kernels.h"

namespace {
// Pixel marks in the bordered copy: 0 background, 1 region, then what tracing writes on border pixels.
constexpr int8_t kFollowed = 2;                   // a border pixel passed by a contour
constexpr int8_t kRightEdge = int8_t(2 | 0x80);   // one whose right neighbour is background (a hole starts after it)

// Steps to the 8 neighbours, counter-clockwise from the right (y grows downwards).
constexpr int kStepX[8] = {1, 1, 0, -1, -1, -1, 0, 1};
constexpr int kStepY[8] = {0, -1, -1, -1, 0, 1, 1, 1};

struct TraceWorkspace {
    std::vector<int8_t> marks;             // the image with a zero frame, 0/1, marked while tracing
    std::vector<int32_t> points, starts;   // contours in the order found
    std::vector<int32_t> out_points, out_offsets;
};

// Follows the border that starts at `start` (an outer border when `hole` is false, else the border of
// the hole to the right of `start`), appending its points from (x, y) when `record`; marks the pixels it
// passes.
// Points go to `points` from index `used` on (its size is its room, grown as needed; `used` counts the
// ones written): one comparison a point instead of two push_backs.
template <bool record>
void follow(int8_t *start, int row, int x, int y, bool hole, std::vector<int32_t> &points, size_t &used) {
    int32_t *out = points.data() + used, *room = points.data() + points.size();
    auto put = [&](int px, int py) {
        if (out == room) {
            const size_t written = size_t(out - points.data());
            points.resize(points.size() * 2 + 64);
            out = points.data() + written;
            room = points.data() + points.size();
        }
        out[0] = px;
        out[1] = py;
        out += 2;
    };
    int deltas[16];
    for (int s = 0; s < 8; ++s) deltas[s] = deltas[s + 8] = kStepX[s] + kStepY[s] * row;
    int s_end = hole ? 0 : 4, s = s_end;
    int8_t *first;
    // The first region neighbour, clockwise from where the background was.
    do {
        s = (s - 1) & 7;
        first = start + deltas[s];
    } while (*first == 0 && s != s_end);
    if (s == s_end) { // a single pixel
        *start = kRightEdge;
        if (record) {
            put(x, y);
            used = size_t(out - points.data());
        }
        return;
    }
    int8_t *here = start, *next = nullptr;
    for (;;) {
        s_end = s;
        while (s < 15) { // counter-clockwise from the previous pixel to the next region pixel
            next = here + deltas[++s];
            if (*next != 0) break;
        }
        s &= 7;
        if (unsigned(s - 1) < unsigned(s_end)) *here = kRightEdge;
        else if (*here == 1) *here = kFollowed;
        if (record) {
            put(x, y);
            x += kStepX[s];
            y += kStepY[s];
        }
        if (next == start && here == first) break;
        here = next;
        s = (s + 4) & 7;
    }
    if (record) used = size_t(out - points.data());
}

// The first x in [x, end) where a border starts, or end: background before an unmarked region pixel
// (an outer border), or a region pixel not on a traced right edge before background (a hole). The
// pixel before x always holds what the scan calls the previous pixel (tracing re-marks only pixels it
// passes, and the scan reads on after each trace), so 16 pixels are tested at a time against their
// left neighbours in the row itself; runs that start no border (a traced border, a region's inside)
// cost nothing. (One test per run of equal pixels was 40% of the stage on thresholded photos.)
inline int next_border(const int8_t *line, int x, int end) {
    const __m128i zero = _mm_setzero_si128(), one = _mm_set1_epi8(1);
    for (; x + 16 <= end; x += 16) {
        const __m128i here = _mm_loadu_si128(reinterpret_cast<const __m128i *>(line + x));
        const __m128i before = _mm_loadu_si128(reinterpret_cast<const __m128i *>(line + x - 1));
        const __m128i outer = _mm_and_si128(_mm_cmpeq_epi8(before, zero), _mm_cmpeq_epi8(here, one));
        const __m128i hole = _mm_and_si128(_mm_cmpgt_epi8(before, zero), _mm_cmpeq_epi8(here, zero));
        if (const int found = _mm_movemask_epi8(_mm_or_si128(outer, hole))) return x + __builtin_ctz(unsigned(found));
    }
    for (; x < end; ++x) {
        const int8_t before = line[x - 1], here = line[x];
        if ((before == 0 && here == 1) || (before >= 1 && here == 0)) return x;
    }
    return end;
}
} // namespace

struct mkk_trace_workspace {
    TraceWorkspace work;
};

extern "C" mkk_trace_workspace *mkk_trace_workspace_create(void) { return new (std::nothrow) mkk_trace_workspace; }

extern "C" void mkk_trace_workspace_destroy(mkk_trace_workspace *workspace) { delete workspace; }

extern "C" int32_t mkk_find_contours(const uint8_t *binary, int32_t width, int32_t height, int32_t stride,
                                     int32_t min_points, int32_t max_points, int32_t holes, mkk_contours *out) {
    static thread_local mkk_trace_workspace own;
    return mkk_find_contours_in(&own, binary, width, height, stride, min_points, max_points, holes, out);
}

extern "C" int32_t mkk_find_contours_in(mkk_trace_workspace *workspace, const uint8_t *binary, int32_t width, int32_t height,
                                        int32_t stride, int32_t min_points, int32_t max_points, int32_t holes,
                                        mkk_contours *out) {
    return bridge::guarded("find contours", [&]() -> int32_t {
        if (!bridge::valid_gray(binary, width, height, stride) || out == nullptr || workspace == nullptr)
            return bridge::fail(BRIDGE_ERR_ARGUMENT, "find contours: bad image");
        *out = mkk_contours{0, nullptr, nullptr};
        TraceWorkspace &work = workspace->work;
        // A one-pixel zero frame, so regions touching the image edge keep their edge pixels; 0/1 inside.
        const int row = width + 2, rows = height + 2;
        work.marks.resize(size_t(row) * rows);
        int8_t *marks = work.marks.data();
        std::memset(marks, 0, row);
        std::memset(marks + size_t(rows - 1) * row, 0, row);
        for (int y = 0; y < height; ++y) {
            int8_t *line = marks + size_t(y + 1) * row;
            const uint8_t *source = binary + size_t(y) * stride;
            line[0] = line[row - 1] = 0;
            for (int x = 0; x < width; ++x) line[x + 1] = source[x] != 0;
        }
        size_t used = 0; // points written into work.points (its size is its room)
        work.starts.clear();
        // Raster scan: an outer border starts where background meets an unmarked region pixel, a hole
        // border where a region pixel not on a traced right edge meets background.
        for (int y = 1; y < rows - 1; ++y) {
            int8_t *line = marks + size_t(y) * row;
            for (int x = next_border(line, 1, row - 1); x < row - 1; x = next_border(line, x + 1, row - 1)) {
                const bool hole = line[x - 1] >= 1;
                const int from = x - (hole ? 1 : 0);
                if (hole && !holes) {
                    follow<false>(line + from, row, from - 1, y - 1, hole, work.points, used);
                    continue;
                }
                const size_t begin = used;
                follow<true>(line + from, row, from - 1, y - 1, hole, work.points, used);
                const size_t length = (used - begin) / 2;
                if (length < size_t(min_points) || length > size_t(max_points)) used = begin;
                else work.starts.push_back(int32_t(begin / 2));
            }
        }
        // OpenCV lists the last contour found first.
        work.out_points.clear();
        work.out_offsets.clear();
        const int32_t count = int32_t(work.starts.size());
        for (int32_t i = count - 1; i >= 0; --i) {
            const int32_t begin = work.starts[i];
            const int32_t end = i + 1 < count ? work.starts[i + 1] : int32_t(used / 2);
            work.out_offsets.push_back(int32_t(work.out_points.size() / 2));
            work.out_points.insert(work.out_points.end(), work.points.begin() + 2 * begin, work.points.begin() + 2 * end);
        }
        work.out_offsets.push_back(int32_t(work.out_points.size() / 2));
        *out = mkk_contours{count, work.out_offsets.data(), work.out_points.data()};
        return BRIDGE_OK;
    });
}
