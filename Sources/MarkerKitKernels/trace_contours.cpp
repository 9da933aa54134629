// Contours of a binary image by border following (Suzuki and Abe, 1985), every border point kept, no
// hierarchy: what OpenCV's contour scanner gives in RETR_LIST mode with CHAIN_APPROX_NONE, point for point
// and in the same order, but with all memory kept in the caller's workspace (or the calling thread's)
// from frame to frame (cvFindContours allocates its scanner, and bounding boxes of long contours, on
// every call). Without holes, hole
// borders are still followed (the scan needs their marks) but not recorded: the outer borders alone,
// as the same scan with holes lists them; likewise the hole borders alone.
//
// Several images (the detector's threshold windows) are traced together, a step of each one's current
// border in turn. One border's steps form a chain, each waiting on the last (the next pixel is known
// only once the neighbours of this one are read); a step is a table lookup on the neighbours, without
// branches, so the steps of two or three borders overlap in the processor. At 640x480 with 50 markers
// (96,000 steps over three windows) the three windows took 0.50 ms together against 0.89 ms one after
// another with the search loop that compared the neighbours one at a time (docs/MEASUREMENTS.md).
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

// Which of the 8 neighbours of `p` are not background: bit d for direction d.
inline unsigned neighbours(const int8_t *p, int row) {
    return unsigned(p[1] != 0) | unsigned(p[1 - row] != 0) << 1 | unsigned(p[-row] != 0) << 2 | unsigned(p[-row - 1] != 0) << 3 |
           unsigned(p[-1] != 0) << 4 | unsigned(p[row - 1] != 0) << 5 | unsigned(p[row] != 0) << 6 | unsigned(p[row + 1] != 0) << 7;
}

// One border step for each direction s back to the previous pixel and set m of region neighbours: the
// first region neighbour counter-clockwise after s. Entry [s][m] holds the direction taken (bits 0-2),
// whether the right neighbour was passed over as background on the way (bit 3: the pixel is a right
// edge) and the direction back from the pixel taken (bits 4-6).
struct StepTable {
    uint8_t entry[8][256];
    constexpr StepTable() : entry{} {
        for (int s = 0; s < 8; ++s)
            for (int m = 1; m < 256; ++m) {
                int k = 1;
                while (!(m >> ((s + k) & 7) & 1)) ++k;
                const int taken = (s + k) & 7;
                const bool right_edge = unsigned(taken - 1) < unsigned(s);
                entry[s][m] = uint8_t(((taken + 4) & 7) << 4 | int(right_edge) << 3 | taken);
            }
    }
};
constexpr StepTable kSteps;

struct TraceWorkspace {
    std::vector<int8_t> marks;             // the image with a zero frame, 0/1, marked while tracing
    std::vector<int32_t> points, starts;   // contours in the order found
    std::vector<int32_t> out_points, out_offsets;
};

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

// One image's raster scan and the border it is following.
struct Lane {
    TraceWorkspace *work;
    int8_t *marks;
    int row, rows, y, x;      // the scan: the next pixel to test is (x, y) of the framed image
    int deltas[8];            // pointer steps to the 8 neighbours
    int8_t *here, *start, *first;
    int s, px, py;            // direction back to the previous pixel; (px, py) the point of `here`
    int advance;              // 2 when the border's points are recorded, else 0
    int32_t *out, *room;      // where the next point goes; the last place one fits
    size_t begin;             // where this border's points begin in work->points
    bool tracing;
    bool holes;               // whether hole borders are recorded
    bool outer;               // whether outer borders are recorded
};

// The image with a zero frame, so regions touching the image edge keep their edge pixels; 0/1 inside.
void prepare(TraceWorkspace &work, const uint8_t *binary, int width, int height, int stride) {
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
    work.starts.clear();
    if (work.points.size() < 64) work.points.resize(64);
}

// One step along a border from `here` (marked as passed, its point written at `out`, which advances
// by `advance`); true when the border closed. `full` tells whether the points' room is used up.
inline bool step(const int *deltas, int row, int8_t *&here, int &s, int &px, int &py, int32_t *&out, int advance,
                 const int8_t *start, const int8_t *first, const int32_t *room, bool &full) {
    // Counter-clockwise from the previous pixel to the next region pixel.
    const int e = kSteps.entry[s][neighbours(here, row)];
    int8_t *const pixel = here, *const next = pixel + deltas[e & 7];
    const int8_t mark = *pixel;
    *pixel = (e & 8) ? kRightEdge : (mark == 1 ? kFollowed : mark);
    out[0] = px;
    out[1] = py;
    out += advance;
    px += kStepX[e & 7];
    py += kStepY[e & 7];
    here = next;
    s = (e >> 4) & 7;
    full = out >= room;
    return next == start && pixel == first;
}

// Room for the next point: the points' buffer doubled, its size the room (out + 2 <= end).
__attribute__((noinline)) void grow(Lane &lane) {
    std::vector<int32_t> &points = lane.work->points;
    const size_t written = size_t(lane.out - points.data());
    points.resize(points.size() * 2 + 64);
    lane.out = points.data() + written;
    lane.room = points.data() + points.size() - 2;
}

// A border closed: its points kept when recorded and their number is within the limits.
inline void finish(Lane &lane, int min_points, int max_points) {
    if (lane.advance == 0) return;
    int32_t *base = lane.work->points.data();
    const size_t length = (size_t(lane.out - base) - lane.begin) / 2;
    if (length < size_t(min_points) || length > size_t(max_points)) lane.out = base + lane.begin;
    else lane.work->starts.push_back(int32_t(lane.begin / 2));
}

// Borders that close within this many steps are followed to the end by the scan itself: most borders
// are a few pixels of noise, and handing each to the lanes' loop and back cost more than following it.
constexpr int kShortBorder = 16;

// Scans on to the next border longer than kShortBorder steps, set up in `lane` after those steps
// (shorter ones are followed to their end on the way); false at the end of the image.
__attribute__((noinline)) bool start_next(Lane &lane, int min_points, int max_points) {
    const int row = lane.row;
    for (;;) {
        int8_t *line = lane.marks + size_t(lane.y) * row;
        const int x = next_border(line, lane.x, row - 1);
        if (x == row - 1) {
            if (++lane.y == lane.rows - 1) return false;
            lane.x = 1;
            continue;
        }
        lane.x = x + 1;
        const bool hole = line[x - 1] >= 1;
        const int from = x - (hole ? 1 : 0);
        int8_t *const start = line + from;
        // The first region neighbour, clockwise from where the background was.
        const int s_end = hole ? 0 : 4;
        int s = s_end;
        int8_t *first;
        do {
            s = (s - 1) & 7;
            first = start + lane.deltas[s];
        } while (*first == 0 && s != s_end);
        lane.begin = size_t(lane.out - lane.work->points.data());
        lane.advance = (hole ? lane.holes : lane.outer) ? 2 : 0;
        int px = from - 1, py = lane.y - 1;
        if (s == s_end) { // a single pixel
            *start = kRightEdge;
            lane.out[0] = px;
            lane.out[1] = py;
            lane.out += lane.advance;
            if (lane.out >= lane.room) grow(lane);
            finish(lane, min_points, max_points);
            continue;
        }
        int8_t *here = start;
        bool closed = false, full = false;
        for (int k = 0; k < kShortBorder && !closed; ++k) {
            closed = step(lane.deltas, row, here, s, px, py, lane.out, lane.advance, start, first, lane.room, full);
            if (full) grow(lane);
        }
        if (closed) {
            finish(lane, min_points, max_points);
            continue;
        }
        lane.here = here;
        lane.start = start;
        lane.first = first;
        lane.s = s;
        lane.px = px;
        lane.py = py;
        return true;
    }
}

// Follows the lanes' borders a step of each in turn until every scan is done. Each lane's state lives
// in locals between the closes of its borders, so that a step is loads, a table lookup and stores.
template <int N>
void run(Lane *lanes, int min_points, int max_points) {
    const int row = lanes[0].row;
    const int *const deltas = lanes[0].deltas;
    int8_t *here[N], *start[N], *first[N];
    int s[N], px[N], py[N], advance[N];
    int32_t *out[N], *room[N];
    bool tracing[N];
    int active = 0;
    auto load = [&](int i) {
        const Lane &lane = lanes[i];
        here[i] = lane.here, start[i] = lane.start, first[i] = lane.first;
        s[i] = lane.s, px[i] = lane.px, py[i] = lane.py, advance[i] = lane.advance;
        out[i] = lane.out, room[i] = lane.room, tracing[i] = lane.tracing;
    };
    for (int i = 0; i < N; ++i) {
        load(i);
        active += tracing[i];
    }
    while (active > 0) {
#pragma clang loop unroll(full)
        for (int i = 0; i < N; ++i) {
            if (!tracing[i]) continue;
            bool full;
            const bool closed = step(deltas, row, here[i], s[i], px[i], py[i], out[i], advance[i], start[i], first[i], room[i], full);
            if (__builtin_expect(full || closed, 0)) {
                Lane &lane = lanes[i];
                lane.out = out[i];
                lane.room = room[i];
                if (full) grow(lane);
                if (closed) {
                    finish(lane, min_points, max_points);
                    lane.tracing = start_next(lane, min_points, max_points);
                    active -= !lane.tracing;
                    load(i);
                } else {
                    out[i] = lane.out;
                    room[i] = lane.room;
                }
            }
        }
    }
}

// The contours of a traced lane in OpenCV's order (the last found first), into its workspace's output.
mkk_contours collect(const Lane &lane) {
    TraceWorkspace &work = *lane.work;
    const size_t used = size_t(lane.out - work.points.data());
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
    return mkk_contours{count, work.out_offsets.data(), work.out_points.data()};
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
    return mkk_find_contours_together(&workspace, &binary, 1, width, height, stride, min_points, max_points, holes, out);
}

extern "C" int32_t mkk_find_contours_together(mkk_trace_workspace *const *workspaces, const uint8_t *const *binaries, int32_t count,
                                              int32_t width, int32_t height, int32_t stride, int32_t min_points,
                                              int32_t max_points, int32_t holes, mkk_contours *outs) {
    return bridge::guarded("find contours", [&]() -> int32_t {
        if (workspaces == nullptr || binaries == nullptr || outs == nullptr || count < 1 || count > MKK_TRACE_TOGETHER_MAX)
            return bridge::fail(BRIDGE_ERR_ARGUMENT, "find contours: bad image list");
        for (int32_t i = 0; i < count; ++i) {
            if (!bridge::valid_gray(binaries[i], width, height, stride) || workspaces[i] == nullptr)
                return bridge::fail(BRIDGE_ERR_ARGUMENT, "find contours: bad image");
            outs[i] = mkk_contours{0, nullptr, nullptr};
        }
        Lane lanes[MKK_TRACE_TOGETHER_MAX];
        for (int32_t i = 0; i < count; ++i) {
            TraceWorkspace &work = workspaces[i]->work;
            prepare(work, binaries[i], width, height, stride);
            Lane &lane = lanes[i];
            lane.work = &work;
            lane.marks = work.marks.data();
            lane.row = width + 2;
            lane.rows = height + 2;
            lane.y = lane.x = 1;
            for (int d = 0; d < 8; ++d) lane.deltas[d] = kStepX[d] + kStepY[d] * lane.row;
            lane.out = work.points.data();
            lane.room = work.points.data() + work.points.size() - 2;
            lane.holes = (holes >> i) & 1;
            lane.outer = !((holes >> (MKK_TRACE_TOGETHER_MAX + i)) & 1);
            lane.tracing = start_next(lane, min_points, max_points);
        }
        switch (count) {
        case 1: run<1>(lanes, min_points, max_points); break;
        case 2: run<2>(lanes, min_points, max_points); break;
        case 3: run<3>(lanes, min_points, max_points); break;
        default: run<4>(lanes, min_points, max_points); break;
        }
        for (int32_t i = 0; i < count; ++i) outs[i] = collect(lanes[i]);
        return BRIDGE_OK;
    });
}
