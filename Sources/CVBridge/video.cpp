// Video files through OpenCV's videoio, loaded on first use (opencv_libraries.hpp): the capture and the
// writer are made by the library's constructors and used only through pointers and virtual functions.
#include <memory>
#include "bridge_error.hpp"
#include "opencv_libraries.hpp"

struct cvb_video {
    std::unique_ptr<cv::VideoCapture> capture; // deleted through its virtual destructor
    cv::Mat frame; // decoded into again and again: the same memory while the size stays
};

struct cvb_video_writer {
    std::unique_ptr<cv::VideoWriter> writer;
};

extern "C" int32_t cvb_video_open(const char *path, cvb_video **out) {
    return cvb::guarded("open video", [&]() -> int32_t {
        if (path == nullptr || out == nullptr) return cvb::fail(BRIDGE_ERR_ARGUMENT, "open video: null argument");
        *out = nullptr;
        const cvb::VideoIO &videoio = cvb::videoio();
        if (!videoio.problem.empty()) return cvb::fail(BRIDGE_ERR_UNAVAILABLE, videoio.problem);
        auto video = std::make_unique<cvb_video>();
        video->capture.reset(videoio.new_capture());
        cv::VideoCapture *capture = video->capture.get();
        // FFmpeg only: GStreamer and the image-sequence back-end would try (and log) first.
        if (!capture->open(path, cv::CAP_FFMPEG) || !capture->isOpened())
            return cvb::fail(BRIDGE_ERR_IO, "not a video OpenCV can decode");
        *out = video.release();
        return BRIDGE_OK;
    });
}

extern "C" int32_t cvb_video_read(cvb_video *video, cvb_image *out) {
    return cvb::guarded("read video frame", [&]() -> int32_t {
        if (video == nullptr || out == nullptr) return cvb::fail(BRIDGE_ERR_ARGUMENT, "read video: null argument");
        *out = cvb_image{0, 0, 0, 0, nullptr};
        cv::Mat &frame = video->frame;
        if (!video->capture->read(frame) || frame.empty()) return 0;
        if (frame.type() != CV_8UC3) return cvb::fail(BRIDGE_ERR_IO, "video frame is not 8-bit BGR");
        *out = cvb_image{frame.cols, frame.rows, int32_t(frame.step[0]), 3, frame.data};
        return 1;
    });
}

extern "C" double cvb_video_fps(cvb_video *video) {
    return video == nullptr ? 0 : video->capture->get(cv::CAP_PROP_FPS);
}

extern "C" void cvb_video_close(cvb_video *video) { delete video; }

extern "C" int32_t cvb_video_writer_open(const char *path, const char *fourcc, double fps, int32_t width,
                                         int32_t height, cvb_video_writer **out) {
    return cvb::guarded("open video writer", [&]() -> int32_t {
        if (path == nullptr || fourcc == nullptr || out == nullptr || width <= 0 || height <= 0 || !(fps > 0))
            return cvb::fail(BRIDGE_ERR_ARGUMENT, "open video writer: bad argument");
        *out = nullptr;
        const cvb::VideoIO &videoio = cvb::videoio();
        if (!videoio.problem.empty()) return cvb::fail(BRIDGE_ERR_UNAVAILABLE, videoio.problem);
        auto writer = std::make_unique<cvb_video_writer>();
        writer->writer.reset(videoio.new_writer());
        // cv::VideoWriter::fourcc, which is the library's: the four characters, first in the low byte.
        int code = 0;
        for (int i = 0; i < 4 && fourcc[i] != 0; ++i) code |= int(uint8_t(fourcc[i])) << (8 * i);
        if (!videoio.open_writer(writer->writer.get(), path, cv::CAP_FFMPEG, code, fps, cv::Size(width, height), true))
            return cvb::fail(BRIDGE_ERR_IO, "cannot open a video writer for this file");
        *out = writer.release();
        return BRIDGE_OK;
    });
}

extern "C" int32_t cvb_video_writer_write(cvb_video_writer *writer, const uint8_t *bgr, int32_t width,
                                          int32_t height, int32_t stride) {
    return cvb::guarded("write video frame", [&]() -> int32_t {
        if (writer == nullptr || !cvb::valid_image(bgr, width, height, stride, 3))
            return cvb::fail(BRIDGE_ERR_ARGUMENT, "write video frame: bad argument");
        writer->writer->write(cvb::view(bgr, width, height, stride, 3));
        return BRIDGE_OK;
    });
}

extern "C" void cvb_video_writer_close(cvb_video_writer *writer) {
    if (writer != nullptr) writer->writer->release();
    delete writer;
}
