/* JPEGDecode: camera frames (MJPEG) decoded by libjpeg-turbo's libjpeg API, behind a plain C header.
 *
 * One decoder per stream keeps its jpeg_decompress_struct from frame to frame, with a memory manager of
 * its own in place of libjpeg's: every allocation libjpeg makes comes from two arenas (one for the
 * decoder's life, one for each picture) that grow to the size a stream needs and are reused, so once
 * the first frames of a size are decoded, decoding allocates nothing. The plain TurboJPEG API and
 * libjpeg's own memory manager allocate for every picture (docs/MEASUREMENTS.md, Memory).
 *
 * Nothing is printed: libjpeg's errors and warnings become a status and a message kept in the decoder.
 * A frame that is not a JPEG, is cut short, or whose compressed data are damaged fails with
 * MKJPEG_ERR_CORRUPT (the first damage found ends the decode at once); warnings about bytes that carry
 * no picture (extraneous bytes before a marker, which several webcams put in every frame, an unknown
 * JFIF version, a bad ICC marker) and a frame that ends without its end-of-image marker after its only
 * scan are tolerated and counted. Not thread-safe: one decoder is used by one thread at a time. */
#ifndef MARKERKIT_JPEG_DECODE_H
#define MARKERKIT_JPEG_DECODE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mkjpeg_decoder mkjpeg_decoder;

typedef enum {
    MKJPEG_OK = 0,
    MKJPEG_ERR_ARGUMENT = -1, /* a null pointer, channels other than 1 or 3, a size or stride out of range */
    MKJPEG_ERR_CORRUPT = -2,  /* not a JPEG, cut short, damaged data, or a JPEG libjpeg cannot decode */
    MKJPEG_ERR_SIZE = -3,     /* a whole JPEG of another size than asked for */
    MKJPEG_ERR_MEMORY = -4,   /* the arenas could not grow */
} mkjpeg_status;

/* A decoder, or NULL when memory is short. */
mkjpeg_decoder *mkjpeg_decoder_create(void);
void mkjpeg_decoder_destroy(mkjpeg_decoder *decoder);

/* Decodes the JPEG in `bytes` (read in place, never copied), which must be `width` x `height`, into
 * `pixels` with rows `stride` bytes apart: 8-bit gray for `channels` 1 (only the luma is decoded: the
 * chroma components of a colour JPEG are skipped), BGR for 3. Returns an mkjpeg_status; on failure
 * mkjpeg_decoder_message says why, and what was written to `pixels` is not a picture. Accurate integer
 * IDCT and smooth chroma upsampling, as libjpeg's defaults and OpenCV's imdecode. */
int32_t mkjpeg_decode(mkjpeg_decoder *decoder, const uint8_t *bytes, size_t count, int32_t width, int32_t height,
                      int32_t channels, uint8_t *pixels, size_t stride);

/* Why the last decode failed (libjpeg's own words where it gave them), "" after a success. */
const char *mkjpeg_decoder_message(const mkjpeg_decoder *decoder);

/* What the last decode tolerated: warnings about bytes that carry no picture, and whether the frame
 * lacked its end-of-image marker (0 or 1). */
int32_t mkjpeg_decoder_warnings(const mkjpeg_decoder *decoder);
int32_t mkjpeg_decoder_missing_end(const mkjpeg_decoder *decoder);

/* The decoder's heap use: bytes its arenas hold now, and how many blocks they have taken from malloc
 * since it was created (a stream in its steady state adds none). */
size_t mkjpeg_decoder_bytes_held(const mkjpeg_decoder *decoder);
size_t mkjpeg_decoder_heap_blocks(const mkjpeg_decoder *decoder);

#ifdef __cplusplus
}
#endif

#endif
