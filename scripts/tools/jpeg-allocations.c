// Heap allocations per decoded JPEG frame, three ways, in one process under malloc-count.so: the
// TurboJPEG API (one tjhandle kept, tjDecompress2 into a kept buffer), the libjpeg API with libjpeg's
// own memory manager (one jpeg_decompress_struct kept, jpeg_mem_src over the frame), and MarkerKit's
// decoder (Sources/JPEGDecode: the libjpeg API with arenas). The frame is a PNG encoded once as a
// webcam's MJPEG frame (YCbCr 4:2:2 by default, quality 90), decoded to gray and to BGR; the
// allocations of 100 decodes after 10 are counted. The measurement behind docs/MEASUREMENTS.md
// (Memory); needs libturbojpeg0-dev, which MarkerKit itself does not use:
//
//   cc -O2 -o jpeg-allocations scripts/tools/jpeg-allocations.c Sources/JPEGDecode/jpeg_decode.c
//      -ISources/JPEGDecode/include -ljpeg -lturbojpeg -lpng -ldl   (one line)
//   cc -shared -fPIC -O2 -o malloc-count.so scripts/tools/malloc-count.c -ldl
//   LD_PRELOAD=./malloc-count.so ./jpeg-allocations picture.png [422|420|444|gray]
#define _GNU_SOURCE
#include <dlfcn.h>
#include <png.h>
#include <stdio.h> // before jpeglib.h, which needs FILE
#include <jpeglib.h>
#include <stdlib.h>
#include <string.h>
#include <turbojpeg.h>
#include "jpeg_decode.h"

enum { kWarmup = 10, kCounted = 100 };

static long (*allocations)(long *);
static unsigned char *jpeg;
static unsigned long jpeg_size;
static int width, height;

// The picture as one JPEG with `sampling` ("422", "420", "444" or "gray").
static void encode(const unsigned char *rgb, const char *sampling) {
    struct jpeg_compress_struct c;
    struct jpeg_error_mgr errors;
    c.err = jpeg_std_error(&errors);
    jpeg_create_compress(&c);
    jpeg_mem_dest(&c, &jpeg, &jpeg_size);
    c.image_width = (JDIMENSION)width;
    c.image_height = (JDIMENSION)height;
    c.input_components = 3;
    c.in_color_space = JCS_RGB;
    jpeg_set_defaults(&c);
    jpeg_set_quality(&c, 90, TRUE);
    if (strcmp(sampling, "gray") == 0) jpeg_set_colorspace(&c, JCS_GRAYSCALE);
    else c.comp_info[0].h_samp_factor = sampling[1] == '4' ? 1 : 2, c.comp_info[0].v_samp_factor = sampling[2] == '0' ? 2 : 1;
    jpeg_start_compress(&c, TRUE);
    while (c.next_scanline < c.image_height) {
        JSAMPROW row = (JSAMPROW)rgb + (size_t)c.next_scanline * width * 3;
        jpeg_write_scanlines(&c, &row, 1);
    }
    jpeg_finish_compress(&c);
    jpeg_destroy_compress(&c);
}

static void report(const char *what, int channels, long before, long bytes_before) {
    long bytes = 0;
    const long after = allocations(&bytes);
    printf("%-44s %-4s %6.2f allocations, %9.0f bytes per frame\n", what, channels == 1 ? "gray" : "BGR",
           (double)(after - before) / kCounted, (double)(bytes - bytes_before) / kCounted);
}

static void turbojpeg(unsigned char *out, int channels) {
    tjhandle handle = tjInitDecompress();
    long before = 0, bytes = 0;
    for (int i = 0; i < kWarmup + kCounted; i++) {
        if (i == kWarmup) before = allocations(&bytes);
        if (tjDecompress2(handle, jpeg, jpeg_size, out, width, 0, height, channels == 1 ? TJPF_GRAY : TJPF_BGR, 0) != 0)
            printf("tjDecompress2: %s\n", tjGetErrorStr2(handle));
    }
    report("TurboJPEG API (tjDecompress2, handle kept)", channels, before, bytes);
    tjDestroy(handle);
}

static void libjpeg(unsigned char *out, int channels) {
    struct jpeg_decompress_struct c;
    struct jpeg_error_mgr errors;
    c.err = jpeg_std_error(&errors);
    jpeg_create_decompress(&c);
    long before = 0, bytes = 0;
    for (int i = 0; i < kWarmup + kCounted; i++) {
        if (i == kWarmup) before = allocations(&bytes);
        jpeg_mem_src(&c, jpeg, jpeg_size);
        jpeg_read_header(&c, TRUE);
        c.out_color_space = channels == 1 ? JCS_GRAYSCALE : JCS_EXT_BGR;
        jpeg_start_decompress(&c);
        while (c.output_scanline < c.output_height) {
            JSAMPROW row = out + (size_t)c.output_scanline * width * channels;
            jpeg_read_scanlines(&c, &row, 1);
        }
        jpeg_finish_decompress(&c);
    }
    report("libjpeg API, its memory manager (struct kept)", channels, before, bytes);
    jpeg_destroy_decompress(&c);
}

static void markerkit(unsigned char *out, int channels) {
    mkjpeg_decoder *decoder = mkjpeg_decoder_create();
    long before = 0, bytes = 0;
    for (int i = 0; i < kWarmup + kCounted; i++) {
        if (i == kWarmup) before = allocations(&bytes);
        if (mkjpeg_decode(decoder, jpeg, jpeg_size, width, height, channels, out, (size_t)width * channels) != MKJPEG_OK)
            printf("mkjpeg_decode: %s\n", mkjpeg_decoder_message(decoder));
    }
    report("libjpeg API, MarkerKit's arenas (JPEGDecode)", channels, before, bytes);
    mkjpeg_decoder_destroy(decoder);
}

int main(int argc, char **argv) {
    allocations = (long (*)(long *))dlsym(RTLD_DEFAULT, "malloc_count_now");
    if (argc < 2 || allocations == NULL) {
        fprintf(stderr, "usage: LD_PRELOAD=malloc-count.so jpeg-allocations picture.png [422|420|444|gray]\n");
        return 2;
    }
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&image, argv[1])) return fprintf(stderr, "cannot read %s\n", argv[1]), 1;
    image.format = PNG_FORMAT_RGB;
    unsigned char *rgb = malloc(PNG_IMAGE_SIZE(image));
    if (!png_image_finish_read(&image, NULL, rgb, 0, NULL)) return fprintf(stderr, "cannot decode %s\n", argv[1]), 1;
    width = (int)image.width;
    height = (int)image.height;
    const char *sampling = argc > 2 ? argv[2] : "422";
    encode(rgb, sampling);
    printf("%dx%d, %s, %lu bytes; allocations of %d decodes after %d\n", width, height, sampling, jpeg_size, kCounted, kWarmup);
    unsigned char *out = malloc((size_t)width * height * 3);
    for (int channels = 1; channels <= 3; channels += 2) {
        turbojpeg(out, channels);
        libjpeg(out, channels);
        markerkit(out, channels);
    }
    return 0;
}
