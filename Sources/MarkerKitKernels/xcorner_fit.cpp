// One pass of the chessboard-corner model fit (XCornerFit): the sum of squared residuals of the pixels
// about a corner and, when asked, the Gauss-Newton normal equations JᵀJ, Jᵀr of the model
//
//     value = mean + contrast * E(d1) * E(d2),  E(d) = erf(d / (σ√2)) [- γ/3 (z² - 1) φ(z), z = d / σ]
//
// with d1, d2 the distances to the corner's two edges, each bent by a curvature. This pass is all the
// fit's time: a window of up to 33x33 pixels, one pass per Levenberg-Marquardt trial, two fits per corner,
// a hundred corners a photo. The Swift original called libm's erf and exp twice each per pixel and went
// over the pixels twice per trial (the normal equations, then the trial's cost); here one pass gives the
// cost and the normal equations together, eight pixels at a time as floats in vector registers (built for
// AVX-512, for AVX2 with FMA and for any x86-64, picked at run time as multiversion.hpp does), and erf comes
// from the same exp(-z²) the derivative needs: Abramowitz & Stegun 7.1.26, erf(x) = 1 - t (a1 + t (a2 + ...))
// exp(-x²), t = 1 / (1 + p x), whose error is at most 1.5e-7 (0.00002 gray levels on a contrast of 100:
// nothing beside a camera's noise). exp is a Cody-Waite reduction and a degree-7 polynomial (relative error
// below 2e-8, a float's own).
#include <algorithm>
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

typedef float v8f __attribute__((vector_size(32)));
typedef int v8i __attribute__((vector_size(32)));
typedef float v4f __attribute__((vector_size(16)));
typedef double v4d __attribute__((vector_size(32)));

__attribute__((always_inline)) inline v8f splat(float x) { return v8f{x, x, x, x, x, x, x, x}; }
__attribute__((always_inline)) inline v4d splat_d(double x) { return v4d{x, x, x, x}; }

// e^x for x <= 0 (here always -z², so never above 0); below -87 the result is 0.
__attribute__((always_inline)) inline v8f exp_negative(v8f x) {
    const v8f lo = splat(-87.0f);
    const v8i below = x < lo;
    x = below ? lo : x;
    const float magic = 12582912.0f; // 1.5 * 2^23: adding it rounds to an integer in the low bits.
    const v8f t = x * splat(1.44269504f) + splat(magic);
    const v8f n = t - splat(magic);
    const v8f r = (x - n * splat(0.693359375f)) - n * splat(-2.12194440e-4f);
    // e^r, |r| <= 0.35: Taylor to r^7 (remainder below 2e-8 relative).
    v8f p = splat(1.0f / 5040.0f);
    p = p * r + splat(1.0f / 720.0f);
    p = p * r + splat(1.0f / 120.0f);
    p = p * r + splat(1.0f / 24.0f);
    p = p * r + splat(1.0f / 6.0f);
    p = p * r + splat(0.5f);
    p = p * r + splat(1.0f);
    p = p * r + splat(1.0f);
    // 2^n from n's bits: t's integer bits less the magic number's are n.
    v8i bits;
    std::memcpy(&bits, &t, sizeof bits);
    int magic_bits;
    std::memcpy(&magic_bits, &magic, sizeof magic_bits);
    const v8i e = ((bits - magic_bits) + 127) << 23;
    v8f scale;
    std::memcpy(&scale, &e, sizeof scale);
    const v8f result = p * scale;
    return below ? splat(0.0f) : result;
}

// erf(x) given g = exp(-x²) (Abramowitz & Stegun 7.1.26).
__attribute__((always_inline)) inline v8f erf_from(v8f x, v8f g) {
    const v8i negative = x < splat(0.0f);
    const v8f a = negative ? -x : x;
    const v8f t = splat(1.0f) / (splat(1.0f) + splat(0.3275911f) * a);
    v8f p = splat(1.061405429f);
    p = p * t + splat(-1.453152027f);
    p = p * t + splat(1.421413741f);
    p = p * t + splat(-0.284496736f);
    p = p * t + splat(0.254829592f);
    const v8f y = splat(1.0f) - p * t * g;
    return negative ? -y : y;
}

// Eight doubles less `origin`, as floats (a pixel's offset from the corner: exact to 1e-6 px).
__attribute__((always_inline)) inline v8f offsets(const double *p, double origin) {
    v4d lo, hi;
    std::memcpy(&lo, p, sizeof lo);
    std::memcpy(&hi, p + 4, sizeof hi);
    const v4f a = __builtin_convertvector(lo - splat_d(origin), v4f), b = __builtin_convertvector(hi - splat_d(origin), v4f);
    return __builtin_shufflevector(a, b, 0, 1, 2, 3, 4, 5, 6, 7);
}

// The sum of a vector's squares in double (the cost: trials are told apart by differences of 1e-9 of it).
__attribute__((always_inline)) inline v4d squares(v8f r) {
    const v4f a = __builtin_shufflevector(r, r, 0, 1, 2, 3), b = __builtin_shufflevector(r, r, 4, 5, 6, 7);
    const v4d da = __builtin_convertvector(a, v4d), db = __builtin_convertvector(b, v4d);
    return da * da + db * db;
}

constexpr int most = 11;
// Pixels' rows of J held before they are summed into JᵀJ: a block of this many vectors of eight.
constexpr int block = 16;

// JᵀJ's row `a` (its entries from the diagonal on) and Jᵀr's entry `a` summed over a block's pixels: one
// accumulator per entry stays in a register for the whole block, where summing pixel by pixel into all 66
// entries at once kept them in memory (a load and a store per entry and pixel).
template <int n, int a>
__attribute__((always_inline)) inline void add_row(const v8f (&rows)[most][block], const v8f (&residuals)[block], int filled,
                                                   v8f *jtj_row, v8f &jtr_a) {
    v8f sums[n - a], sum_r = splat(0.0f);
    for (int b = 0; b < n - a; ++b) sums[b] = splat(0.0f);
    for (int j = 0; j < filled; ++j) {
        const v8f ra = rows[a][j];
        sum_r += ra * residuals[j];
#pragma clang loop unroll(full)
        for (int b = 0; b < n - a; ++b) sums[b] += ra * rows[a + b][j];
    }
    for (int b = 0; b < n - a; ++b) jtj_row[b] += sums[b];
    jtr_a += sum_r;
}

template <int n, int a = 0>
__attribute__((always_inline)) inline void add_block(const v8f (&rows)[most][block], const v8f (&residuals)[block], int filled,
                                                     v8f *sum_jtj, v8f *sum_jtr) {
    if constexpr (a < n) {
        // Row a's entries start after rows 0..a-1 of the upper triangle.
        add_row<n, a>(rows, residuals, filled, sum_jtj + (a * n - a * (a - 1) / 2), sum_jtr[a]);
        add_block<n, a + 1>(rows, residuals, filled, sum_jtj, sum_jtr);
    }
}

// Each pixel's model, residual and derivatives are computed in single precision, eight pixels to a
// vector: offsets from the corner are under 40 px and gray levels under 256, so a float carries them to
// 1e-5 of a level, below the erf approximation's own error; the cost is summed in double.
template <bool skew, bool normal>
__attribute__((always_inline)) inline void pass_body(const double *xs, const double *ys, const double *values, int32_t count,
                                                     const double *q, double *jtj, double *jtr, double *cost) {
    const int n = skew ? 11 : 9;
    const double c1d = std::cos(q[2]), s1d = std::sin(q[2]), c2d = std::cos(q[3]), s2d = std::sin(q[3]);
    const double sigmad = q[6], cube = sigmad * sigmad * sigmad;
    const float c1 = float(c1d), s1 = float(s1d), c2 = float(c2d), s2 = float(s2d), sigma = float(sigmad);
    const float k = float(1 / (sigmad * std::sqrt(2.0))), slope = float(std::sqrt(2 / M_PI) / sigmad), inverse_sigma = float(1 / sigmad);
    const float gamma1 = skew ? float((c1d * c1d * c1d * q[9] + s1d * s1d * s1d * q[10]) / cube) : 0;
    const float gamma2 = skew ? float((c2d * c2d * c2d * q[9] + s2d * s2d * s2d * q[10]) / cube) : 0;
    const float gamma1_angle = skew ? float(3 * c1d * s1d * (s1d * q[10] - c1d * q[9]) / cube) : 0;
    const float gamma2_angle = skew ? float(3 * c2d * s2d * (s2d * q[10] - c2d * q[9]) / cube) : 0;
    const float mean = float(q[4]), contrast = float(q[5]), k1 = float(q[7]), k2 = float(q[8]);
    const float inverse_cube = float(1 / cube);
    // Accumulators per lane: the upper triangle of JᵀJ, Jᵀr; the cost in double.
    v8f sum_jtj[most * (most + 1) / 2], sum_jtr[most];
    v4d sum_cost = splat_d(0.0);
    for (int a = 0; a < most * (most + 1) / 2; ++a) sum_jtj[a] = splat(0.0f);
    for (int a = 0; a < most; ++a) sum_jtr[a] = splat(0.0f);
    const v8f third = splat(1.0f / 3.0f), one = splat(1.0f), c = splat(contrast), saturated = splat(3.5f);
    // The far pixels' sums: their count, the model's ±1 and the residuals (JᵀJ's and Jᵀr's tone entries).
    v8f flat_count = splat(0.0f), flat_g = splat(0.0f), flat_r = splat(0.0f), flat_gr = splat(0.0f);
    v8f rows[most][block], residuals[block];
    int filled = 0;
    for (int32_t i = 0; i < count; i += 8) {
        v8f dx, dy, v, weight = one;
        if (i + 8 <= count) {
            dx = offsets(xs + i, q[0]);
            dy = offsets(ys + i, q[1]);
            v4d lo, hi;
            std::memcpy(&lo, values + i, sizeof lo);
            std::memcpy(&hi, values + i + 4, sizeof hi);
            v = __builtin_shufflevector(__builtin_convertvector(lo, v4f), __builtin_convertvector(hi, v4f), 0, 1, 2, 3, 4, 5, 6, 7);
        } else {
            for (int l = 0; l < 8; ++l) {
                const bool in = i + l < count;
                dx[l] = in ? float(xs[i + l] - q[0]) : 0.0f;
                dy[l] = in ? float(ys[i + l] - q[1]) : 0.0f;
                v[l] = in ? float(values[i + l]) : mean;
                weight[l] = in ? 1.0f : 0.0f;
            }
        }
        const v8f t1 = splat(-s1) * dx + splat(c1) * dy, t2 = splat(-s2) * dx + splat(c2) * dy;
        const v8f n1 = splat(c1) * dx + splat(s1) * dy, n2 = splat(c2) * dx + splat(s2) * dy;
        const v8f d1 = n1 + splat(k1) * t1 * t1, d2 = n2 + splat(k2) * t2 * t2;
        const v8f x1 = d1 * splat(k), x2 = d2 * splat(k);
        // Eight pixels far from both edges (inside a square, more than 3.5 blurs' √2 from its edges: erf is
        // ±1 within 7.5e-7, 0.0001 gray levels on a contrast of 150, and every derivative but the mean's
        // and the contrast's below 5e-6 of its largest): only the tones see them. A third of a window or
        // more is such pixels; XCornerFit puts them last, so that whole vectors of them take this path.
        const v8i far = ((x1 > saturated) | (x1 < -saturated)) & ((x2 > saturated) | (x2 < -saturated));
        const v8i all = far & __builtin_shufflevector(far, far, 4, 5, 6, 7, 0, 1, 2, 3);
        if ((all[0] & all[1] & all[2] & all[3]) && weight[7] == 1.0f) {
            const v8f g = (x1 > splat(0.0f) ? one : -one) * (x2 > splat(0.0f) ? one : -one);
            const v8f r = v - (splat(mean) + c * g);
            sum_cost += squares(r);
            if (normal) {
                flat_count += one;
                flat_g += g;
                flat_r += r;
                flat_gr += g * r;
            }
            continue;
        }
        const v8f gauss1 = exp_negative(-(x1 * x1)), gauss2 = exp_negative(-(x2 * x2));
        v8f g1 = erf_from(x1, gauss1), g2 = erf_from(x2, gauss2);
        v8f h1 = splat(slope) * gauss1, h2 = splat(slope) * gauss2;
        const v8f z1 = d1 * splat(inverse_sigma), z2 = d2 * splat(inverse_sigma);
        v8f b1 = -h1 * z1, b2 = -h2 * z2, e1 = splat(0.0f), e2 = splat(0.0f);
        if (skew) {
            const v8f p1 = h1 * splat(sigma / 2), p2 = h2 * splat(sigma / 2);
            e1 = -(z1 * z1 - one) * p1 * third;
            e2 = -(z2 * z2 - one) * p2 * third;
            g1 += splat(gamma1) * e1;
            g2 += splat(gamma2) * e2;
            b1 += splat(gamma1 / sigma) * ((splat(3.0f) * z1 * z1 - z1 * z1 * z1 * z1) * p1 * third + (z1 * z1 - one) * p1);
            b2 += splat(gamma2 / sigma) * ((splat(3.0f) * z2 * z2 - z2 * z2 * z2 * z2) * p2 * third + (z2 * z2 - one) * p2);
            h1 -= splat(gamma1 / (3 * sigma)) * (splat(3.0f) * z1 - z1 * z1 * z1) * p1;
            h2 -= splat(gamma2 / (3 * sigma)) * (splat(3.0f) * z2 - z2 * z2 * z2) * p2;
        }
        const v8f r = (v - (splat(mean) + c * g1 * g2)) * weight;
        sum_cost += squares(r);
        if (!normal) continue;
        const v8f a1 = h1 * g2 * weight, a2 = g1 * h2 * weight;
        v8f row[most];
        row[0] = c * (a1 * (splat(-c1) + splat(2 * k1 * s1) * t1) + a2 * (splat(-c2) + splat(2 * k2 * s2) * t2));
        row[1] = c * (a1 * (splat(-s1) - splat(2 * k1 * c1) * t1) + a2 * (splat(-s2) - splat(2 * k2 * c2) * t2));
        row[2] = c * a1 * (t1 - splat(2 * k1) * t1 * n1) + c * e1 * g2 * splat(gamma1_angle) * weight;
        row[3] = c * a2 * (t2 - splat(2 * k2) * t2 * n2) + c * g1 * e2 * splat(gamma2_angle) * weight;
        row[4] = weight;
        row[5] = g1 * g2 * weight;
        row[6] = c * (b1 * g2 + g1 * b2) * weight;
        row[7] = c * a1 * t1 * t1;
        row[8] = c * a2 * t2 * t2;
        row[9] = c * (e1 * g2 * splat(c1 * c1 * c1) + g1 * e2 * splat(c2 * c2 * c2)) * splat(inverse_cube) * weight;
        row[10] = c * (e1 * g2 * splat(s1 * s1 * s1) + g1 * e2 * splat(s2 * s2 * s2)) * splat(inverse_cube) * weight;
        for (int a = 0; a < n; ++a) rows[a][filled] = row[a];
        residuals[filled] = r;
        if (++filled == block) {
            add_block<n>(rows, residuals, filled, sum_jtj, sum_jtr);
            filled = 0;
        }
    }
    if (normal && filled > 0) add_block<n>(rows, residuals, filled, sum_jtj, sum_jtr);
    *cost = (sum_cost[0] + sum_cost[1]) + (sum_cost[2] + sum_cost[3]);
    if (!normal) return;
    // Rows 4 and 5 of a far pixel are 1 and ±1 (g² = 1), the rest 0.
    sum_jtj[4 * n - 6] += flat_count;          // (4, 4)
    sum_jtj[4 * n - 6 + 1] += flat_g;          // (4, 5)
    sum_jtj[5 * n - 10] += flat_count;         // (5, 5)
    sum_jtr[4] += flat_r;
    sum_jtr[5] += flat_gr;
    auto total = [](v8f s) {
        return ((double(s[0]) + double(s[1])) + (double(s[2]) + double(s[3]))) + ((double(s[4]) + double(s[5])) + (double(s[6]) + double(s[7])));
    };
    int m = 0;
    for (int a = 0; a < n; ++a) {
        jtr[a] = total(sum_jtr[a]);
        for (int b = a; b < n; ++b, ++m) {
            const double s = total(sum_jtj[m]);
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
// The same with AVX-512's 32 vector registers (the vectors stay 8 floats): fewer of JᵀJ's accumulators
// and the pixels' rows leave the registers, 10% quicker a pass on a processor that has it.
__attribute__((target("avx2,fma,avx512f,avx512vl,avx512dq"))) void pass_avx512(const double *xs, const double *ys, const double *values,
                                                                             int32_t count, const double *q, int32_t skew, int32_t normal,
                                                                             double *jtj, double *jtr, double *cost) {
    pass_any(xs, ys, values, count, q, skew, normal, jtj, jtr, cost);
}
bool has_avx2_fma() {
    static const bool yes = mkk::has_avx2() && __builtin_cpu_supports("fma");
    return yes;
}
bool has_avx512() {
    static const bool yes = has_avx2_fma() && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
                            __builtin_cpu_supports("avx512dq");
    return yes;
}
#endif

void pass(const double *xs, const double *ys, const double *values, int32_t count, const double *q, int32_t skew,
          int32_t normal, double *jtj, double *jtr, double *cost) {
#if defined(__x86_64__)
    if (has_avx512()) return pass_avx512(xs, ys, values, count, q, skew, normal, jtj, jtr, cost);
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

extern "C" int32_t mkk_xcorner_step(const double *jtj, const double *jtr, int32_t n, double lambda, int32_t hold, double *step) {
    if (jtj == nullptr || jtr == nullptr || step == nullptr || n < 1 || n > most || !(lambda >= 0)) return BRIDGE_ERR_ARGUMENT;
    // The damped matrix and its Cholesky factor L (lower, in place), then L Lᵀ step = Jᵀr.
    double a[most * most], b[most];
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) a[i * n + j] = jtj[i * n + j];
        a[i * n + i] += lambda * std::max(jtj[i * n + i], 1e-9);
        b[i] = jtr[i];
    }
    if (hold > 0 && hold <= n) {
        const int h = hold - 1;
        for (int i = 0; i < n; ++i) a[i * n + h] = a[h * n + i] = 0;
        a[h * n + h] = 1;
        b[h] = 0;
    }
    for (int j = 0; j < n; ++j) {
        double d = a[j * n + j];
        for (int k = 0; k < j; ++k) d -= a[j * n + k] * a[j * n + k];
        if (!(d > 1e-300)) return BRIDGE_ERR_ARGUMENT;
        const double l = std::sqrt(d);
        a[j * n + j] = l;
        for (int i = j + 1; i < n; ++i) {
            double s = a[i * n + j];
            for (int k = 0; k < j; ++k) s -= a[i * n + k] * a[j * n + k];
            a[i * n + j] = s / l;
        }
    }
    for (int i = 0; i < n; ++i) {
        double s = b[i];
        for (int k = 0; k < i; ++k) s -= a[i * n + k] * b[k];
        b[i] = s / a[i * n + i];
    }
    for (int i = n - 1; i >= 0; --i) {
        double s = b[i];
        for (int k = i + 1; k < n; ++k) s -= a[k * n + i] * b[k];
        b[i] = s / a[i * n + i];
    }
    for (int i = 0; i < n; ++i) {
        if (!std::isfinite(b[i])) return BRIDGE_ERR_ARGUMENT;
        step[i] = b[i];
    }
    return BRIDGE_OK;
}
