// Camera frames decoded by libjpeg-turbo's libjpeg API with a kept decompressor, a memory manager of
// our own (arenas, below) and a setjmp error manager; see include/jpeg_decode.h.
#include "jpeg_decode.h"

#include <setjmp.h>
#include <stdio.h> // before jpeglib.h, which needs FILE
#include <stdlib.h>
#include <string.h>

#include <jerror.h>
#include <jpeglib.h>

// ---- Arenas -------------------------------------------------------------------------------------------
//
// libjpeg asks its memory manager (cinfo->mem) for everything it needs: small objects, sample and
// coefficient arrays, and whole-image "virtual" arrays (progressive and multi-scan pictures), each in
// a pool: JPOOL_PERMANENT (freed when the decompressor is destroyed) or JPOOL_IMAGE (freed after each
// picture, by jpeg_finish_decompress or jpeg_abort). Its own manager mallocs every pool anew for every
// picture. Here each pool is an arena: a list of blocks handed out front to back. Freeing the image
// pool keeps its memory; if the picture needed more than one block, they are replaced by one block as
// large as the most any picture has used, so the next picture of that size takes nothing from malloc.
// Virtual arrays are held in memory whole (libjpeg's manager can move them to temporary files, which a
// camera frame never needs).

enum {
    kAlign = 32,              // libjpeg-turbo's ALIGN_SIZE with SIMD: AVX2 loads need 32-byte alignment
    kFirstBlock = 64 * 1024,  // the smallest block asked of malloc
};
// The largest single request served (libjpeg's own MAX_ALLOC_CHUNK is 1e9).
static const size_t kLargestRequest = (size_t)1 << 30;

typedef struct block {
    struct block *next;
    size_t size; // bytes from data(), which is aligned to kAlign
    size_t used;
} block;

typedef struct {
    block *blocks;
    size_t used;      // bytes handed out since the pool was last freed
    size_t most_used; // the most ever handed out between two frees
} arena;

static size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

static unsigned char *data(block *b) { return (unsigned char *)round_up((uintptr_t)(b + 1), kAlign); }

// Whole-image arrays, in memory: rows `defined` and up have not been written yet (libjpeg's contract:
// written in order; read-ahead of unwritten rows gives zeros when `pre_zero` was asked, else is a bug).
struct jvirt_sarray_control {
    JSAMPARRAY rows;
    JDIMENSION height, width, maxaccess, defined;
    boolean pre_zero;
    struct jvirt_sarray_control *next;
};

struct jvirt_barray_control {
    JBLOCKARRAY rows;
    JDIMENSION height, width, maxaccess, defined;
    boolean pre_zero;
    struct jvirt_barray_control *next;
};

typedef struct {
    struct jpeg_memory_mgr pub; // first: libjpeg sees only this
    // libjpeg's own manager, made by jpeg_create_decompress, which holds what that call allocated
    // (the marker reader, the input controller); it is destroyed with the decompressor.
    struct jpeg_memory_mgr *original;
    arena pools[JPOOL_NUMPOOLS];
    jvirt_sarray_ptr sarrays;
    jvirt_barray_ptr barrays;
    size_t held;        // bytes in all blocks
    size_t heap_blocks; // blocks ever taken from malloc
} arena_manager;

static arena_manager *manager(j_common_ptr cinfo) { return (arena_manager *)cinfo->mem; }

// A new block of at least `size` bytes at the front of `pool`'s list; NULL when malloc fails.
static block *add_block(arena_manager *m, arena *pool, size_t size) {
    size = round_up(size < kFirstBlock ? kFirstBlock : size, kAlign);
    block *b = malloc(sizeof(block) + kAlign + size); // kAlign of slack to align data() in
    if (b == NULL) return NULL;
    *b = (block){pool->blocks, size, 0};
    pool->blocks = b;
    m->held += size;
    m->heap_blocks += 1;
    return b;
}

static void *alloc_small(j_common_ptr cinfo, int pool_id, size_t size) {
    if (pool_id < 0 || pool_id >= JPOOL_NUMPOOLS) ERREXIT1(cinfo, JERR_BAD_POOL_ID, pool_id);
    if (size > kLargestRequest) ERREXIT1(cinfo, JERR_OUT_OF_MEMORY, 1);
    // Rounded up, as libjpeg's own manager does: SIMD code may touch up to the next alignment.
    size = round_up(size == 0 ? 1 : size, kAlign);
    arena_manager *m = manager(cinfo);
    arena *pool = &m->pools[pool_id];
    block *b = pool->blocks;
    while (b != NULL && b->size - b->used < size) b = b->next;
    if (b == NULL) b = add_block(m, pool, pool->blocks == NULL ? size : size + pool->used);
    if (b == NULL) ERREXIT1(cinfo, JERR_OUT_OF_MEMORY, 2);
    void *object = data(b) + b->used;
    b->used += size;
    pool->used += size;
    if (pool->used > pool->most_used) pool->most_used = pool->used;
    return object;
}

// Frees a pool: its blocks are kept for the next picture, merged into one when there are several.
static void free_pool(j_common_ptr cinfo, int pool_id) {
    if (pool_id < 0 || pool_id >= JPOOL_NUMPOOLS) ERREXIT1(cinfo, JERR_BAD_POOL_ID, pool_id);
    arena_manager *m = manager(cinfo);
    if (pool_id == JPOOL_IMAGE) {
        m->sarrays = NULL;
        m->barrays = NULL;
    }
    arena *pool = &m->pools[pool_id];
    if (pool->blocks != NULL && pool->blocks->next != NULL) {
        while (pool->blocks != NULL) {
            block *next = pool->blocks->next;
            m->held -= pool->blocks->size;
            free(pool->blocks);
            pool->blocks = next;
        }
        (void)add_block(m, pool, pool->most_used + kAlign); // if this fails, the next picture asks again
    }
    for (block *b = pool->blocks; b != NULL; b = b->next) b->used = 0;
    pool->used = 0;
}

// The rows of a 2-D array, `row` bytes apart, with room for `width` elements of `size` bytes each.
static void *alloc_rows(j_common_ptr cinfo, int pool_id, JDIMENSION width, size_t size, size_t row, JDIMENSION height) {
    if (width == 0 || width > kLargestRequest / size) ERREXIT(cinfo, JERR_WIDTH_OVERFLOW);
    if (height > 0 && row > kLargestRequest / height) ERREXIT1(cinfo, JERR_OUT_OF_MEMORY, 3);
    return alloc_small(cinfo, pool_id, row * height);
}

static JSAMPARRAY alloc_sarray(j_common_ptr cinfo, int pool_id, JDIMENSION width, JDIMENSION height) {
    // Rows padded to twice the alignment, as libjpeg-turbo's manager pads them: its 2x upsamplers
    // write whole vectors past the row's end.
    const size_t row = round_up(width, 2 * kAlign);
    JSAMPARRAY rows = alloc_small(cinfo, pool_id, (size_t)height * sizeof(JSAMPROW));
    JSAMPROW samples = alloc_rows(cinfo, pool_id, width, sizeof(JSAMPLE), row, height);
    for (JDIMENSION y = 0; y < height; y++) rows[y] = samples + (size_t)y * row;
    return rows;
}

static JBLOCKARRAY alloc_barray(j_common_ptr cinfo, int pool_id, JDIMENSION width, JDIMENSION height) {
    JBLOCKARRAY rows = alloc_small(cinfo, pool_id, (size_t)height * sizeof(JBLOCKROW));
    JBLOCKROW blocks = alloc_rows(cinfo, pool_id, width, sizeof(JBLOCK), (size_t)width * sizeof(JBLOCK), height);
    for (JDIMENSION y = 0; y < height; y++) rows[y] = blocks + (size_t)y * width;
    return rows;
}

// A whole-image array's control block (`size` bytes), in the picture's pool: its memory comes with
// realize_virt_arrays.
static void *request_virtual(j_common_ptr cinfo, int pool_id, size_t size) {
    if (pool_id != JPOOL_IMAGE) ERREXIT1(cinfo, JERR_BAD_POOL_ID, pool_id);
    return alloc_small(cinfo, JPOOL_IMAGE, size);
}

static jvirt_sarray_ptr request_virt_sarray(j_common_ptr cinfo, int pool_id, boolean pre_zero, JDIMENSION width,
                                            JDIMENSION height, JDIMENSION maxaccess) {
    jvirt_sarray_ptr array = request_virtual(cinfo, pool_id, sizeof *array);
    *array = (struct jvirt_sarray_control){NULL, height, width, maxaccess, 0, pre_zero, manager(cinfo)->sarrays};
    return manager(cinfo)->sarrays = array;
}

static jvirt_barray_ptr request_virt_barray(j_common_ptr cinfo, int pool_id, boolean pre_zero, JDIMENSION width,
                                            JDIMENSION height, JDIMENSION maxaccess) {
    jvirt_barray_ptr array = request_virtual(cinfo, pool_id, sizeof *array);
    *array = (struct jvirt_barray_control){NULL, height, width, maxaccess, 0, pre_zero, manager(cinfo)->barrays};
    return manager(cinfo)->barrays = array;
}

static void realize_virt_arrays(j_common_ptr cinfo) {
    for (jvirt_sarray_ptr a = manager(cinfo)->sarrays; a != NULL; a = a->next)
        if (a->rows == NULL) a->rows = alloc_sarray(cinfo, JPOOL_IMAGE, a->width, a->height);
    for (jvirt_barray_ptr a = manager(cinfo)->barrays; a != NULL; a = a->next)
        if (a->rows == NULL) a->rows = alloc_barray(cinfo, JPOOL_IMAGE, a->width, a->height);
}

// Rows [start, start + count) of a whole-image array; those not written yet are zeroed when the array
// asked for it. A writer must not skip rows, a reader must not read unwritten rows of an array that
// is not zeroed: both are libjpeg bugs, reported as its own manager reports them.
#define ACCESS_VIRTUAL(array, start, count, writable, row_bytes)                                    \
    do {                                                                                            \
        const JDIMENSION end = (start) + (count);                                                   \
        if ((array)->rows == NULL || end > (array)->height || (count) > (array)->maxaccess)         \
            ERREXIT(cinfo, JERR_BAD_VIRTUAL_ACCESS);                                                \
        if ((array)->defined < end) {                                                               \
            JDIMENSION first = (array)->defined;                                                    \
            if (first < (start)) {                                                                  \
                if (writable) ERREXIT(cinfo, JERR_BAD_VIRTUAL_ACCESS);                              \
                first = (start);                                                                    \
            }                                                                                       \
            if (writable) (array)->defined = end;                                                   \
            if ((array)->pre_zero) {                                                                \
                for (JDIMENSION y = first; y < end; y++) memset((array)->rows[y], 0, (row_bytes)); \
            } else if (!(writable)) {                                                               \
                ERREXIT(cinfo, JERR_BAD_VIRTUAL_ACCESS);                                            \
            }                                                                                       \
        }                                                                                           \
        return (array)->rows + (start);                                                             \
    } while (0)

static JSAMPARRAY access_virt_sarray(j_common_ptr cinfo, jvirt_sarray_ptr array, JDIMENSION start, JDIMENSION count,
                                     boolean writable) {
    ACCESS_VIRTUAL(array, start, count, writable, (size_t)array->width * sizeof(JSAMPLE));
}

static JBLOCKARRAY access_virt_barray(j_common_ptr cinfo, jvirt_barray_ptr array, JDIMENSION start, JDIMENSION count,
                                      boolean writable) {
    ACCESS_VIRTUAL(array, start, count, writable, (size_t)array->width * sizeof(JBLOCK));
}

static void *alloc_large(j_common_ptr cinfo, int pool_id, size_t size) { return alloc_small(cinfo, pool_id, size); }

// Called by jpeg_destroy: our blocks go, then libjpeg's own manager destroys itself and what it holds.
static void self_destruct(j_common_ptr cinfo) {
    arena_manager *m = manager(cinfo);
    for (int pool = 0; pool < JPOOL_NUMPOOLS; pool++) {
        while (m->pools[pool].blocks != NULL) {
            block *next = m->pools[pool].blocks->next;
            free(m->pools[pool].blocks);
            m->pools[pool].blocks = next;
        }
    }
    cinfo->mem = m->original;
    free(m);
    (*cinfo->mem->self_destruct)(cinfo);
}

static int install_arenas(j_common_ptr cinfo) {
    arena_manager *m = calloc(1, sizeof *m);
    if (m == NULL) return 0;
    m->original = cinfo->mem;
    m->pub = (struct jpeg_memory_mgr){
        .alloc_small = alloc_small,
        .alloc_large = alloc_large,
        .alloc_sarray = alloc_sarray,
        .alloc_barray = alloc_barray,
        .request_virt_sarray = request_virt_sarray,
        .request_virt_barray = request_virt_barray,
        .realize_virt_arrays = realize_virt_arrays,
        .access_virt_sarray = access_virt_sarray,
        .access_virt_barray = access_virt_barray,
        .free_pool = free_pool,
        .self_destruct = self_destruct,
        .max_memory_to_use = m->original->max_memory_to_use,
        .max_alloc_chunk = (long)kLargestRequest,
    };
    cinfo->mem = &m->pub;
    return 1;
}

// ---- The decoder --------------------------------------------------------------------------------------

enum {
    kMostScans = 100, // a progressive or multi-scan frame with more scans is refused (each scan is a pass)
    kRowsPerCall = 16,
};

struct mkjpeg_decoder {
    struct jpeg_decompress_struct cinfo;
    struct jpeg_error_mgr errors;
    struct jpeg_source_mgr source;
    struct jpeg_progress_mgr progress;
    jmp_buf failed;
    int32_t status;      // what a longjmp to `failed` reports
    int32_t warnings;    // tolerated warnings in this decode
    int32_t missing_end; // the data ran out before an end-of-image marker
    char message[JMSG_LENGTH_MAX + 64];
};

static mkjpeg_decoder *decoder_of(j_common_ptr cinfo) { return (mkjpeg_decoder *)cinfo->client_data; }

static void fail(j_common_ptr cinfo, int32_t status) {
    mkjpeg_decoder *d = decoder_of(cinfo);
    d->status = status;
    longjmp(d->failed, 1);
}

// libjpeg's fatal errors: the message kept, back to mkjpeg_decode.
static void on_error(j_common_ptr cinfo) {
    (*cinfo->err->format_message)(cinfo, decoder_of(cinfo)->message);
    fail(cinfo, cinfo->err->msg_code == JERR_OUT_OF_MEMORY ? MKJPEG_ERR_MEMORY : MKJPEG_ERR_CORRUPT);
}

// Warnings (level -1) about damaged picture data end the decode as errors do: the rest of the picture
// would be guessed. Those about bytes that carry no picture are counted and decoding goes on. Trace
// messages (level 0 and up) are dropped. Nothing is printed.
static void on_message(j_common_ptr cinfo, int level) {
    if (level >= 0) return;
    switch (cinfo->err->msg_code) {
    case JWRN_EXTRANEOUS_DATA: // junk between segments, skipped to the marker (Logitech C270, C310, C910)
    case JWRN_JFIF_MAJOR:
    case JWRN_BOGUS_ICC:
        decoder_of(cinfo)->warnings += 1;
        return;
    default:
        on_error(cinfo);
    }
}

static void on_output(j_common_ptr cinfo) { (void)cinfo; }

// The source: the caller's bytes in place. Past their end it gives an end-of-image marker (as
// jpeg_mem_src does, but without a warning), noting that the frame lacked one: a frame cut short in its
// compressed data is caught by libjpeg itself (it warns when it needs bits the data do not have).
static const JOCTET kEndOfImage[2] = {0xFF, JPEG_EOI};

static void source_start(j_decompress_ptr cinfo) { (void)cinfo; }
static void source_end(j_decompress_ptr cinfo) { (void)cinfo; }

static boolean source_fill(j_decompress_ptr cinfo) {
    decoder_of((j_common_ptr)cinfo)->missing_end = 1;
    cinfo->src->next_input_byte = kEndOfImage;
    cinfo->src->bytes_in_buffer = sizeof kEndOfImage;
    return TRUE;
}

static void source_skip(j_decompress_ptr cinfo, long count) {
    struct jpeg_source_mgr *source = cinfo->src;
    if (count <= 0) return;
    while ((size_t)count > source->bytes_in_buffer) {
        count -= (long)source->bytes_in_buffer;
        (void)source_fill(cinfo);
    }
    source->next_input_byte += count;
    source->bytes_in_buffer -= (size_t)count;
}

// Called as libjpeg works through the data: refuses frames of very many scans.
static void on_progress(j_common_ptr cinfo) {
    j_decompress_ptr d = (j_decompress_ptr)cinfo;
    if (d->input_scan_number > kMostScans) {
        snprintf(decoder_of(cinfo)->message, sizeof decoder_of(cinfo)->message, "more than %d scans", kMostScans);
        fail(cinfo, MKJPEG_ERR_CORRUPT);
    }
}

// jpeg_create_decompress fails only when malloc does.
static int create_decompressor(mkjpeg_decoder *d) {
    if (setjmp(d->failed)) return 0;
    jpeg_create_decompress(&d->cinfo);
    return 1;
}

mkjpeg_decoder *mkjpeg_decoder_create(void) {
    mkjpeg_decoder *d = calloc(1, sizeof *d);
    if (d == NULL) return NULL;
    d->cinfo.err = jpeg_std_error(&d->errors);
    d->errors.error_exit = on_error;
    d->errors.emit_message = on_message;
    d->errors.output_message = on_output;
    d->cinfo.client_data = d;
    if (!create_decompressor(d) || !install_arenas((j_common_ptr)&d->cinfo)) {
        jpeg_destroy_decompress(&d->cinfo);
        free(d);
        return NULL;
    }
    d->source = (struct jpeg_source_mgr){
        .init_source = source_start,
        .fill_input_buffer = source_fill,
        .skip_input_data = source_skip,
        .resync_to_restart = jpeg_resync_to_restart,
        .term_source = source_end,
    };
    d->cinfo.src = &d->source;
    d->progress.progress_monitor = on_progress;
    d->cinfo.progress = &d->progress;
    return d;
}

void mkjpeg_decoder_destroy(mkjpeg_decoder *decoder) {
    if (decoder == NULL) return;
    jpeg_destroy_decompress(&decoder->cinfo);
    free(decoder);
}

static int32_t refuse(mkjpeg_decoder *d, int32_t status, const char *message) {
    snprintf(d->message, sizeof d->message, "%s", message);
    return status;
}

int32_t mkjpeg_decode(mkjpeg_decoder *d, const uint8_t *bytes, size_t count, int32_t width, int32_t height,
                      int32_t channels, uint8_t *pixels, size_t stride) {
    if (d == NULL) return MKJPEG_ERR_ARGUMENT;
    d->message[0] = 0;
    d->warnings = 0;
    d->missing_end = 0;
    if (count == 0) return refuse(d, MKJPEG_ERR_CORRUPT, "empty frame");
    if (bytes == NULL || pixels == NULL || (channels != 1 && channels != 3) || width <= 0 || height <= 0 ||
        width > JPEG_MAX_DIMENSION || height > JPEG_MAX_DIMENSION || stride < (size_t)width * (size_t)channels)
        return refuse(d, MKJPEG_ERR_ARGUMENT, "bad argument");
    struct jpeg_decompress_struct *cinfo = &d->cinfo;
    if (setjmp(d->failed)) {
        jpeg_abort_decompress(cinfo); // frees the image pool: the arena is kept
        return d->status;
    }
    d->source.next_input_byte = bytes;
    d->source.bytes_in_buffer = count;
    jpeg_read_header(cinfo, TRUE);
    if (cinfo->image_width != (JDIMENSION)width || cinfo->image_height != (JDIMENSION)height) {
        snprintf(d->message, sizeof d->message, "a %ux%u picture, not %dx%d", cinfo->image_width, cinfo->image_height,
                 width, height);
        fail((j_common_ptr)cinfo, MKJPEG_ERR_SIZE);
    }
    cinfo->out_color_space = channels == 1 ? JCS_GRAYSCALE : JCS_EXT_BGR;
    jpeg_start_decompress(cinfo);
    if (cinfo->output_components != channels) { // e.g. CMYK asked for as BGR would not get here: libjpeg refuses it
        snprintf(d->message, sizeof d->message, "decodes to %d channels, not %d", cinfo->output_components, channels);
        fail((j_common_ptr)cinfo, MKJPEG_ERR_CORRUPT);
    }
    JSAMPROW rows[kRowsPerCall];
    while (cinfo->output_scanline < cinfo->output_height) {
        const JDIMENSION first = cinfo->output_scanline;
        JDIMENSION n = cinfo->output_height - first;
        if (n > kRowsPerCall) n = kRowsPerCall;
        for (JDIMENSION i = 0; i < n; i++) rows[i] = pixels + (size_t)(first + i) * stride;
        jpeg_read_scanlines(cinfo, rows, n);
    }
    // A frame of several scans (progressive) that ran out of data may have lost whole scans, which
    // libjpeg does not notice: refused. A single scan that ran out is caught in it (JWRN_HIT_MARKER).
    if (d->missing_end && jpeg_has_multiple_scans(cinfo)) {
        snprintf(d->message, sizeof d->message, "the data end before the picture's last scan");
        fail((j_common_ptr)cinfo, MKJPEG_ERR_CORRUPT);
    }
    jpeg_finish_decompress(cinfo);
    return MKJPEG_OK;
}

const char *mkjpeg_decoder_message(const mkjpeg_decoder *decoder) { return decoder ? decoder->message : "no decoder"; }
int32_t mkjpeg_decoder_warnings(const mkjpeg_decoder *decoder) { return decoder ? decoder->warnings : 0; }
int32_t mkjpeg_decoder_missing_end(const mkjpeg_decoder *decoder) { return decoder ? decoder->missing_end : 0; }

size_t mkjpeg_decoder_bytes_held(const mkjpeg_decoder *decoder) {
    return decoder && decoder->cinfo.mem ? ((const arena_manager *)decoder->cinfo.mem)->held : 0;
}

size_t mkjpeg_decoder_heap_blocks(const mkjpeg_decoder *decoder) {
    return decoder && decoder->cinfo.mem ? ((const arena_manager *)decoder->cinfo.mem)->heap_blocks : 0;
}
