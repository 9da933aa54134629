// The quadrilateral's inside sampled onto a size x size square by the homography that takes the square's
// corners (0,0), (size-1,0), (size-1,size-1), (0,size-1) to corners 0..3 (Heckbert's square-to-quad
// form), bilinear, outside pixels black: what warpPerspective with INTER_LINEAR does (positions to 1/32
// pixel, integer weights), without the heap allocations OpenCV makes per call
// (candidates are unwarped thousands of times a second).
#include <cmath>
#include <cstdint>
#include "bridge_status.h"
#include "homography.hpp"
#include "markerkit_kernels.h"
#include "multiversion.hpp"

namespace {
struct SquareToQuad {
    double a, b, d, e, g, h, x0, y0;
};

// The map in single precision about the whole pixel (ox, oy) nearest corner 0 (its floor): x = ox +
// (ax u + bx v + cx) / w, w = g u + h v + 1, and y alike. Eight lanes where doubles filled four, and one
// division per sample where there were two (the stage's time). Relative to a whole pixel, the
// arithmetic is the same wherever the quad lies, so a quad moved by whole pixels samples the same
// positions (the checked and the interior rows below agree bit for bit); a position is exact to about
// 1e-4 px at 1000 px from corner 0, far inside the 1/32 px steps.
struct FloatMap {
    float ax, bx, cx, ay, by, cy, g, h;
    int32_t ox, oy;

    explicit FloatMap(const SquareToQuad &m) {
        const double fx = std::floor(m.x0), fy = std::floor(m.y0);
        ox = int32_t(fx);
        oy = int32_t(fy);
        ax = float(m.a - fx * m.g);
        bx = float(m.b - fx * m.h);
        cx = float(m.x0 - fx);
        ay = float(m.d - fy * m.g);
        by = float(m.e - fy * m.h);
        cy = float(m.y0 - fy);
        g = float(m.g);
        h = float(m.h);
    }
};

// floor to an int (a rounding instruction in the AVX2 build, where the loop vectorises).
inline int floor_int(float t) { return int(std::floor(t)); }

constexpr int kMaxRow = 512;

// One row of the square when every sample is known to lie inside the image with its right and lower
// neighbours: no sample is tested, and the positions (with their pixel offsets and weights) are worked
// out first in a loop the compiler vectorises. Positions are rounded to 1/32 pixel, as OpenCV's bilinear
// tables have them; the weights are then whole multiples of 1/1024 and the rounded sum is exact. Built
// for AVX2 and for any x86-64, picked at run time (multiversion.hpp: the same arithmetic, faster with AVX2).
MKK_TWICE(void, warp_row_inside,
          (const uint8_t *__restrict gray, int32_t stride, const FloatMap &m, float scale, float v, int32_t size,
           uint8_t *__restrict out),
          (gray, stride, m, scale, v, size, out)) {
    int offsets[kMaxRow], fxs[kMaxRow], fys[kMaxRow];
    const float rx = m.bx * v + m.cx, ry = m.by * v + m.cy, rw = m.h * v + 1;
    const int base = m.oy * stride + m.ox;
    for (int col = 0; col < size; ++col) {
        const float u = float(col) * scale;
        const float inverse = 32.0f / (m.g * u + rw);
        const int qx = floor_int((m.ax * u + rx) * inverse + 0.5f), qy = floor_int((m.ay * u + ry) * inverse + 0.5f);
        offsets[col] = base + (qy >> 5) * stride + (qx >> 5);
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

// The same for a row that may leave the image: every sample and neighbour tested, black outside (where
// the map in double precision puts the sample a pixel or more outside, or has no finite value).
void warp_row_checked(const uint8_t *gray, int32_t width, int32_t height, int32_t stride, const SquareToQuad &d,
                      const FloatMap &m, float scale, float v, int32_t size, uint8_t *out) {
    auto at = [&](int x, int y) -> int {
        if (x < 0 || y < 0 || x >= width || y >= height) return 0;
        return gray[size_t(y) * size_t(stride) + size_t(x)];
    };
    const float rx = m.bx * v + m.cx, ry = m.by * v + m.cy, rw = m.h * v + 1;
    const double dv = double(v);
    for (int col = 0; col < size; ++col) {
        const float u = float(col) * scale;
        const double du = double(u), w = d.g * du + d.h * dv + 1;
        const double x = (d.a * du + d.b * dv + d.x0) / w, y = (d.d * du + d.e * dv + d.y0) / w;
        if (!(std::isfinite(x) && std::isfinite(y) && x > -1 && y > -1 && x < width && y < height)) {
            out[col] = 0;
            continue;
        }
        const float inverse = 32.0f / (m.g * u + rw);
        const int qx = floor_int((m.ax * u + rx) * inverse + 0.5f), qy = floor_int((m.ay * u + ry) * inverse + 0.5f);
        const int px = m.ox + (qx >> 5), py = m.oy + (qy >> 5), fx = qx & 31, fy = qy & 31;
        const int top = at(px, py) * (32 - fx) + at(px + 1, py) * fx;
        const int bottom = at(px, py + 1) * (32 - fx) + at(px + 1, py + 1) * fx;
        out[col] = uint8_t((top * (32 - fy) + bottom * fy + 512) >> 10);
    }
}
} // namespace

extern "C" int32_t mkk_warp_quad(const uint8_t *gray, int32_t width, int32_t height, int32_t stride,
                                 const double *corners, int32_t size, uint8_t *out) {
    if (!bridge::valid_gray(gray, width, height, stride) || corners == nullptr || out == nullptr || size < 2)
        return bridge::fail(BRIDGE_ERR_ARGUMENT, "warp quad: bad argument");
    const double quad[4][2] = {{corners[0], corners[1]}, {corners[2], corners[3]}, {corners[4], corners[5]}, {corners[6], corners[7]}};
    double H[3][3];
    if (!mkk::unit_square_to_quad(quad, H)) return bridge::fail(BRIDGE_ERR_ARGUMENT, "warp quad: degenerate quadrilateral");
    const SquareToQuad m{H[0][0], H[0][1], H[1][0], H[1][1], H[2][0], H[2][1], H[0][2], H[1][2]};
    // With w > 0 at the four corners the map has no pole over the square and carries it onto the convex
    // quad, so when every corner lies a pixel inside the image, so does every sample.
    bool inside = size <= kMaxRow && 1 + m.g > 0 && 1 + m.h > 0 && 1 + m.g + m.h > 0 &&
                  int64_t(stride) * height < (int64_t(1) << 31); // pixel offsets in an int
    for (int i = 0; i < 4 && inside; ++i) {
        const double x = corners[2 * i], y = corners[2 * i + 1];
        inside = x >= 1 && y >= 1 && x <= width - 3 && y <= height - 3;
    }
    const FloatMap map(m);
    const float scale = 1.0f / float(size - 1);
    for (int row = 0; row < size; ++row) {
        uint8_t *line = out + size_t(row) * size_t(size);
        if (inside)
            warp_row_inside(gray, stride, map, scale, float(row) * scale, size, line);
        else
            warp_row_checked(gray, width, height, stride, m, map, scale, float(row) * scale, size, line);
    }
    return BRIDGE_OK;
}
