/* BridgeStatus: how MarkerKit's C interfaces (CVBridge: OpenCV; MarkerKitKernels: our own kernels) report
 * failure, shared so that Swift reads every failure's message in one place.
 *
 * Functions return a non-negative value on success and a negative BRIDGE_ERR_* code on failure;
 * bridge_last_error() then holds a one-line message for the calling thread. No C++ exception ever
 * crosses these headers. */
#ifndef BRIDGE_STATUS_H
#define BRIDGE_STATUS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum : int32_t {
    BRIDGE_OK = 0,
    BRIDGE_ERR_EXCEPTION = -1,   /* C++ threw (OpenCV or the standard library); see bridge_last_error() */
    BRIDGE_ERR_ARGUMENT = -2,    /* a bad argument (size, id, null pointer) */
    BRIDGE_ERR_IO = -3,          /* a file could not be read or decoded */
    BRIDGE_ERR_TOO_LARGE = -4,   /* an image header claims more pixels than CVB_MAX_IMAGE_PIXELS */
    BRIDGE_ERR_UNAVAILABLE = -5, /* an OpenCV library loaded on first use is missing or lacks a function */
} bridge_status;

/* The message of the last failure on this thread ("" if none; at most 1023 bytes). Valid until the next call. */
const char *bridge_last_error(void);
/* For the C++ targets: the calling thread's message, set on failure and cleared at a call's start. */
void bridge_set_error(const char *message);
void bridge_clear_error(void);

#ifdef __cplusplus
}

#include <exception>
#include <string>

namespace bridge {

inline int32_t fail(int32_t code, const std::string &message) {
    bridge_set_error(message.c_str());
    return code;
}

// Runs `body`; any exception becomes BRIDGE_ERR_EXCEPTION and a message instead of unwinding into Swift.
template <typename Body>
int32_t guarded(const char *operation, Body body) noexcept {
    try {
        bridge_clear_error();
        return body();
    } catch (const std::exception &e) {
        return fail(BRIDGE_ERR_EXCEPTION, std::string(operation) + ": " + e.what());
    } catch (...) {
        return fail(BRIDGE_ERR_EXCEPTION, std::string(operation) + ": unknown C++ exception");
    }
}

inline bool valid_image(const uint8_t *pixels, int32_t width, int32_t height, int32_t stride, int32_t channels) {
    return pixels != nullptr && width > 0 && height > 0 && (channels == 1 || channels == 3 || channels == 4) &&
           stride >= width * channels;
}

inline bool valid_gray(const uint8_t *gray, int32_t width, int32_t height, int32_t stride) {
    return gray != nullptr && width > 0 && height > 0 && stride >= width;
}

} // namespace bridge
#endif

#endif
