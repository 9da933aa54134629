// The quadrilateral's inside sampled onto a size x size square by the homography that takes the square's
// corners (0,0), (size-1,0), (size-1,size-1), (0,size-1) to corners 0..3 (Heckbert's square-to-quad
// form), bilinear, outside pixels black: what warpPerspective with INTER_LINEAR does (positions to 1/32
// pixel, integer weights), in double precision and without the heap allocations OpenCV makes per call
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

constexpr int kMaxRow = 512;

// One row of the square when every sample is known to lie inside the image with its right and lower
// neighbours: no sample is tested, and the positions (with their pixel offsets and weights) are worked
// out first in a loop the compiler vectorises (the two divisions per pixel are most of the stage's
// time). Positions are rounded to 1/32 pixel, as OpenCV's bilinear tables have them; the weights are
// then whole multiples of 1/1024 and the rounded sum is exact. Built for AVX2 and for any x86-64, picked
// at run time (multiversion.hpp: the same arithmetic, about 2.5 times as fast with AVX2).
MKK_TWICE(void, warp_row_inside,
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
    const double scale = 1.0 / double(size - 1);
    for (int row = 0; row < size; ++row) {
        uint8_t *line = out + size_t(row) * size_t(size);
        if (inside)
            warp_row_inside(gray, stride, m, scale, row * scale, size, line);
        else
            warp_row_checked(gray, width, height, stride, m, scale, row * scale, size, line);
    }
    return BRIDGE_OK;
}
