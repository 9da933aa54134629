// Counts a process's heap allocations (malloc, calloc, realloc, posix_memalign, aligned_alloc,
// memalign) and the bytes they ask for (LD_PRELOAD); prints both at exit. Used by
// scripts/allocations-per-frame (see malloc_count_now). OpenCV allocates its matrices with posix_memalign, Swift with malloc.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static atomic_long count, bytes;
static void *(*real_malloc)(size_t);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static int (*real_posix_memalign)(void **, size_t, size_t);
static void *(*real_aligned_alloc)(size_t, size_t);
static void *(*real_memalign)(size_t, size_t);
// dlsym may itself call calloc before real_calloc is known: serve that from a static buffer.
static char early[4096];
static size_t early_used;
static int resolving;

static void resolve(void) {
    if (real_malloc) return;
    resolving = 1;
    real_calloc = dlsym(RTLD_NEXT, "calloc");
    real_realloc = dlsym(RTLD_NEXT, "realloc");
    real_posix_memalign = dlsym(RTLD_NEXT, "posix_memalign");
    real_aligned_alloc = dlsym(RTLD_NEXT, "aligned_alloc");
    real_memalign = dlsym(RTLD_NEXT, "memalign");
    real_malloc = dlsym(RTLD_NEXT, "malloc");
    resolving = 0;
}
static void counted(size_t n) {
    atomic_fetch_add(&count, 1);
    atomic_fetch_add(&bytes, (long)n);
}
void *malloc(size_t n) {
    resolve();
    counted(n);
    return real_malloc(n);
}
void *calloc(size_t k, size_t n) {
    if (resolving || !real_calloc) {
        size_t size = (k * n + 15) & ~(size_t)15;
        if (early_used + size > sizeof early) return NULL;
        void *p = early + early_used;
        early_used += size;
        return p; // static and zeroed; free() ignores it
    }
    counted(k * n);
    return real_calloc(k, n);
}
void *realloc(void *p, size_t n) {
    resolve();
    counted(n);
    return real_realloc(p, n);
}
int posix_memalign(void **p, size_t alignment, size_t n) {
    resolve();
    counted(n);
    return real_posix_memalign(p, alignment, n);
}
void *aligned_alloc(size_t alignment, size_t n) {
    resolve();
    counted(n);
    return real_aligned_alloc(alignment, n);
}
void *memalign(size_t alignment, size_t n) {
    resolve();
    counted(n);
    return real_memalign(alignment, n);
}
static void (*real_free)(void *);
void free(void *p) {
    if ((char *)p >= early && (char *)p < early + sizeof early) return; // from the static buffer above
    if (!real_free) real_free = dlsym(RTLD_NEXT, "free");
    real_free(p);
}
// The counts so far, for a cooperating library in the same process (the fake camera reports them at
// chosen frames, so that a steady state can be measured without start-up and shut-down).
long malloc_count_now(long *bytes_so_far) {
    if (bytes_so_far) *bytes_so_far = bytes;
    return count;
}
__attribute__((destructor)) static void report(void) { fprintf(stderr, "mallocs: %ld %ld\n", (long)count, (long)bytes); }
