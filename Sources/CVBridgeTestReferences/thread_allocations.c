/* The heap allocations one thread makes, for the tests that hold code to allocating nothing per frame:
 * malloc, calloc, realloc and the aligned allocations of the whole test process pass through here to
 * glibc's own (__libc_*), and are counted while the calling thread has counting on. Per thread, so the
 * tests running beside on other threads do not disturb the count. Under a sanitizer, whose runtime
 * replaces malloc itself, nothing is defined here and counting reports it is unavailable. */
#include "cvbridge_test_references.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define THREAD_ALLOCATIONS_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define THREAD_ALLOCATIONS_SANITIZED 1
#endif

#ifdef THREAD_ALLOCATIONS_SANITIZED
int32_t thread_allocations_available(void) { return 0; }
void thread_allocations_start(void) {}
int64_t thread_allocations_stop(void) { return -1; }
#else
#include <stddef.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

static __thread int counting;
static __thread int64_t counted;

static inline void count(void) {
    if (counting) counted += 1;
}
void *malloc(size_t size) {
    count();
    return __libc_malloc(size);
}
void *calloc(size_t count_, size_t size) {
    count();
    return __libc_calloc(count_, size);
}
void *realloc(void *pointer, size_t size) {
    count();
    return __libc_realloc(pointer, size);
}
void *memalign(size_t alignment, size_t size) {
    count();
    return __libc_memalign(alignment, size);
}
void *aligned_alloc(size_t alignment, size_t size) {
    count();
    return __libc_memalign(alignment, size);
}
int posix_memalign(void **out, size_t alignment, size_t size) {
    if (alignment == 0 || alignment % sizeof(void *) != 0 || (alignment & (alignment - 1)) != 0) return 22; /* EINVAL */
    count();
    void *pointer = __libc_memalign(alignment, size);
    if (pointer == NULL) return 12; /* ENOMEM */
    *out = pointer;
    return 0;
}

int32_t thread_allocations_available(void) { return 1; }
void thread_allocations_start(void) {
    counted = 0;
    counting = 1;
}
int64_t thread_allocations_stop(void) {
    counting = 0;
    return counted;
}
#endif
