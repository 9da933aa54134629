// The corner refiner's edge profiles (CornerRefiner.edgePoints): where a marker's outer edge crosses
// each of up to 60 short profiles along one side, to sub-pixel precision, the weak ones dropped. The arithmetic is the Swift
// original's, operation for operation in double precision (no fused multiply-adds), so the points are
// the same to the bit (tested against it). The work goes across the profiles: sample j of every profile,
// then the next j, so that positions, blends and divisions are loops the compiler vectorises (only the
// pixel reads are one at a time; the loop along each profile was not vectorised: 0.49 -> 0.30 ms for
// the 800 edge passes of a 640x480 frame with 50 markers). Built for AVX2 and for any x86-64, picked at
// run time (multiversion.hpp). It was the largest stage per candidate after the unwarp was made fast.
//
// With `cells` (the marker's side in cells, border included) a profile stops inside the black border:
// where the border across the edge is too thin for the profile's inward reach (a small marker, or an
// edge foreshortened by tilt), its inner samples would see the code cells behind the border, and a
// white cell there pulls the edge inward by up to a tenth of a pixel. That shift depends on the code
// and on the border's width in the image, which perspective makes unequal, so it tilts the corners'
// square towards the mirror pose (at 20 px the chosen pose was the mirror in 65% of frames). Stopped
// inside the border, every profile of a thin edge ends the same way whatever cells lie behind it.
#include <algorithm>
#include <cmath>
#include "bridge_status.h"
#include "markerkit_kernels.h"
#include "multiversion.hpp"

namespace {
#pragma clang fp contract(off)

inline double distance(double ax, double ay, double bx, double by) {
    return std::sqrt((ax - bx) * (ax - bx) + (ay - by) * (ay - by));
}

// Distance from p to the line through a and b, whose length is given (CornerRefiner.distance).
inline double distance_to_line(double px, double py, double ax, double ay, double bx, double by, double length) {
    if (!(length > 0)) return distance(px, py, ax, ay);
    return std::fabs((bx - ax) * (py - ay) - (by - ay) * (px - ax)) / length;
}

MKK_TWICE(int32_t, profiles,
          (const uint8_t *gray, int32_t width, int32_t height, int32_t stride, const double *e, int32_t cells,
           double *points, double *strengths),
          (gray, width, height, stride, e, cells, points, strengths)) {
    const double ax = e[0], ay = e[1], bx = e[2], by = e[3], cx = e[4], cy = e[5], dx_ = e[6], dy_ = e[7];
    const double length = distance(ax, ay, bx, by);
    if (!(length >= 4)) return 0;
    const double dx = (bx - ax) / length, dy = (by - ay) / length;
    // Corners go clockwise in the image, so this normal points into the marker.
    const double nx = -dy, ny = dx;
    const int reach = mkk_edge_profile_reach(length);
    const int samples = std::min(std::max(int(length / 1.5), 12), 60);
    const double clearance = double(reach) + 1.5;
    const double before_length = distance(cx, cy, ax, ay), after_length = distance(bx, by, dx_, dy_);
    const int last = 2 * reach;
    // The marker's extent across the edge at a and at b: the border's width there is a cell of it.
    const double height_a = distance_to_line(cx, cy, ax, ay, bx, by, length);
    const double height_b = distance_to_line(dx_, dy_, ax, ay, bx, by, length);
    const double max_x = double(width - 1), max_y = double(height - 1);
    // The profiles clear of the neighbouring edges, their middles on the edge, in order along it.
    double middle_x[60], middle_y[60], along_t[60];
    int n = 0;
    for (int k = 0; k < samples; ++k) {
        const double t = 0.08 + 0.84 * double(k) / double(samples - 1);
        const double px = ax + (bx - ax) * t, py = ay + (by - ay) * t;
        if (!(distance_to_line(px, py, cx, cy, ax, ay, before_length) > clearance) ||
            !(distance_to_line(px, py, bx, by, dx_, dy_, after_length) > clearance))
            continue;
        middle_x[n] = px;
        middle_y[n] = py;
        along_t[n] = t;
        ++n;
    }
    // Sample j of every profile at once (GrayImage.sample: clamped to the image, bilinear): the
    // positions and the blend over the profiles in vector loops, the pixels read in between.
    double profile[13][60];
    for (int j = 0; j <= last; ++j) {
        const double s = double(j - reach), offset_x = nx * s, offset_y = ny * s;
        double fx[60], fy[60], v00[60], v01[60], v10[60], v11[60];
        int x0[60], y0[60], x1[60], y1[60];
        for (int i = 0; i < n; ++i) {
            const double x = middle_x[i] + offset_x, y = middle_y[i] + offset_y;
            const double sx = std::min(std::max(x, 0.0), max_x), sy = std::min(std::max(y, 0.0), max_y);
            x0[i] = int(sx);
            y0[i] = int(sy);
            x1[i] = std::min(x0[i] + 1, width - 1);
            y1[i] = std::min(y0[i] + 1, height - 1);
            fx[i] = sx - double(x0[i]);
            fy[i] = sy - double(y0[i]);
        }
        for (int i = 0; i < n; ++i) {
            const uint8_t *r0 = gray + size_t(y0[i]) * size_t(stride), *r1 = gray + size_t(y1[i]) * size_t(stride);
            v00[i] = double(r0[x0[i]]);
            v01[i] = double(r0[x1[i]]);
            v10[i] = double(r1[x0[i]]);
            v11[i] = double(r1[x1[i]]);
        }
        double *row = profile[j];
        for (int i = 0; i < n; ++i) {
            const double top = v00[i] * (1 - fx[i]) + v01[i] * fx[i];
            const double bottom = v10[i] * (1 - fx[i]) + v11[i] * fx[i];
            row[i] = top * (1 - fy[i]) + bottom * fy[i];
        }
    }
    // Each profile's light and dark levels and the samples that count (all, or those inside a thin border).
    double light[60], dark[60], contrast[60], light_area[60];
    int begin[60], end[60];
    for (int i = 0; i < n; ++i) {
        light[i] = (profile[0][i] + profile[1][i]) / 2;
        dark[i] = (profile[last][i] + profile[last - 1][i]) / 2;
        begin[i] = 0;
        end[i] = last;
        if (cells > 0) {
            // Inward, the samples stop 1.5 px short of the code cells (at least one sample inside), and
            // the profile is cut as far outward: its light and dark levels, read as far from the edge on
            // either side, carry the same share of the edge's own blur, which then cancels.
            const double t = along_t[i];
            const double border = ((1 - t) * height_a + t * height_b) / double(cells);
            const int inward = std::max(1, int(border - 1.5));
            if (inward < reach) {
                begin[i] = reach - inward;
                end[i] = reach + inward;
                light[i] = inward >= 2 ? (profile[begin[i]][i] + profile[begin[i] + 1][i]) / 2 : profile[begin[i]][i];
                dark[i] = inward >= 2 ? (profile[end[i]][i] + profile[end[i] - 1][i]) / 2 : profile[end[i]][i];
            }
        }
        contrast[i] = light[i] - dark[i];
        // The samples outward of the window count as light.
        light_area[i] = double(begin[i]);
    }
    // The light share of every sample in the window, added in order along each profile (a sample outside
    // adds exactly nothing).
    for (int j = 0; j <= last; ++j) {
        for (int i = 0; i < n; ++i) {
            const double share = std::min(1.0, std::max(0.0, (profile[j][i] - dark[i]) / contrast[i]));
            light_area[i] += j >= begin[i] && j <= end[i] ? share : 0.0;
        }
    }
    int32_t count = 0;
    for (int i = 0; i < n; ++i) {
        if (!(contrast[i] > 10)) continue;
        // Sample j covers [j - 0.5, j + 0.5] around offset j - reach.
        const double along = -double(reach) - 0.5 + light_area[i];
        points[2 * count] = middle_x[i] + nx * along;
        points[2 * count + 1] = middle_y[i] + ny * along;
        strengths[count] = contrast[i];
        ++count;
    }
    return count;
}

// Too few points to fit a line: none. Else weak edge points (glare, occlusion) are dropped: contrast
// below half the upper median (the value a sort would put at count / 2).
int32_t keep_strong(int32_t count, double *points, double *strengths) {
    if (count < 4) return 0;
    double ranked[60];
    std::copy(strengths, strengths + count, ranked);
    std::nth_element(ranked, ranked + count / 2, ranked + count);
    const double median = ranked[count / 2];
    int32_t kept = 0;
    for (int32_t i = 0; i < count; ++i) {
        if (!(strengths[i] >= 0.5 * median)) continue;
        points[2 * kept] = points[2 * i];
        points[2 * kept + 1] = points[2 * i + 1];
        strengths[kept] = strengths[i];
        ++kept;
    }
    return kept;
}
} // namespace

extern "C" int32_t mkk_edge_profile_reach(double length) {
    if (!(length >= 0)) return 2;
    return std::max(2, std::min(int(std::min(length, 1e6) / 7 * 0.45), 6));
}

extern "C" int32_t mkk_edge_profiles(const uint8_t *gray, int32_t width, int32_t height, int32_t stride,
                                     const double *edge, int32_t cells, double *points, double *strengths) {
    if (gray == nullptr || width < 1 || height < 1 || stride < width || edge == nullptr || points == nullptr ||
        strengths == nullptr)
        return BRIDGE_ERR_ARGUMENT;
    for (int i = 0; i < 8; ++i)
        if (!std::isfinite(edge[i])) return 0;
    return keep_strong(profiles(gray, width, height, stride, edge, cells, points, strengths), points, strengths);
}
