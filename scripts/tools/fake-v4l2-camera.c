// A V4L2 camera for machines without one (LD_PRELOAD): opening the path in MARKERKIT_FAKE_CAMERA gives a
// device that answers the V4L2 ioctls MarkerKit makes (capabilities, formats, sizes, rates, format,
// buffers, streaming) and streams memory-mapped frames at a steady rate, each the gray picture of a
// PNG file, as YUYV (chroma neutral), GREY or MJPG (YCbCr 4:2:2, as webcams send). The rest of the process is untouched, so
// `markerkit track` and `capture` run their real camera code: libv4l2 calls, dequeue/queue, pixel
// conversion, newest-frame hand-over. Used by the tests and scripts/allocations-per-frame.
//
//   MARKERKIT_FAKE_CAMERA         device path to stand for, e.g. /dev/video-fake (required)
//   MARKERKIT_FAKE_CAMERA_IMAGE   PNG of even width shown (as gray) in every frame (required)
//   MARKERKIT_FAKE_CAMERA_FORMAT  YUYV (default), GREY or MJPG (the gray picture as a baseline JPEG)
//   MARKERKIT_FAKE_CAMERA_BAD_EVERY  every Nth frame is sent damaged, as over a flaky USB link: an MJPG
//                                 frame cut to half its bytes, a YUYV or GREY frame to half its rows
//                                 (default 0: none; 1: every frame)
//   MARKERKIT_FAKE_CAMERA_FPS     frames per second (default 30)
//   MARKERKIT_FAKE_CAMERA_FRAMES  after this many frames the process gets SIGINT, as from Ctrl-C
//                                 (default 0: never); the camera goes on streaming, as a real one does
//   MARKERKIT_FAKE_CAMERA_COUNT_FROM  with malloc-count.so loaded too: the heap allocations made
//                                 between this frame and the last one are printed on stderr
//                                 ("fake camera: N heap allocations (B bytes) in frames K-L")
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/videodev2.h>
#include <stdio.h> // before jpeglib.h, which needs FILE
#include <jpeglib.h>
#include <png.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

enum { kBuffers = 4, kMaxFds = 8 };

static struct {
    pthread_mutex_t lock;
    int loaded;
    const char *path;
    uint32_t format;            // V4L2_PIX_FMT_YUYV or _GREY
    int width, height, fps, frames_before_interrupt, count_from, bad_every;
    long (*allocations)(long *);  // malloc-count.so's counter, when it is loaded
    long allocations_from, bytes_from;
    uint8_t *gray;              // width x height
    unsigned char *jpeg;        // the picture encoded once, for MJPG
    unsigned long jpeg_size;
    // Build: cc -shared -fPIC -O2 -o fake-v4l2-camera.so fake-v4l2-camera.c -ldl -lpng -ljpeg
    int fds[kMaxFds];
    size_t buffer_size;
    uint8_t *buffers[kBuffers];
    int queued[kBuffers];
    int next_buffer;
    long delivered;
    struct timespec start;
} fake = {.lock = PTHREAD_MUTEX_INITIALIZER};

static int (*real_open)(const char *, int, ...);
static int (*real_close)(int);
static int (*real_ioctl)(int, unsigned long, ...);

// The gray picture as one baseline JPEG (quality 90) in YCbCr with the chroma sampled 4:2:2 (neutral
// here), what an MJPEG webcam sends for every frame.
static void encode_jpeg(void) {
    struct jpeg_compress_struct c;
    struct jpeg_error_mgr errors;
    c.err = jpeg_std_error(&errors);
    jpeg_create_compress(&c);
    jpeg_mem_dest(&c, &fake.jpeg, &fake.jpeg_size);
    c.image_width = (JDIMENSION)fake.width;
    c.image_height = (JDIMENSION)fake.height;
    c.input_components = 3; // libjpeg makes YCbCr from RGB only: each gray row is given as RGB
    c.in_color_space = JCS_RGB;
    jpeg_set_defaults(&c);
    c.comp_info[0].h_samp_factor = 2;
    c.comp_info[0].v_samp_factor = 1;
    jpeg_set_quality(&c, 90, TRUE);
    jpeg_start_compress(&c, TRUE);
    JSAMPROW row = malloc((size_t)fake.width * 3);
    while (row && c.next_scanline < c.image_height) {
        const uint8_t *gray = fake.gray + (size_t)c.next_scanline * fake.width;
        for (int x = 0; x < fake.width; x++) row[3 * x] = row[3 * x + 1] = row[3 * x + 2] = gray[x];
        jpeg_write_scanlines(&c, &row, 1);
    }
    free(row);
    jpeg_finish_compress(&c);
    jpeg_destroy_compress(&c);
}

static void load(void) {
    if (fake.loaded) return;
    fake.loaded = 1;
    real_open = dlsym(RTLD_NEXT, "open");
    real_close = dlsym(RTLD_NEXT, "close");
    real_ioctl = dlsym(RTLD_NEXT, "ioctl");
    for (int i = 0; i < kMaxFds; i++) fake.fds[i] = -1;
    fake.path = getenv("MARKERKIT_FAKE_CAMERA");
    fake.count_from = getenv("MARKERKIT_FAKE_CAMERA_COUNT_FROM") ? atoi(getenv("MARKERKIT_FAKE_CAMERA_COUNT_FROM")) : 0;
    fake.allocations = (long (*)(long *))dlsym(RTLD_DEFAULT, "malloc_count_now");
    const char *format = getenv("MARKERKIT_FAKE_CAMERA_FORMAT");
    fake.format = !format ? V4L2_PIX_FMT_YUYV
                  : strcmp(format, "GREY") == 0 ? V4L2_PIX_FMT_GREY
                  : strcmp(format, "MJPG") == 0 ? V4L2_PIX_FMT_MJPEG : V4L2_PIX_FMT_YUYV;
    fake.fps = getenv("MARKERKIT_FAKE_CAMERA_FPS") ? atoi(getenv("MARKERKIT_FAKE_CAMERA_FPS")) : 30;
    if (fake.fps <= 0) fake.fps = 30;
    fake.frames_before_interrupt = getenv("MARKERKIT_FAKE_CAMERA_FRAMES") ? atoi(getenv("MARKERKIT_FAKE_CAMERA_FRAMES")) : 0;
    fake.bad_every = getenv("MARKERKIT_FAKE_CAMERA_BAD_EVERY") ? atoi(getenv("MARKERKIT_FAKE_CAMERA_BAD_EVERY")) : 0;
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    const char *file = getenv("MARKERKIT_FAKE_CAMERA_IMAGE");
    if (file && png_image_begin_read_from_file(&image, file) && image.width % 2 == 0) {
        image.format = PNG_FORMAT_GRAY;
        fake.width = (int)image.width;
        fake.height = (int)image.height;
        fake.gray = malloc(PNG_IMAGE_SIZE(image));
        if (fake.gray && png_image_finish_read(&image, NULL, fake.gray, 0, NULL)) {
            if (fake.format == V4L2_PIX_FMT_MJPEG) encode_jpeg();
            return;
        }
    }
    png_image_free(&image);
    fprintf(stderr, "fake camera: MARKERKIT_FAKE_CAMERA_IMAGE must name a PNG of even width\n");
    fake.path = NULL;
}

static int is_fake(int fd) {
    for (int i = 0; i < kMaxFds; i++)
        if (fd >= 0 && fake.fds[i] == fd) return 1;
    return 0;
}

static int open_fake(void) {
    int fd = real_open("/dev/null", O_RDONLY); // a real descriptor: select() finds it readable at once
    for (int i = 0; i < kMaxFds && fd >= 0; i++)
        if (fake.fds[i] < 0) { fake.fds[i] = fd; return fd; }
    if (fd >= 0) real_close(fd);
    errno = EBUSY;
    return -1;
}

static int fail(int code) { errno = code; return -1; }

static void copy_name(uint8_t *to, size_t size, const char *text) { snprintf((char *)to, size, "%s", text); }

static int bytes_per_line(void) {
    return fake.format == V4L2_PIX_FMT_YUYV ? 2 * fake.width : fake.format == V4L2_PIX_FMT_GREY ? fake.width : 0;
}

// Bytes of one frame: the JPEG for MJPG, else rows of bytes_per_line().
static size_t frame_size(void) { return fake.format == V4L2_PIX_FMT_MJPEG ? fake.jpeg_size : (size_t)bytes_per_line() * fake.height; }

static void fill(uint8_t *out) {
    if (fake.format == V4L2_PIX_FMT_MJPEG) { memcpy(out, fake.jpeg, fake.jpeg_size); return; }
    for (int y = 0; y < fake.height; y++) {
        const uint8_t *row = fake.gray + (size_t)y * fake.width;
        uint8_t *line = out + (size_t)y * bytes_per_line();
        if (fake.format == V4L2_PIX_FMT_GREY) { memcpy(line, row, fake.width); continue; }
        for (int x = 0; x < fake.width; x++) { line[2 * x] = row[x]; line[2 * x + 1] = 128; }
    }
}

// Waits until frame number `delivered` is due: the stream's own clock, not the reader's pace.
static void wait_for_frame(void) {
    if (fake.delivered == 0) clock_gettime(CLOCK_MONOTONIC, &fake.start);
    long long due = (long long)fake.start.tv_sec * 1000000000LL + fake.start.tv_nsec + fake.delivered * 1000000000LL / fake.fps;
    struct timespec at = {(time_t)(due / 1000000000LL), (long)(due % 1000000000LL)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL) == EINTR) {}
}

static int fake_ioctl(unsigned long request, void *arg) {
    switch (request) {
    case VIDIOC_QUERYCAP: {
        struct v4l2_capability *c = arg;
        memset(c, 0, sizeof *c);
        copy_name(c->driver, sizeof c->driver, "markerkit-fake");
        copy_name(c->card, sizeof c->card, "MarkerKit test camera");
        copy_name(c->bus_info, sizeof c->bus_info, "fake:0");
        c->device_caps = V4L2_CAP_VIDEO_CAPTURE | V4L2_CAP_STREAMING;
        c->capabilities = c->device_caps | V4L2_CAP_DEVICE_CAPS;
        return 0;
    }
    case VIDIOC_ENUM_FMT: {
        struct v4l2_fmtdesc *f = arg;
        if (f->index != 0) return fail(EINVAL);
        f->pixelformat = fake.format;
        copy_name(f->description, sizeof f->description, fake.format == V4L2_PIX_FMT_YUYV ? "YUYV 4:2:2"
                                                          : fake.format == V4L2_PIX_FMT_GREY ? "8-bit Greyscale" : "Motion-JPEG");
        return 0;
    }
    case VIDIOC_ENUM_FRAMESIZES: {
        struct v4l2_frmsizeenum *s = arg;
        if (s->index != 0 || s->pixel_format != fake.format) return fail(EINVAL);
        s->type = V4L2_FRMSIZE_TYPE_DISCRETE;
        s->discrete.width = fake.width;
        s->discrete.height = fake.height;
        return 0;
    }
    case VIDIOC_ENUM_FRAMEINTERVALS: {
        struct v4l2_frmivalenum *i = arg;
        if (i->index != 0 || i->pixel_format != fake.format || i->width != (uint32_t)fake.width || i->height != (uint32_t)fake.height)
            return fail(EINVAL);
        i->type = V4L2_FRMIVAL_TYPE_DISCRETE;
        i->discrete.numerator = 1;
        i->discrete.denominator = fake.fps;
        return 0;
    }
    case VIDIOC_S_FMT: case VIDIOC_G_FMT: {
        struct v4l2_format *f = arg;
        if (f->type != V4L2_BUF_TYPE_VIDEO_CAPTURE) return fail(EINVAL);
        f->fmt.pix.pixelformat = fake.format; // the one format offered, whatever was asked
        f->fmt.pix.width = fake.width;
        f->fmt.pix.height = fake.height;
        f->fmt.pix.field = V4L2_FIELD_NONE;
        f->fmt.pix.bytesperline = bytes_per_line();
        f->fmt.pix.sizeimage = frame_size();
        return 0;
    }
    case VIDIOC_S_PARM:
        return 0;
    case VIDIOC_REQBUFS: {
        struct v4l2_requestbuffers *r = arg;
        if (r->memory != V4L2_MEMORY_MMAP) return fail(EINVAL);
        long page = sysconf(_SC_PAGESIZE);
        fake.buffer_size = (frame_size() + page - 1) / page * page;
        r->count = kBuffers;
        for (int i = 0; i < kBuffers; i++) {
            if (!fake.buffers[i]) {
                fake.buffers[i] = mmap(NULL, fake.buffer_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
                if (fake.buffers[i] == MAP_FAILED) { fake.buffers[i] = NULL; return fail(ENOMEM); }
            }
            fake.queued[i] = 0;
        }
        return 0;
    }
    case VIDIOC_QUERYBUF: case VIDIOC_QBUF: {
        struct v4l2_buffer *b = arg;
        if (b->index >= kBuffers || !fake.buffers[b->index]) return fail(EINVAL);
        b->length = fake.buffer_size;
        b->m.offset = b->index * fake.buffer_size;
        if (request == VIDIOC_QBUF) fake.queued[b->index] = 1;
        return 0;
    }
    case VIDIOC_DQBUF: {
        struct v4l2_buffer *b = arg;
        int index = -1;
        for (int k = 0; k < kBuffers && index < 0; k++) {
            int i = (fake.next_buffer + k) % kBuffers;
            if (fake.queued[i]) index = i;
        }
        if (index < 0) return fail(EAGAIN);
        pthread_mutex_unlock(&fake.lock);
        wait_for_frame();
        pthread_mutex_lock(&fake.lock);
        fill(fake.buffers[index]);
        fake.queued[index] = 0;
        fake.next_buffer = (index + 1) % kBuffers;
        b->index = index;
        b->bytesused = frame_size();
        if (fake.bad_every > 0 && (fake.delivered + 1) % fake.bad_every == 0) b->bytesused /= 2; // damaged on the way
        b->length = fake.buffer_size;
        b->sequence = fake.delivered;
        fake.delivered++;
        if (fake.allocations && fake.count_from > 0 && fake.delivered == fake.count_from)
            fake.allocations_from = fake.allocations(&fake.bytes_from);
        if (fake.frames_before_interrupt > 0 && fake.delivered == fake.frames_before_interrupt) {
            if (fake.allocations && fake.count_from > 0 && fake.count_from < fake.delivered) {
                long bytes = 0, count = fake.allocations(&bytes);
                char line[160]; // no stdio: printing must not allocate
                int n = snprintf(line, sizeof line, "fake camera: %ld heap allocations (%ld bytes) in frames %d-%ld\n",
                                 count - fake.allocations_from, bytes - fake.bytes_from, fake.count_from + 1, fake.delivered);
                if (n > 0) (void)!write(2, line, (size_t)n);
            }
            kill(getpid(), SIGINT);
        }
        return 0;
    }
    case VIDIOC_STREAMON: case VIDIOC_STREAMOFF:
        return 0;
    default:
        return fail(ENOTTY);
    }
}

static int open_any(const char *path, int flags, mode_t mode) {
    pthread_mutex_lock(&fake.lock);
    load();
    int is_camera = fake.path && path && strcmp(path, fake.path) == 0;
    int fd = is_camera ? open_fake() : -2;
    pthread_mutex_unlock(&fake.lock);
    return fd == -2 ? real_open(path, flags, mode) : fd;
}

// The mode argument of open(2), present only when a file may be created.
#define OPEN_MODE(mode, flags)                                                 \
    do {                                                                       \
        va_list list;                                                          \
        va_start(list, flags);                                                 \
        mode = (flags & (O_CREAT | O_TMPFILE)) ? va_arg(list, mode_t) : 0;     \
        va_end(list);                                                          \
    } while (0)

int open(const char *path, int flags, ...) {
    mode_t mode;
    OPEN_MODE(mode, flags);
    return open_any(path, flags, mode);
}

int open64(const char *path, int flags, ...) {
    mode_t mode;
    OPEN_MODE(mode, flags);
    return open_any(path, flags, mode);
}

int close(int fd) {
    pthread_mutex_lock(&fake.lock);
    load();
    for (int i = 0; i < kMaxFds; i++)
        if (fake.fds[i] == fd) fake.fds[i] = -1;
    pthread_mutex_unlock(&fake.lock);
    return real_close(fd);
}

int ioctl(int fd, unsigned long request, ...) {
    va_list list;
    va_start(list, request);
    void *arg = va_arg(list, void *);
    va_end(list);
    pthread_mutex_lock(&fake.lock);
    load();
    int mine = is_fake(fd);
    int result = mine ? fake_ioctl(request, arg) : 0;
    pthread_mutex_unlock(&fake.lock);
    return mine ? result : real_ioctl(fd, request, arg);
}

// libv4l2's entry points, for the fake descriptor; libv4l2 itself for anything else.
int v4l2_open(const char *path, int flags, ...) {
    mode_t mode;
    OPEN_MODE(mode, flags);
    pthread_mutex_lock(&fake.lock);
    load();
    int is_camera = fake.path && path && strcmp(path, fake.path) == 0;
    pthread_mutex_unlock(&fake.lock);
    if (is_camera) return open_any(path, flags, mode);
    int (*real)(const char *, int, ...) = dlsym(RTLD_NEXT, "v4l2_open");
    return real(path, flags, mode);
}

int v4l2_close(int fd) {
    if (is_fake(fd)) return close(fd);
    int (*real)(int) = dlsym(RTLD_NEXT, "v4l2_close");
    return real(fd);
}

int v4l2_ioctl(int fd, unsigned long request, ...) {
    va_list list;
    va_start(list, request);
    void *arg = va_arg(list, void *);
    va_end(list);
    if (is_fake(fd)) return ioctl(fd, request, arg);
    int (*real)(int, unsigned long, ...) = dlsym(RTLD_NEXT, "v4l2_ioctl");
    return real(fd, request, arg);
}

void *v4l2_mmap(void *start, size_t length, int prot, int flags, int fd, int64_t offset) {
    if (is_fake(fd)) {
        size_t index = fake.buffer_size ? (size_t)offset / fake.buffer_size : kBuffers;
        if (index >= kBuffers || !fake.buffers[index] || length > fake.buffer_size) { errno = EINVAL; return MAP_FAILED; }
        return fake.buffers[index];
    }
    void *(*real)(void *, size_t, int, int, int, int64_t) = dlsym(RTLD_NEXT, "v4l2_mmap");
    return real(start, length, prot, flags, fd, offset);
}

int v4l2_munmap(void *start, size_t length) {
    for (int i = 0; i < kBuffers; i++)
        if (start && start == fake.buffers[i]) return 0; // kept for the process's life
    int (*real)(void *, size_t) = dlsym(RTLD_NEXT, "v4l2_munmap");
    return real(start, length);
}
