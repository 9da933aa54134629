// The detector's adaptive threshold: what cv::adaptiveThreshold (mean, inverted) gives, for several
// windows in one sweep over the frame and for any band of rows (the two halves of a frame run on two
// cores), with its work memory kept per thread from frame to frame (OpenCV's boxFilter builds a filter
// engine and its buffers on every call).
//
// Box sums come from a running integral of the frame (edges replicated by padding each row), kept as a
// ring of the rows the largest window needs: one serial prefix sum per pixel serves every window, and
// each window's sums and comparisons are whole-row vector loops. A pixel is dark when the window's mean,
// rounded to a whole gray level as OpenCV's 8-bit box filter rounds it, is at least floor(constant)
// above it: round(S / N) >= g + delta, which for an odd N is S >= N (g + delta) - (N - 1) / 2 exactly
// (S / N is never halfway between two levels), so the test is in integers.
//
// Built twice, for AVX2 and for any x86-64, picked at run time (multiversion.hpp: the same integers
// either way; the AVX2 build is about twice as fast).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <new>
#include <vector>
#include <emmintrin.h>
#include "bridge_status.h"
#include "markerkit_kernels.h"
#include "multiversion.hpp"

namespace {
struct ThresholdWork {
    std::vector<uint32_t> ring; // integral rows, each width + 2 * rmax + 1 wide
    std::vector<uint8_t> padded;
};

// Row j of the running integral from `prev` (row j - 1): prev plus the prefix sums of padded row j - 1.
// Sums wrap modulo 2^32; a box sum (a difference of four) is below 2^31 for any window allowed.
MKK_TWICE(void, integral_row, (const uint8_t *padded, int32_t count, const uint32_t *prev, uint32_t *row),
          (padded, count, prev, row)) {
    row[0] = 0;
    int32_t x = 0;
    const __m128i zero = _mm_setzero_si128();
    __m128i carry = zero;
    for (; x + 8 <= count; x += 8) {
        // Prefix sums of 8 pixels in 16-bit lanes (at most 8 x 255), then widened and carried on.
        __m128i v = _mm_unpacklo_epi8(_mm_loadl_epi64(reinterpret_cast<const __m128i *>(padded + x)), zero);
        v = _mm_add_epi16(v, _mm_slli_si128(v, 2));
        v = _mm_add_epi16(v, _mm_slli_si128(v, 4));
        v = _mm_add_epi16(v, _mm_slli_si128(v, 8));
        const __m128i low = _mm_add_epi32(_mm_unpacklo_epi16(v, zero), carry);
        const __m128i high = _mm_add_epi32(_mm_unpackhi_epi16(v, zero), carry);
        carry = _mm_shuffle_epi32(high, 0xFF);
        _mm_storeu_si128(reinterpret_cast<__m128i *>(row + x + 1),
                         _mm_add_epi32(low, _mm_loadu_si128(reinterpret_cast<const __m128i *>(prev + x + 1))));
        _mm_storeu_si128(reinterpret_cast<__m128i *>(row + x + 5),
                         _mm_add_epi32(high, _mm_loadu_si128(reinterpret_cast<const __m128i *>(prev + x + 5))));
    }
    uint32_t running = uint32_t(_mm_cvtsi128_si32(carry));
    for (; x < count; ++x) {
        running += padded[x];
        row[x + 1] = prev[x + 1] + running;
    }
}

// One window's row: dark (255) where S >= N g + C. `top` and `bottom` point at the integral rows above
// and below the window, at the column of the window's left edge for x = 0.
MKK_TWICE(void, compare_row,
          (const uint32_t *top, const uint32_t *bottom, int32_t side, const uint8_t *line, int32_t width, int32_t n,
           int32_t c, uint8_t *out),
          (top, bottom, side, line, width, n, c, out)) {
    const uint32_t *t0 = top, *t1 = top + side, *b0 = bottom, *b1 = bottom + side;
    for (int32_t x = 0; x < width; ++x) {
        const int32_t s = int32_t(b1[x] - b0[x] - t1[x] + t0[x]);
        out[x] = s >= n * int32_t(line[x]) + c ? 255 : 0;
    }
}

// The same in 64 bits, for windows and constants where N g + C could leave 32 bits.
void compare_row_wide(const uint32_t *top, const uint32_t *bottom, int32_t side, const uint8_t *line, int32_t width,
                      int64_t n, int64_t c, uint8_t *out) {
    for (int32_t x = 0; x < width; ++x) {
        const int64_t s = int32_t(bottom[x + side] - bottom[x] - top[x + side] + top[x]);
        out[x] = s >= n * int64_t(line[x]) + c ? 255 : 0;
    }
}
} // namespace

struct mkk_threshold_workspace {
    ThresholdWork work;
};

extern "C" mkk_threshold_workspace *mkk_threshold_workspace_create(void) { return new (std::nothrow) mkk_threshold_workspace; }

extern "C" void mkk_threshold_workspace_destroy(mkk_threshold_workspace *workspace) { delete workspace; }

extern "C" int32_t mkk_adaptive_threshold_rows(const uint8_t *gray, int32_t width, int32_t height, int32_t stride,
                                               const int32_t *windows, int32_t count, double constant, uint8_t *binaries,
                                               int32_t row_begin, int32_t row_end) {
    static thread_local mkk_threshold_workspace own;
    return mkk_adaptive_threshold_rows_in(&own, gray, width, height, stride, windows, count, constant, binaries, row_begin, row_end);
}

extern "C" int32_t mkk_adaptive_threshold_rows_in(mkk_threshold_workspace *workspace, const uint8_t *gray, int32_t width, int32_t height, int32_t stride,
                                               const int32_t *windows, int32_t count, double constant,
                                               uint8_t *binaries, int32_t row_begin, int32_t row_end) {
    return bridge::guarded("adaptive threshold", [&]() -> int32_t {
        // Box sums of up to 2899 x 2899 gray levels stay below 2^31.
        if (!bridge::valid_gray(gray, width, height, stride) || windows == nullptr || count < 1 || binaries == nullptr ||
            row_begin < 0 || row_end > height || row_begin > row_end || !std::isfinite(constant) ||
            std::fabs(constant) > 1e6 || workspace == nullptr)
            return bridge::fail(BRIDGE_ERR_ARGUMENT, "adaptive threshold: bad image, rows or constant");
        int32_t rmax = 0;
        for (int32_t k = 0; k < count; ++k) {
            if (windows[k] < 3 || windows[k] % 2 == 0 || windows[k] > 2899)
                return bridge::fail(BRIDGE_ERR_ARGUMENT, "adaptive threshold: bad window");
            rmax = std::max(rmax, windows[k] / 2);
        }
        if (row_begin == row_end) return BRIDGE_OK;
        ThresholdWork &work = workspace->work;
        const int32_t padded_width = width + 2 * rmax, row_size = padded_width + 1, rows = 2 * rmax + 2;
        work.ring.resize(size_t(rows) * size_t(row_size));
        work.padded.resize(size_t(padded_width));
        // Integral row j (j >= row_begin) sums padded rows row_begin .. j - 1; padded row p is image row
        // p - rmax, clamped. Window r at image row y sums integral rows y + rmax + r + 1 minus y + rmax - r.
        auto ring_row = [&](int32_t j) { return work.ring.data() + size_t(j % rows) * size_t(row_size); };
        std::memset(ring_row(row_begin), 0, size_t(row_size) * sizeof(uint32_t));
        int32_t made = row_begin;
        auto make = [&](int32_t j) {
            const int32_t y = std::min(std::max(j - 1 - rmax, 0), height - 1);
            const uint8_t *source = gray + size_t(y) * size_t(stride);
            uint8_t *padded = work.padded.data();
            std::memset(padded, source[0], size_t(rmax));
            std::memcpy(padded + rmax, source, size_t(width));
            std::memset(padded + rmax + width, source[width - 1], size_t(rmax));
            integral_row(padded, padded_width, ring_row(j - 1), ring_row(j));
        };
        const int32_t delta = int32_t(std::floor(constant));
        for (int32_t y = row_begin; y < row_end; ++y) {
            while (made < y + 2 * rmax + 1) make(++made);
            const uint8_t *line = gray + size_t(y) * size_t(stride);
            for (int32_t k = 0; k < count; ++k) {
                const int32_t r = windows[k] / 2;
                const int64_t n = int64_t(windows[k]) * windows[k], c = n * delta - (n - 1) / 2;
                const uint32_t *top = ring_row(y + rmax - r) + (rmax - r), *bottom = ring_row(y + rmax + r + 1) + (rmax - r);
                uint8_t *out = binaries + (size_t(k) * size_t(height) + size_t(y)) * size_t(width);
                if (n * 255 + std::abs(c) < (int64_t(1) << 31))
                    compare_row(top, bottom, 2 * r + 1, line, width, int32_t(n), int32_t(c), out);
                else
                    compare_row_wide(top, bottom, 2 * r + 1, line, width, n, c, out);
            }
        }
        return BRIDGE_OK;
    });
}

extern "C" int32_t mkk_adaptive_threshold(const uint8_t *gray, int32_t width, int32_t height, int32_t stride,
                                          int32_t window, double constant, uint8_t *binary) {
    if (binary == nullptr || window < 3 || window % 2 == 0 || window > 2899)
        return bridge::fail(BRIDGE_ERR_ARGUMENT, "adaptive threshold: bad image or window");
    return mkk_adaptive_threshold_rows(gray, width, height, stride, &window, 1, constant, binary, 0, height);
}
