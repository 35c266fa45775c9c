/* t_write_routes.c -- the two routes a write takes (src/io/write.rs):
 * chunks covered whole, more than the variable's cache holds, are
 * assembled and stored at once on several threads; everything else goes
 * through the chunk cache, in batches changed on several threads.
 *
 * Checked: a whole-chunk write replaces a dirty cached chunk (the older
 * cached values never come back at the close); the stored edge chunks
 * hold fill outside the shape (read from the chunk file itself); values
 * out of range on the whole-chunk route are NC_ERANGE with every other
 * value stored; compressed and uncompressed; partial writes through a
 * cache too small for them (evictions in every batch) and a write that
 * mixes both routes read back exactly.
 */
#include "testutil.h"

#define NT 12
#define NY 10
#define NX 10

static float value(size_t t, size_t y, size_t x, int round) {
    return (float)(round * 100000 + t * 1000 + y * 10 + x) + 0.5f;
}

static void check_all(int ncid, int v, int round) {
    static float back[NT][NY][NX];
    OK(nc_get_var_float(ncid, v, &back[0][0][0]));
    for (size_t t = 0; t < NT; t++)
        for (size_t y = 0; y < NY; y++)
            for (size_t x = 0; x < NX; x++)
                if (back[t][y][x] != value(t, y, x, round))
                    FAIL("round %d: v[%zu][%zu][%zu] = %g, expected %g", round, t, y, x, back[t][y][x],
                         value(t, y, x, round));
}

/* The float at element `k` of a stored (uncompressed, little-endian)
 * chunk file. */
static float stored_float(const char *path, size_t k) {
    FILE *f = fopen(path, "rb");
    if (!f) FAIL("no chunk file %s", path);
    unsigned char b[4];
    if (fseek(f, (long)(k * 4), SEEK_SET) != 0 || fread(b, 1, 4, f) != 4) FAIL("short chunk file %s", path);
    fclose(f);
    unsigned int u = b[0] | b[1] << 8 | b[2] << 16 | (unsigned int)b[3] << 24;
    float v;
    memcpy(&v, &u, 4);
    return v;
}

static void routes(const char *name, int deflate) {
    static float data[NT][NY][NX];
    char url[600];
    snprintf(url, sizeof url, "file://%s.zarr#mode=nczarr,file", name);
    int ncid, dims[3], v;
    size_t chunks[3] = {4, 4, 4};
    OK(nc_create(url, NC_CLOBBER, &ncid));
    OK(nc_def_dim(ncid, "t", NC_UNLIMITED, &dims[0]));
    OK(nc_def_dim(ncid, "y", NY, &dims[1]));
    OK(nc_def_dim(ncid, "x", NX, &dims[2]));
    OK(nc_def_var(ncid, "v", NC_FLOAT, 3, dims, &v));
    OK(nc_def_var_chunking(ncid, v, NC_CHUNKED, chunks));
    if (deflate) OK(nc_def_var_deflate(ncid, v, 1, 1, 1));
    /* Room for 4 chunks of 256 bytes: a write of all 27 is too many. */
    OK(nc_set_var_chunk_cache(ncid, v, 4 * 256, 100, 0.75f));
    OK(nc_enddef(ncid));

    /* A dirty cached chunk, then the whole-chunk route over it. */
    size_t one[3] = {1, 1, 1}, zero[3] = {0, 0, 0};
    float seven = 7;
    OK(nc_put_vara_float(ncid, v, zero, one, &seven));
    for (size_t t = 0; t < NT; t++)
        for (size_t y = 0; y < NY; y++)
            for (size_t x = 0; x < NX; x++) data[t][y][x] = value(t, y, x, 1);
    size_t start[3] = {0, 0, 0}, count[3] = {NT, NY, NX};
    OK(nc_put_vara_float(ncid, v, start, count, &data[0][0][0]));
    check_all(ncid, v, 1);
    OK(nc_close(ncid));
    OK(nc_open(url, NC_WRITE, &ncid));
    OK(nc_inq_varid(ncid, "v", &v));
    check_all(ncid, v, 1);

    if (!deflate) {
        /* Chunk 2.2.2 covers t 8-11, y 8-11, x 8-11: y and x 10, 11 are
         * outside the shape and hold the fill value. */
        char path[600];
        snprintf(path, sizeof path, "%s.zarr/v/2.2.2", name);
        EQ_DBL(stored_float(path, 0 * 16 + 0 * 4 + 0), value(8, 8, 8, 1));
        EQ_DBL(stored_float(path, 3 * 16 + 1 * 4 + 1), value(11, 9, 9, 1));
        EQ_DBL(stored_float(path, 0 * 16 + 2 * 4 + 0), NC_FILL_FLOAT);
        EQ_DBL(stored_float(path, 3 * 16 + 1 * 4 + 3), NC_FILL_FLOAT);
    }

    /* The cached route: one time step at a time, each touching 9 chunks
     * of which the cache holds 4 (evictions in every call), mixed with
     * whole-chunk writes of the last row. */
    OK(nc_set_var_chunk_cache(ncid, v, 4 * 256, 100, 0.75f));
    for (size_t t = 0; t < 8; t++) {
        for (size_t y = 0; y < NY; y++)
            for (size_t x = 0; x < NX; x++) data[0][y][x] = value(t, y, x, 2);
        size_t s[3] = {t, 0, 0}, c[3] = {1, NY, NX};
        OK(nc_put_vara_float(ncid, v, s, c, &data[0][0][0]));
    }
    for (size_t t = 8; t < NT; t++)
        for (size_t y = 0; y < NY; y++)
            for (size_t x = 0; x < NX; x++) data[t - 8][y][x] = value(t, y, x, 2);
    size_t s8[3] = {8, 0, 0}, c8[3] = {4, NY, NX};
    OK(nc_put_vara_float(ncid, v, s8, c8, &data[0][0][0]));
    check_all(ncid, v, 2);
    OK(nc_close(ncid));
    OK(nc_open(url, NC_NOWRITE, &ncid));
    OK(nc_inq_varid(ncid, "v", &v));
    check_all(ncid, v, 2);
    OK(nc_close(ncid));
}

/* NC_ERANGE on the whole-chunk route: every other value is stored. */
static void range_errors(void) {
    const char *url = "file://range.zarr#mode=nczarr,file";
    int ncid, x, v;
    enum { N = 4096 };
    static double in[N];
    static signed char back[N];
    size_t chunk = 64;
    OK(nc_create(url, NC_CLOBBER, &ncid));
    OK(nc_def_dim(ncid, "x", N, &x));
    OK(nc_def_var(ncid, "b", NC_BYTE, 1, &x, &v));
    OK(nc_def_var_chunking(ncid, v, NC_CHUNKED, &chunk));
    OK(nc_set_var_chunk_cache(ncid, v, 256, 100, 0.75f));
    OK(nc_enddef(ncid));
    for (size_t i = 0; i < N; i++) in[i] = (double)(int)(i % 200) - 100;
    in[1234] = 1000;
    ERR(NC_ERANGE, nc_put_var_double(ncid, v, in));
    OK(nc_close(ncid));
    OK(nc_open(url, NC_NOWRITE, &ncid));
    OK(nc_get_var_schar(ncid, v, back));
    for (size_t i = 0; i < N; i++)
        if (i != 1234 && back[i] != (signed char)in[i]) FAIL("b[%zu] = %d, expected %d", i, back[i], (int)in[i]);
    OK(nc_close(ncid));
}

int main(void) {
    routes("plain", 0);
    routes("deflated", 1);
    range_errors();
    PASS();
}
