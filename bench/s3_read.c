/* S3 read throughput.
 *
 *   s3_read URL [N=256] [R=3]
 *       write one float variable of N uncompressed chunks (256 KiB each)
 *       to the dataset URL, then read it whole R times, checking every
 *       value, and print each read's milliseconds (open + read + close).
 *   s3_read -r URL VAR [R=3]
 *       read the float variable VAR of an existing dataset whole R times
 *       and print each read's milliseconds; its values must be
 *       VAR[i] = i % 65521 (tests/s3/slab.c writes such variables).
 */
#include <netcdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHUNK 65536
#define CHECK(e) do { int s_ = (e); if (s_) { fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, nc_strerror(s_)); exit(1); } } while (0)

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int read_existing(const char *url, const char *name, size_t rounds) {
    int nc, var, nd, dims[NC_MAX_VAR_DIMS];
    CHECK(nc_open(url, NC_NOWRITE, &nc));
    CHECK(nc_inq_varid(nc, name, &var));
    CHECK(nc_inq_varndims(nc, var, &nd));
    CHECK(nc_inq_vardimid(nc, var, dims));
    size_t len = 1;
    for (int d = 0; d < nd; d++) {
        size_t n;
        CHECK(nc_inq_dimlen(nc, dims[d], &n));
        len *= n;
    }
    CHECK(nc_close(nc));
    float *data = malloc(len * sizeof *data);
    printf("bytes %zu\n", len * sizeof *data);
    for (size_t r = 0; r < rounds; r++) {
        for (size_t i = 0; i < len; i++) data[i] = -1;
        double t0 = now_ms();
        CHECK(nc_open(url, NC_NOWRITE, &nc));
        CHECK(nc_get_var_float(nc, var, data));
        CHECK(nc_close(nc));
        printf("read_ms %.1f\n", now_ms() - t0);
        for (size_t i = 0; i < len; i++)
            if (data[i] != (float)(i % 65521)) { fprintf(stderr, "wrong value at %zu\n", i); return 1; }
    }
    free(data);
    return 0;
}

int main(int argc, char **argv) {
    if (argc >= 4 && !strcmp(argv[1], "-r"))
        return read_existing(argv[2], argv[3], argc > 4 ? (size_t)atol(argv[4]) : 3);
    if (argc < 2) { fprintf(stderr, "usage: s3_read URL [N] [R] | s3_read -r URL VAR [R]\n"); return 2; }
    size_t n = argc > 2 ? (size_t)atol(argv[2]) : 256, rounds = argc > 3 ? (size_t)atol(argv[3]) : 3;
    size_t len = n * CHUNK, chunk = CHUNK;
    float *data = malloc(len * sizeof *data);
    for (size_t i = 0; i < len; i++) data[i] = (float)(i % 65521);
    int nc, dim, var;
    double t0 = now_ms();
    CHECK(nc_create(argv[1], NC_CLOBBER, &nc));
    CHECK(nc_def_dim(nc, "x", len, &dim));
    CHECK(nc_def_var(nc, "v", NC_FLOAT, 1, &dim, &var));
    CHECK(nc_def_var_chunking(nc, var, NC_CHUNKED, &chunk));
    CHECK(nc_put_var_float(nc, var, data));
    CHECK(nc_close(nc));
    printf("write_ms %.1f\n", now_ms() - t0);
    free(data);
    return read_existing(argv[1], "v", rounds);
}
