#ifndef APRILTAG_BRIDGE_H
#define APRILTAG_BRIDGE_H

/* The AprilTag 3 C library (Debian's libapriltag-dev), as a peer for `verify markers` and `bench`: one
 * detector of one family, its detections in OpenCV's conventions. Not part of the MarkerKit library. */

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mkat_detector mkat_detector;

/* A detector of `family` ("tag16h5", "tag25h9", "tag36h10", "tag36h11"), AprilTag 3's defaults
 * (quad_decimate 2, refine_edges, decode sharpening 0.25, 2 bits corrected: apriltag_detector_add_family)
 * on `threads` threads. NULL for another family or when the library cannot make its decode table. */
mkat_detector *mkat_detector_create(const char *family, int32_t threads);
void mkat_detector_destroy(mkat_detector *detector);

/* The tags in an 8-bit gray image: up to `capacity` of them into ids and corners (8 doubles a tag:
 * OpenCV's corner order, top-left, top-right, bottom-right, bottom-left of the marker as OpenCV's
 * drawMarker draws it, pixel centres at integers); returns how many were found (more than `capacity`:
 * only the first `capacity` written), or -1 on a bad argument. Images under 8 pixels a side have none
 * (AprilTag 3.3 crashes on them). */
int32_t mkat_detect(mkat_detector *detector, const uint8_t *pixels, int32_t width, int32_t height, int32_t stride,
                    int32_t capacity, int32_t *ids, double *corners);

#ifdef __cplusplus
}
#endif

#endif
