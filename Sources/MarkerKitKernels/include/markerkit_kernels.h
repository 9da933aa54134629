/* MarkerKitKernels: MarkerKit's own C++ kernels behind a plain C header, the per-frame and
 * per-candidate loops that must not allocate (reduction, adaptive threshold, contour tracing, polygon,
 * unwarp, the corner refiner's edge profiles, square pose), the helper thread that gives a frame its
 * second core, and number formatting. None of them calls or includes OpenCV: each does what an OpenCV
 * call does (named with it) and the tests hold it to that call, through CVBridge or
 * CVBridgeTestReferences.
 *
 * Conventions as CVBridge's (bridge_status.h): a negative BRIDGE_ERR_* code on failure, with
 * bridge_last_error() saying why. Images are 8-bit gray, row-major, with an explicit stride in bytes.
 */
#ifndef MARKERKIT_KERNELS_H
#define MARKERKIT_KERNELS_H

#include <stddef.h>
#include <stdint.h>
#include "bridge_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The detector's reduction: `gray` shrunk by a whole `factor` into `out` (width/factor x height/factor,
 * packed) by averaging each block, as cv::resize with INTER_AREA but without allocating. The width and
 * height must be multiples of the factor (else BRIDGE_ERR_ARGUMENT: cvb_resize_gray takes other sizes). */
int32_t mkk_reduce_gray(const uint8_t *gray, int32_t width, int32_t height, int32_t stride, int32_t factor, uint8_t *out);

/* What cv::adaptiveThreshold gives with the mean of a `window` x `window` block minus `constant`,
 * inverted (dark = 255), without allocating per call (box sums in a buffer kept per thread). */
int32_t mkk_adaptive_threshold(const uint8_t *gray, int32_t width, int32_t height, int32_t stride,
                               int32_t window, double constant, uint8_t *binary);
/* The same for `count` windows in one sweep, rows row_begin ..< row_end only: binary image k (packed,
 * width x height) starts at binaries + k * width * height. Bands of rows may run on different threads. */
int32_t mkk_adaptive_threshold_rows(const uint8_t *gray, int32_t width, int32_t height, int32_t stride,
                                    const int32_t *windows, int32_t count, double constant, uint8_t *binaries,
                                    int32_t row_begin, int32_t row_end);
/* The same with the box sums in `workspace` instead of the calling thread's buffer: a job that any worker
 * may run (a band of a frame) keeps its own buffer, so what it allocates does not depend on which thread
 * ran it. A workspace is used by one call at a time. */
typedef struct mkk_threshold_workspace mkk_threshold_workspace;
mkk_threshold_workspace *mkk_threshold_workspace_create(void);
void mkk_threshold_workspace_destroy(mkk_threshold_workspace *workspace);
int32_t mkk_adaptive_threshold_rows_in(mkk_threshold_workspace *workspace, const uint8_t *gray, int32_t width, int32_t height,
                                       int32_t stride, const int32_t *windows, int32_t count, double constant,
                                       uint8_t *binaries, int32_t row_begin, int32_t row_end);

/* Contours of a binary image (nonzero = region) by border following, only those with between
 * min_points and max_points points: point for point and in the order what cv::findContours gives with
 * RETR_LIST and CHAIN_APPROX_NONE; with `holes` 0, only its outer borders (the regions' outlines, not
 * those of the background inside them); with MKK_TRACE_HOLES_ONLY, only its hole borders. Points are x,y pairs; contour i spans points offsets[i]..offsets[i+1].
 * The arrays belong to the calling thread's workspace and stay valid until its next call: after the
 * first frames of a size no memory is allocated. */
typedef struct mkk_contours {
    int32_t count;
    const int32_t *offsets; /* count + 1 */
    const int32_t *points;  /* 2 * offsets[count] */
} mkk_contours;
int32_t mkk_find_contours(const uint8_t *binary, int32_t width, int32_t height, int32_t stride,
                          int32_t min_points, int32_t max_points, int32_t holes, mkk_contours *out);
/* The same with its arrays in `workspace` (valid until that workspace's next call) instead of the calling
 * thread's: for a job any worker may run (a threshold window's contours). */
typedef struct mkk_trace_workspace mkk_trace_workspace;
mkk_trace_workspace *mkk_trace_workspace_create(void);
void mkk_trace_workspace_destroy(mkk_trace_workspace *workspace);
int32_t mkk_find_contours_in(mkk_trace_workspace *workspace, const uint8_t *binary, int32_t width, int32_t height,
                             int32_t stride, int32_t min_points, int32_t max_points, int32_t holes, mkk_contours *out);
/* Several binary images of one size at once (the detector's threshold windows), image i's contours into
 * workspaces[i] and outs[i] as mkk_find_contours_in gives them: the images' borders are followed a step
 * of each in turn, so that their steps overlap in the processor. 1 to MKK_TRACE_TOGETHER_MAX images, each
 * with its own workspace; `holes` is a mask, bit i for image i's hole borders, bit MKK_TRACE_TOGETHER_MAX + i
 * to leave out image i's outer borders. */
#define MKK_TRACE_TOGETHER_MAX 4
#define MKK_TRACE_HOLES_ONLY 17 /* 1 | 1 << MKK_TRACE_TOGETHER_MAX */
int32_t mkk_find_contours_together(mkk_trace_workspace *const *workspaces, const uint8_t *const *binaries, int32_t count,
                                   int32_t width, int32_t height, int32_t stride, int32_t min_points, int32_t max_points,
                                   int32_t holes, mkk_contours *outs);

/* Douglas-Peucker on a closed contour without heap allocation, as cv::approxPolyDP (an approximate
 * diameter splits it first); writes the vertices (x,y) and returns how many, or capacity + 1 when the
 * polygon has more than `capacity` (at most 64). */
int32_t mkk_simplify_contour(const int32_t *points, int32_t count, double epsilon, int32_t *out, int32_t capacity);

/* Warps the quadrilateral `corners` (x0 y0 .. x3 y3) of `gray` onto a size x size square, corner 0 at
 * the top-left, going clockwise: a homography, bilinear, outside black (as cv::warpPerspective with
 * INTER_LINEAR), in double precision and allocation-free. */
int32_t mkk_warp_quad(const uint8_t *gray, int32_t width, int32_t height, int32_t stride, const double *corners,
                      int32_t size, uint8_t *out);

/* The corner refiner's edge points on the side from a to b of a quadrilateral (CornerRefiner.edgePoints):
 * `edge` holds a, b and the corners before a and after b (x y each); writes up to 60 points (x y) where
 * the edge crosses a profile, and each profile's contrast, and returns how many: none when fewer than 4
 * profiles cross it, else those with at least half the median contrast. `points` and `strengths` hold
 * 120 and 60 values. With `cells` > 0 (the marker's side in cells, border included) each profile's
 * inward samples stop 1.5 px short of the code cells behind the border (edge_profiles.cpp says why). */
int32_t mkk_edge_profiles(const uint8_t *gray, int32_t width, int32_t height, int32_t stride,
                          const double *edge, int32_t cells, double *points, double *strengths);
/* How many pixels a profile of mkk_edge_profiles reaches to either side of an edge `length` px long
 * (2-6: 0.45 of a cell of a 7-cell marker). */
int32_t mkk_edge_profile_reach(double length);

/* The pose of a square of side `side` in OpenCV's marker frame (as cvb_solve_pnp_square): what
 * cv::solvePnP with SOLVEPNP_IPPE_SQUARE gives, computed without heap allocation (IPPE on fixed-size
 * arrays) for pinhole models with 0, 4, 5, 8 or 12 coefficients; fisheye and tilted-sensor (14) models
 * are cvb_solve_pnp_square's. */
int32_t mkk_solve_pnp_square(const double *image_corners, double side, const double *camera_matrix,
                             const double *distortion, int32_t distortion_count, double *rvec, double *tvec);
/* Both of IPPE's poses of the square (the planar ambiguity: a second pose that explains the corners
 * almost as well when the square faces the camera or is small): `poses` receives 14 values, rvec, tvec
 * and the RMS reprojection error in pixels of each, the pose mkk_solve_pnp_square returns first. */
int32_t mkk_solve_pnp_square_both(const double *image_corners, double side, const double *camera_matrix,
                                  const double *distortion, int32_t distortion_count, double *poses);

/* A pose's uncertainty (pose_covariance.cpp). The rotation's error is a small turn w applied after the pose
 * (camera coordinates: R' = exp(w) R), so |w| is the angle between true and estimated rotation; the
 * translation's is a shift of the translation. Parameters are ordered (w, t).
 *
 * mkk_projection_jacobian: the derivatives of the pixel (u, v) of each of `count` object points (x y z) at
 * `pose` (rvec, tvec) by (w, t), 2 * count rows of 6 values into `jacobian`, for pinhole models with 0, 4,
 * 5, 8 or 12 coefficients (central differences). */
int32_t mkk_projection_jacobian(const double *object, int32_t count, const double *pose, const double *camera_matrix,
                                const double *distortion, int32_t distortion_count, double *jacobian);
/* The covariance (6x6, row-major, into `out`) of the least-squares pose from `count` points with that
 * Jacobian, whose pixel errors have the covariance `covariance`: block-diagonal, a block of 2 * block
 * coordinates (block 4: a marker's four corners, 64 values; block 1: one corner, 4 values) after another. */
int32_t mkk_pose_covariance(const double *jacobian, int32_t count, int32_t block, const double *covariance, double *out);
/* The 8x8 covariance of a square marker's corners (x y each, 64 values into `out`) from the noise of its
 * four edges (edge k from corner k to corner k + 1): each edge's variance at its start, at its end and the
 * covariance of the two, in px^2 (12 values; CornerNoise). */
int32_t mkk_square_corner_covariance(const double *corners, const double *edge_noise, double *out);
/* A square marker's pose sigma from its corners' noise: out[0] the rotation's (degrees, the RMS angle the
 * noise predicts), out[1] the translation's (the side's unit, RMS length). The pose is IPPE's (as
 * mkk_solve_pnp_square_both gives it), whose sensitivity to each corner coordinate is IPPE's own (central
 * differences), not the least-squares pose's: IPPE reads the rotation from the homography's first-order
 * part, and near facing the camera it moves several times more than the least-squares pose would. */
int32_t mkk_square_pose_sigma(const double *corners, const double *edge_noise, double side, const double *pose,
                              const double *camera_matrix, const double *distortion, int32_t distortion_count, double *out);
/* The two sigmas of a pose covariance from mkk_pose_covariance (square roots of the traces of its
 * rotation and translation blocks; the rotation's in degrees) into out[0], out[1]. */
void mkk_pose_sigma(const double *covariance, double *out);

/* Runs job(context, i, worker) for every i in 0 ..< count, on the calling thread (worker 0) and on helper
 * threads kept for the process (workers 1 ..< n, started by the first call; one fewer than the cores in
 * the process's affinity mask), and returns when all have run. At most min(count, max_workers (0: no
 * limit), mkk_parallel_threads()) workers take part. Jobs are claimed in order but run on any of them, so
 * each must write only its own results (and scratch memory by worker). With one core, with a setting of
 * 1, or while another thread's batch has the helpers, the caller runs them all. No heap allocation after
 * the first call. */
void mkk_parallel_for(int32_t count, int32_t max_workers, void (*job)(void *context, int32_t index, int32_t worker), void *context);
/* How many workers a batch may use: MARKERKIT_DETECTOR_THREADS (at most the cores) or the cores, until
 * mkk_parallel_set_threads changes it. */
int32_t mkk_parallel_threads(void);
/* The cores this process may run on (its affinity mask): the most workers there can be. */
int32_t mkk_parallel_cores(void);
/* Sets how many workers batches may use from now on, clamped to 1 ... the cores; returns the value set. */
int32_t mkk_parallel_set_threads(int32_t threads);

/* The shortest decimal text of `value` that reads back exactly (std::to_chars), into `out`; returns its
 * length, 0 when it does not fit. Allocation-free. */
int32_t mkk_format_double(double value, char *out, int32_t capacity);

/* One pass of the chessboard-corner model fit (XCornerFit, xcorner_fit.cpp) over `count` pixels (xs, ys,
 * values) at the parameters q (x0 y0, the edges' normal angles, mean, contrast, blur sigma, the edges'
 * curvatures, and with `skew` the blur's third cumulants along x and y: 9 or 11): the sum of squared
 * residuals into *cost and, when `normal` is non-zero, JᵀJ (n x n, row-major) and Jᵀr. Allocation-free. */
int32_t mkk_xcorner_pass(const double *xs, const double *ys, const double *values, int32_t count, const double *q,
                         int32_t skew, int32_t normal, double *jtj, double *jtr, double *cost);

/* One Levenberg-Marquardt step of that fit: solves (JᵀJ + lambda diag(JᵀJ)) step = Jᵀr (n at most 11) by
 * Cholesky; with `hold` set, parameter `hold - 1` is held (its step 0). BRIDGE_ERR_ARGUMENT when the damped
 * matrix is not positive definite or the step is not finite. Allocation-free. */
int32_t mkk_xcorner_step(const double *jtj, const double *jtr, int32_t n, double lambda, int32_t hold, double *step);

/* Chessboard corner candidates (chess_response.cpp): the local maxima of the ChESS response (ring radius 5,
 * times five) at or above max(minimum, fraction * the image's largest response); the first `capacity` into
 * xs, ys, responses, and how many there are into *count (more than capacity: call again with more room). */
int32_t mkk_chess_candidates(const uint8_t *pixels, int32_t width, int32_t height, int32_t stride, double fraction,
                             int32_t minimum, int32_t *xs, int32_t *ys, int32_t *responses, int32_t capacity, int32_t *count);

#ifdef __cplusplus
}
#endif

#endif
