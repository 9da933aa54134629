// Pose of a square marker by IPPE (Collins and Bartoli, "Infinitesimal Plane-based Pose Estimation",
// IJCV 2014), the method of OpenCV's SOLVEPNP_IPPE_SQUARE, on fixed-size arrays: no heap allocation,
// where cv::solvePnP makes about 60 per call (track runs it for every marker of every frame).
// Corners are undistorted as cv::undistortPoints does (five fixed-point iterations); tilted-sensor and
// fisheye models are left to OpenCV (cvb_solve_pnp_square in CVBridge).
#include <cmath>
#include "bridge_status.h"
#include "homography.hpp"
#include "markerkit_kernels.h"
#include "square_pose.hpp"

namespace mkk {
namespace {

using Mat3 = double[3][3];

void multiply(const Mat3 a, const Mat3 b, Mat3 out) {
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) out[i][j] = a[i][0] * b[0][j] + a[i][1] * b[1][j] + a[i][2] * b[2][j];
}

// The homography taking the marker's plane (x, y) to normalised image points: the square's corners
// (-h, h), (h, h), (h, -h), (-h, -h) go to p[0..3]. The unit square's map onto the quad composed with the
// map from the marker's corners onto the unit square.
bool square_homography(const double p[4][2], double h, Mat3 out) {
    Mat3 unit;
    if (!unit_square_to_quad(p, unit)) return false;
    // (x, y) -> (u, v) = ((x + h) / 2h, (h - y) / 2h).
    const Mat3 plane = {{0.5 / h, 0, 0.5}, {0, -0.5 / h, 0.5}, {0, 0, 1}};
    multiply(unit, plane, out);
    return std::isfinite(out[0][0]) && out[2][2] != 0;
}

// The two rotations IPPE gives from the homography's Jacobian at the marker's centre.
bool ippe_rotations(const Mat3 H, Mat3 r1, Mat3 r2) {
    const double w = H[2][2], p = H[0][2] / w, q = H[1][2] / w;
    const double j00 = (H[0][0] - H[2][0] * p) / w, j01 = (H[0][1] - H[2][1] * p) / w;
    const double j10 = (H[1][0] - H[2][0] * q) / w, j11 = (H[1][1] - H[2][1] * q) / w;
    // Rv turns the optical axis onto the ray through the centre's image (p, q, 1).
    Mat3 rv = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    const double lateral = std::sqrt(p * p + q * q);
    if (lateral > 0) {
        const double s = std::sqrt(p * p + q * q + 1), cosine = 1 / s, sine = lateral / s;
        const double kx = -q / lateral, ky = p / lateral; // axis z x ray, unit; kz = 0
        const Mat3 K = {{0, 0, ky}, {0, 0, -kx}, {-ky, kx, 0}};
        Mat3 K2;
        multiply(K, K, K2);
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) rv[i][j] += sine * K[i][j] + (1 - cosine) * K2[i][j];
    }
    // B = [I | -(p, q)] Rv(:, 0:1); A = B^-1 J.
    const double b00 = rv[0][0] - p * rv[2][0], b01 = rv[0][1] - p * rv[2][1];
    const double b10 = rv[1][0] - q * rv[2][0], b11 = rv[1][1] - q * rv[2][1];
    const double det = b00 * b11 - b01 * b10;
    if (det == 0) return false;
    const double i00 = b11 / det, i01 = -b01 / det, i10 = -b10 / det, i11 = b00 / det;
    const double a00 = i00 * j00 + i01 * j10, a01 = i00 * j01 + i01 * j11;
    const double a10 = i10 * j00 + i11 * j10, a11 = i10 * j01 + i11 * j11;
    // The larger singular value of A scales it to the upper-left block of a rotation.
    const double t00 = a00 * a00 + a10 * a10, t01 = a00 * a01 + a10 * a11, t11 = a01 * a01 + a11 * a11;
    const double gamma = std::sqrt(0.5 * (t00 + t11 + std::sqrt((t00 - t11) * (t00 - t11) + 4 * t01 * t01)));
    if (!(gamma > 0)) return false;
    const double r00 = a00 / gamma, r01 = a01 / gamma, r10 = a10 / gamma, r11 = a11 / gamma;
    // The third row of the first two columns makes them unit and orthogonal, up to one sign.
    const double h00 = 1 - (r00 * r00 + r10 * r10), h01 = -(r00 * r01 + r10 * r11), h11 = 1 - (r01 * r01 + r11 * r11);
    const double c0 = std::sqrt(std::fmax(0, h00));
    const double c1 = h01 < 0 ? -std::sqrt(std::fmax(0, h11)) : std::sqrt(std::fmax(0, h11));
    for (int solution = 0; solution < 2; ++solution) {
        const double s = solution == 0 ? 1 : -1;
        const double col0[3] = {r00, r10, s * c0}, col1[3] = {r01, r11, s * c1};
        const double col2[3] = {col0[1] * col1[2] - col0[2] * col1[1], col0[2] * col1[0] - col0[0] * col1[2],
                                col0[0] * col1[1] - col0[1] * col1[0]};
        const Mat3 local = {{col0[0], col1[0], col2[0]}, {col0[1], col1[1], col2[1]}, {col0[2], col1[2], col2[2]}};
        multiply(rv, local, solution == 0 ? r1 : r2);
    }
    return true;
}

// The translation that best reprojects the corners for rotation R (linear least squares).
bool ippe_translation(const Mat3 R, const double object[4][2], const double image[4][2], double t[3]) {
    double m[3][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}}, r[3] = {0, 0, 0};
    for (int i = 0; i < 4; ++i) {
        const double x = object[i][0], y = object[i][1], u = image[i][0], v = image[i][1];
        const double qx = R[0][0] * x + R[0][1] * y, qy = R[1][0] * x + R[1][1] * y, qz = R[2][0] * x + R[2][1] * y;
        // tx - u tz = u qz - qx;  ty - v tz = v qz - qy.
        const double bu = u * qz - qx, bv = v * qz - qy;
        m[0][0] += 1; m[0][2] -= u; m[1][1] += 1; m[1][2] -= v; m[2][2] += u * u + v * v;
        r[0] += bu; r[1] += bv; r[2] -= u * bu + v * bv;
    }
    m[2][0] = m[0][2]; m[2][1] = m[1][2];
    const double det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
                       m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
    if (det == 0) return false;
    for (int c = 0; c < 3; ++c) {
        double n[3][3];
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) n[i][j] = j == c ? r[i] : m[i][j];
        t[c] = (n[0][0] * (n[1][1] * n[2][2] - n[1][2] * n[2][1]) - n[0][1] * (n[1][0] * n[2][2] - n[1][2] * n[2][0]) +
                n[0][2] * (n[1][0] * n[2][1] - n[1][1] * n[2][0])) / det;
    }
    return std::isfinite(t[0]) && std::isfinite(t[1]) && std::isfinite(t[2]);
}

double reprojection_error(const Mat3 R, const double t[3], const double object[4][2], const double image[4][2]) {
    double sum = 0;
    for (int i = 0; i < 4; ++i) {
        const double x = object[i][0], y = object[i][1];
        const double cx = R[0][0] * x + R[0][1] * y + t[0], cy = R[1][0] * x + R[1][1] * y + t[1];
        const double cz = R[2][0] * x + R[2][1] * y + t[2];
        const double du = cx / cz - image[i][0], dv = cy / cz - image[i][1];
        sum += du * du + dv * dv;
    }
    return sum;
}

} // namespace

// Rotation matrix to axis times angle; the axis from the symmetric part past 90 degrees, where the
// antisymmetric part loses its digits.
void rotation_vector(const double R[3][3], double out[3]) {
    const double rx = R[2][1] - R[1][2], ry = R[0][2] - R[2][0], rz = R[1][0] - R[0][1];
    const double s = 0.5 * std::sqrt(rx * rx + ry * ry + rz * rz);
    const double c = std::fmax(-1, std::fmin(1, 0.5 * (R[0][0] + R[1][1] + R[2][2] - 1)));
    const double angle = std::atan2(s, c);
    if (c > 0) {
        const double scale = s > 1e-12 ? angle / (2 * s) : 0.5;
        out[0] = rx * scale; out[1] = ry * scale; out[2] = rz * scale;
        return;
    }
    const double S[3][3] = {{R[0][0] - c, 0.5 * (R[0][1] + R[1][0]), 0.5 * (R[0][2] + R[2][0])},
                            {0.5 * (R[0][1] + R[1][0]), R[1][1] - c, 0.5 * (R[1][2] + R[2][1])},
                            {0.5 * (R[0][2] + R[2][0]), 0.5 * (R[1][2] + R[2][1]), R[2][2] - c}};
    int i = 0;
    if (S[1][1] > S[i][i]) i = 1;
    if (S[2][2] > S[i][i]) i = 2;
    const double ki = std::sqrt(S[i][i] / (1 - c));
    double k[3];
    for (int j = 0; j < 3; ++j) k[j] = j == i ? ki : S[i][j] / ((1 - c) * ki);
    if (k[0] * rx + k[1] * ry + k[2] * rz < 0) { k[0] = -k[0]; k[1] = -k[1]; k[2] = -k[2]; }
    out[0] = k[0] * angle; out[1] = k[1] * angle; out[2] = k[2] * angle;
}

// Axis times angle to a rotation matrix (Rodrigues).
void rotation_matrix(const double r[3], double R[3][3]) {
    const double theta = std::sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
    if (theta < 1e-15) {
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) R[i][j] = i == j ? 1 : 0;
        return;
    }
    const double x = r[0] / theta, y = r[1] / theta, z = r[2] / theta, c = std::cos(theta), s = std::sin(theta), t = 1 - c;
    R[0][0] = t * x * x + c;     R[0][1] = t * x * y - s * z; R[0][2] = t * x * z + s * y;
    R[1][0] = t * x * y + s * z; R[1][1] = t * y * y + c;     R[1][2] = t * y * z - s * x;
    R[2][0] = t * x * z - s * y; R[2][1] = t * y * z + s * x; R[2][2] = t * z * z + c;
}

bool undistort_point(const double *K, const double *d, int n, double u, double v, double &x, double &y) {
    x = (u - K[2]) / K[0];
    y = (v - K[5]) / K[4];
    if (n == 0) return true;
    double k[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    for (int i = 0; i < n && i < 12; ++i) k[i] = d[i];
    const double x0 = x, y0 = y;
    for (int iteration = 0; iteration < 5; ++iteration) {
        const double r2 = x * x + y * y;
        const double inverse = (1 + ((k[7] * r2 + k[6]) * r2 + k[5]) * r2) / (1 + ((k[4] * r2 + k[1]) * r2 + k[0]) * r2);
        if (inverse < 0) { x = x0; y = y0; break; }
        const double dx = 2 * k[2] * x * y + k[3] * (r2 + 2 * x * x) + k[8] * r2 + k[9] * r2 * r2;
        const double dy = k[2] * (r2 + 2 * y * y) + 2 * k[3] * x * y + k[10] * r2 + k[11] * r2 * r2;
        x = (x0 - dx) * inverse;
        y = (y0 - dy) * inverse;
    }
    return std::isfinite(x) && std::isfinite(y);
}

void project_point(const double *K, const double *d, int n, const double p[3], double &u, double &v) {
    double k[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    for (int i = 0; i < n && i < 12; ++i) k[i] = d[i];
    const double x = p[0] / p[2], y = p[1] / p[2], r2 = x * x + y * y, r4 = r2 * r2, r6 = r4 * r2;
    const double radial = (1 + k[0] * r2 + k[1] * r4 + k[4] * r6) / (1 + k[5] * r2 + k[6] * r4 + k[7] * r6);
    const double xd = x * radial + 2 * k[2] * x * y + k[3] * (r2 + 2 * x * x) + k[8] * r2 + k[9] * r4;
    const double yd = y * radial + k[2] * (r2 + 2 * y * y) + 2 * k[3] * x * y + k[10] * r2 + k[11] * r4;
    u = K[0] * xd + K[1] * yd + K[2];
    v = K[4] * yd + K[5];
}

bool square_poses(const double normalized[4][2], double side, double poses[2][6]) {
    const double h = side / 2;
    const double object[4][2] = {{-h, h}, {h, h}, {h, -h}, {-h, -h}};
    Mat3 H, r1, r2;
    if (!square_homography(normalized, h, H) || !ippe_rotations(H, r1, r2)) return false;
    double t1[3], t2[3];
    if (!ippe_translation(r1, object, normalized, t1) || !ippe_translation(r2, object, normalized, t2)) return false;
    const bool first = reprojection_error(r1, t1, object, normalized) <= reprojection_error(r2, t2, object, normalized);
    rotation_vector(first ? r1 : r2, poses[0]);
    rotation_vector(first ? r2 : r1, poses[1]);
    for (int i = 0; i < 3; ++i) {
        poses[0][3 + i] = first ? t1[i] : t2[i];
        poses[1][3 + i] = first ? t2[i] : t1[i];
    }
    for (int s = 0; s < 2; ++s)
        for (int i = 0; i < 6; ++i)
            if (!std::isfinite(poses[s][i])) return false;
    return true;
}

double pixel_error(const double *K, const double *d, int n, const double pose[6], double side, const double *image_corners) {
    const double h = side / 2;
    const double object[4][2] = {{-h, h}, {h, h}, {h, -h}, {-h, -h}};
    Mat3 R;
    rotation_matrix(pose, R);
    double sum = 0;
    for (int i = 0; i < 4; ++i) {
        const double x = object[i][0], y = object[i][1];
        const double p[3] = {R[0][0] * x + R[0][1] * y + pose[3], R[1][0] * x + R[1][1] * y + pose[4], R[2][0] * x + R[2][1] * y + pose[5]};
        double u, v;
        project_point(K, d, n, p, u, v);
        const double du = u - image_corners[2 * i], dv = v - image_corners[2 * i + 1];
        sum += du * du + dv * dv;
    }
    return std::sqrt(sum / 4);
}

} // namespace mkk

namespace {
bool pinhole_distortion_count(int32_t n) { return n == 0 || n == 4 || n == 5 || n == 8 || n == 12; }
} // namespace

extern "C" int32_t mkk_solve_pnp_square(const double *image_corners, double side, const double *camera_matrix,
                                        const double *distortion, int32_t distortion_count, double *rvec, double *tvec) {
    if (rvec == nullptr || tvec == nullptr) return bridge::fail(BRIDGE_ERR_ARGUMENT, "solvePnP: bad argument");
    double poses[14];
    const int32_t status = mkk_solve_pnp_square_both(image_corners, side, camera_matrix, distortion, distortion_count, poses);
    if (status != BRIDGE_OK) return status;
    for (int i = 0; i < 3; ++i) {
        rvec[i] = poses[i];
        tvec[i] = poses[3 + i];
    }
    return BRIDGE_OK;
}

extern "C" int32_t mkk_solve_pnp_square_both(const double *image_corners, double side, const double *camera_matrix,
                                             const double *distortion, int32_t distortion_count, double *poses) {
    if (image_corners == nullptr || camera_matrix == nullptr || poses == nullptr || !(side > 0) ||
        !pinhole_distortion_count(distortion_count) || (distortion_count > 0 && distortion == nullptr))
        return bridge::fail(BRIDGE_ERR_ARGUMENT, "solvePnP: bad argument");
    double normalized[4][2];
    for (int i = 0; i < 4; ++i)
        if (!mkk::undistort_point(camera_matrix, distortion, distortion_count, image_corners[2 * i], image_corners[2 * i + 1],
                                  normalized[i][0], normalized[i][1]))
            return bridge::fail(BRIDGE_ERR_ARGUMENT, "solvePnP: a corner cannot be undistorted");
    double both[2][6];
    if (!mkk::square_poses(normalized, side, both)) return bridge::fail(BRIDGE_ERR_ARGUMENT, "solvePnP found no pose");
    for (int s = 0; s < 2; ++s) {
        for (int i = 0; i < 6; ++i) poses[7 * s + i] = both[s][i];
        poses[7 * s + 6] = mkk::pixel_error(camera_matrix, distortion, distortion_count, both[s], side, image_corners);
    }
    return BRIDGE_OK;
}
