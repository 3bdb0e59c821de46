/* Shared helpers of the C baselines: reading the binary arrays the benchmark writes,
 * a monotonic clock, and writing results back. Plain C99, no dependencies. */
#ifndef FASTRATE_BASELINE_COMMON_H
#define FASTRATE_BASELINE_COMMON_H

#define _POSIX_C_SOURCE 199309L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Read DIR/NAME into a malloc'ed buffer of n elements of `size` bytes; exit on error. */
static void *read_array(const char *dir, const char *name, size_t size, size_t n) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f) { fprintf(stderr, "cannot open %s\n", path); exit(2); }
    void *buf = malloc(size * (n ? n : 1));
    if (!buf) { fprintf(stderr, "out of memory\n"); exit(2); }
    if (fread(buf, size, n, f) != n) { fprintf(stderr, "short read %s\n", path); exit(2); }
    fclose(f);
    return buf;
}

static void write_array(const char *dir, const char *name, const void *buf, size_t size,
                        size_t n) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(buf, size, n, f) != n) { fprintf(stderr, "cannot write %s\n", path); exit(2); }
    fclose(f);
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#endif
