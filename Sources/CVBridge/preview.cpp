// A preview window through OpenCV's highgui, loaded at run time: linking it would load its GUI toolkit
// for every command, window or not.
#include <cstdlib>
#include <dlfcn.h>
#include <string>
#include "bridge_error.hpp"

namespace {
using ImShow = void (*)(const std::string &, const cv::_InputArray &);
using WaitKey = int (*)(int);

struct HighGUI {
    ImShow imshow = nullptr;
    WaitKey waitKey = nullptr;
    std::string problem;

    HighGUI() {
        void *library = nullptr;
        for (const char *name : {"libopencv_highgui.so.406", "libopencv_highgui.so"}) {
            if ((library = dlopen(name, RTLD_NOW | RTLD_LOCAL)) != nullptr) break;
        }
        if (library == nullptr) {
            problem = "OpenCV's highgui library is not installed";
            return;
        }
        imshow = reinterpret_cast<ImShow>(dlsym(library, "_ZN2cv6imshowERKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEERKNS_11_InputArrayE"));
        waitKey = reinterpret_cast<WaitKey>(dlsym(library, "_ZN2cv7waitKeyEi"));
        if (imshow == nullptr || waitKey == nullptr) problem = "OpenCV's highgui library lacks imshow/waitKey";
    }
};
} // namespace

extern "C" int32_t cvb_preview_show(const char *title, const uint8_t *bgr, int32_t width, int32_t height, int32_t stride,
                                    int32_t wait_ms) {
    return cvb::guarded("preview", [&]() -> int32_t {
        if (title == nullptr || !cvb::valid_image(bgr, width, height, stride, 3)) return cvb::fail(CVB_ERR_ARGUMENT, "preview: bad image");
        const char *display = std::getenv("DISPLAY"), *wayland = std::getenv("WAYLAND_DISPLAY");
        if ((display == nullptr || *display == 0) && (wayland == nullptr || *wayland == 0))
            return cvb::fail(CVB_ERR_IO, "no display");
        static HighGUI gui;
        if (!gui.problem.empty()) return cvb::fail(CVB_ERR_IO, gui.problem);
        gui.imshow(title, cv::_InputArray(cvb::view(bgr, width, height, stride, 3)));
        return gui.waitKey(wait_ms < 1 ? 1 : wait_ms);
    });
}
