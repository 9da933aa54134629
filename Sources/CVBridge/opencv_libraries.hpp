// OpenCV libraries loaded on first use instead of linked: imgcodecs and videoio (with GDAL, FFmpeg and
// GStreamer behind them) loaded 240 more shared objects into every command, and highgui its GUI toolkit.
// Each is opened by soname with dlopen the first time it is needed, its functions looked up by mangled
// name with dlsym, all at once and checked once: a missing library or symbol is one clear message.
//
// VideoCapture and VideoWriter are built by their looked-up constructors into memory of their size and
// then used only through pointers, by their virtual functions (open, isOpened, read, get, release,
// write, the destructor): calls through the vtable, which reference no symbol of the library. The
// compiler cannot devirtualize them, since it never sees the object constructed.
#pragma once
#include <string>
#include <vector>
#include <opencv2/core.hpp>
#include <opencv2/videoio.hpp>

namespace cvb {

// A library loaded by dlopen and the functions taken from it; `problem` is empty when all were found.
struct OpenCVLibrary {
    std::string problem;
};

struct ImgCodecs : OpenCVLibrary {
    ImgCodecs(); // loads the library
    cv::Mat (*imdecode)(const cv::_InputArray &buffer, int flags) = nullptr;
    bool (*imencode)(const std::string &extension, const cv::_InputArray &image, std::vector<uchar> &bytes,
                     const std::vector<int> &parameters) = nullptr;
};

struct VideoIO : OpenCVLibrary {
    VideoIO(); // loads the library
    void (*construct_capture)(cv::VideoCapture *self) = nullptr;
    void (*construct_writer)(cv::VideoWriter *self) = nullptr;
    // VideoWriter::open with an API preference is not virtual.
    bool (*open_writer)(cv::VideoWriter *self, const std::string &path, int api, int fourcc, double fps, cv::Size size,
                        bool color) = nullptr;

    // A new VideoCapture or VideoWriter (delete it: the destructor is virtual); null when the library is missing.
    cv::VideoCapture *new_capture() const;
    cv::VideoWriter *new_writer() const;
};

struct HighGUI : OpenCVLibrary {
    HighGUI(); // loads the library
    void (*imshow)(const std::string &title, const cv::_InputArray &image) = nullptr;
    int (*waitKey)(int milliseconds) = nullptr;
};

// Each loaded on its first call (thread-safe), then the same.
const ImgCodecs &imgcodecs();
const VideoIO &videoio();
const HighGUI &highgui();

} // namespace cvb
