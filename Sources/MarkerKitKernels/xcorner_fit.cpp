// One pass of the chessboard-corner model fit (XCornerFit): the sum of squared residuals of the pixels
// about a corner and, when asked, the Gauss-Newton normal equations JᵀJ, Jᵀr of the model
//
//     value = mean + contrast * E(d1) * E(d2),  E(d) = erf(d / (σ√2)) [- γ/3 (z² - 1) φ(z), z = d / σ]
//
// with d1, d2 the distances to the corner's two edges, each bent by a curvature. This pass is all the
// fit's time: a window of up to 33x33 pixels, one pass per Levenberg-Marquardt trial, two fits per corner,
// a hundred corners a photo. The Swift original called libm's erf and exp twice each per pixel and went
// over the pixels twice per trial (the normal equations, then the trial's cost); here one pass gives the
// cost and the normal equations together, four pixels at a time in vector registers (built for AVX2 with FMA and
// for any x86-64, picked at run time as multiversion.hpp does), and erf comes from the same exp(-z²) the derivative needs:
// Abramowitz & Stegun 7.1.26, erf(x) = 1 - t (a1 + t (a2 + ... )) exp(-x²), t = 1 / (1 + p x), whose
// error is at most 1.5e-7 (0.00002 gray levels on a contrast of 100: nothing beside a camera's noise).
// exp is a Cody-Waite reduction and a degree-11 polynomial (relative error below 1e-14).
#include <cmath>
#include <cstring>
#include "bridge_status.h"
#include "markerkit_kernels.h"
#include "multiversion.hpp"

namespace {
// Multiply-adds are fused where the processor has FMA (the AVX2 build): the two builds then differ in the
// last bits, which a fit does not notice (tested against the Swift original within 1e-5 of each entry).
#pragma clang fp contract(fast)
// The helpers below take and return 4-double vectors; they live in this file only and are inlined into
// both builds of the pass, so no such value crosses a call between code built with and without AVX
// (what -Wpsabi warns of).
#pragma clang diagnostic ignored "-Wpsabi"

typedef double v4d __attribute__((vector_size(32)));
typedef long long v4l __attribute__((vector_size(32)));

__attribute__((always_inline)) inline v4d splat(double x) { return v4d{x, x, x, x}; }

// e^x for x <= 0 (here always -z², so never above 0); below -700 the result is 0.
__attribute__((always_inline)) inline v4d exp_negative(v4d x) {
    const v4d lo = splat(-700.0);
    const v4l below = x < lo;
    x = below ? lo : x;
    const double magic = 6755399441055744.0; // 1.5 * 2^52: adding it rounds to an integer in the low bits.
    const v4d t = x * splat(1.4426950408889634) + splat(magic);
    const v4d n = t - splat(magic);
    const v4d r = (x - n * splat(0.6931471803691238)) - n * splat(1.9082149292705877e-10);
    // e^r, |r| <= 0.35: Taylor to r^11 (remainder below 3e-15 relative).
    v4d p = splat(1.0 / 39916800.0);
    p = p * r + splat(1.0 / 3628800.0);
    p = p * r + splat(1.0 / 362880.0);
    p = p * r + splat(1.0 / 40320.0);
    p = p * r + splat(1.0 / 5040.0);
    p = p * r + splat(1.0 / 720.0);
    p = p * r + splat(1.0 / 120.0);
    p = p * r + splat(1.0 / 24.0);
    p = p * r + splat(1.0 / 6.0);
    p = p * r + splat(0.5);
    p = p * r + splat(1.0);
    p = p * r + splat(1.0);
    // 2^n from n's bits: t's integer bits less the magic number's are n.
    v4l bits;
    std::memcpy(&bits, &t, sizeof bits);
    long long magic_bits;
    std::memcpy(&magic_bits, &magic, sizeof magic_bits);
    const v4l e = ((bits - magic_bits) + 1023) << 52;
    v4d scale;
    std::memcpy(&scale, &e, sizeof scale);
    const v4d result = p * scale;
    return below ? splat(0.0) : result;
}

// erf(x) given g = exp(-x²) (Abramowitz & Stegun 7.1.26).
__attribute__((always_inline)) inline v4d erf_from(v4d x, v4d g) {
    const v4l negative = x < splat(0.0);
    const v4d a = negative ? -x : x;
    const v4d t = splat(1.0) / (splat(1.0) + splat(0.3275911) * a);
    v4d p = splat(1.061405429);
    p = p * t + splat(-1.453152027);
    p = p * t + splat(1.421413741);
    p = p * t + splat(-0.284496736);
    p = p * t + splat(0.254829592);
    const v4d y = splat(1.0) - p * t * g;
    return negative ? -y : y;
}

constexpr int most = 11;

template <bool skew, bool normal>
__attribute__((always_inline)) inline void pass_body(const double *xs, const double *ys, const double *values, int32_t count,
                                                     const double *q, double *jtj, double *jtr, double *cost) {
    const int n = skew ? 11 : 9;
    const double c1 = std::cos(q[2]), s1 = std::sin(q[2]), c2 = std::cos(q[3]), s2 = std::sin(q[3]);
    const double sigma = q[6], k = 1 / (sigma * std::sqrt(2.0)), slope = std::sqrt(2 / M_PI) / sigma, inverse_sigma = 1 / sigma;
    const double cube = sigma * sigma * sigma;
    const double gamma1 = skew ? (c1 * c1 * c1 * q[9] + s1 * s1 * s1 * q[10]) / cube : 0;
    const double gamma2 = skew ? (c2 * c2 * c2 * q[9] + s2 * s2 * s2 * q[10]) / cube : 0;
    const double gamma1_angle = skew ? 3 * c1 * s1 * (s1 * q[10] - c1 * q[9]) / cube : 0;
    const double gamma2_angle = skew ? 3 * c2 * s2 * (s2 * q[10] - c2 * q[9]) / cube : 0;
    const double mean = q[4], contrast = q[5];
    // Accumulators per lane: the upper triangle of JᵀJ, Jᵀr, the cost.
    v4d sum_jtj[most * (most + 1) / 2], sum_jtr[most], sum_cost = splat(0.0);
    for (int a = 0; a < most * (most + 1) / 2; ++a) sum_jtj[a] = splat(0.0);
    for (int a = 0; a < most; ++a) sum_jtr[a] = splat(0.0);
    const v4d third = splat(1.0 / 3.0), one = splat(1.0), c = splat(contrast), saturated = splat(4.5);
    // The far pixels' sums: their count, the model's ±1 and the residuals (JᵀJ's and Jᵀr's tone entries).
    v4d flat_count = splat(0.0), flat_g = splat(0.0), flat_r = splat(0.0), flat_gr = splat(0.0);
    for (int32_t i = 0; i < count; i += 4) {
        v4d x, y, v, weight = one;
        if (i + 4 <= count) {
            std::memcpy(&x, xs + i, sizeof x);
            std::memcpy(&y, ys + i, sizeof y);
            std::memcpy(&v, values + i, sizeof v);
        } else {
            for (int l = 0; l < 4; ++l) {
                const bool in = i + l < count;
                x[l] = in ? xs[i + l] : q[0];
                y[l] = in ? ys[i + l] : q[1];
                v[l] = in ? values[i + l] : mean;
                weight[l] = in ? 1.0 : 0.0;
            }
        }
        const v4d dx = x - splat(q[0]), dy = y - splat(q[1]);
        const v4d t1 = splat(-s1) * dx + splat(c1) * dy, t2 = splat(-s2) * dx + splat(c2) * dy;
        const v4d n1 = splat(c1) * dx + splat(s1) * dy, n2 = splat(c2) * dx + splat(s2) * dy;
        const v4d d1 = n1 + splat(q[7]) * t1 * t1, d2 = n2 + splat(q[8]) * t2 * t2;
        const v4d x1 = d1 * splat(k), x2 = d2 * splat(k);
        // Four pixels far from both edges (inside a square, more than 4.5 blurs' √2 from its edges: erf is
        // ±1 within 2e-10 and every derivative but the mean's and the contrast's below 2e-9 of its
        // largest): only the tones see them. Most of a window is such pixels when the blur is small.
        const v4l far = ((x1 > saturated) | (x1 < -saturated)) & ((x2 > saturated) | (x2 < -saturated));
        if (((far[0] & far[1]) & (far[2] & far[3])) && weight[3] == 1.0) {
            const v4d g = (x1 > splat(0.0) ? one : -one) * (x2 > splat(0.0) ? one : -one);
            const v4d r = v - (splat(mean) + c * g);
            sum_cost += r * r;
            if (normal) {
                flat_count += one;
                flat_g += g;
                flat_r += r;
                flat_gr += g * r;
            }
            continue;
        }
        const v4d gauss1 = exp_negative(-(x1 * x1)), gauss2 = exp_negative(-(x2 * x2));
        v4d g1 = erf_from(x1, gauss1), g2 = erf_from(x2, gauss2);
        v4d h1 = splat(slope) * gauss1, h2 = splat(slope) * gauss2;
        const v4d z1 = d1 * splat(inverse_sigma), z2 = d2 * splat(inverse_sigma);
        v4d b1 = -h1 * z1, b2 = -h2 * z2, e1 = splat(0.0), e2 = splat(0.0);
        if (skew) {
            const v4d p1 = h1 * splat(sigma / 2), p2 = h2 * splat(sigma / 2);
            e1 = -(z1 * z1 - one) * p1 * third;
            e2 = -(z2 * z2 - one) * p2 * third;
            g1 += splat(gamma1) * e1;
            g2 += splat(gamma2) * e2;
            b1 += splat(gamma1 / sigma) * ((splat(3.0) * z1 * z1 - z1 * z1 * z1 * z1) * p1 * third + (z1 * z1 - one) * p1);
            b2 += splat(gamma2 / sigma) * ((splat(3.0) * z2 * z2 - z2 * z2 * z2 * z2) * p2 * third + (z2 * z2 - one) * p2);
            h1 -= splat(gamma1 / (3 * sigma)) * (splat(3.0) * z1 - z1 * z1 * z1) * p1;
            h2 -= splat(gamma2 / (3 * sigma)) * (splat(3.0) * z2 - z2 * z2 * z2) * p2;
        }
        const v4d r = (v - (splat(mean) + c * g1 * g2)) * weight;
        sum_cost += r * r;
        if (!normal) continue;
        const v4d a1 = h1 * g2 * weight, a2 = g1 * h2 * weight;
        v4d row[most];
        row[0] = c * (a1 * (splat(-c1) + splat(2 * q[7] * s1) * t1) + a2 * (splat(-c2) + splat(2 * q[8] * s2) * t2));
        row[1] = c * (a1 * (splat(-s1) - splat(2 * q[7] * c1) * t1) + a2 * (splat(-s2) - splat(2 * q[8] * c2) * t2));
        row[2] = c * a1 * (t1 - splat(2 * q[7]) * t1 * n1) + c * e1 * g2 * splat(gamma1_angle) * weight;
        row[3] = c * a2 * (t2 - splat(2 * q[8]) * t2 * n2) + c * g1 * e2 * splat(gamma2_angle) * weight;
        row[4] = weight;
        row[5] = g1 * g2 * weight;
        row[6] = c * (b1 * g2 + g1 * b2) * weight;
        row[7] = c * a1 * t1 * t1;
        row[8] = c * a2 * t2 * t2;
        row[9] = c * (e1 * g2 * splat(c1 * c1 * c1) + g1 * e2 * splat(c2 * c2 * c2)) * splat(1 / cube) * weight;
        row[10] = c * (e1 * g2 * splat(s1 * s1 * s1) + g1 * e2 * splat(s2 * s2 * s2)) * splat(1 / cube) * weight;
        int m = 0;
        for (int a = 0; a < n; ++a) {
            sum_jtr[a] += row[a] * r;
            for (int b = a; b < n; ++b) sum_jtj[m++] += row[a] * row[b];
        }
    }
    *cost = (sum_cost[0] + sum_cost[1]) + (sum_cost[2] + sum_cost[3]);
    if (!normal) return;
    // Rows 4 and 5 of a far pixel are 1 and ±1 (g² = 1), the rest 0.
    sum_jtj[4 * n - 6] += flat_count;          // (4, 4)
    sum_jtj[4 * n - 6 + 1] += flat_g;          // (4, 5)
    sum_jtj[5 * n - 10] += flat_count;         // (5, 5)
    sum_jtr[4] += flat_r;
    sum_jtr[5] += flat_gr;
    int m = 0;
    for (int a = 0; a < n; ++a) {
        jtr[a] = (sum_jtr[a][0] + sum_jtr[a][1]) + (sum_jtr[a][2] + sum_jtr[a][3]);
        for (int b = a; b < n; ++b, ++m) {
            const double s = (sum_jtj[m][0] + sum_jtj[m][1]) + (sum_jtj[m][2] + sum_jtj[m][3]);
            jtj[n * a + b] = s;
            jtj[n * b + a] = s;
        }
    }
}

__attribute__((always_inline)) inline void pass_any(const double *xs, const double *ys, const double *values, int32_t count,
                                                    const double *q, int32_t skew, int32_t normal, double *jtj, double *jtr,
                                                    double *cost) {
    if (skew && normal) pass_body<true, true>(xs, ys, values, count, q, jtj, jtr, cost);
    else if (skew) pass_body<true, false>(xs, ys, values, count, q, jtj, jtr, cost);
    else if (normal) pass_body<false, true>(xs, ys, values, count, q, jtj, jtr, cost);
    else pass_body<false, false>(xs, ys, values, count, q, jtj, jtr, cost);
}

#if defined(__x86_64__)
__attribute__((target("avx2,fma"))) void pass_avx2(const double *xs, const double *ys, const double *values, int32_t count,
                                                   const double *q, int32_t skew, int32_t normal, double *jtj, double *jtr,
                                                   double *cost) {
    pass_any(xs, ys, values, count, q, skew, normal, jtj, jtr, cost);
}
bool has_avx2_fma() {
    static const bool yes = mkk::has_avx2() && __builtin_cpu_supports("fma");
    return yes;
}
#endif

void pass(const double *xs, const double *ys, const double *values, int32_t count, const double *q, int32_t skew,
          int32_t normal, double *jtj, double *jtr, double *cost) {
#if defined(__x86_64__)
    if (has_avx2_fma()) return pass_avx2(xs, ys, values, count, q, skew, normal, jtj, jtr, cost);
#endif
    pass_any(xs, ys, values, count, q, skew, normal, jtj, jtr, cost);
}
} // namespace

extern "C" int32_t mkk_xcorner_pass(const double *xs, const double *ys, const double *values, int32_t count, const double *q,
                                    int32_t skew, int32_t normal, double *jtj, double *jtr, double *cost) {
    if (xs == nullptr || ys == nullptr || values == nullptr || q == nullptr || cost == nullptr || count < 1 ||
        (normal && (jtj == nullptr || jtr == nullptr)) || !(q[6] > 0))
        return BRIDGE_ERR_ARGUMENT;
    pass(xs, ys, values, count, q, skew, normal, jtj, jtr, cost);
    return BRIDGE_OK;
}
