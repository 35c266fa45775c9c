/* ncz_write: ncz_bench.c's writes with any codec, through the netCDF C API.
 *
 * The shared ncz_bench.c (used unchanged) writes only what
 * nc_def_var_deflate can ask for (none, shuffle+zlib). This program writes
 * the same cube, with the same field, chunking, workloads, timing and JSON
 * lines, with the codec named by codec=:
 *     none | zlib1_shuffle | zstd3 | blosc_lz4 | blosc_zstd
 * zstd3 is nc_def_var_zstandard(level 3) (HDF5 filter 32015); blosc_* are
 * nc_def_var_blosc (filter 32001; netcdf-c's parameters
 * [0, 0, 0, blocksize, clevel, shuffle, compressor]) with clevel 5, byte
 * shuffle, blocksize 0 (blosc's own choice), compressor BLOSC_LZ4 or
 * BLOSC_ZSTD: the codecs of the benchmark's zarr-python stores.
 *
 *   ncz_write WORKLOAD URL codec=NAME [key=value ...]
 *     WORKLOAD: write_full | write_steps | write_blocks (as ncz_bench.c)
 *     keys (defaults): NT[256] NY[512] NX[1024] ct[16] cy[128] cx[256]
 *                      reps[3] bt[24] by[100] bx[100]
 *
 * Timed as ncz_bench.c times a write: from nc_create to the end of nc_close,
 * the buffer allocated (malloc of the whole cube) and, for write_full,
 * filled before. One JSON line per rep (peak RSS as of that rep). After the
 * last rep, not timed: the dataset is opened again, the variable's filters
 * must include the codec's (a library that ignores a filter fails), and
 * every value is read back (a time step at a time) and compared with the
 * field. Exit status: 0, 2 on a netCDF error, 3 when a value or the filter
 * is wrong. */
#include <netcdf.h>
#include <netcdf_filter.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#define CHK(e) do { int _s = (e); if (_s != NC_NOERR) { \
    fprintf(stderr, "%s:%d %s -> %s\n", __FILE__, __LINE__, #e, nc_strerror(_s)); exit(2); } } while (0)

static const char *arg(const char *k, const char *dflt, int argc, char **argv) {
    size_t n = strlen(k);
    for (int i = 3; i < argc; i++)
        if (!strncmp(argv[i], k, n) && argv[i][n] == '=') return argv[i] + n + 1;
    return dflt;
}
static long P(const char *k, long dflt, int argc, char **argv) {
    const char *v = arg(k, NULL, argc, argv);
    return v ? atol(v) : dflt;
}
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }

/* ncz_bench.c's analytic field. */
#include "field.h"

static size_t NT, NY, NX;

static void fill(float *b, size_t t0, size_t y0, size_t x0, size_t nt, size_t ny, size_t nx) {
    size_t i = 0;
    for (size_t t = 0; t < nt; t++) for (size_t y = 0; y < ny; y++) for (size_t x = 0; x < nx; x++)
        b[i++] = field(t0 + t, y0 + y, x0 + x);
}

/* The codec's filter id (0 for none). */
static unsigned define_codec(int ncid, int varid, const char *codec) {
    if (!strcmp(codec, "none")) return 0;
    if (!strcmp(codec, "zlib1_shuffle")) { CHK(nc_def_var_deflate(ncid, varid, 1, 1, 1)); return H5Z_FILTER_DEFLATE; }
    if (!strcmp(codec, "zstd3")) { CHK(nc_def_var_zstandard(ncid, varid, 3)); return H5Z_FILTER_ZSTD; }
    if (!strcmp(codec, "blosc_lz4")) { CHK(nc_def_var_blosc(ncid, varid, BLOSC_LZ4, 5, 0, BLOSC_SHUFFLE)); return H5Z_FILTER_BLOSC; }
    if (!strcmp(codec, "blosc_zstd")) { CHK(nc_def_var_blosc(ncid, varid, BLOSC_ZSTD, 5, 0, BLOSC_SHUFFLE)); return H5Z_FILTER_BLOSC; }
    fprintf(stderr, "unknown codec %s (none, zlib1_shuffle, zstd3, blosc_lz4, blosc_zstd)\n", codec);
    exit(1);
}

static int create_cube(const char *url, const char *codec, int argc, char **argv, int *varid, unsigned *filter) {
    int ncid, d[3];
    size_t ch[3] = {(size_t)P("ct", 16, argc, argv), (size_t)P("cy", 128, argc, argv), (size_t)P("cx", 256, argc, argv)};
    CHK(nc_create(url, NC_CLOBBER | NC_NETCDF4, &ncid));
    CHK(nc_def_dim(ncid, "time", NT, &d[0]));
    CHK(nc_def_dim(ncid, "lat", NY, &d[1]));
    CHK(nc_def_dim(ncid, "lon", NX, &d[2]));
    CHK(nc_def_var(ncid, "t2m", NC_FLOAT, 3, d, varid));
    CHK(nc_def_var_chunking(ncid, *varid, NC_CHUNKED, ch));
    *filter = define_codec(ncid, *varid, codec);
    CHK(nc_put_att_text(ncid, *varid, "units", 1, "K"));
    CHK(nc_enddef(ncid));
    return ncid;
}

/* Open again: the filter must be there and every value must read back. */
static long verify(const char *url, unsigned want_filter, size_t ct) {
    int ncid, varid;
    long errors = 0;
    CHK(nc_open(url, NC_NOWRITE, &ncid));
    CHK(nc_inq_varid(ncid, "t2m", &varid));
    if (want_filter) {
        size_t nf = 0;
        unsigned ids[16];
        CHK(nc_inq_var_filter_ids(ncid, varid, &nf, NULL));
        if (nf > 16) nf = 16;
        CHK(nc_inq_var_filter_ids(ncid, varid, &nf, ids));
        int found = 0;
        for (size_t i = 0; i < nf; i++) found |= ids[i] == want_filter;
        if (!found) {
            fprintf(stderr, "the variable has no filter %u (%zu filters)\n", want_filter, nf);
            errors++;
        }
    }
    /* A row of chunks (ct time steps) at a time: each chunk decoded once. */
    float *b = malloc(ct * NY * NX * sizeof(float));
    if (!b) { perror("malloc"); exit(2); }
    for (size_t t0 = 0; t0 < NT; t0 += ct) {
        size_t nt = t0 + ct > NT ? NT - t0 : ct, s[3] = {t0, 0, 0}, c[3] = {nt, NY, NX}, i = 0;
        CHK(nc_get_vara_float(ncid, varid, s, c, b));
        for (size_t t = t0; t < t0 + nt; t++) for (size_t y = 0; y < NY; y++) for (size_t x = 0; x < NX; x++, i++)
            if (b[i] != field(t, y, x)) errors++;
    }
    free(b);
    CHK(nc_close(ncid));
    return errors;
}

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: %s WORKLOAD URL codec=NAME [key=value ...]\n", argv[0]); return 1; }
    const char *wl = argv[1], *url = argv[2], *codec = arg("codec", "none", argc, argv);
    NT = P("NT", 256, argc, argv); NY = P("NY", 512, argc, argv); NX = P("NX", 1024, argc, argv);
    int reps = (int)P("reps", 3, argc, argv);
    double cube = (double)NT * NY * NX * 4;
    unsigned filter = 0;
    if (strcmp(wl, "write_full") && strcmp(wl, "write_steps") && strcmp(wl, "write_blocks")) {
        fprintf(stderr, "unknown workload %s (write_full, write_steps, write_blocks)\n", wl);
        return 1;
    }
    for (int r = 0; r < reps; r++) {
        int ncid, vid;
        long ops = 0;
        float *b = malloc((size_t)cube);
        if (!b) { perror("malloc"); return 2; }
        if (!strcmp(wl, "write_full")) fill(b, 0, 0, 0, NT, NY, NX);
        double t0 = now();
        ncid = create_cube(url, codec, argc, argv, &vid, &filter);
        if (!strcmp(wl, "write_full")) {
            CHK(nc_put_var_float(ncid, vid, b)); ops = 1;
        } else if (!strcmp(wl, "write_steps")) {
            for (size_t t = 0; t < NT; t++) {
                fill(b, t, 0, 0, 1, NY, NX);
                size_t s[3] = {t, 0, 0}, c[3] = {1, NY, NX};
                CHK(nc_put_vara_float(ncid, vid, s, c, b)); ops++;
            }
        } else {
            size_t bt = P("bt", 24, argc, argv), by = P("by", 100, argc, argv), bx = P("bx", 100, argc, argv);
            for (size_t t = 0; t < NT; t += bt) for (size_t y = 0; y < NY; y += by) for (size_t x = 0; x < NX; x += bx) {
                size_t c[3] = {t + bt > NT ? NT - t : bt, y + by > NY ? NY - y : by, x + bx > NX ? NX - x : bx};
                size_t s[3] = {t, y, x};
                fill(b, t, y, x, c[0], c[1], c[2]);
                CHK(nc_put_vara_float(ncid, vid, s, c, b)); ops++;
            }
        }
        CHK(nc_close(ncid));
        double sec = now() - t0;
        free(b);
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        printf("{\"workload\":\"%s\",\"url\":\"%s\",\"codec\":\"%s\",\"rep\":%d,\"seconds\":%.6f,\"logical_MB\":%.3f,"
               "\"MBps\":%.1f,\"ops\":%ld,\"ms_per_op\":%.4f,\"verify_errors\":0,\"maxrss_MB\":%.1f}\n",
               wl, url, codec, r, sec, cube / 1e6, cube / 1e6 / sec, ops, 1e3 * sec / ops, ru.ru_maxrss / 1024.0);
        fflush(stdout);
    }
    long errors = verify(url, filter, (size_t)P("ct", 16, argc, argv));
    if (errors) {
        fprintf(stderr, "verify_errors %ld: what was written does not read back\n", errors);
        return 3;
    }
    return 0;
}
