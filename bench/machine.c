/* machine: the limits of this machine that the benchmark's numbers sit under.
 *
 *   machine memcpy [MiB]           copy bandwidth of one core, MiB-sized buffers
 *   machine pagecache FILE [MiB]   write FILE, read it once to cache it, then
 *                                  time a second read (warm page cache)
 *
 * Prints "name value unit" lines; GB/s counts 1e9 bytes moved per second
 * (bytes copied, not read + written). */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of 9 copies of a buffer far larger than any cache. */
static int bench_memcpy(size_t mib) {
    size_t n = mib << 20;
    char *src = malloc(n), *dst = malloc(n);
    if (!src || !dst) { perror("malloc"); return 1; }
    for (size_t i = 0; i < n; i++) src[i] = (char)(i * 131u);
    memset(dst, 0, n); /* fault the pages in before timing */
    double t[9];
    for (int r = 0; r < 9; r++) {
        double t0 = now();
        memcpy(dst, src, n);
        t[r] = now() - t0;
        src[r] ^= dst[n - 1 - r]; /* keep the copies observable */
    }
    qsort(t, 9, sizeof t[0], cmp_double);
    printf("memcpy %.2f GB/s\n", n / t[4] / 1e9);
    free(src);
    free(dst);
    return 0;
}

/* Read the whole file with 8 MiB reads; returns seconds or -1. */
static double read_file(const char *path, char *buf, size_t bufsize, size_t *total) {
    int fd = open(path, O_RDONLY);
    if (fd < 0) { perror(path); return -1; }
    double t0 = now();
    ssize_t got;
    *total = 0;
    while ((got = read(fd, buf, bufsize)) > 0) *total += (size_t)got;
    double sec = now() - t0;
    close(fd);
    return got < 0 ? -1 : sec;
}

static int bench_pagecache(const char *path, size_t mib) {
    size_t bufsize = 8u << 20, total;
    char *buf = malloc(bufsize);
    if (!buf) { perror("malloc"); return 1; }
    for (size_t i = 0; i < bufsize; i++) buf[i] = (char)(i * 7u + 1);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0) { perror(path); return 1; }
    for (size_t done = 0; done < mib << 20; done += bufsize)
        if (write(fd, buf, bufsize) != (ssize_t)bufsize) { perror("write"); return 1; }
    close(fd);
    if (read_file(path, buf, bufsize, &total) < 0) return 1; /* now it is cached */
    double sec = read_file(path, buf, bufsize, &total);
    if (sec < 0) return 1;
    printf("pagecache_read %.2f GB/s\n", total / sec / 1e9);
    free(buf);
    return 0;
}

int main(int argc, char **argv) {
    if (argc >= 2 && !strcmp(argv[1], "memcpy"))
        return bench_memcpy(argc >= 3 ? (size_t)atol(argv[2]) : 512);
    if (argc >= 3 && !strcmp(argv[1], "pagecache"))
        return bench_pagecache(argv[2], argc >= 4 ? (size_t)atol(argv[3]) : 1024);
    fprintf(stderr, "usage: machine memcpy [MiB] | machine pagecache FILE [MiB]\n");
    return 2;
}
