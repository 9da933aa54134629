// IPPE for a square marker on fixed-size arrays (square_pose.cpp).
#pragma once

namespace mkk {
// Pixel (u, v) to normalised camera coordinates as cv::undistortPoints does for OpenCV's pinhole model
// with 0, 4, 5, 8 or 12 coefficients (no tilted sensor): five fixed-point iterations. K is row-major 3x3.
bool undistort_point(const double *K, const double *d, int n, double u, double v, double &x, double &y);
// The two poses of a square of side `side` (OpenCV's marker frame: corners (-s/2, s/2, 0), (s/2, s/2, 0),
// (s/2, -s/2, 0), (-s/2, -s/2, 0)) from its corners in normalised coordinates, IPPE's two solutions
// (rvec, tvec each): the one that reprojects better first, as cv::solvePnP with SOLVEPNP_IPPE_SQUARE
// returns it.
bool square_poses(const double normalized[4][2], double side, double poses[2][6]);
// The RMS distance in pixels between the square's corners projected at `pose` (rvec, tvec) through the
// pinhole model (0, 4, 5, 8 or 12 coefficients) and `image_corners` (x y each).
double pixel_error(const double *K, const double *d, int n, const double pose[6], double side, const double *image_corners);
// A rotation matrix to axis times angle.
void rotation_vector(const double R[3][3], double out[3]);
// Axis times angle (a Rodrigues vector) to a rotation matrix.
void rotation_matrix(const double r[3], double R[3][3]);
// The pinhole model's projection (0, 4, 5, 8 or 12 coefficients) of a point in camera coordinates.
void project_point(const double *K, const double *d, int n, const double p[3], double &u, double &v);
} // namespace mkk
