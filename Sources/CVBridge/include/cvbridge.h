/* CVBridge: the project's only door into OpenCV (C++), as a plain C interface.
 *
 * Conventions: functions return a non-negative value on success and a negative CVB_ERR_* code on
 * failure; cvb_last_error() then holds a one-line message for the calling thread. No C++ exception
 * ever crosses this header. Images are 8-bit, row-major, with an explicit stride in bytes.
 * Pixel coordinates follow OpenCV: integer coordinates at pixel centres.
 */
#ifndef CVBRIDGE_H
#define CVBRIDGE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
    CVB_OK = 0,
    CVB_ERR_OPENCV = -1,   /* OpenCV threw; see cvb_last_error() */
    CVB_ERR_ARGUMENT = -2, /* a bad argument (size, id, null pointer) */
    CVB_ERR_IO = -3,       /* a file could not be read or decoded */
};

/* The message of the last failure on this thread ("" if none). Valid until the next call. */
const char *cvb_last_error(void);

/* An 8-bit image owned by the bridge; release with cvb_image_release. */
typedef struct cvb_image {
    int32_t width;
    int32_t height;
    int32_t stride;   /* bytes per row */
    int32_t channels; /* 1 = gray */
    uint8_t *data;
} cvb_image;

/* Reads an image file (any codec OpenCV's imgcodecs knows) as 8-bit gray. */
int32_t cvb_image_read_gray(const char *path, cvb_image *out);
void cvb_image_release(cvb_image *image);

/* DICT_ARUCO_ORIGINAL as OpenCV defines it. */
int32_t cvb_aruco_original_count(void);
/* The 5x5 data bits of marker `id`, row-major, 1 = white cell. `bits` holds 25 bytes. */
int32_t cvb_aruco_original_bits(int32_t id, uint8_t *bits);

typedef struct cvb_marker {
    int32_t id;
    double corners[8]; /* x0 y0 .. x3 y3: top-left, top-right, bottom-right, bottom-left */
} cvb_marker;

/* OpenCV's own aruco detector (legacy API), DICT_ARUCO_ORIGINAL, default parameters, optionally with
 * CORNER_REFINE_SUBPIX. Writes up to `capacity` markers and returns how many were found (which may
 * exceed capacity: call again with more room). */
int32_t cvb_aruco_detect(const uint8_t *gray, int32_t width, int32_t height, int32_t stride,
                         int32_t refine_subpix, cvb_marker *out, int32_t capacity);

/* cv::findChessboardCorners (ADAPTIVE_THRESH | NORMALIZE_IMAGE) then cornerSubPix (11x11 window).
 * `corners` receives 2 * cols * rows doubles in OpenCV's order. Returns 1 if found, 0 if not. */
int32_t cvb_find_chessboard(const uint8_t *gray, int32_t width, int32_t height, int32_t stride,
                            int32_t cols, int32_t rows, double *corners);

#ifdef __cplusplus
}
#endif

#endif
