/* quantize_diff.c -- the writer behind ctests/t_quantize_diff.sh, built
 * once against netcdf-c and once against this library so the stored
 * chunks of the same quantized writes can be compared byte for byte.
 *
 *   quantize_diff write URL   write every case below (then close)
 *   quantize_diff inq URL     print "name mode nsd" for every variable
 *
 * Cases: the three algorithms on float and double at several nsd; memory
 * types other than the variable's (double, float, int, short); every
 * write form (BitGroom's alternation restarts with each write netcdf-c
 * makes, so forms matter); a user _FillValue; values out of float range
 * (NC_ERANGE); and 1-d "special" variables holding NaN, +-0, +-inf, fill
 * and subnormals, on which netcdf-c versions differ (see the script).
 * Only what netcdf-c 4.9.0's NCZarr has: no strings, no unlimited dims. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netcdf.h>

#define NY 6
#define NX 10
#define N (NY * NX)
#define NSPECIAL 16

#define CHECK(call) do { int _s = (call); if (_s != NC_NOERR) { \
    fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, nc_strerror(_s)); exit(1); } } while (0)
/* A call that must return NC_ERANGE (values out of the variable's range). */
#define WANT_ERANGE(call) do { int _s = (call); if (_s != NC_ERANGE) { \
    fprintf(stderr, "%s:%d: %s: %s, expected NC_ERANGE\n", __FILE__, __LINE__, #call, nc_strerror(_s)); exit(1); } } while (0)

enum form { VAR, PIECES, VAR1, VARS, VARM_T, VARM_R, VARM_S };

/* Deterministic values across many magnitudes, both signs. */
static double value(int i, double maxexp)
{
    unsigned long long s = 0x9E3779B97F4A7C15ull * (unsigned long long)(i + 1);
    s ^= s >> 29;
    s *= 0xBF58476D1CE4E5B9ull;
    s ^= s >> 32;
    double m = 1.0 + (double)(s % 1000003ull) / 1000003.0 * 9.0;
    double e = (double)((long long)(s >> 20) % (long long)(2 * maxexp + 1)) - maxexp;
    return ((s >> 7) & 1 ? -m : m) * pow(10.0, e);
}

/* Write `src` (N doubles in C order) into a 2-d variable through one form,
 * in memory type `mem` ('d', 'f', 'i' or 's'). Returns the last status. */
static int put(int ncid, int v, enum form form, char mem, const double *src)
{
    double d[N];
    float f[N];
    int in[N];
    short sh[N];
    int transposed = form == VARM_T;
    for (int i = 0; i < N; i++) {
        /* VARM_T: memory is column-major (x slowest). */
        int k = transposed ? (i % NY) * NX + i / NY : i;
        /* Only the memory type in use: others could overflow. */
        if (mem == 'd') d[i] = src[k];
        if (mem == 'f') f[i] = (float)src[k];
        if (mem == 'i') in[i] = (int)src[k];
        if (mem == 's') sh[i] = (short)src[k];
    }
    void *buf = mem == 'd' ? (void *)d : mem == 'f' ? (void *)f : mem == 'i' ? (void *)in : (void *)sh;
    size_t esize = mem == 'd' ? 8 : mem == 'f' ? 4 : mem == 'i' ? 4 : 2;
#define TYPED(fn, ...) (mem == 'd' ? fn##_double(__VA_ARGS__, (const double *)p) : \
                        mem == 'f' ? fn##_float(__VA_ARGS__, (const float *)p) : \
                        mem == 'i' ? fn##_int(__VA_ARGS__, (const int *)p) : fn##_short(__VA_ARGS__, (const short *)p))
    const void *p = buf;
    int s = NC_NOERR;
    switch (form) {
    case VAR:
        return TYPED(nc_put_var, ncid, v);
    case PIECES: /* each row as 7 then 3 elements: the second starts at an odd index */
        for (size_t r = 0; r < NY; r++) {
            size_t st[2] = {r, 0}, c7[2] = {1, 7}, st2[2] = {r, 7}, c3[2] = {1, 3};
            p = (const char *)buf + r * NX * esize;
            if ((s = TYPED(nc_put_vara, ncid, v, st, c7)) != NC_NOERR) return s;
            p = (const char *)buf + (r * NX + 7) * esize;
            if ((s = TYPED(nc_put_vara, ncid, v, st2, c3)) != NC_NOERR) return s;
        }
        return s;
    case VAR1:
        for (size_t i = 0; i < N; i++) {
            size_t ix[2] = {i / NX, i % NX};
            p = (const char *)buf + i * esize;
            if ((s = TYPED(nc_put_var1, ncid, v, ix)) != NC_NOERR) return s;
        }
        return s;
    case VARS: { /* rows 0, 2, 4 and columns 0, 3, 6, 9 from a packed buffer */
        size_t st[2] = {0, 0}, c[2] = {3, 4};
        ptrdiff_t sd[2] = {2, 3};
        return TYPED(nc_put_vars, ncid, v, st, c, sd);
    }
    case VARM_T: { /* transposed memory: one write per element in netcdf-c */
        size_t st[2] = {0, 0}, c[2] = {NY, NX};
        ptrdiff_t im[2] = {1, NY};
        return TYPED(nc_put_varm, ncid, v, st, c, NULL, im);
    }
    case VARM_R: { /* an explicit C-order map: one write per row */
        size_t st[2] = {0, 0}, c[2] = {NY, NX};
        ptrdiff_t im[2] = {NX, 1};
        return TYPED(nc_put_varm, ncid, v, st, c, NULL, im);
    }
    case VARM_S: { /* no map, every other row: one write per row */
        size_t st[2] = {1, 0}, c[2] = {3, NX};
        ptrdiff_t sd[2] = {2, 1};
        return TYPED(nc_put_varm, ncid, v, st, c, sd, NULL);
    }
    }
#undef TYPED
    return NC_EINVAL;
}

struct grid_case {
    const char *name;
    nc_type xtype;
    int mode, nsd;
    enum form form;
    char mem;
};

static const struct grid_case grid_cases[] = {
    {"bg_f1", NC_FLOAT, NC_QUANTIZE_BITGROOM, 1, VAR, 'f'},
    {"bg_f3", NC_FLOAT, NC_QUANTIZE_BITGROOM, 3, VAR, 'f'},
    {"bg_f6", NC_FLOAT, NC_QUANTIZE_BITGROOM, 6, VAR, 'f'},
    {"bg_d1", NC_DOUBLE, NC_QUANTIZE_BITGROOM, 1, VAR, 'd'},
    {"bg_d8", NC_DOUBLE, NC_QUANTIZE_BITGROOM, 8, VAR, 'd'},
    {"bg_d15", NC_DOUBLE, NC_QUANTIZE_BITGROOM, 15, VAR, 'd'},
    {"gbr_f1", NC_FLOAT, NC_QUANTIZE_GRANULARBR, 1, VAR, 'f'},
    {"gbr_f3", NC_FLOAT, NC_QUANTIZE_GRANULARBR, 3, VAR, 'f'},
    {"gbr_f6", NC_FLOAT, NC_QUANTIZE_GRANULARBR, 6, VAR, 'f'},
    {"gbr_d2", NC_DOUBLE, NC_QUANTIZE_GRANULARBR, 2, VAR, 'd'},
    {"gbr_d9", NC_DOUBLE, NC_QUANTIZE_GRANULARBR, 9, VAR, 'd'},
    {"gbr_d15", NC_DOUBLE, NC_QUANTIZE_GRANULARBR, 15, VAR, 'd'},
    {"br_f1", NC_FLOAT, NC_QUANTIZE_BITROUND, 1, VAR, 'f'},
    {"br_f9", NC_FLOAT, NC_QUANTIZE_BITROUND, 9, VAR, 'f'},
    {"br_f23", NC_FLOAT, NC_QUANTIZE_BITROUND, 23, VAR, 'f'},
    {"br_d1", NC_DOUBLE, NC_QUANTIZE_BITROUND, 1, VAR, 'd'},
    {"br_d20", NC_DOUBLE, NC_QUANTIZE_BITROUND, 20, VAR, 'd'},
    {"br_d52", NC_DOUBLE, NC_QUANTIZE_BITROUND, 52, VAR, 'd'},
    /* Memory types other than the variable's. */
    {"bg_f3_from_d", NC_FLOAT, NC_QUANTIZE_BITGROOM, 3, VAR, 'd'},
    {"gbr_f4_from_d", NC_FLOAT, NC_QUANTIZE_GRANULARBR, 4, VAR, 'd'},
    {"br_f7_from_d", NC_FLOAT, NC_QUANTIZE_BITROUND, 7, VAR, 'd'},
    {"bg_d5_from_f", NC_DOUBLE, NC_QUANTIZE_BITGROOM, 5, VAR, 'f'},
    {"gbr_d6_from_f", NC_DOUBLE, NC_QUANTIZE_GRANULARBR, 6, VAR, 'f'},
    {"br_d30_from_f", NC_DOUBLE, NC_QUANTIZE_BITROUND, 30, VAR, 'f'},
    {"bg_f2_from_i", NC_FLOAT, NC_QUANTIZE_BITGROOM, 2, VAR, 'i'},
    {"br_d3_from_s", NC_DOUBLE, NC_QUANTIZE_BITROUND, 3, VAR, 's'},
    /* Write forms. */
    {"bg_f3_pieces", NC_FLOAT, NC_QUANTIZE_BITGROOM, 3, PIECES, 'f'},
    {"bg_d4_pieces_from_f", NC_DOUBLE, NC_QUANTIZE_BITGROOM, 4, PIECES, 'f'},
    {"bg_f3_var1", NC_FLOAT, NC_QUANTIZE_BITGROOM, 3, VAR1, 'f'},
    {"bg_f3_vars", NC_FLOAT, NC_QUANTIZE_BITGROOM, 3, VARS, 'f'},
    {"bg_f3_varm_t", NC_FLOAT, NC_QUANTIZE_BITGROOM, 3, VARM_T, 'f'},
    {"bg_f3_varm_r", NC_FLOAT, NC_QUANTIZE_BITGROOM, 3, VARM_R, 'd'},
    {"bg_d7_varm_s", NC_DOUBLE, NC_QUANTIZE_BITGROOM, 7, VARM_S, 'd'},
    {"gbr_f3_varm_t", NC_FLOAT, NC_QUANTIZE_GRANULARBR, 3, VARM_T, 'f'},
    {"br_d12_vars", NC_DOUBLE, NC_QUANTIZE_BITROUND, 12, VARS, 'd'},
};

/* 1-d variables of NSPECIAL values with NaN, zeros, infinities, fill. */
struct special_case {
    const char *name;
    nc_type xtype;
    int mode, nsd;
};

static const struct special_case special_cases[] = {
    {"sp_bg_f", NC_FLOAT, NC_QUANTIZE_BITGROOM, 3},
    {"sp_bg_d", NC_DOUBLE, NC_QUANTIZE_BITGROOM, 10},
    {"sp_gbr_f", NC_FLOAT, NC_QUANTIZE_GRANULARBR, 3},
    {"sp_gbr_d", NC_DOUBLE, NC_QUANTIZE_GRANULARBR, 10},
    {"sp_br_f", NC_FLOAT, NC_QUANTIZE_BITROUND, 9},
    {"sp_br_d", NC_DOUBLE, NC_QUANTIZE_BITROUND, 30},
};

static int write_all(const char *url)
{
    int ncid, y, x, s1, dims[2];
    size_t chunks[2] = {4, 4}, nsp = NSPECIAL;
    double src[N];
    for (int i = 0; i < N; i++) src[i] = value(i, 30.0);

    CHECK(nc_create(url, NC_CLOBBER | NC_NETCDF4, &ncid));
    CHECK(nc_def_dim(ncid, "y", NY, &y));
    CHECK(nc_def_dim(ncid, "x", NX, &x));
    CHECK(nc_def_dim(ncid, "s", NSPECIAL, &s1));
    dims[0] = y;
    dims[1] = x;
    int ngrid = (int)(sizeof grid_cases / sizeof grid_cases[0]);
    int nspecial = (int)(sizeof special_cases / sizeof special_cases[0]);
    int gv[sizeof grid_cases / sizeof grid_cases[0]], sv[sizeof special_cases / sizeof special_cases[0]];
    for (int k = 0; k < ngrid; k++) {
        const struct grid_case *c = &grid_cases[k];
        CHECK(nc_def_var(ncid, c->name, c->xtype, 2, dims, &gv[k]));
        CHECK(nc_def_var_chunking(ncid, gv[k], NC_CHUNKED, chunks));
        CHECK(nc_def_var_quantize(ncid, gv[k], c->mode, c->nsd));
    }
    for (int k = 0; k < nspecial; k++) {
        const struct special_case *c = &special_cases[k];
        CHECK(nc_def_var(ncid, c->name, c->xtype, 1, &s1, &sv[k]));
        CHECK(nc_def_var_chunking(ncid, sv[k], NC_CHUNKED, &nsp));
        CHECK(nc_def_var_quantize(ncid, sv[k], c->mode, c->nsd));
    }
    /* A user fill value, present in the data with the default one. */
    int ufill;
    float user_fill = (float)src[5];
    CHECK(nc_def_var(ncid, "bg_f2_userfill", NC_FLOAT, 2, dims, &ufill));
    CHECK(nc_def_var_chunking(ncid, ufill, NC_CHUNKED, chunks));
    CHECK(nc_def_var_fill(ncid, ufill, NC_FILL, &user_fill));
    CHECK(nc_def_var_quantize(ncid, ufill, NC_QUANTIZE_BITGROOM, 2));
    /* Doubles out of float range: NC_ERANGE, and the infinities stored. */
    int big;
    CHECK(nc_def_var(ncid, "br_f4_erange", NC_FLOAT, 2, dims, &big));
    CHECK(nc_def_var_chunking(ncid, big, NC_CHUNKED, chunks));
    CHECK(nc_def_var_quantize(ncid, big, NC_QUANTIZE_BITROUND, 4));
    /* Turned on, then off again: stored as written, no attribute. */
    int off;
    CHECK(nc_def_var(ncid, "off_f", NC_FLOAT, 2, dims, &off));
    CHECK(nc_def_var_chunking(ncid, off, NC_CHUNKED, chunks));
    CHECK(nc_def_var_quantize(ncid, off, NC_QUANTIZE_GRANULARBR, 2));
    CHECK(nc_def_var_quantize(ncid, off, NC_NOQUANTIZE, 99));
    /* Float at 7 digits: 4.9.0 accepts it (and its BitGroom then shifts
     * by a negative count, destroying the values); 4.10.1 and we refuse. */
    int f7;
    CHECK(nc_def_var(ncid, "f7", NC_FLOAT, 2, dims, &f7));
    printf("float nsd 7: bitgroom %d granularbr %d\n", nc_def_var_quantize(ncid, f7, NC_QUANTIZE_BITGROOM, 7),
           nc_def_var_quantize(ncid, f7, NC_QUANTIZE_GRANULARBR, 7));
    CHECK(nc_def_var_quantize(ncid, f7, NC_NOQUANTIZE, 0));
    CHECK(nc_enddef(ncid));

    for (int k = 0; k < ngrid; k++) {
        const struct grid_case *c = &grid_cases[k];
        double scaled[N];
        /* Integers in range of the memory type. */
        for (int i = 0; i < N; i++)
            scaled[i] = c->mem == 'i' ? floor(value(i, 5.0)) : c->mem == 's' ? floor(value(i, 3.0)) : src[i];
        CHECK(put(ncid, gv[k], c->form, c->mem, scaled));
    }
    double fills[N];
    memcpy(fills, src, sizeof fills);
    fills[11] = fills[12] = NC_FILL_FLOAT;
    fills[21] = fills[5];
    CHECK(put(ncid, ufill, VAR, 'f', fills));
    double huge[N];
    for (int i = 0; i < N; i++) huge[i] = i % 3 == 0 ? value(i, 5.0) * 1e40 : value(i, 30.0);
    WANT_ERANGE(put(ncid, big, VAR, 'd', huge));
    CHECK(put(ncid, off, VAR, 'f', src));
    for (int k = 0; k < nspecial; k++) {
        const struct special_case *c = &special_cases[k];
        int isf = c->xtype == NC_FLOAT;
        double sp[NSPECIAL] = {
            1.5, NAN, NAN, -0.0, -0.0, 0.0, INFINITY, INFINITY, -INFINITY, -INFINITY,
            isf ? NC_FILL_FLOAT : NC_FILL_DOUBLE, isf ? NC_FILL_FLOAT : NC_FILL_DOUBLE,
            isf ? FLT_MIN / 3 : DBL_MIN / 3, isf ? -FLT_MIN / 5 : -DBL_MIN / 5, 3.3, -7.77};
        if (isf) {
            float f[NSPECIAL];
            for (int i = 0; i < NSPECIAL; i++) f[i] = (float)sp[i];
            CHECK(nc_put_var_float(ncid, sv[k], f));
        } else {
            CHECK(nc_put_var_double(ncid, sv[k], sp));
        }
    }
    CHECK(nc_close(ncid));
    return 0;
}

static int inq_all(const char *url)
{
    int ncid, nvars;
    char name[NC_MAX_NAME + 1];
    CHECK(nc_open(url, NC_NOWRITE, &ncid));
    CHECK(nc_inq_nvars(ncid, &nvars));
    for (int v = 0; v < nvars; v++) {
        int mode = -1, nsd = -1;
        CHECK(nc_inq_varname(ncid, v, name));
        CHECK(nc_inq_var_quantize(ncid, v, &mode, &nsd));
        printf("%s %d %d\n", name, mode, nsd);
    }
    CHECK(nc_close(ncid));
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "write") == 0) return write_all(argv[2]);
    if (argc == 3 && strcmp(argv[1], "inq") == 0) return inq_all(argv[2]);
    fprintf(stderr, "usage: %s write|inq URL\n", argv[0]);
    return 2;
}
