// A V4L2 camera for machines without one (LD_PRELOAD): opening a path named in MARKERKIT_FAKE_CAMERA gives a
// device that answers the V4L2 ioctls a webcam answers (capabilities, formats, sizes, rates, format, stream
// parameters, buffers, streaming, controls) and streams memory-mapped frames at a steady rate, each the gray
// picture of a PNG file (or of a folder of them), as YUYV (chroma neutral), GREY or MJPG. The rest of the
// process is untouched, so `markerkit track` and `capture` run their real camera code: libv4l2 calls,
// dequeue/queue, pixel conversion, newest-frame hand-over. Used by the tests and scripts/allocations-per-frame.
// Build: cc -shared -fPIC -O2 -o fake-v4l2-camera.so fake-v4l2-camera.c -ldl -lpng -ljpeg
//
//   MARKERKIT_FAKE_CAMERA         device path to stand for, e.g. /dev/video-fake (required); several paths
//                                 separated by commas give several cameras. Every variable below may then
//                                 be a comma-separated list too: the i-th item is the i-th camera's (an
//                                 empty or missing item: the default); a value without a comma is every
//                                 camera's. Each camera has its own controls, state, buffers and frames.
//   MARKERKIT_FAKE_CAMERA_MODEL   image (default): the camera of the tests since the start, one format
//                                 (MARKERKIT_FAKE_CAMERA_FORMAT) in one size (the picture's) at one rate
//                                 (MARKERKIT_FAKE_CAMERA_FPS), driver "markerkit-fake", card "MarkerKit test
//                                 camera". c920: a Logitech HD Pro Webcam C920 as uvcvideo shows it: driver
//                                 "uvcvideo", card "HD Pro Webcam C920", bus "usb-0000:00:14.0-N" (N = 1, 2..
//                                 per camera), YUYV 160x90..640x480 at 30/24/20/15/10/7.5/5 fps, 800x448 up
//                                 to 30, 800x600 and 864x480 up to 24, 960x720 and 1024x576 up to 15, 1280x720
//                                 up to 10, 1600x896 up to 7.5, 1920x1080 at 5, 2304x1296 and 2304x1536 at 2;
//                                 MJPG 160x90..1920x1080 at 30..5 fps (a real C920's list, kernel 6.5, from
//                                 `v4l2-ctl --list-formats-ext` in github.com/petminion/petminion's README;
//                                 the older C920's H264 format is left out: newer C920s lack it). VIDIOC_S_FMT
//                                 snaps to the nearest size and takes that size's fastest rate, S_PARM snaps
//                                 to the nearest rate, as uvcvideo does (below). The picture is rendered into
//                                 the chosen size: resampled (area average down, bilinear up), center-cropped
//                                 first when the aspect differs, as a sensor's modes are.
//   MARKERKIT_FAKE_CAMERA_IMAGE   PNG shown (as gray) in every frame (required unless ..._FRAMES_DIR is set;
//                                 image model: of even width, its size is the camera's)
//   MARKERKIT_FAKE_CAMERA_FRAMES_DIR  folder whose PNG files (*.png, in name order, looping: frame n shows
//                                 file n mod count) are streamed instead of the one picture (image model: the
//                                 first file's size is the camera's). All are decoded when the camera is first
//                                 opened (width x height bytes each), so streaming reads no file.
//   MARKERKIT_FAKE_CAMERA_FORMAT  YUYV (default), GREY or MJPG (the gray picture as a baseline JPEG, quality
//                                 90, YCbCr 4:2:2 as webcams send); c920 model: the format at power-on (YUYV or MJPG; GREY is not a C920's)
//   MARKERKIT_FAKE_CAMERA_BAD_EVERY  every Nth frame is sent damaged, as over a flaky USB link: its bytes
//                                 cut to half (an MJPG frame loses its end, a YUYV or GREY frame its lower
//                                 rows; default 0: none, 1: every frame)
//   MARKERKIT_FAKE_CAMERA_FPS     frames per second (default 30); c920 model: the rate at power-on, snapped
//                                 to the table (S_PARM changes it)
//   MARKERKIT_FAKE_CAMERA_FRAMES  after this many frames the process gets SIGINT, as from Ctrl-C (default 0:
//                                 never); the camera goes on streaming, as a real one does
//   MARKERKIT_FAKE_CAMERA_COUNT_FROM  with malloc-count.so loaded too: the heap allocations made between this
//                                 frame and the last one are printed on stderr ("fake camera: N heap
//                                 allocations (B bytes) in frames K-L", " on PATH" added with several cameras)
//   MARKERKIT_FAKE_CAMERA_STATE   file keeping the controls between processes, as a camera keeps its settings
//                                 between programs (default: none, every process starts at power-on values):
//                                 read when the camera is first opened, rewritten after every successful
//                                 VIDIOC_S_CTRL / S_EXT_CTRLS (a temporary file renamed over it), one
//                                 `name=value` line per writable control, names as v4l2-ctl prints them
//   MARKERKIT_FAKE_CAMERA_SHARP_FOCUS  the focus_absolute value at which the picture is sharp (default 30)
//   MARKERKIT_FAKE_CAMERA_HUNT    autofocus hunting amplitude in focus_absolute units (default 15 in the c920
//                                 model, 0 in the image model; 0: autofocus sits at the sharp value)
//   MARKERKIT_FAKE_CAMERA_SEED    seed of the autofocus hunt and the sensor noise (default 1; mixed with the
//                                 camera's number, so two cameras with one seed differ)
//   MARKERKIT_FAKE_CAMERA_UNPLUG_AFTER  after this many frames the camera is unplugged (default 0: never): the
//                                 select/poll the program waits in finds it readable with an error (poll:
//                                 POLLERR|POLLHUP|POLLPRI; select: readable, writable and exceptional), every
//                                 ioctl on a descriptor of it fails with ENODEV (DQBUF, STREAMOFF, ...), mmap
//                                 too, close works, and opening the path again fails with ENOENT (the device
//                                 node is gone) for the rest of the process. The state file is removed: a
//                                 camera plugged in again starts at its power-on values.
//
// Controls (both models): what a C920 lists through uvcvideo (`v4l2-ctl --list-ctrls-menus`, kernel 6.5,
// the same README): brightness, contrast, saturation 0-255 (128); white_balance_automatic (bool, 1);
// gain 0-255 (0); power_line_frequency (menu 0 Disabled, 1 50 Hz, 2 60 Hz; 2); white_balance_temperature
// 2000-6500 (4000, inactive while white_balance_automatic is 1); sharpness 0-255 (128);
// backlight_compensation 0-1 (0); auto_exposure (menu 0-3 of which 1 Manual Mode and 3 Aperture Priority
// Mode exist; 3); exposure_time_absolute 3-2047 in 100 us (250, inactive unless auto_exposure is 1);
// exposure_dynamic_framerate (bool, default 0, 1 at power-on as a C920 reports it); pan_absolute and
// tilt_absolute -36000..36000 step 3600 (0); focus_absolute 0-250 step 5 (0, inactive while
// focus_automatic_continuous is 1); focus_automatic_continuous (bool, 1); zoom_absolute 100-500 (100); and,
// not a C920's, privacy (bool, read-only, 0: a laptop camera's privacy switch) so that read-only handling
// can be tested. Their class controls "User Controls" and "Camera Controls" are enumerated as uvcvideo does.
//
// What the controls do to the picture (gray levels 0-255, each frame rendered from the source picture):
//   - magnification about the center by m = (zoom_absolute / 100) * (1 + k * (focus - SHARP_FOCUS)) with
//     k = 0.0004 per focus_absolute unit (the focal length changes by that factor: at focus 0 and sharp 30
//     the picture is 1.2 % smaller);
//   - blur by a Gaussian of sigma = 0.1 px * |focus - SHARP_FOCUS| * (width / 640) (three box passes);
//   - in Manual Mode (auto_exposure 1) the level is multiplied by (exposure_time_absolute / 250) *
//     (1 + gain / 128); in Aperture Priority Mode the camera holds the level (neither changes it);
//   - then brightness and contrast: v = (v - 128) * contrast / 128 + 128 + (brightness - 128), clamped;
//   - noise of standard deviation gain / 25 gray levels (about Gaussian, new in every frame, seeded) whatever
//     the exposure mode.
// With the defaults and the focus at SHARP_FOCUS every frame is the source picture exactly (resampled only
// when its size is not the mode's). The picture is rendered again only when one of these controls, the
// autofocus position or the folder's frame changes; otherwise the frame is copied from the last render.
// `focus` is the lens position: focus_absolute while focus_automatic_continuous is 0; while it is 1 the
// autofocus moves it every 4 frames by a seeded random step of -5..5 (toward SHARP_FOCUS by up to 10 while
// farther than the amplitude), staying within SHARP_FOCUS +- HUNT, and VIDIOC_G_CTRL of focus_absolute reads
// it, as uvcvideo reads a camera's current focus. Switching autofocus off leaves the lens where it is (that
// becomes focus_absolute) until focus_absolute is set. Pan, tilt, saturation, white balance, sharpness,
// backlight compensation and power line frequency are kept and reported but do not change the gray picture.
//
// What uvcvideo does, and so this camera (Linux drivers/media/usb/uvc, read in the kernel sources and the
// linux-media patches that changed them):
//   - out of range: uvc_ctrl_set()/uvc_ctrl_clamp() do not fail an integer: it is rounded to the step from
//     the minimum, then clamped (for controls the UVC descriptor makes unsigned, e.g. focus, exposure, zoom,
//     gain, contrast, the clamp is done on the value as u32, so a negative value comes out as the maximum;
//     brightness, pan and tilt are signed and come out as the minimum); a boolean is clamped to 0/1; a menu
//     value outside minimum..maximum fails with ERANGE, one inside but not offered (auto_exposure 0 or 2)
//     with EINVAL. The clamped value is written back into the caller's control.
//   - inactive: uvc_ctrl_is_accessible() ("uvcvideo: Check for inactive controls", Hans Verkuil, kernel 6.2)
//     fails VIDIOC_S_EXT_CTRLS (and S_CTRL, which the V4L2 core turns into S_EXT_CTRLS for uvcvideo) of a
//     control whose master control is not in its manual value with EACCES, taking the master's value from
//     the same call when it is in it (auto_exposure=1,exposure_time_absolute=300 works); TRY_EXT_CTRLS is
//     not checked. Before 6.2 the camera itself refused (a STALL with "wrong state", which uvc_query_ctrl()
//     turns into EACCES since Ricardo Ribalda's patch replacing EILSEQ), so users saw the same: "Can't set
//     focus_absolute to 45 ([Errno 13] Permission denied)" with autofocus on (soyersoyer/cameractrls#93).
//   - read-only: uvc_ctrl_set() and uvc_ctrl_is_accessible() fail a control without SET_CUR with EACCES;
//     setting a class control fails with EACCES, an unknown control with EINVAL.
//   - error_idx (uvc_v4l2.c uvc_ctrl_check_access()/uvc_ioctl_s_try_ext_ctrls()): an access failure gives the
//     failing index for TRY and count for S and G; a failing value gives its index for TRY and count for S,
//     and nothing of the call is applied.
//   - unplug: video_unregister_device() makes v4l2_poll() return EPOLLERR|EPOLLHUP|EPOLLPRI ("v4l2-dev.c:
//     check for device unregistration in poll", Hans Verkuil), v4l2_ioctl() and v4l2_mmap() -ENODEV, a new
//     open -ENODEV until udev has removed the node, then ENOENT; programs see "select() = 2" then "Unable to
//     dequeue buffer: No such device" (jacksonliam/mjpg-streamer#260), "VIDIOC_DQBUF: No such device"
//     (OTL/cv_camera#24).
//   - formats: uvc_v4l2_try_format() takes the size whose non-overlapping area with the asked one
//     (w*h + rw*rh - 2*min(w,rw)*min(h,rh)) is least, the default format (YUYV) for an unknown pixel format,
//     and the size's default (fastest) interval; uvc_try_frame_interval() takes the nearest interval; S_FMT
//     and S_PARM fail with EBUSY while buffers are allocated / while streaming.
//
//     A consequence worth knowing: S_FMT with width and height 0 (a program leaving the size to the driver
//     without asking G_FMT first) gets the smallest size, 160x90 on a C920, on this camera as on a real one.
//
// Frames are paced by the stream's own clock from the first VIDIOC_DQBUF after VIDIOC_STREAMON (frame n is
// due n intervals after it, whatever the reader's pace; DQBUF waits for it, select/poll find the camera
// readable at once), stamped with that time (CLOCK_MONOTONIC, V4L2_BUF_FLAG_TIMESTAMP_MONOTONIC |
// V4L2_BUF_FLAG_TSTAMP_SRC_SOE) and numbered from 0 at every STREAMON; a folder's frame n counts every frame
// the camera sent in the process. One descriptor streams at a time (REQBUFS from another: EBUSY); closing it
// frees its buffers, as vb2 does. In steady state streaming allocates nothing: buffers, render planes and the
// JPEG encoder's memory are set up before the stream runs (MJPG with gain encodes every frame, for the noise:
// about 25 ms at 1920x1080 here). A camera's descriptor is one of /dev/null; stat() and access() of its path
// answer a character device 81:200+i, and /sys/dev/char/81:200+i/uevent (read by v4l2-ctl to tell what a
// node is) says video, so v4l2-ctl works with it too. Not simulated: read() I/O (uvcvideo has none either),
// control events, epoll. scripts/fake-camera-check checks all of the above (make test runs it).
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/videodev2.h>
#include <poll.h>
#include <stdio.h> // before jpeglib.h, which needs FILE
#include <jpeglib.h>
#include <jerror.h>
#include <png.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

enum { kMaxBuffers = 8, kMaxFds = 32, kMaxDevices = 4, kModelImage = 0, kModelC920 = 1, kMaxTaps = 256 };

static int (*real_open)(const char *, int, ...);
static int (*real_openat)(int, const char *, int, ...);
static int (*real_close)(int);
static int (*real_ioctl)(int, unsigned long, ...);
static void *(*real_mmap)(void *, size_t, int, int, int, off_t);
static int (*real_munmap)(void *, size_t);
static int (*real_select)(int, fd_set *, fd_set *, fd_set *, struct timeval *);
static int (*real_pselect)(int, fd_set *, fd_set *, fd_set *, const struct timespec *, const sigset_t *);
static int (*real_poll)(struct pollfd *, nfds_t, int);
static int (*real_ppoll)(struct pollfd *, nfds_t, const struct timespec *, const sigset_t *);

// ---------------------------------------------------------------------------------------------------------
// Formats

typedef struct { uint32_t numerator, denominator; } interval;
// uvcvideo reports a C920's intervals (333333, 416666, .. 2000000 x 100 ns) simplified to these fractions.
static const interval kC920Intervals[] = {{1, 30}, {1, 24}, {1, 20}, {1, 15}, {1, 10}, {2, 15}, {1, 5}, {1, 2}};
typedef struct { uint16_t width, height; uint8_t first, last; } frame_size; // intervals first..last
typedef struct { uint32_t fourcc; const char *description; uint32_t flags; const frame_size *sizes; int count; } format;

// In the order a C920 lists them (640x480 first: the default).
static const frame_size kC920Yuyv[] = {
    {640, 480, 0, 6}, {160, 90, 0, 6}, {160, 120, 0, 6}, {176, 144, 0, 6}, {320, 180, 0, 6}, {320, 240, 0, 6},
    {352, 288, 0, 6}, {432, 240, 0, 6}, {640, 360, 0, 6}, {800, 448, 0, 6}, {800, 600, 1, 6}, {864, 480, 1, 6},
    {960, 720, 3, 6}, {1024, 576, 3, 6}, {1280, 720, 4, 6}, {1600, 896, 5, 6}, {1920, 1080, 6, 6},
    {2304, 1296, 7, 7}, {2304, 1536, 7, 7}};
static const frame_size kC920Mjpg[] = {
    {640, 480, 0, 6}, {160, 90, 0, 6}, {160, 120, 0, 6}, {176, 144, 0, 6}, {320, 180, 0, 6}, {320, 240, 0, 6},
    {352, 288, 0, 6}, {432, 240, 0, 6}, {640, 360, 0, 6}, {800, 448, 0, 6}, {800, 600, 0, 6}, {864, 480, 0, 6},
    {960, 720, 0, 6}, {1024, 576, 0, 6}, {1280, 720, 0, 6}, {1600, 896, 0, 6}, {1920, 1080, 0, 6}};
static const format kC920Formats[] = {
    {V4L2_PIX_FMT_YUYV, "YUYV 4:2:2", 0, kC920Yuyv, sizeof kC920Yuyv / sizeof *kC920Yuyv},
    {V4L2_PIX_FMT_MJPEG, "Motion-JPEG", V4L2_FMT_FLAG_COMPRESSED, kC920Mjpg, sizeof kC920Mjpg / sizeof *kC920Mjpg}};

// ---------------------------------------------------------------------------------------------------------
// Controls

enum {
    cUserClass, cBrightness, cContrast, cSaturation, cWhiteBalanceAuto, cGain, cPowerLine, cWhiteBalanceTemperature,
    cSharpness, cBacklight, cCameraClass, cAutoExposure, cExposure, cExposureDynamic, cPan, cTilt, cFocus, cFocusAuto,
    cZoom, cPrivacy, kControls
};

typedef struct {
    uint32_t id;
    const char *name;      // VIDIOC_QUERYCTRL's name: the V4L2 core's, which uvcvideo uses
    const char *key;       // v4l2-ctl's name for it (and the state file's)
    uint32_t type;
    int32_t minimum, maximum, step, default_value, power_on;
    uint32_t flags;        // the fixed ones (read-only); inactive is worked out from the master
    int master;            // the auto control that makes this one inactive, or -1
    int32_t manual;        // the master's value in which this one is active
    int is_signed;         // the UVC control is signed (clamped as s32; else as u32, see above)
    const char *const *menu;
    uint32_t menu_offered; // menu items the camera has
} control;

static const char *const kPowerLineMenu[] = {"Disabled", "50 Hz", "60 Hz"};
static const char *const kAutoExposureMenu[] = {"Auto Mode", "Manual Mode", "Shutter Priority Mode", "Aperture Priority Mode"};
static const uint32_t kClassFlags = V4L2_CTRL_FLAG_READ_ONLY | V4L2_CTRL_FLAG_WRITE_ONLY;

// By id, as VIDIOC_QUERYCTRL with V4L2_CTRL_FLAG_NEXT_CTRL enumerates them.
static const control kControlTable[kControls] = {
    [cUserClass] = {V4L2_CID_USER_CLASS, "User Controls", "user_controls", V4L2_CTRL_TYPE_CTRL_CLASS, 0, 0, 0, 0, 0, kClassFlags, -1, 0, 0, NULL, 0},
    [cBrightness] = {V4L2_CID_BRIGHTNESS, "Brightness", "brightness", V4L2_CTRL_TYPE_INTEGER, 0, 255, 1, 128, 128, 0, -1, 0, 1, NULL, 0},
    [cContrast] = {V4L2_CID_CONTRAST, "Contrast", "contrast", V4L2_CTRL_TYPE_INTEGER, 0, 255, 1, 128, 128, 0, -1, 0, 0, NULL, 0},
    [cSaturation] = {V4L2_CID_SATURATION, "Saturation", "saturation", V4L2_CTRL_TYPE_INTEGER, 0, 255, 1, 128, 128, 0, -1, 0, 0, NULL, 0},
    [cWhiteBalanceAuto] = {V4L2_CID_AUTO_WHITE_BALANCE, "White Balance, Automatic", "white_balance_automatic", V4L2_CTRL_TYPE_BOOLEAN, 0, 1, 1, 1, 1, 0, -1, 0, 0, NULL, 0},
    [cGain] = {V4L2_CID_GAIN, "Gain", "gain", V4L2_CTRL_TYPE_INTEGER, 0, 255, 1, 0, 0, 0, -1, 0, 0, NULL, 0},
    [cPowerLine] = {V4L2_CID_POWER_LINE_FREQUENCY, "Power Line Frequency", "power_line_frequency", V4L2_CTRL_TYPE_MENU, 0, 2, 1, 2, 2, 0, -1, 0, 0, kPowerLineMenu, 0x7},
    [cWhiteBalanceTemperature] = {V4L2_CID_WHITE_BALANCE_TEMPERATURE, "White Balance Temperature", "white_balance_temperature", V4L2_CTRL_TYPE_INTEGER, 2000, 6500, 1, 4000, 4000, 0, cWhiteBalanceAuto, 0, 0, NULL, 0},
    [cSharpness] = {V4L2_CID_SHARPNESS, "Sharpness", "sharpness", V4L2_CTRL_TYPE_INTEGER, 0, 255, 1, 128, 128, 0, -1, 0, 0, NULL, 0},
    [cBacklight] = {V4L2_CID_BACKLIGHT_COMPENSATION, "Backlight Compensation", "backlight_compensation", V4L2_CTRL_TYPE_INTEGER, 0, 1, 1, 0, 0, 0, -1, 0, 0, NULL, 0},
    [cCameraClass] = {V4L2_CID_CAMERA_CLASS, "Camera Controls", "camera_controls", V4L2_CTRL_TYPE_CTRL_CLASS, 0, 0, 0, 0, 0, kClassFlags, -1, 0, 0, NULL, 0},
    [cAutoExposure] = {V4L2_CID_EXPOSURE_AUTO, "Auto Exposure", "auto_exposure", V4L2_CTRL_TYPE_MENU, 0, 3, 1, 3, 3, 0, -1, 0, 0, kAutoExposureMenu, 0xa},
    [cExposure] = {V4L2_CID_EXPOSURE_ABSOLUTE, "Exposure Time, Absolute", "exposure_time_absolute", V4L2_CTRL_TYPE_INTEGER, 3, 2047, 1, 250, 250, 0, cAutoExposure, V4L2_EXPOSURE_MANUAL, 0, NULL, 0},
    [cExposureDynamic] = {V4L2_CID_EXPOSURE_AUTO_PRIORITY, "Exposure, Dynamic Framerate", "exposure_dynamic_framerate", V4L2_CTRL_TYPE_BOOLEAN, 0, 1, 1, 0, 1, 0, -1, 0, 0, NULL, 0},
    [cPan] = {V4L2_CID_PAN_ABSOLUTE, "Pan, Absolute", "pan_absolute", V4L2_CTRL_TYPE_INTEGER, -36000, 36000, 3600, 0, 0, 0, -1, 0, 1, NULL, 0},
    [cTilt] = {V4L2_CID_TILT_ABSOLUTE, "Tilt, Absolute", "tilt_absolute", V4L2_CTRL_TYPE_INTEGER, -36000, 36000, 3600, 0, 0, 0, -1, 0, 1, NULL, 0},
    [cFocus] = {V4L2_CID_FOCUS_ABSOLUTE, "Focus, Absolute", "focus_absolute", V4L2_CTRL_TYPE_INTEGER, 0, 250, 5, 0, 0, 0, cFocusAuto, 0, 0, NULL, 0},
    [cFocusAuto] = {V4L2_CID_FOCUS_AUTO, "Focus, Automatic Continuous", "focus_automatic_continuous", V4L2_CTRL_TYPE_BOOLEAN, 0, 1, 1, 1, 1, 0, -1, 0, 0, NULL, 0},
    [cZoom] = {V4L2_CID_ZOOM_ABSOLUTE, "Zoom, Absolute", "zoom_absolute", V4L2_CTRL_TYPE_INTEGER, 100, 500, 1, 100, 100, 0, -1, 0, 0, NULL, 0},
    [cPrivacy] = {V4L2_CID_PRIVACY, "Privacy", "privacy", V4L2_CTRL_TYPE_BOOLEAN, 0, 1, 1, 0, 0, V4L2_CTRL_FLAG_READ_ONLY, -1, 0, 0, NULL, 0},
};

static const double kMagnificationPerFocusStep = 0.0004; // k: see the header
static const double kBlurPerFocusStep = 0.1;             // sigma in px per focus unit at 640 px width
enum { kHuntEveryFrames = 4, kHuntStep = 5, kHuntApproach = 10 };

// ---------------------------------------------------------------------------------------------------------
// Devices

typedef struct { int32_t *index, *weight, *used; int taps; } axis; // per output pixel: up to `taps` source pixels

typedef struct { int source, focus, zoom, brightness, contrast, gain, exposure, manual; } render_key;

typedef struct {
    pthread_mutex_t lock;
    int number;
    char path[256];
    int model;
    // settings
    char image[PATH_MAX], frames_dir[PATH_MAX], state_file[PATH_MAX];
    uint32_t power_on_format;
    int power_on_fps, sharp_focus, hunt;
    long frames_before_interrupt, count_from, unplug_after, bad_every;
    uint64_t seed;
    // sources (gray), decoded when first opened
    int loaded, broken, sources;
    uint8_t **source;
    int *source_width, *source_height;
    // the image model's one format and size
    format image_format;
    frame_size image_size;
    interval image_interval;
    // current mode
    uint32_t pixelformat;
    int width, height;
    interval frame_interval;
    // controls
    int controls_loaded;
    int32_t value[kControls];
    int focus_now;            // the lens: focus_absolute, or where the autofocus has it
    long hunt_clock;
    uint64_t hunt_random, noise_random;
    // rendering, set up for one mode by prepare()
    int prepared_width, prepared_height, prepared_taps;
    size_t rows_capacity;     // of `rows`, in uint16
    uint16_t *rows;           // horizontally resampled source rows, 8.8 fixed point
    uint8_t *plane[2];        // render planes (blur ping-pongs between them)
    uint8_t *noisy;           // a frame with noise, for MJPG
    int32_t *column_sum;
    axis x_axis, y_axis;
    int rendered;
    render_key key;
    const uint8_t *picture;   // the rendered picture: a plane, or a source itself when nothing changes it
    int noise_gain;
    int16_t noise[1021];      // noise for a sum of four random bytes (0..1020), for `noise_gain`
    // MJPG
    int jpeg_ready, jpeg_valid;
    struct jpeg_compress_struct jpeg;
    struct jpeg_error_mgr jpeg_errors;
    uint8_t *jpeg_arena, *jpeg_permanent;
    size_t jpeg_arena_used, jpeg_permanent_used;
    unsigned char *jpeg_out;
    size_t jpeg_capacity;
    uint8_t *rgb_row;           // one gray row given to libjpeg as RGB (it makes YCbCr 4:2:2 only from colour)
    size_t rgb_row_capacity;
    unsigned long jpeg_size;
    // buffers and streaming
    size_t buffer_capacity;   // of each buffer: the largest frame of any mode
    uint8_t *buffers[kMaxBuffers];
    int buffer_count, owner_fd, streaming, next_buffer;
    int queued[kMaxBuffers];
    uint32_t sequence;        // since STREAMON
    long total;               // frames delivered since the process began
    struct timespec start;
    int clock_started;
    long allocations_from, bytes_from;
    int gone;                 // unplugged
} device;

static struct {
    pthread_mutex_t lock;
    int loaded;
    int devices;
    device device[kMaxDevices];
    struct { int fd, device; } fds[kMaxFds];
    volatile int open_fds;
    long (*allocations)(long *); // malloc-count.so's counter, when it is loaded
} fake = {.lock = PTHREAD_MUTEX_INITIALIZER};

static int fail(int code) { errno = code; return -1; }

static void copy_name(uint8_t *to, size_t size, const char *text) { snprintf((char *)to, size, "%s", text); }

// The index-th comma-separated item of variable `name` (the whole value when it has no comma). 1 if set.
static int item(const char *name, int index, char *out, size_t size) {
    const char *value = getenv(name);
    if (!value || !*value) return 0;
    if (!strchr(value, ',')) { snprintf(out, size, "%s", value); return 1; }
    for (int i = 0; i < index; i++) {
        value = strchr(value, ',');
        if (!value) return 0;
        value++;
    }
    size_t length = strcspn(value, ",");
    if (length == 0) return 0;
    snprintf(out, size, "%.*s", (int)length, value);
    return 1;
}

static long number(const char *name, int index, long fallback) {
    char text[64];
    return item(name, index, text, sizeof text) ? strtol(text, NULL, 10) : fallback;
}

static uint64_t splitmix(uint64_t *state) {
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static uint64_t next_random(uint64_t *state) { // xorshift64*
    uint64_t x = *state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return x * 0x2545f4914f6cdd1dULL;
}

static void resolve(void) {
    if (real_open) return;
    real_openat = dlsym(RTLD_NEXT, "openat");
    real_close = dlsym(RTLD_NEXT, "close");
    real_ioctl = dlsym(RTLD_NEXT, "ioctl");
    real_mmap = dlsym(RTLD_NEXT, "mmap");
    real_munmap = dlsym(RTLD_NEXT, "munmap");
    real_select = dlsym(RTLD_NEXT, "select");
    real_pselect = dlsym(RTLD_NEXT, "pselect");
    real_poll = dlsym(RTLD_NEXT, "poll");
    real_ppoll = dlsym(RTLD_NEXT, "ppoll");
    real_open = dlsym(RTLD_NEXT, "open");
}

__attribute__((constructor)) static void resolve_early(void) { resolve(); }

// The environment: which cameras, and how each behaves. Their pictures are read when first opened.
static void load(void) {
    if (fake.loaded) return;
    fake.loaded = 1;
    resolve();
    for (int i = 0; i < kMaxFds; i++) fake.fds[i].fd = -1;
    fake.allocations = (long (*)(long *))dlsym(RTLD_DEFAULT, "malloc_count_now");
    const char *paths = getenv("MARKERKIT_FAKE_CAMERA");
    while (paths && *paths && fake.devices < kMaxDevices) {
        size_t length = strcspn(paths, ",");
        if (length > 0 && length < sizeof fake.device[0].path) {
            device *d = &fake.device[fake.devices];
            memset(d, 0, sizeof *d);
            pthread_mutex_init(&d->lock, NULL);
            d->number = fake.devices++;
            memcpy(d->path, paths, length);
            int n = d->number;
            char text[PATH_MAX];
            d->model = item("MARKERKIT_FAKE_CAMERA_MODEL", n, text, sizeof text) && strcasecmp(text, "c920") == 0 ? kModelC920 : kModelImage;
            item("MARKERKIT_FAKE_CAMERA_IMAGE", n, d->image, sizeof d->image);
            item("MARKERKIT_FAKE_CAMERA_FRAMES_DIR", n, d->frames_dir, sizeof d->frames_dir);
            item("MARKERKIT_FAKE_CAMERA_STATE", n, d->state_file, sizeof d->state_file);
            d->power_on_format = !item("MARKERKIT_FAKE_CAMERA_FORMAT", n, text, sizeof text) ? V4L2_PIX_FMT_YUYV
                                 : strcmp(text, "GREY") == 0 ? V4L2_PIX_FMT_GREY
                                 : strcmp(text, "MJPG") == 0 ? V4L2_PIX_FMT_MJPEG : V4L2_PIX_FMT_YUYV;
            if (d->model == kModelC920 && d->power_on_format == V4L2_PIX_FMT_GREY) d->power_on_format = V4L2_PIX_FMT_YUYV;
            d->power_on_fps = (int)number("MARKERKIT_FAKE_CAMERA_FPS", n, 30);
            if (d->power_on_fps <= 0) d->power_on_fps = 30;
            d->frames_before_interrupt = number("MARKERKIT_FAKE_CAMERA_FRAMES", n, 0);
            d->count_from = number("MARKERKIT_FAKE_CAMERA_COUNT_FROM", n, 0);
            d->unplug_after = number("MARKERKIT_FAKE_CAMERA_UNPLUG_AFTER", n, 0);
            d->bad_every = number("MARKERKIT_FAKE_CAMERA_BAD_EVERY", n, 0);
            d->sharp_focus = (int)number("MARKERKIT_FAKE_CAMERA_SHARP_FOCUS", n, 30);
            if (d->sharp_focus < 0) d->sharp_focus = 0;
            if (d->sharp_focus > 250) d->sharp_focus = 250;
            d->hunt = (int)number("MARKERKIT_FAKE_CAMERA_HUNT", n, d->model == kModelC920 ? 15 : 0);
            if (d->hunt < 0) d->hunt = 0;
            uint64_t seed = (uint64_t)number("MARKERKIT_FAKE_CAMERA_SEED", n, 1) * 1000003ULL + (uint64_t)d->number;
            d->hunt_random = splitmix(&seed) | 1;
            d->noise_random = splitmix(&seed) | 1;
            d->owner_fd = -1;
        }
        paths += length;
        if (*paths == ',') paths++;
    }
}

// ---------------------------------------------------------------------------------------------------------
// Pictures

static uint8_t *read_png(const char *file, int *width, int *height) {
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&image, file)) return NULL;
    image.format = PNG_FORMAT_GRAY;
    uint8_t *gray = malloc(PNG_IMAGE_SIZE(image));
    if (gray && png_image_finish_read(&image, NULL, gray, 0, NULL)) {
        *width = (int)image.width;
        *height = (int)image.height;
        return gray;
    }
    free(gray);
    png_image_free(&image);
    return NULL;
}

static int has_png_suffix(const char *name) {
    size_t n = strlen(name);
    return n > 4 && strcasecmp(name + n - 4, ".png") == 0;
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

// Reads the camera's picture or folder. 0 when there is none (the error is printed).
static int load_sources(device *d) {
    if (d->loaded) return !d->broken;
    d->loaded = 1;
    char **names = NULL;
    int count = 0;
    if (d->frames_dir[0]) {
        DIR *dir = opendir(d->frames_dir);
        struct dirent *entry;
        int capacity = 0;
        while (dir && (entry = readdir(dir))) {
            if (!has_png_suffix(entry->d_name)) continue;
            if (count == capacity) {
                capacity = capacity ? 2 * capacity : 64;
                names = realloc(names, (size_t)capacity * sizeof *names);
            }
            names[count++] = strdup(entry->d_name);
        }
        if (dir) closedir(dir);
        qsort(names, (size_t)count, sizeof *names, by_name);
    } else if (d->image[0]) {
        names = malloc(sizeof *names);
        names[0] = strdup(d->image);
        count = 1;
    }
    d->source = calloc((size_t)(count ? count : 1), sizeof *d->source);
    d->source_width = calloc((size_t)(count ? count : 1), sizeof(int));
    d->source_height = calloc((size_t)(count ? count : 1), sizeof(int));
    for (int i = 0; i < count; i++) {
        char file[2 * PATH_MAX + 2];
        if (d->frames_dir[0]) snprintf(file, sizeof file, "%s/%s", d->frames_dir, names[i]);
        else snprintf(file, sizeof file, "%s", names[i]);
        d->source[d->sources] = read_png(file, &d->source_width[d->sources], &d->source_height[d->sources]);
        if (d->source[d->sources]) d->sources++;
        else fprintf(stderr, "fake camera: cannot read '%s' as a PNG\n", file);
        free(names[i]);
    }
    free(names);
    int usable = d->sources > 0;
    if (usable && d->model == kModelImage) {
        int w = d->source_width[0], h = d->source_height[0];
        usable = w % 2 == 0; // YUYV pairs pixels (required for every format, as it always was)
        d->image_size = (frame_size){(uint16_t)w, (uint16_t)h, 0, 0};
        d->image_interval = (interval){1, (uint32_t)d->power_on_fps};
        d->image_format = (format){d->power_on_format,
                                   d->power_on_format == V4L2_PIX_FMT_YUYV ? "YUYV 4:2:2"
                                   : d->power_on_format == V4L2_PIX_FMT_GREY ? "8-bit Greyscale" : "Motion-JPEG",
                                   d->power_on_format == V4L2_PIX_FMT_MJPEG ? V4L2_FMT_FLAG_COMPRESSED : 0, &d->image_size, 1};
    }
    if (!usable) {
        fprintf(stderr, d->model == kModelImage ? "fake camera: MARKERKIT_FAKE_CAMERA_IMAGE must name a PNG of even width (or MARKERKIT_FAKE_CAMERA_FRAMES_DIR a folder of them)\n"
                                                : "fake camera: MARKERKIT_FAKE_CAMERA_IMAGE must name a PNG (or MARKERKIT_FAKE_CAMERA_FRAMES_DIR a folder of them)\n");
        d->broken = 1;
        return 0;
    }
    return 1;
}

static const format *formats(device *d, int *count) {
    if (d->model == kModelImage) { *count = 1; return &d->image_format; }
    *count = sizeof kC920Formats / sizeof *kC920Formats;
    return kC920Formats;
}

static const format *find_format(device *d, uint32_t fourcc) {
    int count;
    const format *list = formats(d, &count);
    for (int i = 0; i < count; i++)
        if (list[i].fourcc == fourcc) return &list[i];
    return NULL;
}

static interval size_interval(device *d, const frame_size *size, int i) {
    return d->model == kModelImage ? d->image_interval : kC920Intervals[size->first + i];
}

static int size_intervals(device *d, const frame_size *size) { return d->model == kModelImage ? 1 : size->last - size->first + 1; }

static const frame_size *find_size(const format *f, int width, int height) {
    for (int i = 0; i < f->count; i++)
        if (f->sizes[i].width == width && f->sizes[i].height == height) return &f->sizes[i];
    return NULL;
}

// uvc_v4l2_try_format(): the size with the least non-overlapping area.
static const frame_size *nearest_size(const format *f, uint32_t width, uint32_t height) {
    const frame_size *best = &f->sizes[0];
    uint64_t least = UINT64_MAX;
    for (int i = 0; i < f->count; i++) {
        uint64_t w = f->sizes[i].width, h = f->sizes[i].height;
        uint64_t overlap = (w < width ? w : width) * (h < height ? h : height);
        uint64_t d = w * h + (uint64_t)width * height - 2 * overlap;
        if (d < least) { least = d; best = &f->sizes[i]; }
    }
    return best;
}

static uint64_t in_100ns(interval v) { return v.denominator ? (uint64_t)v.numerator * 10000000u / v.denominator : 0; }

// uvc_try_frame_interval(): the nearest interval, in the 100 ns units UVC counts in (of two as near, the
// longer: it walks the intervals shortest first and stops only when one is farther).
static interval nearest_interval(device *d, const frame_size *size, interval asked) {
    uint64_t want = in_100ns(asked), least = UINT64_MAX;
    interval best = size_interval(d, size, 0);
    for (int i = 0; i < size_intervals(d, size); i++) {
        interval candidate = size_interval(d, size, i);
        uint64_t have = in_100ns(candidate), distance = have > want ? have - want : want - have;
        if (distance <= least) { least = distance; best = candidate; }
    }
    return best;
}

static int bytes_per_line(uint32_t pixelformat, int width) {
    return pixelformat == V4L2_PIX_FMT_YUYV ? 2 * width : pixelformat == V4L2_PIX_FMT_GREY ? width : 0;
}

static size_t size_image(uint32_t pixelformat, int width, int height) {
    // MJPG: the largest frame the camera may send, as a UVC camera's dwMaxVideoFrameBufferSize says.
    return pixelformat == V4L2_PIX_FMT_GREY ? (size_t)width * height : (size_t)2 * width * height;
}

static void fill_format(device *d, struct v4l2_pix_format *p, uint32_t pixelformat, int width, int height) {
    (void)d;
    memset(p, 0, sizeof *p);
    p->pixelformat = pixelformat;
    p->width = (uint32_t)width;
    p->height = (uint32_t)height;
    p->field = V4L2_FIELD_NONE;
    p->bytesperline = (uint32_t)bytes_per_line(pixelformat, width);
    p->sizeimage = (uint32_t)size_image(pixelformat, width, height);
    p->colorspace = V4L2_COLORSPACE_SRGB;
    p->xfer_func = V4L2_XFER_FUNC_709;
    p->ycbcr_enc = V4L2_YCBCR_ENC_601;
}

// The power-on mode: the image model's one, or 640x480 (the C920's default size) in the power-on format.
static void power_on_mode(device *d) {
    const format *f = find_format(d, d->power_on_format);
    if (!f) f = &formats(d, &(int){0})[0];
    const frame_size *size = &f->sizes[0];
    d->pixelformat = f->fourcc;
    d->width = size->width;
    d->height = size->height;
    d->frame_interval = nearest_interval(d, size, (interval){1, (uint32_t)d->power_on_fps});
}

// ---------------------------------------------------------------------------------------------------------
// Control values and the state file

static int is_class(int c) { return kControlTable[c].type == V4L2_CTRL_TYPE_CTRL_CLASS; }

static int find_control(uint32_t id) {
    for (int c = 0; c < kControls; c++)
        if (kControlTable[c].id == id) return c;
    return -1;
}

// uvc_ctrl_clamp(): 0 with *value clamped, or the error.
static int clamp_value(int c, int32_t *value) {
    const control *k = &kControlTable[c];
    switch (k->type) {
    case V4L2_CTRL_TYPE_INTEGER: {
        uint32_t step = k->step ? (uint32_t)k->step : 1;
        uint32_t offset = (uint32_t)(*value - k->minimum);
        int32_t v = k->minimum + (int32_t)((offset + step / 2) / step * step);
        if (k->is_signed) *value = v < k->minimum ? k->minimum : v > k->maximum ? k->maximum : v;
        else *value = (uint32_t)v < (uint32_t)k->minimum ? k->minimum : (uint32_t)v > (uint32_t)k->maximum ? k->maximum : v;
        return 0;
    }
    case V4L2_CTRL_TYPE_BOOLEAN:
        *value = *value < 0 ? 0 : *value > 1 ? 1 : *value;
        return 0;
    case V4L2_CTRL_TYPE_MENU:
        if (*value < k->minimum || *value > k->maximum) return ERANGE;
        if (!(k->menu_offered & (1u << *value))) return EINVAL;
        return 0;
    default:
        return EINVAL;
    }
}

static int is_inactive(device *d, int c) {
    int master = kControlTable[c].master;
    return master >= 0 && d->value[master] != kControlTable[c].manual;
}

// What G_CTRL reads: the lens position for focus_absolute, else the value set.
static int32_t current_value(device *d, int c) { return c == cFocus ? d->focus_now : d->value[c]; }

// Changes one value (already clamped), with what a camera does when it changes.
static void apply_value(device *d, int c, int32_t value) {
    if (c == cFocusAuto && d->value[cFocusAuto] && !value) d->value[cFocus] = d->focus_now; // the lens stays
    d->value[c] = value;
    if (c == cFocus) d->focus_now = value;
}

static void save_state(device *d) {
    if (!d->state_file[0]) return;
    char text[2048], temporary[PATH_MAX + 32];
    size_t used = 0;
    for (int c = 0; c < kControls; c++) {
        if (is_class(c) || (kControlTable[c].flags & V4L2_CTRL_FLAG_READ_ONLY)) continue;
        int n = snprintf(text + used, sizeof text - used, "%s=%d\n", kControlTable[c].key, (int)d->value[c]);
        if (n > 0 && (size_t)n < sizeof text - used) used += (size_t)n;
    }
    snprintf(temporary, sizeof temporary, "%s.tmp%d", d->state_file, (int)getpid());
    int fd = real_open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) { fprintf(stderr, "fake camera: cannot write '%s': %s\n", temporary, strerror(errno)); return; }
    ssize_t written = write(fd, text, used);
    real_close(fd);
    if (written != (ssize_t)used || rename(temporary, d->state_file) != 0) {
        fprintf(stderr, "fake camera: cannot write '%s'\n", d->state_file);
        unlink(temporary);
    }
}

static void load_state(device *d) {
    if (!d->state_file[0]) return;
    int fd = real_open(d->state_file, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return; // no state yet: power-on values
    char text[4096];
    ssize_t n = read(fd, text, sizeof text - 1);
    real_close(fd);
    if (n <= 0) return;
    text[n] = 0;
    int32_t loaded[kControls];
    memcpy(loaded, d->value, sizeof loaded);
    char *rest = NULL;
    for (char *line = strtok_r(text, "\n", &rest); line; line = strtok_r(NULL, "\n", &rest)) {
        char *equals = strchr(line, '=');
        if (!equals) continue;
        *equals = 0;
        for (int c = 0; c < kControls; c++) {
            if (is_class(c) || strcmp(kControlTable[c].key, line) != 0) continue;
            int32_t value = (int32_t)strtol(equals + 1, NULL, 10);
            if (clamp_value(c, &value) == 0 && !(kControlTable[c].flags & V4L2_CTRL_FLAG_READ_ONLY)) loaded[c] = value;
        }
    }
    memcpy(d->value, loaded, sizeof loaded);
}

static void power_on_controls(device *d) {
    if (d->controls_loaded) return;
    d->controls_loaded = 1;
    for (int c = 0; c < kControls; c++) d->value[c] = kControlTable[c].power_on;
    load_state(d);
    d->focus_now = d->value[cFocusAuto] ? d->sharp_focus : d->value[cFocus];
}

// The autofocus: every few frames a seeded step, around the sharp value (toward it when far).
static void hunt(device *d) {
    if (!d->value[cFocusAuto]) return;
    if (++d->hunt_clock % kHuntEveryFrames != 0) return;
    int target = d->sharp_focus, f = d->focus_now;
    if (abs(f - target) > d->hunt) {
        int step = target - f;
        f += step > kHuntApproach ? kHuntApproach : step < -kHuntApproach ? -kHuntApproach : step;
    } else if (d->hunt > 0) {
        f += (int)(next_random(&d->hunt_random) % (2 * kHuntStep + 1)) - kHuntStep;
        if (f > target + d->hunt) f = 2 * (target + d->hunt) - f;
        if (f < target - d->hunt) f = 2 * (target - d->hunt) - f;
    }
    d->focus_now = f < 0 ? 0 : f > 250 ? 250 : f;
}

// ---------------------------------------------------------------------------------------------------------
// Rendering: the source picture into the mode, magnified, blurred and leveled as the controls say.

// A few of libm's functions, so that the library needs no -lm (the tests and scripts build it without).
static double floor_of(double x) { double t = (double)(long long)x; return t > x ? t - 1 : t; }
static double ceil_of(double x) { double t = (double)(long long)x; return t < x ? t + 1 : t; }
static long round_of(double x) { return x >= 0 ? (long)floor_of(x + 0.5) : -(long)floor_of(-x + 0.5); } // half away from 0
static double min_of(double a, double b) { return a < b ? a : b; }
static double max_of(double a, double b) { return a > b ? a : b; }
static double sqrt_of(double x) { // Newton's method, for the few square roots a render takes
    if (x <= 0) return 0;
    double r = x > 1 ? x : 1;
    for (int i = 0; i < 64; i++) r = 0.5 * (r + x / r);
    return r;
}

static void *zeroed_pages(size_t size) { // anonymous memory: not the heap, and only touched pages cost
    void *p = real_mmap(NULL, size ? size : 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

static void free_pages(void *p, size_t size) { if (p) real_munmap(p, size ? size : 1); }

static size_t plane_bytes(int width, int height) { return (size_t)width * height; }

// Sets up the planes and tables for the current mode (when it changed), before the stream runs.
static int prepare(device *d) {
    if (d->prepared_width == d->width && d->prepared_height == d->height) return 1;
    int w = d->width, h = d->height;
    // The largest source-pixels-per-output-pixel: the cropped source's scale over the smallest
    // magnification (zoom 100, focus 250 from a sharp value of 0: 1 - 0.1), with room to spare.
    double scale = 0;
    int tallest = 0;
    for (int i = 0; i < d->sources; i++) {
        double s = min_of((double)d->source_width[i] / w, (double)d->source_height[i] / h);
        if (s > scale) scale = s;
        if (d->source_height[i] > tallest) tallest = d->source_height[i];
    }
    int taps = (int)ceil_of(scale / 0.85) + 3;
    if (taps > kMaxTaps) taps = kMaxTaps; // a source over 200 times the mode's size: averaged over part of each pixel
    free_pages(d->rows, d->rows_capacity * sizeof(uint16_t));
    for (int i = 0; i < 2; i++) free_pages(d->plane[i], plane_bytes(d->prepared_width, d->prepared_height));
    free_pages(d->noisy, plane_bytes(d->prepared_width, d->prepared_height));
    free_pages(d->column_sum, (size_t)d->prepared_width * sizeof(int32_t));
    free_pages(d->x_axis.index, (size_t)d->prepared_width * (2 * d->prepared_taps + 1) * sizeof(int32_t));
    free_pages(d->y_axis.index, (size_t)d->prepared_height * (2 * d->prepared_taps + 1) * sizeof(int32_t));
    d->rows_capacity = (size_t)tallest * w;
    d->rows = zeroed_pages(d->rows_capacity * sizeof(uint16_t));
    for (int i = 0; i < 2; i++) d->plane[i] = zeroed_pages(plane_bytes(w, h));
    d->noisy = zeroed_pages(plane_bytes(w, h));
    d->column_sum = zeroed_pages((size_t)w * sizeof(int32_t));
    d->x_axis.index = zeroed_pages((size_t)w * (2 * taps + 1) * sizeof(int32_t));
    d->y_axis.index = zeroed_pages((size_t)h * (2 * taps + 1) * sizeof(int32_t));
    if (!d->rows || !d->plane[0] || !d->plane[1] || !d->noisy || !d->column_sum || !d->x_axis.index || !d->y_axis.index) return 0;
    d->x_axis.weight = d->x_axis.index + (size_t)w * taps;
    d->x_axis.used = d->x_axis.weight + (size_t)w * taps;
    d->y_axis.weight = d->y_axis.index + (size_t)h * taps;
    d->y_axis.used = d->y_axis.weight + (size_t)h * taps;
    d->x_axis.taps = d->y_axis.taps = taps;
    d->prepared_width = w;
    d->prepared_height = h;
    d->prepared_taps = taps;
    d->rendered = 0;
    d->jpeg_valid = 0;
    return 1;
}

// Output pixel i's source pixels and weights (14-bit fixed point, summing to 1 << 14): output pixel centre
// i + 0.5 - out/2 from the middle, `scale` source pixels per output pixel; an area average when shrinking,
// bilinear when enlarging, edge pixels repeated outside the source. 1 if every pixel is a single source pixel.
static int build_axis(axis *a, int out, int in, double scale) {
    int single = 1;
    for (int i = 0; i < out; i++) {
        int32_t *index = a->index + (size_t)i * a->taps, *weight = a->weight + (size_t)i * a->taps;
        double u = in / 2.0 + (i + 0.5 - out / 2.0) * scale - 0.5, w[kMaxTaps];
        int first, count = 0;
        if (scale > 1 + 1e-12) {
            double low = u - scale / 2, high = u + scale / 2;
            first = (int)floor_of(low + 0.5);
            for (int j = first; j <= (int)ceil_of(high - 0.5) && count < a->taps; j++) {
                double overlap = min_of(high, j + 0.5) - max_of(low, j - 0.5);
                w[count++] = overlap > 0 ? overlap / scale : 0;
            }
        } else {
            first = (int)floor_of(u);
            double f = u - first;
            w[count++] = 1 - f;
            if (f > 1e-9) w[count++] = f;
        }
        int sum = 0, largest = 0;
        for (int t = 0; t < a->taps; t++) {
            int j = first + t;
            index[t] = j < 0 ? 0 : j >= in ? in - 1 : j;
            weight[t] = t < count ? (int32_t)round_of(w[t] * 16384) : 0;
            sum += weight[t];
            if (weight[t] > weight[largest]) largest = t;
        }
        weight[largest] += 16384 - sum;
        if (weight[largest] != 16384) single = 0;
        int used = a->taps;
        while (used > 1 && weight[used - 1] == 0) used--;
        a->used[i] = used;
    }
    return single;
}

static void resample(device *d, const uint8_t *src, int sw, int sh, double scale, uint8_t *out) {
    int w = d->width, h = d->height;
    int single_x = build_axis(&d->x_axis, w, sw, scale), single_y = build_axis(&d->y_axis, h, sh, scale);
    if (single_x && single_y) { // a crop: copy
        for (int y = 0; y < h; y++) {
            const uint8_t *row = src + (size_t)d->y_axis.index[(size_t)y * d->y_axis.taps] * sw;
            uint8_t *line = out + (size_t)y * w;
            for (int x = 0; x < w; x++) line[x] = row[d->x_axis.index[(size_t)x * d->x_axis.taps]];
        }
        return;
    }
    int low = sh, high = -1;
    for (int y = 0; y < h; y++)
        for (int t = 0; t < d->y_axis.used[y]; t++) {
            int j = d->y_axis.index[(size_t)y * d->y_axis.taps + t];
            if (j < low) low = j;
            if (j > high) high = j;
        }
    for (int j = low; j <= high; j++) { // horizontally, each source row needed, into 8.8 fixed point
        const uint8_t *row = src + (size_t)j * sw;
        uint16_t *line = d->rows + (size_t)(j - low) * w;
        for (int x = 0; x < w; x++) {
            const int32_t *index = d->x_axis.index + (size_t)x * d->x_axis.taps, *weight = d->x_axis.weight + (size_t)x * d->x_axis.taps;
            int32_t sum = 0;
            for (int t = 0, n = d->x_axis.used[x]; t < n; t++) sum += weight[t] * row[index[t]];
            line[x] = (uint16_t)((sum + 32) >> 6);
        }
    }
    for (int y = 0; y < h; y++) { // then vertically
        const int32_t *index = d->y_axis.index + (size_t)y * d->y_axis.taps, *weight = d->y_axis.weight + (size_t)y * d->y_axis.taps;
        int n = d->y_axis.used[y];
        uint8_t *line = out + (size_t)y * w;
        for (int x = 0; x < w; x++) {
            int32_t sum = 0;
            for (int t = 0; t < n; t++) sum += weight[t] * d->rows[(size_t)(index[t] - low) * w + x];
            int v = (sum + (1 << 21)) >> 22;
            line[x] = (uint8_t)(v > 255 ? 255 : v);
        }
    }
}

// Three box radii whose passes make a Gaussian of this sigma (the usual "boxes for Gauss").
static void box_radii(double sigma, int radius[3]) {
    double ideal = sqrt_of(12 * sigma * sigma / 3 + 1);
    int lower = (int)floor_of(ideal);
    if (lower % 2 == 0) lower--;
    int upper = lower + 2;
    int m = (int)round_of((12 * sigma * sigma - 3.0 * lower * lower - 12.0 * lower - 9) / (-4.0 * lower - 4));
    for (int i = 0; i < 3; i++) radius[i] = ((i < m ? lower : upper) - 1) / 2;
}

static void box_horizontal(const uint8_t *in, uint8_t *out, int w, int h, int r) {
    uint32_t scale = (uint32_t)((1u << 24) / (2 * r + 1));
    for (int y = 0; y < h; y++) {
        const uint8_t *row = in + (size_t)y * w;
        uint8_t *line = out + (size_t)y * w;
        uint32_t sum = 0;
        for (int k = -r; k <= r; k++) sum += row[k < 0 ? 0 : k >= w ? w - 1 : k];
        for (int x = 0; x < w; x++) {
            line[x] = (uint8_t)((sum * scale + (1u << 23)) >> 24);
            int add = x + r + 1, drop = x - r;
            sum += row[add >= w ? w - 1 : add];
            sum -= row[drop < 0 ? 0 : drop];
        }
    }
}

static void box_vertical(device *d, const uint8_t *in, uint8_t *out, int w, int h, int r) {
    uint32_t scale = (uint32_t)((1u << 24) / (2 * r + 1));
    int32_t *sum = d->column_sum;
    for (int x = 0; x < w; x++) sum[x] = 0;
    for (int k = -r; k <= r; k++) {
        const uint8_t *row = in + (size_t)(k < 0 ? 0 : k >= h ? h - 1 : k) * w;
        for (int x = 0; x < w; x++) sum[x] += row[x];
    }
    for (int y = 0; y < h; y++) {
        uint8_t *line = out + (size_t)y * w;
        for (int x = 0; x < w; x++) line[x] = (uint8_t)(((uint32_t)sum[x] * scale + (1u << 23)) >> 24);
        int add = y + r + 1, drop = y - r;
        const uint8_t *a = in + (size_t)(add >= h ? h - 1 : add) * w, *b = in + (size_t)(drop < 0 ? 0 : drop) * w;
        for (int x = 0; x < w; x++) sum[x] += a[x] - b[x];
    }
}

static render_key current_key(device *d) {
    return (render_key){d->sources > 1 ? (int)(d->total % d->sources) : 0, d->focus_now, d->value[cZoom], d->value[cBrightness],
                        d->value[cContrast], d->value[cGain], d->value[cExposure], d->value[cAutoExposure] == V4L2_EXPOSURE_MANUAL};
}

// Renders the picture for the current controls and lens, unless the last render is it.
static void render(device *d) {
    render_key key = current_key(d);
    if (d->rendered && memcmp(&key, &d->key, sizeof key) == 0) return;
    d->rendered = 1;
    d->key = key;
    d->jpeg_valid = 0;
    int w = d->width, h = d->height, sw = d->source_width[key.source], sh = d->source_height[key.source];
    const uint8_t *src = d->source[key.source];
    int delta = key.focus - d->sharp_focus;
    double magnification = key.zoom / 100.0 * (1 + kMagnificationPerFocusStep * delta);
    double scale = min_of((double)sw / w, (double)sh / h) / magnification;
    double sigma = kBlurPerFocusStep * abs(delta) * w / 640.0;
    int radius[3] = {0, 0, 0};
    if (sigma > 0) box_radii(sigma, radius);
    // The level: gain and exposure (Manual Mode only), then brightness and contrast.
    uint8_t level[256];
    int identity = 1;
    double exposure = key.manual ? key.exposure / 250.0 * (1 + key.gain / 128.0) : 1;
    for (int v = 0; v < 256; v++) {
        double sensor = min_of(255, v * exposure);
        double out = (sensor - 128) * key.contrast / 128.0 + 128 + (key.brightness - 128);
        long rounded = round_of(out);
        level[v] = (uint8_t)(rounded < 0 ? 0 : rounded > 255 ? 255 : rounded);
        if (level[v] != v) identity = 0;
    }
    int untouched = sw == w && sh == h && magnification == 1 && radius[0] + radius[1] + radius[2] == 0;
    if (untouched && identity) { d->picture = src; return; }
    uint8_t *a = d->plane[0], *b = d->plane[1];
    if (untouched) memcpy(a, src, plane_bytes(w, h));
    else resample(d, src, sw, sh, scale, a);
    for (int i = 0; i < 3; i++)
        if (radius[i] > 0) { box_horizontal(a, b, w, h, radius[i]); uint8_t *t = a; a = b; b = t; }
    for (int i = 0; i < 3; i++)
        if (radius[i] > 0) { box_vertical(d, a, b, w, h, radius[i]); uint8_t *t = a; a = b; b = t; }
    if (!identity)
        for (size_t i = 0, n = plane_bytes(w, h); i < n; i++) a[i] = level[a[i]];
    d->picture = a;
}

// Noise of sigma gain/25 for a sum of four random bytes (mean 510, sigma 147.8: near Gaussian).
static void prepare_noise(device *d, int gain) {
    if (d->noise_gain == gain) return;
    d->noise_gain = gain;
    double sigma = gain / 25.0;
    for (int s = 0; s <= 1020; s++) d->noise[s] = (int16_t)round_of((s - 510) * sigma / 147.8);
}

static inline uint8_t noisy(device *d, uint8_t v, uint32_t r) {
    int s = (int)(r & 255) + (int)((r >> 8) & 255) + (int)((r >> 16) & 255) + (int)(r >> 24);
    int out = v + d->noise[s];
    return (uint8_t)(out < 0 ? 0 : out > 255 ? 255 : out);
}

// ---------------------------------------------------------------------------------------------------------
// MJPG: libjpeg with its memory taken from two arenas set up once, so that encoding a frame allocates nothing
// (libjpeg's memory manager is a table of methods, replaceable by design).

enum { kJpegArena = 16 << 20, kJpegPermanent = 1 << 20 };

static device *jpeg_device(j_common_ptr c) { return (device *)c->client_data; }

static void *jpeg_small(j_common_ptr c, int pool, size_t size) {
    device *d = jpeg_device(c);
    size = (size + 31) & ~(size_t)31;
    uint8_t **base = pool == JPOOL_PERMANENT ? &d->jpeg_permanent : &d->jpeg_arena;
    size_t *used = pool == JPOOL_PERMANENT ? &d->jpeg_permanent_used : &d->jpeg_arena_used;
    size_t capacity = pool == JPOOL_PERMANENT ? kJpegPermanent : kJpegArena;
    if (*used + size > capacity) {
        c->err->msg_code = JERR_OUT_OF_MEMORY;
        c->err->error_exit(c);
    }
    void *p = *base + *used;
    *used += size;
    return p;
}

static void *jpeg_large(j_common_ptr c, int pool, size_t size) { return jpeg_small(c, pool, size); }

static JSAMPARRAY jpeg_sample_array(j_common_ptr c, int pool, JDIMENSION width, JDIMENSION rows) {
    JSAMPARRAY array = jpeg_small(c, pool, rows * sizeof(JSAMPROW));
    for (JDIMENSION i = 0; i < rows; i++) array[i] = jpeg_small(c, pool, width * sizeof(JSAMPLE));
    return array;
}

static JBLOCKARRAY jpeg_block_array(j_common_ptr c, int pool, JDIMENSION width, JDIMENSION rows) {
    JBLOCKARRAY array = jpeg_small(c, pool, rows * sizeof(JBLOCKROW));
    for (JDIMENSION i = 0; i < rows; i++) array[i] = jpeg_small(c, pool, width * sizeof(JBLOCK));
    return array;
}

static void jpeg_free_pool(j_common_ptr c, int pool) {
    if (pool == JPOOL_IMAGE) jpeg_device(c)->jpeg_arena_used = 0;
}

static void jpeg_self_destruct(j_common_ptr c) { (void)c; }

static int prepare_jpeg(device *d) {
    size_t capacity = d->buffer_capacity;
    if (d->jpeg_ready && d->jpeg_capacity >= capacity) return 1;
    if (!d->jpeg_ready) {
        d->jpeg_arena = zeroed_pages(kJpegArena);
        d->jpeg_permanent = zeroed_pages(kJpegPermanent);
        if (!d->jpeg_arena || !d->jpeg_permanent) return 0;
        d->jpeg.err = jpeg_std_error(&d->jpeg_errors);
        jpeg_create_compress(&d->jpeg);
        d->jpeg.client_data = d;
        d->jpeg.mem->alloc_small = jpeg_small;
        d->jpeg.mem->alloc_large = jpeg_large;
        d->jpeg.mem->alloc_sarray = jpeg_sample_array;
        d->jpeg.mem->alloc_barray = jpeg_block_array;
        d->jpeg.mem->free_pool = jpeg_free_pool;
        d->jpeg.mem->self_destruct = jpeg_self_destruct;
        d->jpeg_ready = 1;
    }
    free_pages(d->jpeg_out, d->jpeg_capacity);
    d->jpeg_out = zeroed_pages(capacity);
    d->jpeg_capacity = d->jpeg_out ? capacity : 0;
    return d->jpeg_out != NULL;
}

// The gray picture as one baseline JPEG (quality 90) in YCbCr with the chroma sampled 4:2:2 (neutral),
// what an MJPEG webcam sends for every frame. The row buffer is made once per width, not per frame.
static void encode_jpeg(device *d, const uint8_t *gray) {
    size_t row_bytes = (size_t)d->width * 3;
    if (d->rgb_row_capacity < row_bytes) {
        free(d->rgb_row);
        d->rgb_row = malloc(row_bytes);
        d->rgb_row_capacity = d->rgb_row ? row_bytes : 0;
        if (!d->rgb_row) { d->jpeg_size = 0; return; }
    }
    unsigned char *out = d->jpeg_out;
    unsigned long size = d->jpeg_capacity;
    jpeg_mem_dest(&d->jpeg, &out, &size);
    d->jpeg.image_width = (JDIMENSION)d->width;
    d->jpeg.image_height = (JDIMENSION)d->height;
    d->jpeg.input_components = 3;
    d->jpeg.in_color_space = JCS_RGB;
    jpeg_set_defaults(&d->jpeg);
    d->jpeg.comp_info[0].h_samp_factor = 2;
    d->jpeg.comp_info[0].v_samp_factor = 1;
    jpeg_set_quality(&d->jpeg, 90, TRUE);
    jpeg_start_compress(&d->jpeg, TRUE);
    JSAMPROW row = d->rgb_row;
    while (d->jpeg.next_scanline < d->jpeg.image_height) {
        const uint8_t *line = gray + (size_t)d->jpeg.next_scanline * d->width;
        for (int x = 0; x < d->width; x++) row[3 * x] = row[3 * x + 1] = row[3 * x + 2] = line[x];
        jpeg_write_scanlines(&d->jpeg, &row, 1);
    }
    jpeg_finish_compress(&d->jpeg);
    // A JPEG larger than the buffer (never at quality 90 in 2 bytes a pixel) would have been moved by libjpeg
    // to memory of its own: keep what fits.
    if (out != d->jpeg_out) {
        memcpy(d->jpeg_out, out, size < d->jpeg_capacity ? size : d->jpeg_capacity);
        size = size < d->jpeg_capacity ? size : d->jpeg_capacity;
    }
    d->jpeg_size = size;
}

// The frame into a buffer: the picture (with noise when there is gain) in the mode's pixel format.
static size_t fill(device *d, uint8_t *out) {
    int w = d->width, h = d->height, gain = d->value[cGain];
    const uint8_t *picture = d->picture;
    if (gain > 0) prepare_noise(d, gain);
    if (d->pixelformat == V4L2_PIX_FMT_MJPEG) {
        if (gain > 0) {
            size_t n = plane_bytes(w, h);
            for (size_t i = 0; i < n; i += 2) {
                uint64_t r = next_random(&d->noise_random);
                d->noisy[i] = noisy(d, picture[i], (uint32_t)r);
                if (i + 1 < n) d->noisy[i + 1] = noisy(d, picture[i + 1], (uint32_t)(r >> 32));
            }
            encode_jpeg(d, d->noisy);
            d->jpeg_valid = 0;
        } else if (!d->jpeg_valid) {
            encode_jpeg(d, picture);
            d->jpeg_valid = 1;
        }
        memcpy(out, d->jpeg_out, d->jpeg_size);
        return d->jpeg_size;
    }
    int grey = d->pixelformat == V4L2_PIX_FMT_GREY;
    if (gain == 0 && !grey) { // YUYV, chroma neutral: the common case, kept simple
        for (int y = 0; y < h; y++) {
            const uint8_t *row = picture + (size_t)y * w;
            uint8_t *line = out + (size_t)y * 2 * w;
            for (int x = 0; x < w; x++) { line[2 * x] = row[x]; line[2 * x + 1] = 128; }
        }
        return (size_t)2 * w * h;
    }
    for (int y = 0; y < h; y++) {
        const uint8_t *row = picture + (size_t)y * w;
        uint8_t *line = out + (size_t)y * bytes_per_line(d->pixelformat, w);
        if (gain == 0 && grey) { memcpy(line, row, (size_t)w); continue; }
        for (int x = 0; x < w; x += 2) {
            uint64_t r = gain > 0 ? next_random(&d->noise_random) : 0;
            uint8_t a = gain > 0 ? noisy(d, row[x], (uint32_t)r) : row[x];
            uint8_t b = x + 1 < w ? (gain > 0 ? noisy(d, row[x + 1], (uint32_t)(r >> 32)) : row[x + 1]) : 0;
            if (grey) {
                line[x] = a;
                if (x + 1 < w) line[x + 1] = b;
            } else {
                line[2 * x] = a;
                line[2 * x + 1] = 128;
                if (x + 1 < w) { line[2 * x + 2] = b; line[2 * x + 3] = 128; }
            }
        }
    }
    return (size_t)bytes_per_line(d->pixelformat, w) * h;
}

// ---------------------------------------------------------------------------------------------------------
// Descriptors

static device *device_of(int fd) {
    if (fd < 0 || !fake.open_fds) return NULL;
    for (int i = 0; i < kMaxFds; i++)
        if (fake.fds[i].fd == fd) return &fake.device[fake.fds[i].device];
    return NULL;
}

static device *device_at(const char *path) {
    for (int i = 0; path && i < fake.devices; i++)
        if (strcmp(path, fake.device[i].path) == 0) return &fake.device[i];
    return NULL;
}

// The largest frame of any mode of the camera (the buffers hold any of them, so S_FMT never reallocates).
static size_t largest_frame(device *d) {
    size_t largest = 0;
    int count;
    const format *list = formats(d, &count);
    for (int i = 0; i < count; i++)
        for (int j = 0; j < list[i].count; j++) {
            size_t n = size_image(list[i].fourcc, list[i].sizes[j].width, list[i].sizes[j].height);
            if (n > largest) largest = n;
        }
    long page = sysconf(_SC_PAGESIZE);
    return (largest + 65536 + (size_t)page - 1) / (size_t)page * (size_t)page;
}

static int open_fake(device *d, int flags) {
    if (d->gone) return fail(ENOENT); // the device node went with the camera
    pthread_mutex_lock(&d->lock);
    int usable = load_sources(d);
    if (usable && !d->controls_loaded) {
        power_on_controls(d);
        power_on_mode(d);
        d->buffer_capacity = largest_frame(d);
    }
    pthread_mutex_unlock(&d->lock);
    if (!usable) return fail(ENOENT);
    int fd = real_open("/dev/null", O_RDONLY | (flags & O_CLOEXEC)); // a real descriptor: select() finds it readable at once
    for (int i = 0; i < kMaxFds && fd >= 0; i++)
        if (fake.fds[i].fd < 0) {
            fake.fds[i].fd = fd;
            fake.fds[i].device = d->number;
            fake.open_fds++;
            return fd;
        }
    if (fd >= 0) real_close(fd);
    return fail(EBUSY);
}

// ---------------------------------------------------------------------------------------------------------
// The ioctls

static void query_control(device *d, int c, struct v4l2_query_ext_ctrl *q) {
    const control *k = &kControlTable[c];
    memset(q, 0, sizeof *q);
    q->id = k->id;
    q->type = k->type;
    snprintf(q->name, sizeof q->name, "%s", k->name);
    if (!is_class(c)) {
        q->minimum = k->minimum;
        q->maximum = k->maximum;
        q->step = (uint64_t)k->step;
        q->default_value = k->default_value;
        q->elem_size = 4;
    }
    q->elems = 1;
    q->flags = k->flags | (is_inactive(d, c) ? V4L2_CTRL_FLAG_INACTIVE : 0);
}

// The control VIDIOC_QUERYCTRL / QUERY_EXT_CTRL ask for: the id, or the next one after it.
static int queried_control(uint32_t id) {
    if (id & V4L2_CTRL_FLAG_NEXT_CTRL) {
        uint32_t after = id & V4L2_CTRL_ID_MASK;
        for (int c = 0; c < kControls; c++)
            if (kControlTable[c].id > after) return c;
        return -1;
    }
    if (id & V4L2_CTRL_FLAG_NEXT_COMPOUND) return -1; // no compound controls
    return find_control(id);
}

// uvc_ctrl_is_accessible(): 0, or the error for control `i` of the call.
static int accessible(device *d, const struct v4l2_ext_controls *list, uint32_t i, unsigned long request) {
    int c = find_control(list->controls[i].id);
    if (c < 0) return EINVAL;
    if (is_class(c)) return EACCES;
    if (request == VIDIOC_G_EXT_CTRLS) return 0;
    if (kControlTable[c].flags & V4L2_CTRL_FLAG_READ_ONLY) return EACCES;
    int master = kControlTable[c].master;
    if (request != VIDIOC_S_EXT_CTRLS || master < 0) return 0;
    for (int j = (int)list->count - 1; j >= 0; j--) // the master's last value in this call, if it is in it
        if (list->controls[j].id == kControlTable[master].id)
            return list->controls[j].value == kControlTable[c].manual ? 0 : EACCES;
    return d->value[master] == kControlTable[c].manual ? 0 : EACCES;
}

static int ext_controls(device *d, unsigned long request, struct v4l2_ext_controls *list) {
    if (list->count == 0) return 0;
    if (list->count > V4L2_CID_MAX_CTRLS) return fail(EINVAL);
    uint32_t which = list->which;
    if (which == V4L2_CTRL_WHICH_REQUEST_VAL || (which == V4L2_CTRL_WHICH_DEF_VAL && request != VIDIOC_G_EXT_CTRLS)) {
        list->error_idx = list->count;
        return fail(EINVAL);
    }
    for (uint32_t i = 0; i < list->count; i++) // the V4L2 core: a class asked for holds every control
        if (which != V4L2_CTRL_WHICH_CUR_VAL && which != V4L2_CTRL_WHICH_DEF_VAL && V4L2_CTRL_ID2WHICH(list->controls[i].id) != which) {
            list->error_idx = i;
            return fail(EINVAL);
        }
    for (uint32_t i = 0; i < list->count; i++) {
        int error = accessible(d, list, i, request);
        if (error) {
            list->error_idx = request == VIDIOC_TRY_EXT_CTRLS ? i : list->count;
            return fail(error);
        }
    }
    if (request == VIDIOC_G_EXT_CTRLS) {
        for (uint32_t i = 0; i < list->count; i++) {
            int c = find_control(list->controls[i].id);
            list->controls[i].value = which == V4L2_CTRL_WHICH_DEF_VAL ? kControlTable[c].default_value : current_value(d, c);
        }
        return 0;
    }
    int32_t values[kControls];
    int changed[kControls] = {0};
    memcpy(values, d->value, sizeof values);
    for (uint32_t i = 0; i < list->count; i++) {
        int c = find_control(list->controls[i].id);
        int32_t value = list->controls[i].value;
        int error = clamp_value(c, &value);
        if (error) {
            list->error_idx = request == VIDIOC_S_EXT_CTRLS ? list->count : i;
            return fail(error);
        }
        list->controls[i].value = value;
        values[c] = value;
        changed[c] = 1;
    }
    list->error_idx = 0;
    if (request == VIDIOC_TRY_EXT_CTRLS) return 0;
    for (int c = 0; c < kControls; c++) // in table order: focus_absolute before focus_automatic_continuous
        if (changed[c] && c != cFocusAuto) apply_value(d, c, values[c]);
    if (changed[cFocusAuto]) apply_value(d, cFocusAuto, values[cFocusAuto]);
    save_state(d);
    return 0;
}

// A buffer's length as vb2 gives it: the format's sizeimage, in whole pages (each buffer holds more).
static size_t buffer_length(device *d) {
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    return (size_image(d->pixelformat, d->width, d->height) + page - 1) / page * page;
}

static void stop_streaming(device *d) {
    d->streaming = 0;
    d->clock_started = 0;
    for (int i = 0; i < kMaxBuffers; i++) d->queued[i] = 0;
}

// Waits until frame `sequence` of this stream is due: the stream's own clock, not the reader's pace.
static struct timespec wait_for_frame(device *d) {
    if (!d->clock_started) {
        clock_gettime(CLOCK_MONOTONIC, &d->start);
        d->clock_started = 1;
    }
    long long due = (long long)d->start.tv_sec * 1000000000LL + d->start.tv_nsec +
                    (long long)d->sequence * 1000000000LL * d->frame_interval.numerator / d->frame_interval.denominator;
    struct timespec at = {(time_t)(due / 1000000000LL), (long)(due % 1000000000LL)};
    pthread_mutex_unlock(&d->lock);
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL) == EINTR) {}
    pthread_mutex_lock(&d->lock);
    return at;
}

static int dequeue(device *d, int fd, struct v4l2_buffer *b) {
    if (b->type != V4L2_BUF_TYPE_VIDEO_CAPTURE || b->memory != V4L2_MEMORY_MMAP) return fail(EINVAL);
    if (!d->streaming) return fail(EINVAL);
    int index = -1;
    for (int k = 0; k < d->buffer_count && index < 0; k++) {
        int i = (d->next_buffer + k) % d->buffer_count;
        if (d->queued[i]) index = i;
    }
    if (index < 0) return fail(EAGAIN);
    struct timespec at = wait_for_frame(d);
    if (!d->streaming || !d->queued[index] || d->owner_fd != fd) return fail(EINVAL); // stopped meanwhile
    if (d->gone) return fail(ENODEV);
    hunt(d);
    render(d);
    size_t used = fill(d, d->buffers[index]);
    if (d->bad_every > 0 && (d->total + 1) % d->bad_every == 0) used /= 2; // damaged on the way (a flaky USB link)
    d->queued[index] = 0;
    d->next_buffer = (index + 1) % d->buffer_count;
    memset(b, 0, sizeof *b);
    b->index = (uint32_t)index;
    b->type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    b->memory = V4L2_MEMORY_MMAP;
    b->bytesused = (uint32_t)used;
    b->length = (uint32_t)buffer_length(d);
    b->m.offset = (uint32_t)(index * d->buffer_capacity);
    b->field = V4L2_FIELD_NONE;
    b->flags = V4L2_BUF_FLAG_MAPPED | V4L2_BUF_FLAG_TIMESTAMP_MONOTONIC | V4L2_BUF_FLAG_TSTAMP_SRC_SOE;
    b->timestamp.tv_sec = at.tv_sec;
    b->timestamp.tv_usec = at.tv_nsec / 1000;
    b->sequence = d->sequence++;
    d->total++;
    if (fake.allocations && d->count_from > 0 && d->total == d->count_from) d->allocations_from = fake.allocations(&d->bytes_from);
    if (d->frames_before_interrupt > 0 && d->total == d->frames_before_interrupt) {
        if (fake.allocations && d->count_from > 0 && d->count_from < d->total) {
            long bytes = 0, count = fake.allocations(&bytes);
            char line[400]; // no stdio: printing must not allocate
            int n = snprintf(line, sizeof line, "fake camera: %ld heap allocations (%ld bytes) in frames %ld-%ld%s%s\n",
                             count - d->allocations_from, bytes - d->bytes_from, d->count_from + 1, d->total,
                             fake.devices > 1 ? " on " : "", fake.devices > 1 ? d->path : "");
            if (n > 0) (void)!write(2, line, (size_t)(n < (int)sizeof line ? n : (int)sizeof line - 1));
        }
        kill(getpid(), SIGINT);
    }
    if (d->unplug_after > 0 && d->total >= d->unplug_after) {
        d->gone = 1;
        // A UVC camera keeps its controls only while powered: plugged in again, it starts at its power-on
        // values, so the state file (the camera's memory) goes with it.
        if (d->state_file[0]) unlink(d->state_file);
    }
    return 0;
}

static int fake_ioctl(device *d, int fd, unsigned long request, void *arg) {
    if (d->gone) return fail(ENODEV);
    switch (request) {
    case VIDIOC_QUERYCAP: {
        struct v4l2_capability *c = arg;
        memset(c, 0, sizeof *c);
        if (d->model == kModelImage) {
            copy_name(c->driver, sizeof c->driver, "markerkit-fake");
            copy_name(c->card, sizeof c->card, "MarkerKit test camera");
            snprintf((char *)c->bus_info, sizeof c->bus_info, "fake:%d", d->number);
            c->device_caps = V4L2_CAP_VIDEO_CAPTURE | V4L2_CAP_STREAMING;
            c->capabilities = c->device_caps | V4L2_CAP_DEVICE_CAPS;
        } else {
            copy_name(c->driver, sizeof c->driver, "uvcvideo");
            copy_name(c->card, sizeof c->card, "HD Pro Webcam C920");
            snprintf((char *)c->bus_info, sizeof c->bus_info, "usb-0000:00:14.0-%d", d->number + 1);
            struct utsname u;
            unsigned major = 0, minor = 0, patch = 0;
            if (uname(&u) == 0) sscanf(u.release, "%u.%u.%u", &major, &minor, &patch);
            c->version = (major << 16) | (minor << 8) | (patch > 255 ? 255 : patch);
            c->device_caps = V4L2_CAP_VIDEO_CAPTURE | V4L2_CAP_STREAMING | V4L2_CAP_EXT_PIX_FORMAT;
            c->capabilities = c->device_caps | V4L2_CAP_META_CAPTURE | V4L2_CAP_DEVICE_CAPS;
        }
        return 0;
    }
    case VIDIOC_ENUM_FMT: {
        struct v4l2_fmtdesc *f = arg;
        int count;
        const format *list = formats(d, &count);
        if (f->type != V4L2_BUF_TYPE_VIDEO_CAPTURE || f->index >= (uint32_t)count) return fail(EINVAL);
        uint32_t index = f->index;
        memset(f, 0, sizeof *f);
        f->index = index;
        f->type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
        f->flags = list[index].flags;
        f->pixelformat = list[index].fourcc;
        copy_name(f->description, sizeof f->description, list[index].description);
        return 0;
    }
    case VIDIOC_ENUM_FRAMESIZES: {
        struct v4l2_frmsizeenum *s = arg;
        const format *f = find_format(d, s->pixel_format);
        if (!f || s->index >= (uint32_t)f->count) return fail(EINVAL);
        s->type = V4L2_FRMSIZE_TYPE_DISCRETE;
        s->discrete.width = f->sizes[s->index].width;
        s->discrete.height = f->sizes[s->index].height;
        return 0;
    }
    case VIDIOC_ENUM_FRAMEINTERVALS: {
        struct v4l2_frmivalenum *i = arg;
        const format *f = find_format(d, i->pixel_format);
        const frame_size *size = f ? find_size(f, (int)i->width, (int)i->height) : NULL;
        if (!size || i->index >= (uint32_t)size_intervals(d, size)) return fail(EINVAL);
        interval v = size_interval(d, size, (int)i->index);
        i->type = V4L2_FRMIVAL_TYPE_DISCRETE;
        i->discrete.numerator = v.numerator;
        i->discrete.denominator = v.denominator;
        return 0;
    }
    case VIDIOC_G_FMT: {
        struct v4l2_format *f = arg;
        if (f->type != V4L2_BUF_TYPE_VIDEO_CAPTURE) return fail(EINVAL);
        fill_format(d, &f->fmt.pix, d->pixelformat, d->width, d->height);
        return 0;
    }
    case VIDIOC_S_FMT: case VIDIOC_TRY_FMT: {
        struct v4l2_format *f = arg;
        if (f->type != V4L2_BUF_TYPE_VIDEO_CAPTURE) return fail(EINVAL);
        const format *chosen = find_format(d, f->fmt.pix.pixelformat);
        if (!chosen) chosen = &formats(d, &(int){0})[0]; // the default format, whatever was asked
        const frame_size *size = nearest_size(chosen, f->fmt.pix.width, f->fmt.pix.height);
        if (request == VIDIOC_S_FMT) {
            if (d->buffer_count > 0 || d->streaming) return fail(EBUSY);
            d->pixelformat = chosen->fourcc;
            d->width = size->width;
            d->height = size->height;
            d->frame_interval = size_interval(d, size, 0); // the size's default: its fastest
            d->rendered = 0;
        }
        fill_format(d, &f->fmt.pix, chosen->fourcc, size->width, size->height);
        return 0;
    }
    case VIDIOC_G_PARM: case VIDIOC_S_PARM: {
        struct v4l2_streamparm *p = arg;
        if (p->type != V4L2_BUF_TYPE_VIDEO_CAPTURE) return fail(EINVAL);
        if (request == VIDIOC_S_PARM) {
            if (d->streaming) return fail(EBUSY);
            const frame_size *size = find_size(find_format(d, d->pixelformat), d->width, d->height);
            d->frame_interval = nearest_interval(d, size, (interval){p->parm.capture.timeperframe.numerator, p->parm.capture.timeperframe.denominator});
        }
        memset(&p->parm, 0, sizeof p->parm);
        p->parm.capture.capability = V4L2_CAP_TIMEPERFRAME;
        p->parm.capture.timeperframe.numerator = d->frame_interval.numerator;
        p->parm.capture.timeperframe.denominator = d->frame_interval.denominator;
        return 0;
    }
    case VIDIOC_REQBUFS: {
        struct v4l2_requestbuffers *r = arg;
        if (r->type != V4L2_BUF_TYPE_VIDEO_CAPTURE || r->memory != V4L2_MEMORY_MMAP) return fail(EINVAL);
        if (d->owner_fd >= 0 && d->owner_fd != fd) return fail(EBUSY); // another descriptor streams
        if (d->streaming) return fail(EBUSY);
        if (r->count == 0) {
            d->buffer_count = 0;
            d->owner_fd = -1;
            return 0;
        }
        uint32_t count = r->count < 2 ? 2 : r->count > kMaxBuffers ? kMaxBuffers : r->count;
        for (uint32_t i = 0; i < count; i++)
            if (!d->buffers[i] && !(d->buffers[i] = zeroed_pages(d->buffer_capacity))) return fail(ENOMEM);
        if (!prepare(d) || (d->pixelformat == V4L2_PIX_FMT_MJPEG && !prepare_jpeg(d))) return fail(ENOMEM);
        memset(r->reserved, 0, sizeof r->reserved);
        r->capabilities = V4L2_BUF_CAP_SUPPORTS_MMAP;
        r->count = count;
        d->buffer_count = (int)count;
        d->owner_fd = fd;
        for (int i = 0; i < kMaxBuffers; i++) d->queued[i] = 0;
        d->next_buffer = 0;
        return 0;
    }
    case VIDIOC_QUERYBUF: case VIDIOC_QBUF: {
        struct v4l2_buffer *b = arg;
        if (b->type != V4L2_BUF_TYPE_VIDEO_CAPTURE || b->index >= (uint32_t)d->buffer_count) return fail(EINVAL);
        if (request == VIDIOC_QBUF) {
            if (b->memory != V4L2_MEMORY_MMAP || d->owner_fd != fd) return fail(EINVAL);
            if (d->queued[b->index]) return fail(EINVAL); // vb2: already queued
            d->queued[b->index] = 1;
        }
        b->memory = V4L2_MEMORY_MMAP;
        b->length = (uint32_t)buffer_length(d);
        b->m.offset = (uint32_t)(b->index * d->buffer_capacity);
        b->flags = V4L2_BUF_FLAG_MAPPED | V4L2_BUF_FLAG_TIMESTAMP_MONOTONIC | V4L2_BUF_FLAG_TSTAMP_SRC_SOE |
                   (d->queued[b->index] ? V4L2_BUF_FLAG_QUEUED : 0);
        b->field = V4L2_FIELD_NONE;
        return 0;
    }
    case VIDIOC_DQBUF:
        return d->owner_fd == fd ? dequeue(d, fd, arg) : fail(EINVAL);
    case VIDIOC_STREAMON: case VIDIOC_STREAMOFF: {
        if (*(int *)arg != V4L2_BUF_TYPE_VIDEO_CAPTURE) return fail(EINVAL);
        if (request == VIDIOC_STREAMOFF) {
            if (d->owner_fd == fd) stop_streaming(d);
            return 0;
        }
        if (d->buffer_count == 0 || d->owner_fd != fd) return fail(EINVAL);
        if (!d->streaming) {
            d->streaming = 1;
            d->sequence = 0;
            d->clock_started = 0;
        }
        return 0;
    }
    case VIDIOC_ENUMINPUT: {
        struct v4l2_input *i = arg;
        if (i->index != 0) return fail(EINVAL);
        memset(i, 0, sizeof *i);
        copy_name(i->name, sizeof i->name, "Camera 1");
        i->type = V4L2_INPUT_TYPE_CAMERA;
        return 0;
    }
    case VIDIOC_G_INPUT:
        *(int *)arg = 0;
        return 0;
    case VIDIOC_S_INPUT:
        return *(int *)arg == 0 ? 0 : fail(EINVAL);
    case VIDIOC_G_PRIORITY:
        *(uint32_t *)arg = V4L2_PRIORITY_DEFAULT;
        return 0;
    case VIDIOC_S_PRIORITY:
        return 0;
    case VIDIOC_G_SELECTION: {
        struct v4l2_selection *s = arg;
        if (s->type != V4L2_BUF_TYPE_VIDEO_CAPTURE || (s->target != V4L2_SEL_TGT_CROP_DEFAULT && s->target != V4L2_SEL_TGT_CROP_BOUNDS))
            return fail(EINVAL);
        s->r = (struct v4l2_rect){0, 0, (uint32_t)d->width, (uint32_t)d->height};
        return 0;
    }
    case VIDIOC_CROPCAP: {
        struct v4l2_cropcap *c = arg;
        if (c->type != V4L2_BUF_TYPE_VIDEO_CAPTURE) return fail(EINVAL);
        c->bounds = c->defrect = (struct v4l2_rect){0, 0, (uint32_t)d->width, (uint32_t)d->height};
        c->pixelaspect = (struct v4l2_fract){1, 1};
        return 0;
    }
    case VIDIOC_SUBSCRIBE_EVENT: case VIDIOC_UNSUBSCRIBE_EVENT:
        return 0; // accepted; this camera raises no events
    case VIDIOC_DQEVENT:
        return fail(ENOENT);
    case VIDIOC_QUERYCTRL: {
        struct v4l2_queryctrl *q = arg;
        int c = queried_control(q->id);
        if (c < 0) return fail(EINVAL);
        struct v4l2_query_ext_ctrl e;
        query_control(d, c, &e);
        memset(q, 0, sizeof *q);
        q->id = e.id;
        q->type = e.type;
        memcpy(q->name, e.name, sizeof q->name);
        q->minimum = (int32_t)e.minimum;
        q->maximum = (int32_t)e.maximum;
        q->step = (int32_t)e.step;
        q->default_value = (int32_t)e.default_value;
        q->flags = e.flags;
        return 0;
    }
    case VIDIOC_QUERY_EXT_CTRL: {
        struct v4l2_query_ext_ctrl *q = arg;
        int c = queried_control(q->id);
        if (c < 0) return fail(EINVAL);
        query_control(d, c, q);
        return 0;
    }
    case VIDIOC_QUERYMENU: {
        struct v4l2_querymenu *m = arg;
        int c = find_control(m->id);
        if (c < 0 || kControlTable[c].type != V4L2_CTRL_TYPE_MENU || m->index > 31 || !(kControlTable[c].menu_offered & (1u << m->index)))
            return fail(EINVAL);
        memset(m->name, 0, sizeof m->name);
        snprintf((char *)m->name, sizeof m->name, "%s", kControlTable[c].menu[m->index]);
        m->reserved = 0;
        return 0;
    }
    case VIDIOC_G_CTRL: case VIDIOC_S_CTRL: {
        // As the V4L2 core does for uvcvideo: one control through the extended controls.
        struct v4l2_control *control = arg;
        struct v4l2_ext_control one = {.id = control->id, .value = control->value};
        struct v4l2_ext_controls list = {.which = V4L2_CTRL_WHICH_CUR_VAL, .count = 1, .controls = &one};
        int result = ext_controls(d, request == VIDIOC_G_CTRL ? VIDIOC_G_EXT_CTRLS : VIDIOC_S_EXT_CTRLS, &list);
        if (result == 0) control->value = one.value;
        return result;
    }
    case VIDIOC_G_EXT_CTRLS: case VIDIOC_S_EXT_CTRLS: case VIDIOC_TRY_EXT_CTRLS:
        return ext_controls(d, request, arg);
    default:
        return fail(ENOTTY);
    }
}

// ---------------------------------------------------------------------------------------------------------
// The intercepted calls

// The mode argument of open(2), present only when a file may be created.
#define OPEN_MODE(mode, flags)                                                 \
    do {                                                                       \
        va_list list;                                                          \
        va_start(list, flags);                                                 \
        mode = (flags & (O_CREAT | O_TMPFILE)) ? va_arg(list, mode_t) : 0;     \
        va_end(list);                                                          \
    } while (0)

// -2: not a camera's path.
static int open_camera(const char *path, int flags) {
    pthread_mutex_lock(&fake.lock);
    load();
    device *d = device_at(path);
    int fd = d ? open_fake(d, flags) : -2;
    pthread_mutex_unlock(&fake.lock);
    return fd;
}

int open(const char *path, int flags, ...) {
    mode_t mode;
    OPEN_MODE(mode, flags);
    int fd = open_camera(path, flags);
    return fd == -2 ? real_open(path, flags, mode) : fd;
}

int open64(const char *path, int flags, ...) {
    mode_t mode;
    OPEN_MODE(mode, flags);
    int fd = open_camera(path, flags);
    return fd == -2 ? real_open(path, flags, mode) : fd;
}

int __open_2(const char *path, int flags) { // what _FORTIFY_SOURCE makes of open() (v4l2-ctl calls it)
    int fd = open_camera(path, flags);
    return fd == -2 ? real_open(path, flags) : fd;
}

int __open64_2(const char *path, int flags) { return __open_2(path, flags); }

int openat(int dir, const char *path, int flags, ...) {
    mode_t mode;
    OPEN_MODE(mode, flags);
    int fd = (dir == AT_FDCWD || path[0] == '/') ? open_camera(path, flags) : -2;
    return fd == -2 ? real_openat(dir, path, flags, mode) : fd;
}

int openat64(int dir, const char *path, int flags, ...) {
    mode_t mode;
    OPEN_MODE(mode, flags);
    int fd = (dir == AT_FDCWD || path[0] == '/') ? open_camera(path, flags) : -2;
    return fd == -2 ? real_openat(dir, path, flags, mode) : fd;
}

int __openat_2(int dir, const char *path, int flags) { return openat(dir, path, flags); }

int __openat64_2(int dir, const char *path, int flags) { return openat(dir, path, flags); }

// stat() of a camera's path: a character device (v4l2-ctl will not open a path it cannot stat; MarkerKit
// takes any character device for a camera), of major 81 as V4L2 nodes are. -2: not a camera's path.
static int stat_camera(const char *path, struct stat *st) {
    pthread_mutex_lock(&fake.lock);
    load();
    device *d = device_at(path);
    int result = !d ? -2 : d->gone ? fail(ENOENT) : 0;
    pthread_mutex_unlock(&fake.lock);
    if (result == 0) {
        memset(st, 0, sizeof *st);
        st->st_mode = S_IFCHR | 0660;
        st->st_rdev = makedev(81, 200 + d->number);
        st->st_nlink = 1;
        st->st_blksize = 4096;
    }
    return result;
}

int stat(const char *path, struct stat *st) {
    int result = stat_camera(path, st);
    if (result != -2) return result;
    int (*real)(const char *, struct stat *) = dlsym(RTLD_NEXT, "stat");
    return real(path, st);
}

int lstat(const char *path, struct stat *st) {
    int result = stat_camera(path, st);
    if (result != -2) return result;
    int (*real)(const char *, struct stat *) = dlsym(RTLD_NEXT, "lstat");
    return real(path, st);
}

int stat64(const char *path, struct stat64 *st) {
    int result = stat_camera(path, (struct stat *)st);
    if (result != -2) return result;
    int (*real)(const char *, struct stat64 *) = dlsym(RTLD_NEXT, "stat64");
    return real(path, st);
}

int lstat64(const char *path, struct stat64 *st) {
    int result = stat_camera(path, (struct stat *)st);
    if (result != -2) return result;
    int (*real)(const char *, struct stat64 *) = dlsym(RTLD_NEXT, "lstat64");
    return real(path, st);
}

int fstatat(int dir, const char *path, struct stat *st, int flags) {
    int result = (dir == AT_FDCWD || path[0] == '/') && path[0] ? stat_camera(path, st) : -2;
    if (result != -2) return result;
    int (*real)(int, const char *, struct stat *, int) = dlsym(RTLD_NEXT, "fstatat");
    return real(dir, path, st, flags);
}

int fstatat64(int dir, const char *path, struct stat64 *st, int flags) {
    int result = (dir == AT_FDCWD || path[0] == '/') && path[0] ? stat_camera(path, (struct stat *)st) : -2;
    if (result != -2) return result;
    int (*real)(int, const char *, struct stat64 *, int) = dlsym(RTLD_NEXT, "fstatat64");
    return real(dir, path, st, flags);
}

// v4l2-ctl finds what a node is from /sys/dev/char/MAJOR:MINOR/uevent (read with an ifstream: fopen64):
// the camera's says it is a video node.
static FILE *uevent(const char *path) {
    unsigned major_number, minor_number;
    char end;
    if (sscanf(path, "/sys/dev/char/%u:%u/uevent%c", &major_number, &minor_number, &end) != 2 || major_number != 81) return NULL;
    pthread_mutex_lock(&fake.lock);
    load();
    device *d = minor_number >= 200 && minor_number < 200u + (unsigned)fake.devices ? &fake.device[minor_number - 200] : NULL;
    pthread_mutex_unlock(&fake.lock);
    if (!d) return NULL;
    char text[128]; // v4l2-ctl wants "video" and a digit
    int n = snprintf(text, sizeof text, "MAJOR=81\nMINOR=%u\nDEVNAME=video%u\n", minor_number, minor_number);
    int ends[2]; // a pipe holding the text: libstdc++ reads the FILE's descriptor, so fmemopen will not do
    if (pipe2(ends, O_CLOEXEC) != 0) return NULL;
    ssize_t written = write(ends[1], text, (size_t)n);
    real_close(ends[1]);
    FILE *f = written == n ? fdopen(ends[0], "r") : NULL;
    if (!f) real_close(ends[0]);
    return f;
}

FILE *fopen(const char *path, const char *mode) {
    FILE *f = path ? uevent(path) : NULL;
    if (f) return f;
    FILE *(*real)(const char *, const char *) = dlsym(RTLD_NEXT, "fopen");
    return real(path, mode);
}

FILE *fopen64(const char *path, const char *mode) {
    FILE *f = path ? uevent(path) : NULL;
    if (f) return f;
    FILE *(*real)(const char *, const char *) = dlsym(RTLD_NEXT, "fopen64");
    return real(path, mode);
}

int access(const char *path, int mode) {
    struct stat st;
    int result = stat_camera(path, &st);
    if (result != -2) return result;
    int (*real)(const char *, int) = dlsym(RTLD_NEXT, "access");
    return real(path, mode);
}

int close(int fd) {
    resolve();
    if (!fake.open_fds) return real_close(fd);
    pthread_mutex_lock(&fake.lock);
    for (int i = 0; i < kMaxFds; i++)
        if (fake.fds[i].fd == fd && fd >= 0) {
            device *d = &fake.device[fake.fds[i].device];
            pthread_mutex_lock(&d->lock);
            if (d->owner_fd == fd) { // closing the streaming descriptor frees its queue, as vb2 does
                stop_streaming(d);
                d->buffer_count = 0;
                d->owner_fd = -1;
            }
            pthread_mutex_unlock(&d->lock);
            fake.fds[i].fd = -1;
            fake.open_fds--;
        }
    pthread_mutex_unlock(&fake.lock);
    return real_close(fd);
}

int ioctl(int fd, unsigned long request, ...) {
    va_list list;
    va_start(list, request);
    void *arg = va_arg(list, void *);
    va_end(list);
    resolve();
    pthread_mutex_lock(&fake.lock);
    load();
    device *d = device_of(fd);
    pthread_mutex_unlock(&fake.lock);
    if (!d) return real_ioctl(fd, request, arg);
    pthread_mutex_lock(&d->lock);
    int result = fake_ioctl(d, fd, request, arg);
    int code = errno;
    pthread_mutex_unlock(&d->lock);
    errno = code;
    return result;
}

static void *map_buffer(device *d, size_t length, int64_t offset) {
    if (d->gone) { errno = ENODEV; return MAP_FAILED; }
    size_t index = d->buffer_capacity ? (size_t)offset / d->buffer_capacity : kMaxBuffers;
    if (index >= (size_t)d->buffer_count || !d->buffers[index] || length > d->buffer_capacity || (size_t)offset % d->buffer_capacity) {
        errno = EINVAL;
        return MAP_FAILED;
    }
    return d->buffers[index];
}

static int is_buffer(void *start) {
    for (int k = 0; start && k < fake.devices; k++)
        for (int i = 0; i < kMaxBuffers; i++)
            if (start == fake.device[k].buffers[i]) return 1;
    return 0;
}

void *mmap(void *start, size_t length, int prot, int flags, int fd, off_t offset) {
    resolve();
    device *d = fd >= 0 && fake.open_fds ? device_of(fd) : NULL;
    return d ? map_buffer(d, length, offset) : real_mmap(start, length, prot, flags, fd, offset);
}

void *mmap64(void *start, size_t length, int prot, int flags, int fd, off_t offset) { return mmap(start, length, prot, flags, fd, offset); }

int munmap(void *start, size_t length) {
    resolve();
    return is_buffer(start) ? 0 : real_munmap(start, length); // the buffers are kept for the process's life
}

// select/poll: an unplugged camera's descriptors are ready at once, with an error (see the header); the rest
// is the real call (a live camera's descriptor is /dev/null's: readable at once).
static int is_gone(int fd) {
    device *d = fake.open_fds ? device_of(fd) : NULL;
    return d && d->gone;
}

static int select_gone(int n, fd_set *r, fd_set *w, fd_set *e, int *gone, int *count) {
    *count = 0;
    for (int i = 0; i < kMaxFds; i++) {
        int fd = fake.fds[i].fd;
        if (fd < 0 || fd >= n || fd >= FD_SETSIZE || !fake.device[fake.fds[i].device].gone) continue;
        int bits = (r && FD_ISSET(fd, r) ? 1 : 0) | (w && FD_ISSET(fd, w) ? 2 : 0) | (e && FD_ISSET(fd, e) ? 4 : 0);
        if (!bits) continue;
        gone[2 * *count] = fd;
        gone[2 * *count + 1] = bits;
        (*count)++;
        if (r) FD_CLR(fd, r);
        if (w) FD_CLR(fd, w);
        if (e) FD_CLR(fd, e);
    }
    return *count;
}

static int select_report(int result, fd_set *r, fd_set *w, fd_set *e, const int *gone, int count) {
    if (result < 0) return result;
    for (int i = 0; i < count; i++) {
        int fd = gone[2 * i], bits = gone[2 * i + 1];
        if (bits & 1) { FD_SET(fd, r); result++; }
        if (bits & 2) { FD_SET(fd, w); result++; }
        if (bits & 4) { FD_SET(fd, e); result++; }
    }
    return result;
}

int select(int n, fd_set *r, fd_set *w, fd_set *e, struct timeval *timeout) {
    resolve();
    int gone[2 * kMaxFds], count;
    if (!fake.open_fds || !select_gone(n, r, w, e, gone, &count)) return real_select(n, r, w, e, timeout);
    struct timeval now = {0, 0};
    return select_report(real_select(n, r, w, e, &now), r, w, e, gone, count);
}

int pselect(int n, fd_set *r, fd_set *w, fd_set *e, const struct timespec *timeout, const sigset_t *mask) {
    resolve();
    int gone[2 * kMaxFds], count;
    if (!fake.open_fds || !select_gone(n, r, w, e, gone, &count)) return real_pselect(n, r, w, e, timeout, mask);
    struct timespec now = {0, 0};
    return select_report(real_pselect(n, r, w, e, &now, mask), r, w, e, gone, count);
}

static int poll_any(struct pollfd *fds, nfds_t n, int timeout_ms, const struct timespec *timeout, const sigset_t *mask, int is_ppoll) {
    resolve();
    int gone = 0;
    for (nfds_t i = 0; fake.open_fds && i < n; i++) gone += is_gone(fds[i].fd);
    if (!gone) return is_ppoll ? real_ppoll(fds, n, timeout, mask) : real_poll(fds, n, timeout_ms);
    int saved[64];
    nfds_t at[64];
    int count = 0;
    for (nfds_t i = 0; i < n && count < 64; i++)
        if (is_gone(fds[i].fd)) { // left out of the real call
            saved[count] = fds[i].fd;
            at[count++] = i;
            fds[i].fd = -1;
        }
    struct timespec now = {0, 0};
    int result = is_ppoll ? real_ppoll(fds, n, &now, mask) : real_poll(fds, n, 0);
    if (result < 0) result = 0;
    for (int k = 0; k < count; k++) {
        fds[at[k]].fd = saved[k];
        fds[at[k]].revents = (short)(POLLERR | POLLHUP | (fds[at[k]].events & POLLPRI));
        result++;
    }
    return result;
}

int poll(struct pollfd *fds, nfds_t n, int timeout) { return poll_any(fds, n, timeout, NULL, NULL, 0); }

int __poll_chk(struct pollfd *fds, nfds_t n, int timeout, size_t size) { (void)size; return poll_any(fds, n, timeout, NULL, NULL, 0); }

int ppoll(struct pollfd *fds, nfds_t n, const struct timespec *timeout, const sigset_t *mask) { return poll_any(fds, n, 0, timeout, mask, 1); }

// libv4l2's entry points, for the fake descriptors; libv4l2 itself for anything else.
int v4l2_open(const char *path, int flags, ...) {
    mode_t mode;
    OPEN_MODE(mode, flags);
    int fd = open_camera(path, flags);
    if (fd != -2) return fd;
    int (*real)(const char *, int, ...) = dlsym(RTLD_NEXT, "v4l2_open");
    return real(path, flags, mode);
}

int v4l2_close(int fd) {
    if (device_of(fd)) return close(fd);
    int (*real)(int) = dlsym(RTLD_NEXT, "v4l2_close");
    return real(fd);
}

int v4l2_ioctl(int fd, unsigned long request, ...) {
    va_list list;
    va_start(list, request);
    void *arg = va_arg(list, void *);
    va_end(list);
    if (device_of(fd)) return ioctl(fd, request, arg);
    int (*real)(int, unsigned long, ...) = dlsym(RTLD_NEXT, "v4l2_ioctl");
    return real(fd, request, arg);
}

void *v4l2_mmap(void *start, size_t length, int prot, int flags, int fd, int64_t offset) {
    device *d = device_of(fd);
    if (d) {
        pthread_mutex_lock(&d->lock);
        void *p = map_buffer(d, length, offset);
        pthread_mutex_unlock(&d->lock);
        return p;
    }
    void *(*real)(void *, size_t, int, int, int, int64_t) = dlsym(RTLD_NEXT, "v4l2_mmap");
    return real(start, length, prot, flags, fd, offset);
}

int v4l2_munmap(void *start, size_t length) {
    if (is_buffer(start)) return 0; // kept for the process's life
    int (*real)(void *, size_t) = dlsym(RTLD_NEXT, "v4l2_munmap");
    return real(start, length);
}
