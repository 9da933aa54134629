// Kernels built twice, for AVX2 and for any x86-64, and picked at run time by what the processor has:
//
//     MKK_TWICE(void, kernel, (const uint8_t *in, uint8_t *out), (in, out)) { ...body... }
//
// defines `kernel` (which calls the AVX2 build where the processor has AVX2) and its two builds. The
// arithmetic is the same in both (integers, or IEEE doubles without fused multiply-adds: AVX2 alone does
// not enable FMA), so both give the same results; the AVX2 build vectorises wider. Not target_clones:
// its resolvers run while the program is being loaded, before a sanitizer's runtime has started, and
// crash the sanitized test builds. MARKERKIT_NO_AVX2=1 runs the plain builds (to check they agree).
#pragma once
#include <cstdlib>

namespace mkk {
inline bool has_avx2() {
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
    static const bool avx2 = __builtin_cpu_supports("avx2") && std::getenv("MARKERKIT_NO_AVX2") == nullptr;
    return avx2;
#else
    return false;
#endif
}
} // namespace mkk

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#define MKK_TWICE(result, name, parameters, arguments)                                                        \
    static inline __attribute__((always_inline)) result name##_body parameters;                             \
    __attribute__((target("avx2"))) static result name##_avx2 parameters { return name##_body arguments; }  \
    static result name##_plain parameters { return name##_body arguments; }                                 \
    static inline result name parameters {                                                                  \
        return mkk::has_avx2() ? name##_avx2 arguments : name##_plain arguments;                            \
    }                                                                                                       \
    static inline __attribute__((always_inline)) result name##_body parameters
#else
#define MKK_TWICE(result, name, parameters, arguments) static inline result name parameters
#endif
