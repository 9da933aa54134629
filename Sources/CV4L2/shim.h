// libv4l2 and the V4L2 kernel API (Debian: libv4l-dev). v4l2_open and v4l2_ioctl are variadic and the
// VIDIOC_* request codes are macros, so Swift sees neither: each use gets a static inline wrapper here.
#include <errno.h>
#include <fcntl.h>
#include <linux/videodev2.h>
#include <libv4l2.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/select.h>

#include <sys/ioctl.h>
#include <unistd.h>

/* Opens through libv4l2, after checking with plain open/ioctl that the node is a V4L2 device: libv4l2
 * prints its own complaints on stderr for anything else. Returns the fd, or -1 with errno set. */
static inline int cv4l2_open(const char *path) {
    int probe = open(path, O_RDWR | O_NONBLOCK);
    if (probe < 0) return -1;
    struct v4l2_capability capability;
    int r;
    do { r = ioctl(probe, VIDIOC_QUERYCAP, &capability); } while (r == -1 && errno == EINTR);
    int saved = errno;
    close(probe);
    if (r == -1) { errno = saved; return -1; }
    return v4l2_open(path, O_RDWR | O_NONBLOCK, 0);
}
static inline int cv4l2_close(int fd) { return v4l2_close(fd); }

/* Every ioctl retried on EINTR, as the V4L2 examples do. */
static inline int cv4l2_xioctl(int fd, unsigned long request, void *arg) {
    int r;
    do { r = v4l2_ioctl(fd, request, arg); } while (r == -1 && errno == EINTR);
    return r;
}

static inline int cv4l2_query_capability(int fd, struct v4l2_capability *c) { return cv4l2_xioctl(fd, VIDIOC_QUERYCAP, c); }
static inline int cv4l2_enum_format(int fd, struct v4l2_fmtdesc *f) { return cv4l2_xioctl(fd, VIDIOC_ENUM_FMT, f); }
static inline int cv4l2_enum_frame_size(int fd, struct v4l2_frmsizeenum *s) { return cv4l2_xioctl(fd, VIDIOC_ENUM_FRAMESIZES, s); }
static inline int cv4l2_enum_frame_interval(int fd, struct v4l2_frmivalenum *i) { return cv4l2_xioctl(fd, VIDIOC_ENUM_FRAMEINTERVALS, i); }
static inline int cv4l2_set_format(int fd, struct v4l2_format *f) { return cv4l2_xioctl(fd, VIDIOC_S_FMT, f); }
static inline int cv4l2_set_parameters(int fd, struct v4l2_streamparm *p) { return cv4l2_xioctl(fd, VIDIOC_S_PARM, p); }
static inline int cv4l2_request_buffers(int fd, struct v4l2_requestbuffers *r) { return cv4l2_xioctl(fd, VIDIOC_REQBUFS, r); }
static inline int cv4l2_query_buffer(int fd, struct v4l2_buffer *b) { return cv4l2_xioctl(fd, VIDIOC_QUERYBUF, b); }
static inline int cv4l2_queue_buffer(int fd, struct v4l2_buffer *b) { return cv4l2_xioctl(fd, VIDIOC_QBUF, b); }
static inline int cv4l2_dequeue_buffer(int fd, struct v4l2_buffer *b) { return cv4l2_xioctl(fd, VIDIOC_DQBUF, b); }
static inline int cv4l2_stream_on(int fd) { int t = V4L2_BUF_TYPE_VIDEO_CAPTURE; return cv4l2_xioctl(fd, VIDIOC_STREAMON, &t); }
static inline int cv4l2_stream_off(int fd) { int t = V4L2_BUF_TYPE_VIDEO_CAPTURE; return cv4l2_xioctl(fd, VIDIOC_STREAMOFF, &t); }
static inline void *cv4l2_mmap(int fd, size_t length, long long offset) {
    return v4l2_mmap(NULL, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (int64_t)offset);
}
static inline int cv4l2_munmap(void *start, size_t length) { return v4l2_munmap(start, length); }

/* Waits up to `milliseconds` for a frame: 1 ready, 0 timeout, -1 error. */
static inline int cv4l2_wait(int fd, int milliseconds) {
    fd_set set;
    FD_ZERO(&set);
    FD_SET(fd, &set);
    struct timeval timeout = { milliseconds / 1000, (milliseconds % 1000) * 1000 };
    int r;
    do { r = select(fd + 1, &set, NULL, NULL, &timeout); } while (r == -1 && errno == EINTR);
    return r;
}

static inline unsigned int cv4l2_cap_video_capture(void) { return V4L2_CAP_VIDEO_CAPTURE; }
static inline unsigned int cv4l2_cap_device_caps(void) { return V4L2_CAP_DEVICE_CAPS; }
static inline unsigned int cv4l2_cap_streaming(void) { return V4L2_CAP_STREAMING; }
static inline unsigned int cv4l2_buf_type_capture(void) { return V4L2_BUF_TYPE_VIDEO_CAPTURE; }
static inline unsigned int cv4l2_memory_mmap(void) { return V4L2_MEMORY_MMAP; }
static inline unsigned int cv4l2_field_any(void) { return V4L2_FIELD_ANY; }
static inline unsigned int cv4l2_frmsize_discrete(void) { return V4L2_FRMSIZE_TYPE_DISCRETE; }
static inline unsigned int cv4l2_frmival_discrete(void) { return V4L2_FRMIVAL_TYPE_DISCRETE; }
static inline unsigned int cv4l2_pix_yuyv(void) { return V4L2_PIX_FMT_YUYV; }
static inline unsigned int cv4l2_pix_grey(void) { return V4L2_PIX_FMT_GREY; }
static inline unsigned int cv4l2_pix_mjpeg(void) { return V4L2_PIX_FMT_MJPEG; }
static inline unsigned int cv4l2_pix_bgr24(void) { return V4L2_PIX_FMT_BGR24; }

/* Controls (VIDIOC_QUERY_EXT_CTRL, VIDIOC_QUERYMENU, VIDIOC_G/S_EXT_CTRLS of one control). */
static inline int cv4l2_query_ext_control(int fd, struct v4l2_query_ext_ctrl *q) { return cv4l2_xioctl(fd, VIDIOC_QUERY_EXT_CTRL, q); }
static inline int cv4l2_query_menu(int fd, struct v4l2_querymenu *m) { return cv4l2_xioctl(fd, VIDIOC_QUERYMENU, m); }
/* One control's value through the extended API (64-bit values), falling back to G_CTRL/S_CTRL for drivers
 * without it. On failure returns -1 with errno (EACCES: read-only or inactive, ERANGE: out of range). */
static inline int cv4l2_get_control(int fd, unsigned int id, long long *value, int is64) {
    struct v4l2_ext_control c; memset(&c, 0, sizeof c); c.id = id;
    struct v4l2_ext_controls cs; memset(&cs, 0, sizeof cs); cs.which = V4L2_CTRL_WHICH_CUR_VAL; cs.count = 1; cs.controls = &c;
    if (cv4l2_xioctl(fd, VIDIOC_G_EXT_CTRLS, &cs) == 0) { *value = is64 ? c.value64 : c.value; return 0; }
    if (errno != ENOTTY && errno != EINVAL) return -1;
    struct v4l2_control old; old.id = id; old.value = 0;
    if (cv4l2_xioctl(fd, VIDIOC_G_CTRL, &old) != 0) return -1;
    *value = old.value;
    return 0;
}
static inline int cv4l2_set_control(int fd, unsigned int id, long long value, int is64) {
    struct v4l2_ext_control c; memset(&c, 0, sizeof c); c.id = id;
    if (is64) c.value64 = value; else c.value = (int)value;
    struct v4l2_ext_controls cs; memset(&cs, 0, sizeof cs); cs.which = V4L2_CTRL_WHICH_CUR_VAL; cs.count = 1; cs.controls = &c;
    if (cv4l2_xioctl(fd, VIDIOC_S_EXT_CTRLS, &cs) == 0) return 0;
    if (errno != ENOTTY) return -1;
    struct v4l2_control old; old.id = id; old.value = (int)value;
    return cv4l2_xioctl(fd, VIDIOC_S_CTRL, &old);
}
static inline unsigned int cv4l2_ctrl_flag_next_ctrl(void) { return V4L2_CTRL_FLAG_NEXT_CTRL; }
static inline unsigned int cv4l2_ctrl_flag_disabled(void) { return V4L2_CTRL_FLAG_DISABLED; }
static inline unsigned int cv4l2_ctrl_flag_read_only(void) { return V4L2_CTRL_FLAG_READ_ONLY; }
static inline unsigned int cv4l2_ctrl_flag_inactive(void) { return V4L2_CTRL_FLAG_INACTIVE; }
static inline unsigned int cv4l2_ctrl_flag_write_only(void) { return V4L2_CTRL_FLAG_WRITE_ONLY; }
static inline unsigned int cv4l2_ctrl_flag_volatile(void) { return V4L2_CTRL_FLAG_VOLATILE; }
static inline unsigned int cv4l2_ctrl_flag_grabbed(void) { return V4L2_CTRL_FLAG_GRABBED; }
static inline unsigned int cv4l2_ctrl_type_integer(void) { return V4L2_CTRL_TYPE_INTEGER; }
static inline unsigned int cv4l2_ctrl_type_boolean(void) { return V4L2_CTRL_TYPE_BOOLEAN; }
static inline unsigned int cv4l2_ctrl_type_menu(void) { return V4L2_CTRL_TYPE_MENU; }
static inline unsigned int cv4l2_ctrl_type_integer_menu(void) { return V4L2_CTRL_TYPE_INTEGER_MENU; }
static inline unsigned int cv4l2_ctrl_type_button(void) { return V4L2_CTRL_TYPE_BUTTON; }
static inline unsigned int cv4l2_ctrl_type_integer64(void) { return V4L2_CTRL_TYPE_INTEGER64; }
static inline unsigned int cv4l2_ctrl_type_ctrl_class(void) { return V4L2_CTRL_TYPE_CTRL_CLASS; }
static inline unsigned int cv4l2_ctrl_type_bitmask(void) { return V4L2_CTRL_TYPE_BITMASK; }
static inline unsigned int cv4l2_cid_focus_auto(void) { return V4L2_CID_FOCUS_AUTO; }
static inline unsigned int cv4l2_cid_focus_absolute(void) { return V4L2_CID_FOCUS_ABSOLUTE; }
static inline unsigned int cv4l2_cid_exposure_auto(void) { return V4L2_CID_EXPOSURE_AUTO; }
static inline unsigned int cv4l2_cid_exposure_absolute(void) { return V4L2_CID_EXPOSURE_ABSOLUTE; }
static inline unsigned int cv4l2_cid_exposure_auto_priority(void) { return V4L2_CID_EXPOSURE_AUTO_PRIORITY; }
static inline unsigned int cv4l2_cid_gain(void) { return V4L2_CID_GAIN; }
static inline unsigned int cv4l2_cid_autogain(void) { return V4L2_CID_AUTOGAIN; }
static inline unsigned int cv4l2_cid_auto_white_balance(void) { return V4L2_CID_AUTO_WHITE_BALANCE; }
static inline unsigned int cv4l2_cid_white_balance_temperature(void) { return V4L2_CID_WHITE_BALANCE_TEMPERATURE; }
static inline unsigned int cv4l2_cid_zoom_absolute(void) { return V4L2_CID_ZOOM_ABSOLUTE; }
static inline unsigned int cv4l2_exposure_manual(void) { return V4L2_EXPOSURE_MANUAL; }
static inline int cv4l2_get_parameters(int fd, struct v4l2_streamparm *p) { return cv4l2_xioctl(fd, VIDIOC_G_PARM, p); }
static inline int cv4l2_get_format(int fd, struct v4l2_format *f) { return cv4l2_xioctl(fd, VIDIOC_G_FMT, f); }
