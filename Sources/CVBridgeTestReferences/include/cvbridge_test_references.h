/* CVBridgeTestReferences: the OpenCV calls only the tests make, out of the product. Each is the
 * reference a test holds a MarkerKitKernels kernel (or the JPEG decoder) to (the kernel does what the
 * call does, without its allocations), or makes the test files cameras and other programs write
 * (through OpenCV, or libjpeg where a camera's JPEG needs what imencode cannot set). Conventions as
 * CVBridge's. */
#ifndef CVBRIDGE_TEST_REFERENCES_H
#define CVBRIDGE_TEST_REFERENCES_H

#include <stdint.h>
#include "bridge_status.h"
#include "cvbridge.h"
#include "markerkit_kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The heap allocations (malloc, calloc, realloc, aligned) the calling thread makes from _start to _stop
 * (thread_allocations.c; -1 and available() 0 under a sanitizer, which replaces malloc). */
int32_t thread_allocations_available(void);
void thread_allocations_start(void);
int64_t thread_allocations_stop(void);

/* cv::adaptiveThreshold (mean, inverted) itself: the reference for mkk_adaptive_threshold. */
int32_t cvb_adaptive_threshold_opencv(const uint8_t *gray, int32_t width, int32_t height, int32_t stride,
                                      int32_t window, double constant, uint8_t *binary);

/* Contours through OpenCV's contour scanner (cvFindContours, which allocates on every call), only those
 * with between min_points and max_points points (with `holes` 0, only those its scanner does not flag as
 * holes): the reference for mkk_find_contours. Its arrays are its own thread workspace's, valid until
 * the thread's next call. */
int32_t cvb_find_contours_opencv(const uint8_t *binary, int32_t width, int32_t height, int32_t stride,
                                 int32_t min_points, int32_t max_points, int32_t holes, mkk_contours *out);

/* cv::approxPolyDP of a closed contour; writes up to `capacity` vertices (x,y) and returns how many
 * the polygon has: the reference for mkk_simplify_contour. */
int32_t cvb_approx_polygon(const int32_t *points, int32_t count, double epsilon, int32_t *out, int32_t capacity);

/* The imencode parameters the tests use, by OpenCV's values (cv::ImwriteFlags). */
typedef enum : int32_t {
    CVB_IMWRITE_JPEG_QUALITY = 1,  /* 0-100 */
    CVB_IMWRITE_WEBP_QUALITY = 64, /* 1-100; above 100 lossless */
} cvb_imwrite_parameter;

/* Encodes 8-bit, 16-bit or 32-bit float (`bits` 8, 16, 32) gray, BGR or BGRA (`channels` 1, 3, 4)
 * samples, rows `stride` bytes apart, into the format named by `extension` with imencode's
 * `parameters` (pairs such as CVB_IMWRITE_JPEG_QUALITY, 95; may be null when the count is 0): the files
 * cameras and other programs write. The bytes go to `out` as with cvb_image_encode (release with
 * cvb_image_release). */
int32_t cvb_image_encode_samples(const void *samples, int32_t width, int32_t height, int32_t stride, int32_t channels,
                                 int32_t bits, const char *extension, const int32_t *parameters,
                                 int32_t parameter_count, cvb_image *out);

/* cv::imdecode itself (IMREAD_GRAYSCALE for `channels` 1, IMREAD_COLOR for 3, orientation tags ignored):
 * the reference for MarkerKit's JPEG decoder (JPEGDecode). The picture goes to `out` in malloc'd memory,
 * rows packed (release with cvb_image_release). */
int32_t cvb_imdecode_opencv(const uint8_t *bytes, int32_t count, int32_t channels, cvb_image *out);

/* Encodes gray (`channels` 1: a one-component JPEG) or BGR (3: YCbCr with the luma sampled `luma_h` x
 * `luma_v` times the chroma: 2x1 is 4:2:2, what webcams send, 2x2 4:2:0, 1x1 4:4:4) with libjpeg at
 * `quality`, a restart marker every `restart_rows` MCU rows (0: none): the JPEGs cameras send. The bytes
 * go to `out` as with cvb_image_encode (release with cvb_image_release). */
int32_t cvb_jpeg_encode_sampled(const uint8_t *pixels, int32_t width, int32_t height, int32_t stride, int32_t channels,
                                int32_t luma_h, int32_t luma_v, int32_t quality, int32_t restart_rows, cvb_image *out);

/* OpenCV 4.6's own cv::aruco::CharucoBoard::create(squares_x, squares_y, square, marker, dictionary by
 * name as cvb_aruco_dictionary_info): the reference for MarkerKit's CharucoBoard layout. Writes each
 * marker's ID and its four corners (x, y; 8 floats a marker, in board units, y down) and the chessboard
 * corners (x, y by corner ID); returns the number of markers, `corner_count` gets the number of corners. */
int32_t cvb_charuco_board_opencv(int32_t squares_x, int32_t squares_y, float square, float marker, int32_t dictionary_name,
                                 int32_t *ids, float *marker_corners, int32_t marker_capacity,
                                 float *chessboard_corners, int32_t corner_capacity, int32_t *corner_count);

#ifdef __cplusplus
}
#endif

#endif
