// A pose's uncertainty from its points' noise: the covariance of a square marker's corners from the noise
// of its four edge fits, its IPPE pose's sensitivity to them (on fixed-size arrays: track does this for
// every marker of every frame), and for the least-squares pose of many points (a board's, a map's) the
// projection's Jacobian and the propagation through least squares. The rotation's error is
// taken as a small turn w applied after the pose (R' = exp(w) R, w in camera coordinates), so the angle
// between the true and the estimated rotation is |w|.
#include <cmath>
#include "bridge_status.h"
#include "markerkit_kernels.h"
#include "square_pose.hpp"

namespace {

// Projects object point `p` (x y z) at pose (rvec, tvec) with the extra turn `w` and shift `dt`.
void project_moved(const double *K, const double *d, int n, const double R[3][3], const double *t, const double w[3],
                   const double dt[3], const double *p, double &u, double &v) {
    double W[3][3];
    mkk::rotation_matrix(w, W);
    double q[3];
    for (int i = 0; i < 3; ++i) q[i] = R[i][0] * p[0] + R[i][1] * p[1] + R[i][2] * p[2];
    double c[3];
    for (int i = 0; i < 3; ++i) c[i] = W[i][0] * q[0] + W[i][1] * q[1] + W[i][2] * q[2] + t[i] + dt[i];
    mkk::project_point(K, d, n, c, u, v);
}

// Inverts the symmetric positive definite 6x6 `a` into `out` (Gauss-Jordan with partial pivoting);
// false when it is singular.
bool invert6(const double a[6][6], double out[6][6]) {
    double m[6][12];
    for (int i = 0; i < 6; ++i)
        for (int j = 0; j < 12; ++j) m[i][j] = j < 6 ? a[i][j] : (j - 6 == i ? 1 : 0);
    double scale = 0;
    for (int i = 0; i < 6; ++i) scale = std::fmax(scale, std::fabs(a[i][i]));
    for (int col = 0; col < 6; ++col) {
        int pivot = col;
        for (int r = col + 1; r < 6; ++r)
            if (std::fabs(m[r][col]) > std::fabs(m[pivot][col])) pivot = r;
        if (!(std::fabs(m[pivot][col]) > 1e-14 * scale)) return false;
        if (pivot != col)
            for (int j = 0; j < 12; ++j) std::swap(m[col][j], m[pivot][j]);
        const double inverse = 1 / m[col][col];
        for (int j = 0; j < 12; ++j) m[col][j] *= inverse;
        for (int r = 0; r < 6; ++r) {
            if (r == col || m[r][col] == 0) continue;
            const double f = m[r][col];
            for (int j = 0; j < 12; ++j) m[r][j] -= f * m[col][j];
        }
    }
    for (int i = 0; i < 6; ++i)
        for (int j = 0; j < 6; ++j) out[i][j] = m[i][6 + j];
    return true;
}

} // namespace

extern "C" int32_t mkk_projection_jacobian(const double *object, int32_t count, const double *pose, const double *camera_matrix,
                                           const double *distortion, int32_t distortion_count, double *jacobian) {
    const bool pinhole = distortion_count == 0 || distortion_count == 4 || distortion_count == 5 || distortion_count == 8 ||
                         distortion_count == 12;
    if (object == nullptr || pose == nullptr || camera_matrix == nullptr || jacobian == nullptr || count < 1 || !pinhole ||
        (distortion_count > 0 && distortion == nullptr))
        return bridge::fail(BRIDGE_ERR_ARGUMENT, "pose uncertainty: bad argument");
    double R[3][3];
    mkk::rotation_matrix(pose, R);
    const double *t = pose + 3;
    const double distance = std::sqrt(t[0] * t[0] + t[1] * t[1] + t[2] * t[2]);
    // Central differences: 1e-6 rad of turn, 1e-6 of the distance of shift.
    const double steps[6] = {1e-6, 1e-6, 1e-6, 1e-6 * distance, 1e-6 * distance, 1e-6 * distance};
    if (!(distance > 0) || !std::isfinite(distance)) return bridge::fail(BRIDGE_ERR_ARGUMENT, "pose uncertainty: the pose has no distance");
    for (int32_t i = 0; i < count; ++i) {
        for (int k = 0; k < 6; ++k) {
            double w[3] = {0, 0, 0}, dt[3] = {0, 0, 0}, plus[2], minus[2];
            (k < 3 ? w[k] : dt[k - 3]) = steps[k];
            project_moved(camera_matrix, distortion, distortion_count, R, t, w, dt, object + 3 * i, plus[0], plus[1]);
            (k < 3 ? w[k] : dt[k - 3]) = -steps[k];
            project_moved(camera_matrix, distortion, distortion_count, R, t, w, dt, object + 3 * i, minus[0], minus[1]);
            jacobian[(2 * i) * 6 + k] = (plus[0] - minus[0]) / (2 * steps[k]);
            jacobian[(2 * i + 1) * 6 + k] = (plus[1] - minus[1]) / (2 * steps[k]);
        }
    }
    for (int32_t i = 0; i < 12 * count; ++i)
        if (!std::isfinite(jacobian[i])) return bridge::fail(BRIDGE_ERR_ARGUMENT, "pose uncertainty: a point projects to no pixel");
    return BRIDGE_OK;
}

extern "C" int32_t mkk_pose_covariance(const double *jacobian, int32_t count, int32_t block, const double *covariance, double *out) {
    if (jacobian == nullptr || covariance == nullptr || out == nullptr || block < 1 || block > 4 || count < 3 || count % block != 0)
        return bridge::fail(BRIDGE_ERR_ARGUMENT, "pose uncertainty: bad argument");
    // H = J^T J and M = J^T S J, S block-diagonal (blocks of 2 * block coordinates).
    double H[6][6] = {}, M[6][6] = {};
    const int32_t n = 2 * block;
    for (int32_t b = 0; b < count / block; ++b) {
        const double *J = jacobian + b * n * 6, *S = covariance + b * n * n;
        double SJ[8][6] = {};
        for (int r = 0; r < n; ++r)
            for (int k = 0; k < 6; ++k) {
                double sum = 0;
                for (int c = 0; c < n; ++c) sum += S[r * n + c] * J[c * 6 + k];
                SJ[r][k] = sum;
            }
        for (int i = 0; i < 6; ++i)
            for (int j = 0; j < 6; ++j)
                for (int r = 0; r < n; ++r) {
                    H[i][j] += J[r * 6 + i] * J[r * 6 + j];
                    M[i][j] += J[r * 6 + i] * SJ[r][j];
                }
    }
    double Hi[6][6];
    if (!invert6(H, Hi)) return bridge::fail(BRIDGE_ERR_ARGUMENT, "pose uncertainty: the points do not fix a pose");
    double T[6][6] = {};
    for (int i = 0; i < 6; ++i)
        for (int j = 0; j < 6; ++j)
            for (int k = 0; k < 6; ++k) T[i][j] += Hi[i][k] * M[k][j];
    for (int i = 0; i < 6; ++i)
        for (int j = 0; j < 6; ++j) {
            double sum = 0;
            for (int k = 0; k < 6; ++k) sum += T[i][k] * Hi[k][j];
            out[6 * i + j] = sum;
        }
    for (int i = 0; i < 36; ++i)
        if (!std::isfinite(out[i])) return bridge::fail(BRIDGE_ERR_ARGUMENT, "pose uncertainty: the points do not fix a pose");
    return BRIDGE_OK;
}

extern "C" int32_t mkk_square_corner_covariance(const double *corners, const double *edge_noise, double *out) {
    if (corners == nullptr || edge_noise == nullptr || out == nullptr) return bridge::fail(BRIDGE_ERR_ARGUMENT, "corner noise: bad argument");
    // Each edge's unit normal (its direction turned a quarter).
    double normals[4][2];
    for (int k = 0; k < 4; ++k) {
        const double dx = corners[2 * ((k + 1) % 4)] - corners[2 * k], dy = corners[2 * ((k + 1) % 4) + 1] - corners[2 * k + 1];
        const double length = std::sqrt(dx * dx + dy * dy);
        if (!(length > 0)) return bridge::fail(BRIDGE_ERR_ARGUMENT, "corner noise: two corners coincide");
        normals[k][0] = -dy / length;
        normals[k][1] = dx / length;
    }
    // Corner i solves n_(i-1) . p = d_(i-1) at that edge's end and n_i . p = d_i at that edge's start: its shift
    // is G_i (shift of d_(i-1) at the end, shift of d_i at the start), G_i = [n_(i-1); n_i]^-1.
    double G[4][2][2];
    for (int i = 0; i < 4; ++i) {
        const double *a = normals[(i + 3) % 4], *b = normals[i];
        const double det = a[0] * b[1] - a[1] * b[0];
        if (!(std::fabs(det) > 1e-9)) return bridge::fail(BRIDGE_ERR_ARGUMENT, "corner noise: two edges are parallel");
        G[i][0][0] = b[1] / det; G[i][0][1] = -a[1] / det;
        G[i][1][0] = -b[0] / det; G[i][1][1] = a[0] / det;
    }
    // S: the covariance of the eight offsets (corner i: edge i-1 at its end, edge i at its start); an edge's
    // two ends are correlated, different edges are not. edge_noise: each edge's variance at its start, at its
    // end, and their covariance (px^2).
    double S[8][8] = {};
    for (int k = 0; k < 4; ++k) {
        const double start = edge_noise[3 * k], end = edge_noise[3 * k + 1], both = edge_noise[3 * k + 2];
        const int s = 2 * k + 1, e = 2 * ((k + 1) % 4);
        S[s][s] = start;
        S[e][e] = end;
        S[s][e] = S[e][s] = both;
    }
    for (int r = 0; r < 8; ++r)
        for (int c = 0; c < 8; ++c) {
            // out[r][c] = sum over a, b of G[r/2][r%2][a] S[2(r/2)+a][2(c/2)+b] G[c/2][c%2][b].
            double sum = 0;
            for (int a = 0; a < 2; ++a)
                for (int b = 0; b < 2; ++b) sum += G[r / 2][r % 2][a] * S[2 * (r / 2) + a][2 * (c / 2) + b] * G[c / 2][c % 2][b];
            out[8 * r + c] = sum;
        }
    return BRIDGE_OK;
}

extern "C" int32_t mkk_square_pose_sigma(const double *corners, const double *edge_noise, double side, const double *pose,
                                         const double *camera_matrix, const double *distortion, int32_t distortion_count, double *out) {
    const bool pinhole = distortion_count == 0 || distortion_count == 4 || distortion_count == 5 || distortion_count == 8 ||
                         distortion_count == 12;
    if (out == nullptr || pose == nullptr || camera_matrix == nullptr || !(side > 0) || !pinhole || (distortion_count > 0 && distortion == nullptr))
        return bridge::fail(BRIDGE_ERR_ARGUMENT, "pose uncertainty: bad argument");
    double covariance[64];
    const int32_t status = mkk_square_corner_covariance(corners, edge_noise, covariance);
    if (status != BRIDGE_OK) return status;
    // The pose is IPPE's, which is not the least-squares pose of the four corners (it reads the rotation
    // from the homography's first-order part at the centre): its sensitivity to each corner coordinate is
    // taken from IPPE itself, by central differences of 1e-4 px, following the solution nearer `pose`.
    double normalized[4][2];
    for (int i = 0; i < 4; ++i)
        if (!mkk::undistort_point(camera_matrix, distortion, distortion_count, corners[2 * i], corners[2 * i + 1], normalized[i][0], normalized[i][1]))
            return bridge::fail(BRIDGE_ERR_ARGUMENT, "pose uncertainty: a corner cannot be undistorted");
    double R[3][3];
    mkk::rotation_matrix(pose, R);
    const double step = 1e-4;
    double A[6][8];
    for (int j = 0; j < 8; ++j) {
        double moved[2][6];
        for (int sign = 0; sign < 2; ++sign) {
            double u = corners[2 * (j / 2)], v = corners[2 * (j / 2) + 1];
            (j % 2 == 0 ? u : v) += sign == 0 ? step : -step;
            double shifted[4][2];
            for (int i = 0; i < 4; ++i) { shifted[i][0] = normalized[i][0]; shifted[i][1] = normalized[i][1]; }
            double poses[2][6];
            if (!mkk::undistort_point(camera_matrix, distortion, distortion_count, u, v, shifted[j / 2][0], shifted[j / 2][1]) ||
                !mkk::square_poses(shifted, side, poses))
                return bridge::fail(BRIDGE_ERR_ARGUMENT, "pose uncertainty: IPPE found no pose");
            // The solution nearer `pose`, as a turn after it (w) and a translation.
            double best = INFINITY;
            for (int s = 0; s < 2; ++s) {
                double Q[3][3], D[3][3];
                mkk::rotation_matrix(poses[s], Q);
                for (int a = 0; a < 3; ++a)
                    for (int b = 0; b < 3; ++b) D[a][b] = Q[a][0] * R[b][0] + Q[a][1] * R[b][1] + Q[a][2] * R[b][2];
                double w[3];
                mkk::rotation_vector(D, w);
                const double angle = w[0] * w[0] + w[1] * w[1] + w[2] * w[2];
                if (angle < best) {
                    best = angle;
                    for (int k = 0; k < 3; ++k) { moved[sign][k] = w[k]; moved[sign][3 + k] = poses[s][3 + k]; }
                }
            }
        }
        for (int k = 0; k < 6; ++k) A[k][j] = (moved[0][k] - moved[1][k]) / (2 * step);
    }
    // Covariance A S A^T, then its two sigmas.
    double P[36];
    for (int a = 0; a < 6; ++a)
        for (int b = 0; b < 6; ++b) {
            double sum = 0;
            for (int r = 0; r < 8; ++r)
                for (int c = 0; c < 8; ++c) sum += A[a][r] * covariance[8 * r + c] * A[b][c];
            P[6 * a + b] = sum;
        }
    for (int i = 0; i < 36; ++i)
        if (!std::isfinite(P[i])) return bridge::fail(BRIDGE_ERR_ARGUMENT, "pose uncertainty: IPPE found no pose");
    mkk_pose_sigma(P, out);
    return BRIDGE_OK;
}

extern "C" void mkk_pose_sigma(const double *covariance, double *out) {
    const double rotation = covariance[0] + covariance[7] + covariance[14];
    const double translation = covariance[21] + covariance[28] + covariance[35];
    out[0] = std::sqrt(std::fmax(rotation, 0)) * 180 / M_PI;
    out[1] = std::sqrt(std::fmax(translation, 0));
}
