// A preview window through OpenCV's highgui, loaded on first use (opencv_libraries.hpp): linking it would
// load its GUI toolkit for every command, window or not.
#include <cstdlib>
#include "bridge_error.hpp"
#include "opencv_libraries.hpp"

extern "C" int32_t cvb_preview_show(const char *title, const uint8_t *bgr, int32_t width, int32_t height, int32_t stride,
                                    int32_t wait_ms) {
    return cvb::guarded("preview", [&]() -> int32_t {
        if (title == nullptr || !cvb::valid_image(bgr, width, height, stride, 3)) return cvb::fail(BRIDGE_ERR_ARGUMENT, "preview: bad image");
        const char *display = std::getenv("DISPLAY"), *wayland = std::getenv("WAYLAND_DISPLAY");
        if ((display == nullptr || *display == 0) && (wayland == nullptr || *wayland == 0))
            return cvb::fail(BRIDGE_ERR_IO, "no display");
        const cvb::HighGUI &gui = cvb::highgui();
        if (!gui.problem.empty()) return cvb::fail(BRIDGE_ERR_IO, gui.problem);
        gui.imshow(title, cv::_InputArray(cvb::view(bgr, width, height, stride, 3)));
        return gui.waitKey(wait_ms < 1 ? 1 : wait_ms);
    });
}
