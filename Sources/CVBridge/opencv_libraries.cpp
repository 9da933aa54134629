// OpenCV's imgcodecs, videoio and highgui through dlopen (see opencv_libraries.hpp).
#include "opencv_libraries.hpp"
#include <dlfcn.h>
#include <initializer_list>
#include <new>
#include "bridge_error.hpp"

namespace {
struct Symbol {
    const char *name;
    void **address;
};

template <typename F> Symbol symbol(const char *name, F *&function) {
    return Symbol{name, reinterpret_cast<void **>(&function)};
}

// Opens `soname` and fills every symbol; the problem names what is missing (the first symbol only).
void load(cvb::OpenCVLibrary &library, const char *module, const char *soname, std::initializer_list<Symbol> symbols) {
    void *handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
        library.problem = std::string("OpenCV's ") + module + " library (" + soname + ") is not installed";
        return;
    }
    for (const Symbol &s : symbols) {
        *s.address = dlsym(handle, s.name);
        if (*s.address == nullptr && library.problem.empty())
            library.problem = std::string("OpenCV's ") + module + " library (" + soname + ") lacks " + s.name;
    }
}

// Memory of an OpenCV object's size, constructed by `construct`; freed again if the constructor throws.
template <typename T> T *construct_in_new_memory(void (*construct)(T *)) {
    if (construct == nullptr) return nullptr;
    void *memory = ::operator new(sizeof(T));
    try {
        construct(static_cast<T *>(memory));
    } catch (...) {
        ::operator delete(memory);
        throw;
    }
    return static_cast<T *>(memory);
}
} // namespace

namespace cvb {

ImgCodecs::ImgCodecs() {
    load(*this, "imgcodecs", "libopencv_imgcodecs.so.406",
         {symbol("_ZN2cv8imdecodeERKNS_11_InputArrayEi", imdecode),
          symbol("_ZN2cv8imencodeERKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEERKNS_11_InputArrayERSt6vectorIhSaIhEERKSB_IiSaIiEE",
                 imencode)});
}

VideoIO::VideoIO() {
    load(*this, "videoio", "libopencv_videoio.so.406",
         {symbol("_ZN2cv12VideoCaptureC1Ev", construct_capture), symbol("_ZN2cv11VideoWriterC1Ev", construct_writer),
          symbol("_ZN2cv11VideoWriter4openERKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEEiidNS_5Size_IiEEb",
                 open_writer)});
}

HighGUI::HighGUI() {
    load(*this, "highgui", "libopencv_highgui.so.406",
         {symbol("_ZN2cv6imshowERKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEERKNS_11_InputArrayE", imshow),
          symbol("_ZN2cv7waitKeyEi", waitKey)});
}

// Function-local statics: loaded by the first caller, once, whichever thread it is.
const ImgCodecs &imgcodecs() {
    static const ImgCodecs library;
    return library;
}
const VideoIO &videoio() {
    static const VideoIO library;
    return library;
}
const HighGUI &highgui() {
    static const HighGUI library;
    return library;
}

cv::VideoCapture *VideoIO::new_capture() const { return construct_in_new_memory(construct_capture); }
cv::VideoWriter *VideoIO::new_writer() const { return construct_in_new_memory(construct_writer); }

} // namespace cvb

extern "C" int32_t cvb_opencv_library_check(cvb_opencv_library which) {
    const cvb::OpenCVLibrary *library = nullptr;
    switch (which) {
    case CVB_LIBRARY_IMGCODECS: library = &cvb::imgcodecs(); break;
    case CVB_LIBRARY_VIDEOIO: library = &cvb::videoio(); break;
    case CVB_LIBRARY_HIGHGUI: library = &cvb::highgui(); break;
    default: return cvb::fail(BRIDGE_ERR_ARGUMENT, "unknown OpenCV library");
    }
    if (!library->problem.empty()) return cvb::fail(BRIDGE_ERR_UNAVAILABLE, library->problem);
    bridge_clear_error();
    return BRIDGE_OK;
}
