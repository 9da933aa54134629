// libv4l2 and the V4L2 kernel API (Debian: libv4l-dev). v4l2_open and v4l2_ioctl are variadic and the
// VIDIOC_* request codes are macros, so Swift sees neither: each use gets a static inline wrapper here.
#include <fcntl.h>
#include <linux/videodev2.h>
#include <libv4l2.h>

static inline int cv4l2_open(const char *path) { return v4l2_open(path, O_RDWR | O_NONBLOCK, 0); }
static inline int cv4l2_close(int fd) { return v4l2_close(fd); }
static inline int cv4l2_query_capability(int fd, struct v4l2_capability *capability) {
    return v4l2_ioctl(fd, VIDIOC_QUERYCAP, capability);
}
static inline unsigned int cv4l2_cap_video_capture(void) { return V4L2_CAP_VIDEO_CAPTURE; }
static inline unsigned int cv4l2_cap_device_caps(void) { return V4L2_CAP_DEVICE_CAPS; }
