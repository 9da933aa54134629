// The calling thread's last failure message, for every C target of MarkerKit.
#include <cstring>
#include <type_traits>
#include "bridge_status.h"

namespace {
// A fixed buffer, not a std::string: a thread_local with a destructor registers it (glibc's
// __cxa_thread_atexit, one 32-byte calloc) when a thread first touches it, and a detector worker may touch
// it first many frames into a stream, an allocation in the camera's steady state.
thread_local char last_error[1024];
static_assert(std::is_trivially_destructible<decltype(last_error)>::value, "no per-thread destructor to register");
} // namespace

extern "C" const char *bridge_last_error(void) { return last_error; }
extern "C" void bridge_set_error(const char *message) {
    if (message == nullptr) message = "";
    size_t length = std::strlen(message);
    if (length >= sizeof last_error) length = sizeof last_error - 1; // a longer message is cut, never overrun
    std::memmove(last_error, message, length); // message may be last_error itself
    last_error[length] = '\0';
}
extern "C" void bridge_clear_error(void) { last_error[0] = '\0'; }
