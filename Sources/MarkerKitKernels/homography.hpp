// The projective map of the unit square onto a quadrilateral (Heckbert's closed form), shared by the
// candidate unwarp and the square pose.
#pragma once

namespace mkk {
// H (row-major 3x3, H[2][2] = 1) with H (0,0) = p[0], (1,0) = p[1], (1,1) = p[2], (0,1) = p[3];
// false when three corners are collinear.
inline bool unit_square_to_quad(const double p[4][2], double H[3][3]) {
    const double x0 = p[0][0], y0 = p[0][1], x1 = p[1][0], y1 = p[1][1];
    const double x2 = p[2][0], y2 = p[2][1], x3 = p[3][0], y3 = p[3][1];
    const double sx = x0 - x1 + x2 - x3, sy = y0 - y1 + y2 - y3;
    double a, b, d, e, g = 0, h = 0;
    if (sx == 0 && sy == 0) {
        a = x1 - x0; b = x2 - x1; d = y1 - y0; e = y2 - y1;
    } else {
        const double dx1 = x1 - x2, dx2 = x3 - x2, dy1 = y1 - y2, dy2 = y3 - y2;
        const double den = dx1 * dy2 - dx2 * dy1;
        if (den == 0) return false;
        g = (sx * dy2 - dx2 * sy) / den;
        h = (dx1 * sy - sx * dy1) / den;
        a = x1 - x0 + g * x1; b = x3 - x0 + h * x3; d = y1 - y0 + g * y1; e = y3 - y0 + h * y3;
    }
    H[0][0] = a; H[0][1] = b; H[0][2] = x0;
    H[1][0] = d; H[1][1] = e; H[1][2] = y0;
    H[2][0] = g; H[2][1] = h; H[2][2] = 1;
    return true;
}
} // namespace mkk
