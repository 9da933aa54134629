#include "apriltag_bridge.h"

#include <stdlib.h>
#include <string.h>

#include <apriltag/apriltag.h>
#include <apriltag/tag16h5.h>
#include <apriltag/tag25h9.h>
#include <apriltag/tag36h10.h>
#include <apriltag/tag36h11.h>

struct mkat_detector {
    apriltag_detector_t *detector;
    apriltag_family_t *family;
    void (*destroy_family)(apriltag_family_t *);
};

typedef struct {
    const char *name;
    apriltag_family_t *(*create)(void);
    void (*destroy)(apriltag_family_t *);
} family_entry;

static const family_entry families[] = {
    {"tag16h5", tag16h5_create, tag16h5_destroy},
    {"tag25h9", tag25h9_create, tag25h9_destroy},
    {"tag36h10", tag36h10_create, tag36h10_destroy},
    {"tag36h11", tag36h11_create, tag36h11_destroy},
};

mkat_detector *mkat_detector_create(const char *family, int32_t threads) {
    if (family == NULL || threads < 1) return NULL;
    for (size_t i = 0; i < sizeof families / sizeof families[0]; ++i) {
        if (strcmp(families[i].name, family) != 0) continue;
        mkat_detector *d = calloc(1, sizeof *d);
        if (d == NULL) return NULL;
        d->family = families[i].create();
        d->destroy_family = families[i].destroy;
        d->detector = apriltag_detector_create();
        if (d->family == NULL || d->detector == NULL) {
            mkat_detector_destroy(d);
            return NULL;
        }
        d->detector->nthreads = threads;
        // Each detector its own family: a shared one shares (and frees) the first detector's decode table.
        apriltag_detector_add_family(d->detector, d->family);
        if (d->family->impl == NULL) { // the decode table could not be made (memory)
            mkat_detector_destroy(d);
            return NULL;
        }
        return d;
    }
    return NULL;
}

void mkat_detector_destroy(mkat_detector *d) {
    if (d == NULL) return;
    if (d->detector != NULL) apriltag_detector_destroy(d->detector);
    if (d->family != NULL) d->destroy_family(d->family);
    free(d);
}

int32_t mkat_detect(mkat_detector *d, const uint8_t *pixels, int32_t width, int32_t height, int32_t stride, int32_t capacity,
                    int32_t *ids, double *corners) {
    if (d == NULL || pixels == NULL || width < 0 || height < 0 || stride < width || capacity < 0) return -1;
    if (capacity > 0 && (ids == NULL || corners == NULL)) return -1;
    if (width < 8 || height < 8) return 0;
    // The detector reads the image only (quad_sigma 0 at decimate 2: no blur written into it).
    image_u8_t image = {.width = width, .height = height, .stride = stride, .buf = (uint8_t *)pixels};
    zarray_t *found = apriltag_detector_detect(d->detector, &image);
    if (found == NULL) return -1;
    int32_t count = zarray_size(found);
    for (int32_t k = 0; k < count && k < capacity; ++k) {
        apriltag_detection_t *detection;
        zarray_get(found, k, &detection);
        ids[k] = detection->id;
        // AprilTag's p[0..3] run the other way round from OpenCV's corners, from the corner OpenCV
        // numbers 1 (OpenCV draws the tag turned by 180 degrees), with pixel centres at k + 0.5:
        // OpenCV's corner j is p[j ^ 1] - 0.5.
        for (int j = 0; j < 4; ++j) {
            corners[8 * k + 2 * j] = detection->p[j ^ 1][0] - 0.5;
            corners[8 * k + 2 * j + 1] = detection->p[j ^ 1][1] - 0.5;
        }
    }
    apriltag_detections_destroy(found);
    return count;
}
