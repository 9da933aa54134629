// Counts malloc calls of a process and the bytes they ask for (LD_PRELOAD); prints both at exit. Used by scripts/allocations-per-frame.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdatomic.h>
static atomic_long count, bytes;
static void *(*real_malloc)(size_t);
void *malloc(size_t n) {
    if (!real_malloc) real_malloc = dlsym(RTLD_NEXT, "malloc");
    atomic_fetch_add(&count, 1);
    atomic_fetch_add(&bytes, (long)n);
    return real_malloc(n);
}
__attribute__((destructor)) static void report(void) { fprintf(stderr, "mallocs: %ld %ld\n", (long)count, (long)bytes); }
