/* CVBridge: the project's only door into OpenCV (C++), as a plain C interface; only OpenCV's own
 * functions, wrapped. MarkerKit's own kernels are MarkerKitKernels (markerkit_kernels.h), and the OpenCV
 * calls only the tests compare them with are CVBridgeTestReferences.
 *
 * Conventions (bridge_status.h): functions return a non-negative value on success and a negative
 * BRIDGE_ERR_* code on failure; bridge_last_error() then holds a one-line message for the calling
 * thread. No C++ exception ever crosses this header. Images are 8-bit, row-major, with an explicit
 * stride in bytes. Pixel coordinates follow OpenCV: integer coordinates at pixel centres.
 */
#ifndef CVBRIDGE_H
#define CVBRIDGE_H

#include <stddef.h>
#include <stdint.h>
#include "bridge_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Images whose header claims more pixels than this (16384 x 16384) are refused before decoding. */
#define CVB_MAX_IMAGE_PIXELS 268435456LL
/* The brightest 16-bit value below which a picture is taken to hold 12 bits or fewer (see cvb_image_read). */
#define CVB_LOW_BITS_LIMIT 4096

/* An 8-bit image: owned by the caller and released with cvb_image_release when a function says so,
 * else a view of memory the bridge keeps (valid until the call named). */
typedef struct cvb_image {
    int32_t width;
    int32_t height;
    int32_t stride;   /* bytes per row */
    int32_t channels; /* 1 = gray */
    uint8_t *data;
} cvb_image;

void cvb_image_release(cvb_image *image);

/* OpenCV's predefined dictionaries, by their PREDEFINED_DICTIONARY_NAME value (DICT_4X4_50 = 0 ...
 * DICT_ARUCO_ORIGINAL = 16 ... DICT_APRILTAG_36h11 = 20). Returns the number of IDs and gives the marker
 * side in cells and OpenCV's maxCorrectionBits (either pointer may be NULL). */
int32_t cvb_aruco_dictionary_info(int32_t name, int32_t *marker_size, int32_t *max_correction_bits);
/* The data bits of marker `id`, row-major, 1 = white cell, into `bits` (room for `capacity`, at least
 * marker_size^2). Returns the marker side in cells. */
int32_t cvb_aruco_dictionary_bits(int32_t name, int32_t id, uint8_t *bits, int32_t capacity);

typedef struct cvb_marker {
    int32_t id;
    double corners[8]; /* x0 y0 .. x3 y3: top-left, top-right, bottom-right, bottom-left */
} cvb_marker;

/* How cvb_aruco_detect runs OpenCV's detector. */
typedef enum : int32_t {
    CVB_ARUCO_DEFAULT = 0,  /* default parameters */
    CVB_ARUCO_SUBPIXEL = 1, /* with CORNER_REFINE_SUBPIX */
    CVB_ARUCO_3 = 2,        /* with useAruco3Detection */
} cvb_aruco_mode;

/* OpenCV's own aruco detector (legacy API), dictionary by name as above, parameters as `mode` says.
 * Writes up to `capacity` markers and returns how many were found (which may exceed capacity: call again
 * with more room). */
int32_t cvb_aruco_detect(const uint8_t *gray, int32_t width, int32_t height, int32_t stride,
                         int32_t dictionary_name, cvb_aruco_mode mode, cvb_marker *out, int32_t capacity);

/* The first stage of OpenCV 4.6's detectMarkers with default parameters, on this thread: for each of its
 * three threshold windows, adaptiveThreshold, findContours and the candidate filter (4 convex corners, far
 * enough apart and from the image border). Returns the candidates found (before the merge of close ones)
 * and, when window_ms is not NULL, each window's milliseconds in window_ms[0..2]. For bench's
 * thread-scaling model: detectMarkers runs this stage as one job per window. */
int32_t cvb_aruco_candidate_stage(const uint8_t *gray, int32_t width, int32_t height, int32_t stride, double *window_ms);

/* OpenCV 4.6's ChArUco pipeline on a gray image: cv::aruco::detectMarkers (default parameters), then
 * interpolateCornersCharuco for the board CharucoBoard::create makes of these sizes (board units) and
 * dictionary. With `camera_matrix` NULL the corners come from local homographies of the markers; with a
 * pinhole camera matrix (and `distortion_count` coefficients) from the board pose projected through it.
 * Writes up to `capacity` corner IDs and image positions (x, y); returns how many corners were found
 * (which may exceed capacity: call again with more room). */
int32_t cvb_charuco_interpolate(const uint8_t *gray, int32_t width, int32_t height, int32_t stride, int32_t squares_x,
                                int32_t squares_y, double square, double marker, int32_t dictionary_name,
                                const double *camera_matrix, const double *distortion, int32_t distortion_count,
                                int32_t *ids, double *corners, int32_t capacity);

/* OpenCV's thread count for its parallel_for_ (cv::setNumThreads, at least 1) and what it is now. */
void cvb_set_num_threads(int32_t threads);
int32_t cvb_get_num_threads(void);

/* One cv::threshold pass (Otsu) over a gray frame into `binary`: the floor for detector timings. */
int32_t cvb_threshold_pass(const uint8_t *gray, int32_t width, int32_t height, int32_t stride, uint8_t *binary);

/* Which of OpenCV's chessboard finders cvb_find_chessboard runs. */
typedef enum : int32_t {
    /* cv::findChessboardCorners (ADAPTIVE_THRESH | NORMALIZE_IMAGE) then cornerSubPix with a
     * (2 * half_window + 1)^2 window (half_window 0: from the corner spacing) */
    CVB_CHESSBOARD_CLASSIC = 0,
    CVB_CHESSBOARD_SECTOR_BASED = 1,      /* cv::findChessboardCornersSB (sub-pixel by itself) */
    CVB_CHESSBOARD_CLASSIC_FAST_CHECK = 2, /* as CLASSIC with CALIB_CB_FAST_CHECK */
    CVB_CHESSBOARD_OPENCV_DEFAULT = 3,    /* findChessboardCorners alone (default flags), a baseline */
    CVB_CHESSBOARD_OPENCV_FAST_CHECK = 4, /* the same with FAST_CHECK */
    /* findChessboardCorners with no flags (one global threshold per dilation, no refinement): a quick
     * look on a reduced frame */
    CVB_CHESSBOARD_QUICK_LOOK = 5,
    /* cv::findChessboardCornersSB with NORMALIZE_IMAGE alone (no ACCURACY: a few times quicker, and its
     * corners are fitted again by the caller) */
    CVB_CHESSBOARD_SECTOR_BASED_PLAIN = 6,
} cvb_chessboard_method;

/* Chessboard inner corners by `method`. `corners` receives 2 * cols * rows doubles in OpenCV's order.
 * Returns 1 if found, 0 if not. */
int32_t cvb_find_chessboard(const uint8_t *gray, int32_t width, int32_t height, int32_t stride,
                            int32_t cols, int32_t rows, cvb_chessboard_method method, int32_t half_window, double *corners);

/* cornerSubPix on given corners (x,y pairs, refined in place) with a (2*half_window+1)^2 window, stopping
 * after max_iterations or when a corner moves less than epsilon pixels. */
int32_t cvb_refine_corners(const uint8_t *gray, int32_t width, int32_t height, int32_t stride, double *corners,
                           int32_t count, int32_t half_window, int32_t max_iterations, double epsilon);
/* How cvb_resize_gray interpolates. */
typedef enum : int32_t {
    CVB_RESIZE_AREA_WHEN_WHOLE = 0, /* area averaging (INTER_AREA) when the factor is whole, else bilinear */
    CVB_RESIZE_BILINEAR = 1,        /* always bilinear (INTER_LINEAR: a quick look, aliasing allowed) */
} cvb_resize_mode;

/* Resizes a gray image into `out` (out_width*out_height, packed) as `mode` says. */
int32_t cvb_resize_gray(const uint8_t *gray, int32_t width, int32_t height, int32_t stride, int32_t out_width,
                        int32_t out_height, cvb_resize_mode mode, uint8_t *out);

/* ---- Calibration ------------------------------------------------------------------------------------ */

/* The lens model: the two pinhole ones are one to every function but cvb_calibrate. */
typedef enum : int32_t {
    CVB_MODEL_OPENCV5 = 0,  /* k1 k2 p1 p2 k3 */
    CVB_MODEL_OPENCV8 = 1,  /* k1 k2 p1 p2 k3 k4 k5 k6 (CALIB_RATIONAL_MODEL) */
    CVB_MODEL_FISHEYE = 2,  /* cv::fisheye, k1 k2 k3 k4 (equidistant) */
} cvb_model;
/* What cvb_calibrate holds fixed, any of these or none (an option set in Swift). */
typedef enum __attribute__((flag_enum, enum_extensibility(open))) : int32_t {
    CVB_CALIB_FIX_ASPECT = 1,   /* fx / fy as in the initial matrix (CALIB_FIX_ASPECT_RATIO) */
    CVB_CALIB_ZERO_TANGENT = 2, /* p1 = p2 = 0 (CALIB_ZERO_TANGENT_DIST) */
    CVB_CALIB_FIX_K3 = 4,       /* k3 = 0 (CALIB_FIX_K3 from a zero start; the guess's k3 must be 0) */
} cvb_calibration_options;

typedef struct cvb_calibration {
    double camera_matrix[9];
    double distortion[14];
    int32_t distortion_count;
    double rms;                 /* over all points, as calibrateCamera returns it */
    double std_deviations[18];  /* fx fy cx cy, then one per distortion coefficient (0 when unknown) */
    int32_t std_count;
    int32_t flags;              /* the OpenCV flags used */
} cvb_calibration;

/* Calibrates from `views` views of a planar target, each seeing `view_points[v]` of its points (at least
 * 4; a whole chessboard in every view, or the part of a ChArUco board each view shows): `object_points`
 * holds each view's 3D points (x y z) one view after the other, `image_points` their 2D points (x y) in
 * the same order. `rvecs`/`tvecs` receive 3 * views doubles each, `per_view_rms` views doubles. With
 * `guess` (a previous result of the same model) the solve starts from its camera matrix and distortion
 * (CALIB_USE_INTRINSIC_GUESS) instead of OpenCV's distortion-free start. */
int32_t cvb_calibrate(const double *object_points, const int32_t *view_points, const double *image_points, int32_t views,
                      int32_t width, int32_t height, cvb_model model, cvb_calibration_options options,
                      const cvb_calibration *guess, cvb_calibration *out, double *rvecs, double *tvecs, double *per_view_rms);

/* Projection uncertainty (mrcal's "mean frames" method). From a solved calibration (the views as
 * cvb_calibrate takes them, the solution and each view's pose): the covariance, (n + 6) x (n + 6) with
 * n = 4 + distortion_count, of c = (fx fy cx cy, the coefficients, theta, u), where theta and u are the
 * rotation and translation that moving every view's pose by its error moves a fixed point by on
 * average (p -> p + theta x p + u): sigma^2 (J^T J)^-1 of the solve mapped to c, sigma^2 the residuals'
 * sum of squares over the degrees of freedom, written to `noise` as sigma (px). `parameterization` (n x
 * free_count, row-major) maps the solved (free) intrinsics to all n: a column per free one, so fixed ones
 * are rows of zeros and a fixed aspect ratio is one column (fx/fy, 1). */
int32_t cvb_projection_covariance(const double *object_points, const int32_t *view_points, const double *image_points, int32_t views,
                                  const double *camera_matrix, const double *distortion, int32_t distortion_count, cvb_model model,
                                  const double *parameterization, int32_t free_count, const double *rvecs, const double *tvecs,
                                  double *covariance, double *noise);
/* The 2x2 covariance (px^2, row-major, 4 doubles per pixel) of the projection of the point each pixel
 * sees at `range` along its ray (0: at infinity), from the covariance of cvb_projection_covariance. */
int32_t cvb_projection_uncertainty(const double *pixels, int32_t count, const double *camera_matrix, const double *distortion,
                                   int32_t distortion_count, cvb_model model, const double *covariance, double range,
                                   double *covariances);

/* Projects object points for a pose with a pinhole (models 0, 1) or fisheye (2) camera. */
int32_t cvb_project_model(const double *object_points, int32_t count, const double *rvec, const double *tvec,
                          const double *camera_matrix, const double *distortion, int32_t distortion_count,
                          cvb_model model, double *image_points);

/* cv::getOptimalNewCameraMatrix (or fisheye::estimateNewCameraMatrixForUndistortRectify) for `alpha`. */
int32_t cvb_optimal_camera_matrix(const double *camera_matrix, const double *distortion, int32_t distortion_count,
                                  cvb_model model, int32_t width, int32_t height, double alpha, double *new_matrix);

/* Undistorts an 8-bit image (1 or 3 channels) into `out` (same size and stride), with new camera matrix
 * `new_matrix`. */
int32_t cvb_undistort(const uint8_t *pixels, int32_t width, int32_t height, int32_t stride, int32_t channels,
                      const double *camera_matrix, const double *distortion, int32_t distortion_count, cvb_model model,
                      const double *new_matrix, uint8_t *out);

/* Inverse of the lens model: pixel points to normalized image coordinates (x/z, y/z), iterated to
 * convergence (cv::undistortPoints with 100 iterations, or cv::fisheye::undistortPoints). */
int32_t cvb_undistort_points(const double *pixels, int32_t count, const double *camera_matrix, const double *distortion,
                             int32_t distortion_count, cvb_model model, double *normalized);

/* ---- Rigs of cameras ------------------------------------------------------------------------------ */

/* Solves a rig jointly by Levenberg-Marquardt: every camera's intrinsics (its free ones, through its
 * `parameterization` as in cvb_projection_covariance, concatenated camera after camera), every camera's
 * pose relative to camera 0 (`extrinsics`, 6 per camera: rvec, tvec with x_c = R x_0 + t; camera 0's
 * ignored and returned as zero) and every view's board pose in camera 0 (`poses`, 6 per view). `groups`
 * observation groups, each what camera `group_camera[g]` saw of the board in view `group_view[g]`:
 * `group_points[g]` points, their board coordinates (x y z) in `object_points` and pixels (x y) in
 * `image_points`, group after group. `point_weights` (one per point, or NULL for all 1) multiply each
 * point's residuals: the inverse of its noise relative to the others'. `camera_matrices` (9 per camera) and `distortions` (8 per camera,
 * the first `distortion_counts[c]` used) are the start and receive the solution. `covariance` receives
 * sigma^2 (J^T J)^-1 of the free intrinsics then the extrinsics of cameras 1.., G x G with G the sum of
 * free counts + 6 (cameras - 1), the views' poses marginalized; `group_rms` each group's RMS (px per
 * point, unweighted), `group_weighted_rms` (or NULL) the same of the weighted residuals, `noise` sigma
 * of the weighted residuals. */
int32_t cvb_rig_solve(int32_t cameras, const cvb_model *models, const int32_t *distortion_counts, double *camera_matrices,
                      double *distortions, const double *parameterizations, const int32_t *free_counts, double *extrinsics,
                      int32_t views, double *poses, int32_t groups, const int32_t *group_view, const int32_t *group_camera,
                      const int32_t *group_points, const double *object_points, const double *image_points,
                      const double *point_weights, double *covariance, double *group_rms, double *group_weighted_rms, double *noise,
                      int32_t *iterations);
/* cv::stereoCalibrate (or cv::fisheye::stereoCalibrate) on the same views seen by two cameras, as OpenCV
 * users run it: with `fix_intrinsic` (CALIB_FIX_INTRINSIC) or starting from the given intrinsics
 * (CALIB_USE_INTRINSIC_GUESS), which receive the result. `rotation` receives R (9, row-major) and
 * `translation` T (x_2 = R x_1 + T), `rms` OpenCV's RMS. */
int32_t cvb_stereo_calibrate(const double *object_points, const int32_t *view_points, const double *image_points_1,
                             const double *image_points_2, int32_t views, int32_t width, int32_t height, cvb_model model,
                             double *camera_matrix_1, double *distortion_1, double *camera_matrix_2, double *distortion_2,
                             int32_t distortion_count, int32_t fix_intrinsic, double *rotation, double *translation, double *rms);
/* cv::stereoRectify (fisheye::stereoRectify) with CALIB_ZERO_DISPARITY and `alpha` (0 valid pixels only ..
 * 1 all; the balance for fisheye): R1 R2 (9 each), P1 P2 (12 each), Q (16), row-major. Both cameras must
 * share the lens model and image size. */
int32_t cvb_stereo_rectify(const double *camera_matrix_1, const double *distortion_1, const double *camera_matrix_2,
                           const double *distortion_2, int32_t distortion_count, cvb_model model, int32_t width, int32_t height,
                           const double *rotation, const double *translation, double alpha, double *r1, double *r2, double *p1,
                           double *p2, double *q);
/* cv::initUndistortRectifyMap (fisheye's) into caller maps of width x height floats each. */
int32_t cvb_rectify_map(const double *camera_matrix, const double *distortion, int32_t distortion_count, cvb_model model,
                        const double *rectification, const double *projection, int32_t width, int32_t height, float *map_x,
                        float *map_y);
/* cv::remap with bilinear interpolation and a black border: `out` has the same size, stride and channels. */
int32_t cvb_remap(const uint8_t *pixels, int32_t width, int32_t height, int32_t stride, int32_t channels, const float *map_x,
                  const float *map_y, uint8_t *out);

/* ---- Image degradations (for ground-truth renders) ----------------------------------------------- */

/* Gaussian blur of an 8-bit gray image in place, standard deviation `sigma` pixels. */
int32_t cvb_gaussian_blur(uint8_t *gray, int32_t width, int32_t height, int32_t stride, double sigma);
/* Encodes a gray image as JPEG at `quality` (1-100) and decodes it again, in place. */
int32_t cvb_jpeg_roundtrip(uint8_t *gray, int32_t width, int32_t height, int32_t stride, int32_t quality);
/* Motion blur in place: the image smeared along a segment `length` pixels long (0-1000) at
 * `angle_degrees` (0 along +x, 90 along +y), as a camera moving during the exposure (cv::filter2D). */
int32_t cvb_motion_blur(uint8_t *gray, int32_t width, int32_t height, int32_t stride, double length, double angle_degrees);
/* A soft-edged polygon: `mask` (width x height floats) receives 1 inside the polygon of `count` points
 * `xy` (x, y pairs, pixels), 0 far outside, and a Gaussian edge of standard deviation `softness` px
 * between (drawn anti-aliased and blurred at a reduced scale where the edge is wide, then enlarged). */
int32_t cvb_soft_polygon(float *mask, int32_t width, int32_t height, const double *xy, int32_t count, double softness);
/* Sensor noise in place, as a camera makes it: gray levels taken back to linear light through the
 * tone curve (level/255)^gamma, shot noise (a pixel at white collects `electrons`) and `read_noise`
 * electrons added there, and the tone curve applied again, which stretches the noise of dark levels.
 * The same seed gives the same noise. */
int32_t cvb_sensor_noise(uint8_t *gray, int32_t width, int32_t height, int32_t stride, double electrons, double read_noise,
                         double gamma, uint64_t seed);

/* ---- FileStorage (YAML / XML), for writing and reading calibration files exactly as OpenCV does ----- */

typedef struct cvb_storage cvb_storage;
typedef enum : int32_t {
    CVB_STORAGE_YAML = 0,
    CVB_STORAGE_XML = 1,
} cvb_storage_format;
/* Opens for writing in memory, in `format`. */
int32_t cvb_storage_open_write(cvb_storage_format format, cvb_storage **out);
/* Opens a file's text for reading (the format is recognised from the text). */
int32_t cvb_storage_open_read(const char *text, cvb_storage **out);
/* Puts `prefix` before every key written or read from now on ("" for none). */
int32_t cvb_storage_set_prefix(cvb_storage *storage, const char *prefix);
int32_t cvb_storage_write_int(cvb_storage *storage, const char *key, int32_t value);
int32_t cvb_storage_write_real(cvb_storage *storage, const char *key, double value);
int32_t cvb_storage_write_string(cvb_storage *storage, const char *key, const char *value);
int32_t cvb_storage_write_matrix(cvb_storage *storage, const char *key, const double *values, int32_t rows, int32_t cols);
int32_t cvb_storage_write_comment(cvb_storage *storage, const char *comment);
/* Finishes writing; the text goes to `out` (release with cvb_image_release; width = byte count). */
int32_t cvb_storage_finish(cvb_storage *storage, cvb_image *out);
/* Returns 1 and the value when `key` is present (with the right type), 0 when absent. */
int32_t cvb_storage_read_real(cvb_storage *storage, const char *key, double *value);
int32_t cvb_storage_read_string(cvb_storage *storage, const char *key, cvb_image *out);
/* A matrix or a sequence of numbers: up to `capacity` values row-major; returns 1 and sets rows, cols. */
int32_t cvb_storage_read_matrix(cvb_storage *storage, const char *key, double *values, int32_t capacity,
                                int32_t *rows, int32_t *cols);
void cvb_storage_close(cvb_storage *storage);


/* ---- Images ---------------------------------------------------------------------------------- */

/* Reads an image file (any codec OpenCV's imgcodecs knows) as 8-bit gray (channels 1) or BGR (channels 3)
 * into memory the calling thread keeps: `out` views it until the thread's next cvb_image_read,
 * cvb_image_decode or cvb_decoded_release (not released itself; the file is read into the same memory
 * while sizes repeat). The PNG, JPEG or BMP header is
 * read first: a size beyond CVB_MAX_IMAGE_PIXELS gives BRIDGE_ERR_TOO_LARGE without decoding. The
 * codecs' own warnings (libpng, libjpeg) do not reach stderr; failures come back as one message.
 * Pictures of more than 8 bits become 8-bit thus: 16-bit ones whose brightest value reaches
 * CVB_LOW_BITS_LIMIT keep their top byte (value >> 8, the full 16-bit range); those below it hold
 * the sensor's value in the low bits (10- and 12-bit cameras) and are stretched linearly from their
 * darkest to their brightest value onto 0-255; floating point (EXR, HDR, PFM) is taken as 0-1. An
 * alpha channel is ignored. The picture is turned and mirrored as its orientation tag says (EXIF in a
 * JPEG, PNG or WebP, or a TIFF's own), as viewers show it; `orientation` (may be null) gets the tag's
 * value, 0 when the file has none (values outside 1-8 are not applied). A
 * path that is not a regular file (a FIFO, socket or device) fails at once, unread: it is opened
 * without blocking and checked before reading. */
int32_t cvb_image_read(const char *path, int32_t channels, cvb_image *out, int32_t *orientation);
/* Encodes an 8-bit gray or BGR image into the format named by `extension` (".png", ".jpg"); the
 * bytes go to `out` (data owned by the bridge, release with cvb_image_release; width = byte count). */
int32_t cvb_image_encode(const uint8_t *pixels, int32_t width, int32_t height, int32_t stride, int32_t channels,
                         const char *extension, cvb_image *out);
/* Decodes an encoded image (JPEG, PNG, ...) held in memory into gray (1) or BGR (3) as cvb_image_read
 * does, into the same kept memory (`out` is a view, not released). Cameras' MJPEG frames go through
 * JPEGDecode instead (no allocation per frame); `bench` times this against it. */
int32_t cvb_image_decode(const uint8_t *bytes, int32_t count, int32_t channels, cvb_image *out);
/* The orientation tag an encoded image carries, found as cvb_image_read finds it (JPEG APP1 EXIF, PNG
 * eXIf, WebP EXIF, a TIFF's first directory); 0 when it has none. Reads only within `count` bytes. */
int32_t cvb_image_orientation(const uint8_t *bytes, int32_t count);
/* Frees the picture the calling thread decoded last, once its view has been copied (a 4K frame is 25 MB). */
void cvb_decoded_release(void);
/* Converts packed YUYV (4:2:2) to BGR as cv::cvtColor(COLOR_YUV2BGR_YUYV) does; `bgr` holds width*height*3. */
int32_t cvb_yuyv_to_bgr(const uint8_t *yuyv, int32_t width, int32_t height, int32_t stride, uint8_t *bgr);
/* Sharpness: variance of the Laplacian of a gray image (higher is sharper). */
double cvb_sharpness(const uint8_t *gray, int32_t width, int32_t height, int32_t stride);
/* Converts 8-bit BGR (3) or BGRA (4) pixels to gray (ITU-R BT.601 weights, as cv::cvtColor). */
int32_t cvb_to_gray(const uint8_t *pixels, int32_t width, int32_t height, int32_t stride, int32_t channels,
                    uint8_t *gray);

/* ---- Geometry ------------------------------------------------------------------------------------- */

/* The pose of a square of side `side` in OpenCV's marker frame: object corners (-s/2, s/2, 0),
 * (s/2, s/2, 0), (s/2, -s/2, 0), (-s/2, -s/2, 0), by cv::solvePnP with SOLVEPNP_IPPE_SQUARE (fisheye
 * corners undistorted with cv::fisheye first). MarkerKit calls it for fisheye and tilted-sensor (14)
 * models; the others go to MarkerKitKernels' mkk_solve_pnp_square, which the tests hold to this.
 * `model` as in cvb_calibrate. */
int32_t cvb_solve_pnp_square(const double *image_corners, double side, const double *camera_matrix,
                             const double *distortion, int32_t distortion_count, cvb_model model, double *rvec,
                             double *tvec);
/* Both of IPPE's poses of the square, by cv::solvePnPGeneric with SOLVEPNP_IPPE_SQUARE: `poses` receives 14
 * values, rvec, tvec and the RMS reprojection error in pixels (through the model) of each, OpenCV's order
 * (the better first). As mkk_solve_pnp_square_both, for every model. */
/* The pose of `count` (4 or more) points (x y z each) seen at `image_points` (x y each): with `planar`, both of
 * IPPE's poses (cv::solvePnPGeneric with SOLVEPNP_IPPE), else SQPnP's one (SOLVEPNP_SQPNP), each refined by
 * cv::solvePnPRefineLM (not for fisheye); `poses` receives 7 values per pose (rvec, tvec, the RMS
 * reprojection error in pixels per point), the better first, `solutions` how many (1 or 2). */
int32_t cvb_solve_pnp_points(const double *object_points, const double *image_points, int32_t count,
                             const double *camera_matrix, const double *distortion, int32_t distortion_count,
                             cvb_model model, int32_t planar, double *poses, int32_t *solutions);
/* cv::solvePnP's default pose (SOLVEPNP_ITERATIVE: a DLT or homography start refined by Levenberg-Marquardt)
 * of `count` points, as OpenCV users get a board's pose (estimatePoseCharucoBoard and estimatePoseBoard call
 * it on the board's points): `pose` receives rvec, tvec and the RMS reprojection error per point in pixels.
 * The reference MarkerKit's board and map poses are measured against (`verify pose`). */
int32_t cvb_solve_pnp_iterative(const double *object_points, const double *image_points, int32_t count,
                                const double *camera_matrix, const double *distortion, int32_t distortion_count,
                                cvb_model model, double *pose);
int32_t cvb_solve_pnp_square_both(const double *image_corners, double side, const double *camera_matrix,
                                  const double *distortion, int32_t distortion_count, cvb_model model, double *poses);

/* ---- Video ------------------------------------------------------------------------------------------ */

typedef struct cvb_video cvb_video;
/* Opens a video file with OpenCV's videoio (FFmpeg). */
int32_t cvb_video_open(const char *path, cvb_video **out);
/* Decodes the next frame as BGR (channels 3) into memory the video keeps: `out` views it until the next
 * read (not released; FFmpeg's own packets are still allocated inside). Returns 1 for a frame, 0 at the end. */
int32_t cvb_video_read(cvb_video *video, cvb_image *out);
double cvb_video_fps(cvb_video *video);
void cvb_video_close(cvb_video *video);

typedef struct cvb_video_writer cvb_video_writer;
/* Opens a video file for writing with the four-character codec `fourcc` ("MJPG"). */
int32_t cvb_video_writer_open(const char *path, const char *fourcc, double fps, int32_t width, int32_t height,
                              cvb_video_writer **out);
int32_t cvb_video_writer_write(cvb_video_writer *writer, const uint8_t *bgr, int32_t width, int32_t height,
                               int32_t stride);
void cvb_video_writer_close(cvb_video_writer *writer);

/* ---- OpenCV libraries loaded on first use ------------------------------------------------------- */

/* imgcodecs (image files), videoio (video files) and highgui (the preview window) are not linked: each is
 * loaded with dlopen the first time it is needed (linking them loaded 264 shared objects, GDAL, FFmpeg
 * and GStreamer among them, into every command), and every function the bridge takes from it is looked
 * up then. A function that needs one that is missing fails with BRIDGE_ERR_UNAVAILABLE (BRIDGE_ERR_IO for the
 * preview) and a message naming the library or the first function it lacks. */
typedef enum : int32_t {
    CVB_LIBRARY_IMGCODECS = 0,
    CVB_LIBRARY_VIDEOIO = 1,
    CVB_LIBRARY_HIGHGUI = 2,
} cvb_opencv_library;
/* Loads `library` now if it is not loaded yet: BRIDGE_OK when every function the bridge uses was found,
 * else BRIDGE_ERR_UNAVAILABLE and the message. */
int32_t cvb_opencv_library_check(cvb_opencv_library library);

/* ---- Preview window ------------------------------------------------------------------------------ */

/* Shows a BGR image in a window titled `title` (cv::imshow) and polls the keyboard for `wait_ms`
 * (cv::waitKey). OpenCV's highgui is loaded on first use only, so commands that never show a window do
 * not pay for its libraries. Returns the key pressed (>= 0), -1 for none, or BRIDGE_ERR_IO when no window
 * can be shown (no display, or highgui missing). */
int32_t cvb_preview_show(const char *title, const uint8_t *bgr, int32_t width, int32_t height, int32_t stride, int32_t wait_ms);

/* ---- Drawing on BGR images (annotations) -------------------------------------------------------- */

/* Polyline through `count` points (x,y doubles), anti-aliased, `thickness` pixels, colour b,g,r. */
int32_t cvb_draw_polyline(uint8_t *bgr, int32_t width, int32_t height, int32_t stride, const double *points,
                          int32_t count, int32_t closed, int32_t blue, int32_t green, int32_t red, int32_t thickness);
int32_t cvb_draw_circle(uint8_t *bgr, int32_t width, int32_t height, int32_t stride, double x, double y,
                        double radius, int32_t blue, int32_t green, int32_t red, int32_t thickness);
/* Text with its bottom-left at x,y (Hershey simplex font, `scale` 1 is about 22 px tall). */
int32_t cvb_draw_text(uint8_t *bgr, int32_t width, int32_t height, int32_t stride, const char *text, double x,
                      double y, double scale, int32_t blue, int32_t green, int32_t red, int32_t thickness);

#ifdef __cplusplus
}
#endif

#endif
