// IPPE for a square marker on fixed-size arrays (square_pose.cpp).
#pragma once

namespace mkk {
// Pixel (u, v) to normalised camera coordinates as cv::undistortPoints does for OpenCV's pinhole model
// with 0, 4, 5, 8 or 12 coefficients (no tilted sensor): five fixed-point iterations. K is row-major 3x3.
bool undistort_point(const double *K, const double *d, int n, double u, double v, double &x, double &y);
// The pose of a square of side `side` (OpenCV's marker frame: corners (-s/2, s/2, 0), (s/2, s/2, 0),
// (s/2, -s/2, 0), (-s/2, -s/2, 0)) from its corners in normalised coordinates: of IPPE's two
// solutions the one that reprojects better, as cv::solvePnP with SOLVEPNP_IPPE_SQUARE returns.
bool square_pose(const double normalized[4][2], double side, double rvec[3], double tvec[3]);
} // namespace mkk
