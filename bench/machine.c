/* machine: the limits of this machine that the benchmark's numbers sit under.
 *
 *   machine memcpy [MiB]           copy bandwidth of one core, MiB-sized buffers
 *   machine pagecache FILE [MiB]   write FILE, read it once to cache it, then
 *                                  time a second read (warm page cache)
 *   machine pagewrite DIR [MiB] [trials]
 *                                  page-cache write rate of new files: MiB
 *                                  (default 512) as 2 MiB files, each created,
 *                                  written in one write(2) and closed, by one
 *                                  thread and by two threads each writing
 *                                  half; trials alternate 1 and 2 threads,
 *                                  the files are unlinked after each (not
 *                                  timed); nothing is synced. Prints
 *                                  "pagecache_write_Nt MEDIAN MIN MAX TRIALS"
 *                                  (GB/s): throttled writeback makes single
 *                                  trials noisy, so the spread is shown.
 *   machine generate NT NY NX      the time ncz_bench's write_steps spends
 *                                  making its values (its analytic field,
 *                                  one NY x NX time step at a time into one
 *                                  buffer), inside its timing: median of 5,
 *                                  "generate_steps MS ms"
 *
 * Prints "name value unit" lines; GB/s counts 1e9 bytes moved per second
 * (bytes copied, not read + written). */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <stdint.h>
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

/* One writer's share of a pagewrite trial: files [first, first + count). */
struct writer {
    const char *dir;
    const char *buf;
    size_t file_bytes;
    int first, count, failed;
};

static void *write_files(void *arg) {
    struct writer *w = arg;
    char path[4096];
    for (int i = w->first; i < w->first + w->count; i++) {
        snprintf(path, sizeof path, "%s/pw.%05d", w->dir, i);
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd < 0 || write(fd, w->buf, w->file_bytes) != (ssize_t)w->file_bytes) { w->failed = 1; }
        if (fd >= 0) close(fd);
        if (w->failed) { perror(path); break; }
    }
    return NULL;
}

/* Seconds to write nfiles new files of file_bytes with nthreads threads. */
static double write_trial(const char *dir, const char *buf, size_t file_bytes, int nfiles, int nthreads) {
    struct writer w[2];
    pthread_t th[2];
    int per = nfiles / nthreads, failed = 0;
    double t0 = now();
    for (int k = 0; k < nthreads; k++) {
        w[k] = (struct writer){dir, buf, file_bytes, k * per, k == nthreads - 1 ? nfiles - k * per : per, 0};
        if (pthread_create(&th[k], NULL, write_files, &w[k])) { perror("pthread_create"); return -1; }
    }
    for (int k = 0; k < nthreads; k++) {
        pthread_join(th[k], NULL);
        failed |= w[k].failed;
    }
    double sec = now() - t0;
    char path[4096];
    for (int i = 0; i < nfiles; i++) {
        snprintf(path, sizeof path, "%s/pw.%05d", dir, i);
        unlink(path);
    }
    return failed ? -1 : sec;
}

static int bench_pagewrite(const char *dir, size_t mib, int trials) {
    size_t file_bytes = 2u << 20;
    int nfiles = (int)(mib / 2);
    char *buf = malloc(file_bytes);
    if (!buf || nfiles < 2 || trials < 1 || trials > 64) { fprintf(stderr, "pagewrite: bad arguments\n"); return 1; }
    for (size_t i = 0; i < file_bytes; i++) buf[i] = (char)(i * 7u + 3);
    double rate[2][64];
    if (write_trial(dir, buf, file_bytes, nfiles, 2) < 0) return 1; /* warm-up, not counted */
    for (int r = 0; r < trials; r++)
        for (int k = 0; k < 2; k++) {
            double sec = write_trial(dir, buf, file_bytes, nfiles, k + 1);
            if (sec < 0) return 1;
            rate[k][r] = (double)nfiles * file_bytes / sec / 1e9;
        }
    for (int k = 0; k < 2; k++) {
        qsort(rate[k], trials, sizeof(double), cmp_double);
        double med = trials % 2 ? rate[k][trials / 2] : (rate[k][trials / 2 - 1] + rate[k][trials / 2]) / 2;
        printf("pagecache_write_%dt %.2f %.2f %.2f %d\n", k + 1, med, rate[k][0], rate[k][trials - 1], trials);
    }
    free(buf);
    return 0;
}

/* ncz_bench.c's analytic field. */
#include "field.h"

static int bench_generate(size_t nt, size_t ny, size_t nx) {
    float *b = malloc(ny * nx * sizeof *b);
    if (!b) return 1;
    double times[5];
    volatile float sink = 0;
    for (int r = 0; r < 5; r++) {
        double t0 = now();
        for (size_t t = 0; t < nt; t++) {
            size_t i = 0;
            for (size_t y = 0; y < ny; y++)
                for (size_t x = 0; x < nx; x++) b[i++] = field((uint32_t)t, (uint32_t)y, (uint32_t)x);
            sink += b[t % (ny * nx)];
        }
        times[r] = now() - t0;
    }
    qsort(times, 5, sizeof times[0], cmp_double);
    printf("generate_steps %.1f ms\n", times[2] * 1e3);
    free(b);
    return 0;
}

int main(int argc, char **argv) {
    if (argc >= 2 && !strcmp(argv[1], "memcpy"))
        return bench_memcpy(argc >= 3 ? (size_t)atol(argv[2]) : 512);
    if (argc >= 3 && !strcmp(argv[1], "pagecache"))
        return bench_pagecache(argv[2], argc >= 4 ? (size_t)atol(argv[3]) : 1024);
    if (argc >= 3 && !strcmp(argv[1], "pagewrite"))
        return bench_pagewrite(argv[2], argc >= 4 ? (size_t)atol(argv[3]) : 512, argc >= 5 ? atoi(argv[4]) : 5);
    if (argc >= 5 && !strcmp(argv[1], "generate"))
        return bench_generate((size_t)atol(argv[2]), (size_t)atol(argv[3]), (size_t)atol(argv[4]));
    fprintf(stderr, "usage: machine memcpy [MiB] | machine pagecache FILE [MiB] | machine pagewrite DIR [MiB] [trials]"
                    " | machine generate NT NY NX\n");
    return 2;
}
