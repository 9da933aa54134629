// Chessboard corner candidates: the ChESS response (Bennett & Lasenby, "ChESS - Quick and robust detection
// of chess-board features", 2014) at every pixel, then its local maxima. Sixteen pixels on a ring of
// radius 5 about the pixel: across a corner where two dark and two light squares meet, the ring's opposite
// samples agree and the samples a quarter-turn apart differ, so
//
//     R = sum_{n<4} |I_n + I_{n+8} - I_{n+4} - I_{n+12}|  -  sum_{n<8} |I_n - I_{n+8}|  -  16 |ring mean - local mean|
//
// is large at a corner, negative on an edge (opposite samples differ) and near 0 inside a square; the last
// term (the ring's mean against the five pixels at the centre) refuses a spot or a blob. Here R is kept
// five times over, so that it stays in integers: 5 (sum - diff) - |5 ring sum - 16 centre sum|.
//
// A row of responses is whole-row vector arithmetic over 16-bit lanes (the ring's 16 rows are 16 base
// pointers), built for AVX2 and for any x86-64 (multiversion.hpp: the same integers either way).
#include <algorithm>
#include <cstring>
#include <vector>
#include "bridge_status.h"
#include "markerkit_kernels.h"
#include "multiversion.hpp"

namespace {
constexpr int radius = 5;
// The ring: (round(5 cos(k π/8)), round(5 sin(k π/8))), k = 0..15; point k + 8 is point k through the centre.
constexpr int ring_x[16] = {5, 5, 4, 2, 0, -2, -4, -5, -5, -5, -4, -2, 0, 2, 4, 5};
constexpr int ring_y[16] = {0, 2, 4, 5, 5, 5, 4, 2, 0, -2, -4, -5, -5, -5, -4, -2};

// Responses (times five) of pixels x in [from, to) of the row at `centre` (a pointer to its pixel 0).
MKK_TWICE(void, response_row, (const uint8_t *centre, int32_t stride, int32_t from, int32_t to, int16_t *out),
          (centre, stride, from, to, out)) {
    const uint8_t *p[16];
    for (int k = 0; k < 16; ++k) p[k] = centre + ring_y[k] * stride + ring_x[k];
    const uint8_t *up = centre - stride, *down = centre + stride;
    for (int32_t x = from; x < to; ++x) {
        int16_t v[16];
        for (int k = 0; k < 16; ++k) v[k] = p[k][x];
        int16_t sum = 0, diff = 0, ring = 0;
        for (int n = 0; n < 4; ++n) {
            const int16_t s = int16_t(v[n] + v[n + 8] - v[n + 4] - v[n + 12]);
            sum = int16_t(sum + (s < 0 ? -s : s));
        }
        for (int n = 0; n < 8; ++n) {
            const int16_t d = int16_t(v[n] - v[n + 8]);
            diff = int16_t(diff + (d < 0 ? -d : d));
        }
        for (int k = 0; k < 16; ++k) ring = int16_t(ring + v[k]);
        const int16_t local = int16_t(centre[x] + centre[x - 1] + centre[x + 1] + up[x] + down[x]);
        const int16_t mean = int16_t(5 * ring - 16 * local);
        out[x] = int16_t(5 * (sum - diff) - (mean < 0 ? -mean : mean));
    }
}
} // namespace

extern "C" int32_t mkk_chess_candidates(const uint8_t *pixels, int32_t width, int32_t height, int32_t stride, double fraction,
                                        int32_t minimum, int32_t *xs, int32_t *ys, int32_t *responses, int32_t capacity,
                                        int32_t *count) {
    if (pixels == nullptr || xs == nullptr || ys == nullptr || responses == nullptr || count == nullptr || width < 1 ||
        height < 1 || stride < width || capacity < 0 || !(fraction >= 0 && fraction <= 1))
        return bridge::fail(BRIDGE_ERR_ARGUMENT, "chess candidates: bad argument");
    return bridge::guarded("chess candidates", [&]() -> int32_t {
    *count = 0;
    const int margin = radius + 1;
    if (width <= 2 * margin || height <= 2 * margin) return BRIDGE_OK;
    std::vector<int16_t> map(size_t(width) * size_t(height), 0);
    int16_t most = 0;
    for (int32_t y = margin; y < height - margin; ++y) {
        int16_t *row = map.data() + size_t(y) * size_t(width);
        response_row(pixels + size_t(y) * size_t(stride), stride, margin, width - margin, row);
        for (int32_t x = margin; x < width - margin; ++x) most = std::max(most, row[x]);
    }
    // Local maxima (above the three pixels before and at least the three after, in reading order, so a
    // plateau gives one) at or above the threshold.
    const int32_t threshold = std::max<int32_t>(std::max(minimum, 1), int32_t(fraction * most));
    int32_t found = 0;
    for (int32_t y = margin + 1; y < height - margin - 1; ++y) {
        const int16_t *above = map.data() + size_t(y - 1) * size_t(width), *row = above + width, *below = row + width;
        for (int32_t x = margin + 1; x < width - margin - 1; ++x) {
            const int16_t r = row[x];
            if (r < threshold) continue;
            if (!(r > above[x - 1] && r > above[x] && r > above[x + 1] && r > row[x - 1] && r >= row[x + 1] && r >= below[x - 1] &&
                  r >= below[x] && r >= below[x + 1]))
                continue;
            if (found < capacity) {
                xs[found] = x;
                ys[found] = y;
                responses[found] = r;
            }
            ++found;
        }
    }
    *count = found;
    return BRIDGE_OK;
    });
}
