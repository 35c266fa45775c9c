/* slab.c -- one float variable `big` for the S3 request-count tests, whose
 * values say where they are: big[i] = i % 65521 (i the C-order index).
 *
 * Usage:
 *   slab write URL SHAPE CHUNKS [FILTER [SHARDS]]
 *        SHAPE and CHUNKS like 32x512x512; FILTER none (default), zlib,
 *        zstd or blosc; SHARDS (chunks per shard, like 2x2x2) puts the
 *        _Shards attribute (Zarr v3). Prints "close S".
 *   slab read URL [START COUNT]
 *        nc_get_vara_float of big (all of it without START/COUNT, which
 *        look like 0x100x300 and 32x1x1), into a poisoned buffer: "ok N"
 *        when all N values are right, "WRONG at K" when not, "error S" on
 *        a netCDF error.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netcdf.h>
#include <netcdf_filter.h>

#define MAXD 8
#define CHECK(call) do { int _s = (call); if (_s != NC_NOERR) { \
    fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, nc_strerror(_s)); exit(2); } } while (0)

static int parse_dims(const char *text, size_t *out)
{
    int n = 0;
    char *copy = strdup(text), *save = NULL;
    for (char *tok = strtok_r(copy, "x", &save); tok && n < MAXD; tok = strtok_r(NULL, "x", &save))
        out[n++] = (size_t)strtoull(tok, NULL, 10);
    free(copy);
    return n;
}

static float value_at(size_t flat) { return (float)(flat % 65521); }

static int write_big(const char *url, const char *shape_s, const char *chunks_s, const char *filter,
                     const char *shards_s)
{
    size_t shape[MAXD], chunks[MAXD];
    int nd = parse_dims(shape_s, shape);
    if (parse_dims(chunks_s, chunks) != nd) { fprintf(stderr, "shape and chunks differ in rank\n"); return 2; }
    int ncid, dims[MAXD], v;
    CHECK(nc_create(url, NC_CLOBBER | NC_NETCDF4, &ncid));
    size_t total = 1;
    for (int d = 0; d < nd; d++) {
        char name[16];
        snprintf(name, sizeof name, "d%d", d);
        CHECK(nc_def_dim(ncid, name, shape[d], &dims[d]));
        total *= shape[d];
    }
    CHECK(nc_def_var(ncid, "big", NC_FLOAT, nd, dims, &v));
    CHECK(nc_def_var_chunking(ncid, v, NC_CHUNKED, chunks));
    if (!strcmp(filter, "zlib")) CHECK(nc_def_var_deflate(ncid, v, 1, 1, 1));
    else if (!strcmp(filter, "zstd")) CHECK(nc_def_var_zstandard(ncid, v, 1));
    else if (!strcmp(filter, "blosc")) CHECK(nc_def_var_blosc(ncid, v, 1 /* lz4 */, 5, 0, 1));
    else if (strcmp(filter, "none")) { fprintf(stderr, "unknown filter %s\n", filter); return 2; }
    if (shards_s) {
        size_t per[MAXD];
        int ns = parse_dims(shards_s, per), ip[MAXD];
        for (int d = 0; d < ns; d++) ip[d] = (int)per[d];
        CHECK(nc_put_att_int(ncid, v, "_Shards", NC_INT, ns, ip));
    }
    CHECK(nc_enddef(ncid));
    float *data = malloc(total * sizeof *data);
    for (size_t i = 0; i < total; i++) data[i] = value_at(i);
    CHECK(nc_put_var_float(ncid, v, data));
    free(data);
    printf("close %d\n", nc_close(ncid));
    return 0;
}

static int read_big(const char *url, const char *start_s, const char *count_s)
{
    int ncid, v, nd, dims[MAXD], s;
    size_t shape[MAXD], start[MAXD] = {0}, count[MAXD];
    if ((s = nc_open(url, NC_NOWRITE, &ncid))) { printf("error %d\n", s); return 0; }
    if ((s = nc_inq_varid(ncid, "big", &v)) || (s = nc_inq_varndims(ncid, v, &nd)) ||
        (s = nc_inq_vardimid(ncid, v, dims))) {
        printf("error %d\n", s);
        return 0;
    }
    for (int d = 0; d < nd; d++) {
        CHECK(nc_inq_dimlen(ncid, dims[d], &shape[d]));
        count[d] = shape[d];
    }
    if (start_s && (parse_dims(start_s, start) != nd || parse_dims(count_s, count) != nd)) {
        fprintf(stderr, "START and COUNT need %d numbers\n", nd);
        return 2;
    }
    size_t n = 1;
    for (int d = 0; d < nd; d++) n *= count[d];
    float *data = malloc((n + 1) * sizeof *data);
    for (size_t i = 0; i < n; i++) data[i] = NAN;
    s = nc_get_vara_float(ncid, v, start, count, data);
    if (s) {
        printf("error %d\n", s);
    } else {
        size_t bad = n;
        for (size_t i = 0; i < n && bad == n; i++) {
            /* The C-order index in the variable of the i-th value read. */
            size_t rest = i, flat = 0, stride = 1, idx[MAXD];
            for (int d = nd - 1; d >= 0; d--) {
                idx[d] = start[d] + rest % count[d];
                rest /= count[d];
            }
            for (int d = nd - 1; d >= 0; d--) {
                flat += idx[d] * stride;
                stride *= shape[d];
            }
            if (data[i] != value_at(flat)) bad = i;
        }
        if (bad == n) printf("ok %zu\n", n);
        else printf("WRONG at %zu\n", bad);
    }
    free(data);
    nc_close(ncid);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 5 && !strcmp(argv[1], "write"))
        return write_big(argv[2], argv[3], argv[4], argc > 5 ? argv[5] : "none", argc > 6 ? argv[6] : NULL);
    if ((argc == 3 || argc == 5) && !strcmp(argv[1], "read"))
        return read_big(argv[2], argc == 5 ? argv[3] : NULL, argc == 5 ? argv[4] : NULL);
    fprintf(stderr, "usage: slab write URL SHAPE CHUNKS [FILTER [SHARDS]] | slab read URL [START COUNT]\n");
    return 2;
}
