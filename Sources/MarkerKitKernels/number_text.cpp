// Numbers as text for MarkerKit's own JSON writer: the shortest digits that read back exactly (C++17's
// std::to_chars), written into the caller's buffer, so that formatting allocates nothing.
#include <charconv>
#include <cstdint>
#include "bridge_status.h"
#include "markerkit_kernels.h"

extern "C" int32_t mkk_format_double(double value, char *out, int32_t capacity) {
    if (out == nullptr || capacity < 1) return 0;
    const auto result = std::to_chars(out, out + capacity, value);
    return result.ec == std::errc() ? int32_t(result.ptr - out) : 0;
}
