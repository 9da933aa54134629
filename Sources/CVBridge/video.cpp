// Video files through OpenCV's videoio.
#include <opencv2/videoio.hpp>
#include "bridge_error.hpp"

struct cvb_video {
    cv::VideoCapture capture;
    cv::Mat frame; // decoded into again and again: the same memory while the size stays
};

struct cvb_video_writer {
    cv::VideoWriter writer;
};

extern "C" int32_t cvb_video_open(const char *path, cvb_video **out) {
    return cvb::guarded("open video", [&]() -> int32_t {
        if (path == nullptr || out == nullptr) return cvb::fail(CVB_ERR_ARGUMENT, "open video: null argument");
        *out = nullptr;
        auto video = new cvb_video();
        // FFmpeg only: GStreamer and the image-sequence back-end would try (and log) first.
        if (!video->capture.open(path, cv::CAP_FFMPEG) || !video->capture.isOpened()) {
            delete video;
            return cvb::fail(CVB_ERR_IO, "not a video OpenCV can decode");
        }
        *out = video;
        return CVB_OK;
    });
}

extern "C" int32_t cvb_video_read(cvb_video *video, cvb_image *out) {
    return cvb::guarded("read video frame", [&]() -> int32_t {
        if (video == nullptr || out == nullptr) return cvb::fail(CVB_ERR_ARGUMENT, "read video: null argument");
        *out = cvb_image{0, 0, 0, 0, nullptr};
        cv::Mat &frame = video->frame;
        if (!video->capture.read(frame) || frame.empty()) return 0;
        if (frame.type() != CV_8UC3) return cvb::fail(CVB_ERR_IO, "video frame is not 8-bit BGR");
        *out = cvb_image{frame.cols, frame.rows, int32_t(frame.step[0]), 3, frame.data};
        return 1;
    });
}

extern "C" double cvb_video_fps(cvb_video *video) {
    return video == nullptr ? 0 : video->capture.get(cv::CAP_PROP_FPS);
}

extern "C" void cvb_video_close(cvb_video *video) { delete video; }

extern "C" int32_t cvb_video_writer_open(const char *path, const char *fourcc, double fps, int32_t width,
                                         int32_t height, cvb_video_writer **out) {
    return cvb::guarded("open video writer", [&]() -> int32_t {
        if (path == nullptr || fourcc == nullptr || out == nullptr || width <= 0 || height <= 0 || !(fps > 0))
            return cvb::fail(CVB_ERR_ARGUMENT, "open video writer: bad argument");
        *out = nullptr;
        auto writer = new cvb_video_writer();
        const int code = cv::VideoWriter::fourcc(fourcc[0], fourcc[1], fourcc[2], fourcc[3]);
        if (!writer->writer.open(path, cv::CAP_FFMPEG, code, fps, cv::Size(width, height), true)) {
            delete writer;
            return cvb::fail(CVB_ERR_IO, "cannot open a video writer for this file");
        }
        *out = writer;
        return CVB_OK;
    });
}

extern "C" int32_t cvb_video_writer_write(cvb_video_writer *writer, const uint8_t *bgr, int32_t width,
                                          int32_t height, int32_t stride) {
    return cvb::guarded("write video frame", [&]() -> int32_t {
        if (writer == nullptr || !cvb::valid_image(bgr, width, height, stride, 3))
            return cvb::fail(CVB_ERR_ARGUMENT, "write video frame: bad argument");
        writer->writer.write(cvb::view(bgr, width, height, stride, 3));
        return CVB_OK;
    });
}

extern "C" void cvb_video_writer_close(cvb_video_writer *writer) {
    if (writer != nullptr) writer->writer.release();
    delete writer;
}
