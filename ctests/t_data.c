/* Variable data: every form (var, var1, vara, vars, varm) for every memory
 * type against every numeric variable type, text and strings, conversion
 * and NC_ERANGE, fill values, partial and edge chunks, big-endian storage,
 * unlimited growth, scalars, the chunk cache API, nc_copy_var, and the
 * error codes of bad requests. */
#include "testutil.h"

static const nc_type numeric[] = {NC_BYTE, NC_UBYTE, NC_SHORT, NC_USHORT, NC_INT,
                                  NC_UINT, NC_INT64, NC_UINT64, NC_FLOAT, NC_DOUBLE};
#define NNUM 10

/* Exercise every form of one memory type against every numeric variable:
 * each 1-D of length 4 in chunks of 3 (so one edge chunk). */
#define ALL_FORMS(SUF, CT)                                                        \
    for (int k = 0; k < NNUM; k++) {                                              \
        int v = vars[k];                                                          \
        CT in[4] = {0, 1, 2, 100}, out[4] = {0};                                  \
        OK(nc_put_var_##SUF(ncid, v, in));                                        \
        OK(nc_get_var_##SUF(ncid, v, out));                                       \
        for (int i = 0; i < 4; i++) EQ_DBL((double)out[i], (double)in[i]);       \
        size_t idx[1] = {3};                                                      \
        CT one = 5, got = 0;                                                      \
        OK(nc_put_var1_##SUF(ncid, v, idx, &one));                                \
        OK(nc_get_var1_##SUF(ncid, v, idx, &got));                                \
        EQ_DBL((double)got, 5.0);                                                 \
        size_t st[1] = {1}, ct[1] = {2};                                          \
        CT two[2] = {7, 8}, two_out[2] = {0};                                     \
        OK(nc_put_vara_##SUF(ncid, v, st, ct, two));                              \
        OK(nc_get_vara_##SUF(ncid, v, st, ct, two_out));                          \
        EQ_DBL((double)two_out[0], 7.0); EQ_DBL((double)two_out[1], 8.0);         \
        size_t st0[1] = {0};                                                      \
        ptrdiff_t sd[1] = {2};                                                    \
        CT ev[2] = {9, 10};                                                       \
        OK(nc_put_vars_##SUF(ncid, v, st0, ct, sd, ev));                          \
        OK(nc_get_var_##SUF(ncid, v, out));                                       \
        EQ_DBL((double)out[0], 9.0); EQ_DBL((double)out[1], 7.0);                 \
        EQ_DBL((double)out[2], 10.0); EQ_DBL((double)out[3], 5.0);                \
        ptrdiff_t im[1] = {2};                                                    \
        CT spaced[4] = {0};                                                       \
        OK(nc_get_varm_##SUF(ncid, v, st0, ct, sd, im, spaced));                  \
        EQ_DBL((double)spaced[0], 9.0); EQ_DBL((double)spaced[2], 10.0);          \
        spaced[0] = 20; spaced[2] = 30;                                           \
        OK(nc_put_varm_##SUF(ncid, v, st, ct, NULL, im, spaced));                 \
        OK(nc_get_vars_##SUF(ncid, v, st, ct, NULL, two_out));                    \
        EQ_DBL((double)two_out[0], 20.0); EQ_DBL((double)two_out[1], 30.0);       \
    }

int main(void)
{
    int ncid, n4, vars[NNUM], v, old;
    char name[32];
    const char *url = test_url("data");

    OK(nc_create(url, NC_CLOBBER, &ncid));
    OK(nc_def_dim(ncid, "n", 4, &n4));
    for (int k = 0; k < NNUM; k++) {
        size_t three = 3;
        snprintf(name, sizeof name, "v%d", numeric[k]);
        OK(nc_def_var(ncid, name, numeric[k], 1, &n4, &vars[k]));
        OK(nc_def_var_chunking(ncid, vars[k], NC_CHUNKED, &three));
    }
    /* Data calls leave define mode by themselves (netCDF-4). */
    ALL_FORMS(schar, signed char)
    ERR(NC_ENOTINDEFINE, nc_enddef(ncid));
    ALL_FORMS(uchar, unsigned char)
    ALL_FORMS(ubyte, unsigned char)
    ALL_FORMS(short, short)
    ALL_FORMS(ushort, unsigned short)
    ALL_FORMS(int, int)
    ALL_FORMS(uint, unsigned int)
    ALL_FORMS(long, long)
    ALL_FORMS(longlong, long long)
    ALL_FORMS(ulonglong, unsigned long long)
    ALL_FORMS(float, float)
    ALL_FORMS(double, double)

    /* Untyped forms use the variable's own type. */
    {
        short in[4] = {-1, -2, -3, -4}, out[4];
        size_t st[1] = {0}, ct[1] = {4}, idx[1] = {2};
        ptrdiff_t sd[1] = {1}, im[1] = {1};
        OK(nc_inq_varid(ncid, "v3", &v));
        OK(nc_put_var(ncid, v, in));
        OK(nc_get_vara(ncid, v, st, ct, out));
        EQ_INT(out[3], -4);
        OK(nc_get_var1(ncid, v, idx, out));
        EQ_INT(out[0], -3);
        OK(nc_put_vars(ncid, v, st, ct, sd, in));
        OK(nc_get_varm(ncid, v, st, ct, sd, im, out));
        EQ_INT(out[1], -2);
        OK(nc_put_var1(ncid, v, idx, in));
        OK(nc_put_vara(ncid, v, st, ct, in));
        OK(nc_put_varm(ncid, v, st, ct, sd, im, in));
        OK(nc_get_vars(ncid, v, st, ct, sd, out));
        OK(nc_get_var(ncid, v, out));
        EQ_INT(out[2], -3);
    }

    /* Conversion: out-of-range values are stored as C converts them and
     * NC_ERANGE comes after everything was written (or read). */
    {
        int big[4] = {1, 300, -1, 127};
        signed char got[4];
        OK(nc_inq_varid(ncid, "v1", &v)); /* NC_BYTE */
        ERR(NC_ERANGE, nc_put_var_int(ncid, v, big));
        OK(nc_get_var_schar(ncid, v, got));
        EQ_INT(got[0], 1); EQ_INT(got[1], 44); EQ_INT(got[2], -1); EQ_INT(got[3], 127);
        unsigned char ugot[4];
        ERR(NC_ERANGE, nc_get_var_uchar(ncid, v, ugot)); /* -1 does not fit */
        EQ_INT(ugot[3], 127);
        double d[4] = {1.9, -1.9, 1e40, 0};
        float f[4];
        OK(nc_inq_varid(ncid, "v5", &v)); /* NC_FLOAT */
        ERR(NC_ERANGE, nc_put_var_double(ncid, v, d));
        OK(nc_get_var_float(ncid, v, f));
        EQ_DBL(f[0], (float)1.9);
        int i4[4];
        OK(nc_inq_varid(ncid, "v4", &v)); /* NC_INT */
        ERR(NC_ERANGE, nc_put_var_double(ncid, v, d)); /* 1e40 does not fit an int */
        OK(nc_get_var_int(ncid, v, i4));
        EQ_INT(i4[0], 1); EQ_INT(i4[1], -1); /* truncation toward zero */
    }

    /* Text and strings. */
    {
        int c, s, n7, cv;
        OK(nc_def_dim(ncid, "seven", 7, &n7));
        OK(nc_def_var(ncid, "chars", NC_CHAR, 1, &n7, &c));
        OK(nc_def_var(ncid, "strings", NC_STRING, 1, &n4, &s));
        int four = 4;
        OK(nc_put_att_int(ncid, s, "_nczarr_maxstrlen", NC_INT, 1, &four));
        OK(nc_def_var(ncid, "counts", NC_INT, 1, &n7, &cv));
        char text[8] = {0};
        OK(nc_put_var_text(ncid, c, "netcdf!"));
        OK(nc_get_var_text(ncid, c, text));
        EQ_STR(text, "netcdf!");
        size_t st[1] = {2}, ct[1] = {3};
        OK(nc_put_vara_text(ncid, c, st, ct, "XYZ"));
        OK(nc_get_var_text(ncid, c, text));
        EQ_STR(text, "neXYZf!");
        int ints[7] = {0};
        ERR(NC_ECHAR, nc_put_var_int(ncid, c, ints));
        ERR(NC_ECHAR, nc_get_var_text(ncid, cv, text));
        ERR(NC_ECHAR, nc_get_var_schar(ncid, c, (signed char *)text));

        const char *in[4] = {"a", "", "abcd", NULL};
        char *out[4] = {0};
        OK(nc_put_var_string(ncid, s, in));
        OK(nc_get_var_string(ncid, s, out));
        EQ_STR(out[0], "a"); EQ_STR(out[1], ""); EQ_STR(out[2], "abcd"); EQ_STR(out[3], "");
        OK(nc_free_string(4, out));
        /* Too long for the width: cut to it, as netcdf-c does (its
         * _nczarr_maxstrlen test). */
        const char *toolong[4] = {"x", "y", "abcdefgh", "z"};
        OK(nc_put_var_string(ncid, s, toolong));
        OK(nc_get_var_string(ncid, s, out));
        EQ_STR(out[0], "x"); EQ_STR(out[1], "y"); EQ_STR(out[2], "abcd"); EQ_STR(out[3], "z");
        OK(nc_free_string(4, out));
        ptrdiff_t sd[1] = {3};
        size_t s0[1] = {0}, c2[1] = {2};
        const char *pair[2] = {"p", "q"};
        OK(nc_put_vars_string(ncid, s, s0, c2, sd, pair));
        OK(nc_get_vara_string(ncid, s, s0, ct, out));
        EQ_STR(out[0], "p"); EQ_STR(out[1], "y"); EQ_STR(out[2], "abcd");
        OK(nc_free_string(3, out));
        ERR(NC_EBADTYPE, nc_put_var_int(ncid, s, ints));
        ERR(NC_EBADTYPE, nc_get_var_string(ncid, cv, out));
    }

    /* Fill values: defaults, _FillValue, NOFILL. */
    {
        int n10, a, b, nf;
        OK(nc_def_dim(ncid, "ten", 10, &n10));
        OK(nc_def_var(ncid, "deflt", NC_SHORT, 1, &n10, &a));
        OK(nc_def_var(ncid, "own", NC_DOUBLE, 1, &n10, &b));
        double fv = -5.5;
        OK(nc_put_att_double(ncid, b, "_FillValue", NC_DOUBLE, 1, &fv));
        OK(nc_set_fill(ncid, NC_NOFILL, &old));
        OK(nc_def_var(ncid, "nofill", NC_INT, 1, &n10, &nf));
        OK(nc_set_fill(ncid, NC_FILL, &old));
        size_t st[1] = {4}, ct[1] = {2};
        short sv[2] = {1, 2}, sout[10];
        double dv[2] = {3, 4}, dout[10];
        OK(nc_put_vara_short(ncid, a, st, ct, sv));
        OK(nc_put_vara_double(ncid, b, st, ct, dv));
        OK(nc_get_var_short(ncid, a, sout));
        EQ_INT(sout[0], NC_FILL_SHORT); EQ_INT(sout[4], 1); EQ_INT(sout[9], NC_FILL_SHORT);
        OK(nc_get_var_double(ncid, b, dout));
        EQ_DBL(dout[0], -5.5); EQ_DBL(dout[5], 4.0);
        int iout[10];
        OK(nc_get_var_int(ncid, nf, iout));
        EQ_INT(iout[3], 0);
        /* The fill value is fixed once data exists. */
        ERR(NC_ELATEFILL, nc_put_att_double(ncid, b, "_FillValue", NC_DOUBLE, 1, &fv));
    }

    /* Partial and edge chunks: a 5x7 grid in 2x3 chunks against a model. */
    {
        int y, x, g;
        float model[5][7], back[5][7];
        OK(nc_def_dim(ncid, "y", 5, &y));
        OK(nc_def_dim(ncid, "x", 7, &x));
        int dims[2] = {y, x};
        OK(nc_def_var(ncid, "grid", NC_FLOAT, 2, dims, &g));
        size_t chunks[2] = {2, 3};
        OK(nc_def_var_chunking(ncid, g, NC_CHUNKED, chunks));
        for (int i = 0; i < 5; i++) for (int j = 0; j < 7; j++) model[i][j] = NC_FILL_FLOAT;
        unsigned seed = 12345;
        for (int round = 0; round < 40; round++) {
            size_t st[2], ct[2];
            seed = seed * 1103515245 + 12345; st[0] = (seed >> 16) % 5;
            seed = seed * 1103515245 + 12345; st[1] = (seed >> 16) % 7;
            seed = seed * 1103515245 + 12345; ct[0] = 1 + (seed >> 16) % (5 - st[0]);
            seed = seed * 1103515245 + 12345; ct[1] = 1 + (seed >> 16) % (7 - st[1]);
            float buf[35];
            for (size_t i = 0; i < ct[0]; i++)
                for (size_t j = 0; j < ct[1]; j++) {
                    buf[i * ct[1] + j] = (float)(round * 100 + i * 10 + j);
                    model[st[0] + i][st[1] + j] = buf[i * ct[1] + j];
                }
            OK(nc_put_vara_float(ncid, g, st, ct, buf));
            OK(nc_get_var_float(ncid, g, &back[0][0]));
            TRUE_OR_FAIL(memcmp(model, back, sizeof model) == 0);
        }
        /* A transposing map: read the grid into Fortran order. */
        float fortran[7][5];
        size_t st[2] = {0, 0}, ct[2] = {5, 7};
        ptrdiff_t im[2] = {1, 5};
        OK(nc_get_varm_float(ncid, g, st, ct, NULL, im, &fortran[0][0]));
        for (int i = 0; i < 5; i++) for (int j = 0; j < 7; j++) EQ_DBL(fortran[j][i], model[i][j]);
        /* Strided reads across chunk boundaries. */
        ptrdiff_t sd[2] = {2, 3};
        size_t sct[2] = {3, 3};
        float strided[9];
        OK(nc_get_vars_float(ncid, g, st, sct, sd, strided));
        for (int i = 0; i < 3; i++) for (int j = 0; j < 3; j++) EQ_DBL(strided[i * 3 + j], model[2 * i][3 * j]);
    }

    /* Big-endian storage. */
    {
        int be;
        OK(nc_def_var(ncid, "be", NC_INT, 1, &n4, &be));
        OK(nc_def_var_endian(ncid, be, NC_ENDIAN_BIG));
        int in[4] = {1, 2, 0x01020304, -1}, out[4];
        OK(nc_put_var_int(ncid, be, in));
        OK(nc_get_var_int(ncid, be, out));
        TRUE_OR_FAIL(memcmp(in, out, sizeof in) == 0);
    }

    /* Scalars. */
    {
        int sc;
        OK(nc_def_var(ncid, "scalar", NC_DOUBLE, 0, NULL, &sc));
        double pi = 3.25, got = 0;
        OK(nc_put_var_double(ncid, sc, &pi));
        OK(nc_get_var1_double(ncid, sc, NULL, &got));
        EQ_DBL(got, 3.25);
        OK(nc_get_vara_double(ncid, sc, NULL, NULL, &got));
    }

    /* Unlimited growth: writes past the end grow the dimension for every
     * variable that uses it. */
    {
        int t, r1, r2;
        size_t len;
        OK(nc_def_dim(ncid, "t", NC_UNLIMITED, &t));
        OK(nc_def_var(ncid, "r1", NC_INT, 1, &t, &r1));
        int dims[2] = {t, n4};
        OK(nc_def_var(ncid, "r2", NC_SHORT, 2, dims, &r2));
        OK(nc_inq_dimlen(ncid, t, &len)); EQ_INT(len, 0);
        int rec[1] = {77};
        size_t st[1] = {5}, ct[1] = {1};
        OK(nc_put_vara_int(ncid, r1, st, ct, rec));
        OK(nc_inq_dimlen(ncid, t, &len)); EQ_INT(len, 6);
        short r2out[6 * 4];
        OK(nc_get_var_short(ncid, r2, r2out));
        EQ_INT(r2out[23], NC_FILL_SHORT);
        size_t st2[2] = {7, 0}, ct2[2] = {2, 4};
        short r2in[8] = {1, 2, 3, 4, 5, 6, 7, 8};
        ptrdiff_t sd2[2] = {2, 1};
        OK(nc_put_vars_short(ncid, r2, st2, ct2, sd2, r2in)); /* records 7 and 9 */
        OK(nc_inq_dimlen(ncid, t, &len)); EQ_INT(len, 10);
        int r1out[10];
        OK(nc_get_var_int(ncid, r1, r1out));
        EQ_INT(r1out[5], 77); EQ_INT(r1out[9], NC_FILL_INT);
        /* Reading past the end is still an error. */
        size_t past[1] = {10};
        ERR(NC_EINVALCOORDS, nc_get_vara_int(ncid, r1, past, ct, r1out));
    }

    /* Bad requests. */
    {
        int v1 = vars[4], buf[8] = {0};
        size_t st[1] = {5}, ct[1] = {1}, st0[1] = {0}, ct5[1] = {5}, ct2[1] = {2}, st4[1] = {4}, ct0[1] = {0};
        ptrdiff_t zero[1] = {0}, neg[1] = {-1}, three[1] = {3}, four[1] = {4};
        ERR(NC_EINVALCOORDS, nc_put_vara_int(ncid, v1, st, ct, buf));
        ERR(NC_EINVALCOORDS, nc_get_var1_int(ncid, v1, st, buf));
        ERR(NC_EINVALCOORDS, nc_get_vara_int(ncid, v1, NULL, ct, buf));
        ERR(NC_EEDGE, nc_get_vara_int(ncid, v1, st0, ct5, buf));
        OK(nc_get_vars_int(ncid, v1, st0, ct2, three, buf)); /* indices 0 and 3 */
        ERR(NC_EEDGE, nc_get_vars_int(ncid, v1, st0, ct2, four, buf)); /* index 4 is past the end */
        ERR(NC_ESTRIDE, nc_get_vars_int(ncid, v1, st0, ct2, zero, buf));
        ERR(NC_ESTRIDE, nc_put_vars_int(ncid, v1, st0, ct2, neg, buf));
        OK(nc_get_vara_int(ncid, v1, st4, ct0, buf)); /* start == length with count 0 */
        ERR(NC_ENOTVAR, nc_get_var_int(ncid, 999, buf));
        ERR(NC_EBADID, nc_get_var_int(ncid + 99, v1, buf));
    }

    /* Chunk cache API. */
    {
        size_t size, nelems;
        float pre;
        OK(nc_get_chunk_cache(&size, &nelems, &pre));
        EQ_INT(size, 64 << 20); EQ_INT(nelems, 1000); EQ_DBL(pre, 0.75f);
        ERR(NC_EINVAL, nc_set_chunk_cache(1000, 10, 1.5f));
        OK(nc_set_chunk_cache(1 << 20, 10, 0.5f));
        OK(nc_get_chunk_cache(&size, &nelems, &pre));
        EQ_INT(size, 1 << 20); EQ_INT(nelems, 10);
        OK(nc_set_chunk_cache(64 << 20, 1000, 0.75f));
        int g;
        OK(nc_inq_varid(ncid, "grid", &g));
        OK(nc_set_var_chunk_cache(ncid, g, 24, 1, 0.0f)); /* room for one 2x3 float chunk */
        OK(nc_get_var_chunk_cache(ncid, g, &size, &nelems, &pre));
        EQ_INT(size, 24); EQ_INT(nelems, 1);
        ERR(NC_EINVAL, nc_set_var_chunk_cache(ncid, g, 24, 1, -1.0f));
        ERR(NC_ENOTVAR, nc_get_var_chunk_cache(ncid, 999, &size, &nelems, &pre));
        /* Writes through a one-chunk cache still all arrive. */
        float ones[35];
        for (int i = 0; i < 35; i++) ones[i] = (float)i;
        OK(nc_put_var_float(ncid, g, ones));
        OK(nc_set_var_chunk_cache(ncid, g, 0, 0, 0.0f)); /* no cache at all */
        float back[35];
        OK(nc_get_var_float(ncid, g, back));
        TRUE_OR_FAIL(memcmp(ones, back, sizeof ones) == 0);

        /* A write whose first chunk evicts a chunk it then writes part of
         * (cached, unwritten): the evicted chunk's other values survive. */
        int lin, d;
        OK(nc_redef(ncid));
        OK(nc_def_dim(ncid, "lin_n", 40, &d));
        OK(nc_def_var(ncid, "lin", NC_INT, 1, &d, &lin));
        size_t four = 4;
        OK(nc_def_var_chunking(ncid, lin, NC_CHUNKED, &four));
        OK(nc_enddef(ncid));
        OK(nc_set_var_chunk_cache(ncid, lin, 16, 1, 0.0f)); /* one 4-int chunk */
        int v1[2] = {16, 17}, v0[6] = {0, 1, 2, 3, 14, 15}, got[8];
        size_t st = 6, ct = 2;
        OK(nc_put_vara_int(ncid, lin, &st, &ct, v1)); /* chunk 1, part, cached */
        st = 0; ct = 6;
        OK(nc_put_vara_int(ncid, lin, &st, &ct, v0)); /* chunk 0 whole, then chunk 1 part */
        st = 0; ct = 8;
        OK(nc_get_vara_int(ncid, lin, &st, &ct, got));
        EQ_INT(got[3], 3); EQ_INT(got[4], 14); EQ_INT(got[5], 15); EQ_INT(got[6], 16); EQ_INT(got[7], 17);
    }
    OK(nc_close(ncid));

    /* Everything is on disk: reopen and check, including the bytes of a
     * big-endian chunk. */
    OK(nc_open(url, NC_NOWRITE, &ncid));
    {
        int be, out[4], g, r1;
        OK(nc_inq_varid(ncid, "be", &be));
        OK(nc_get_var_int(ncid, be, out));
        EQ_INT(out[2], 0x01020304);
        FILE *f = fopen("data.zarr/be/0", "rb");
        TRUE_OR_FAIL(f != NULL);
        unsigned char raw[16];
        TRUE_OR_FAIL(fread(raw, 1, 16, f) == 16);
        fclose(f);
        EQ_INT(raw[8], 1); EQ_INT(raw[9], 2); EQ_INT(raw[10], 3); EQ_INT(raw[11], 4);
        float grid[35];
        OK(nc_inq_varid(ncid, "grid", &g));
        OK(nc_get_var_float(ncid, g, grid));
        EQ_DBL(grid[34], 34.0);
        size_t len;
        int t;
        OK(nc_inq_dimid(ncid, "t", &t));
        OK(nc_inq_dimlen(ncid, t, &len)); EQ_INT(len, 10);
        OK(nc_inq_varid(ncid, "r1", &r1));
        int r1out[10];
        OK(nc_get_var_int(ncid, r1, r1out));
        EQ_INT(r1out[5], 77);
        int nf, iout[10];
        OK(nc_inq_varid(ncid, "nofill", &nf));
        OK(nc_get_var_int(ncid, nf, iout));
        EQ_INT(iout[0], 0);
        int buf[4] = {0};
        ERR(NC_EPERM, nc_put_var_int(ncid, be, buf));

        /* nc_copy_var into a new dataset that has the dimensions. */
        int out_ncid, tt, nn, copied;
        OK(nc_create(test_url("copy"), NC_CLOBBER, &out_ncid));
        OK(nc_def_dim(out_ncid, "t", NC_UNLIMITED, &tt));
        OK(nc_def_dim(out_ncid, "n", 4, &nn));
        int r2, strs;
        OK(nc_inq_varid(ncid, "r2", &r2));
        OK(nc_copy_var(ncid, r2, out_ncid));
        OK(nc_inq_varid(ncid, "strings", &strs));
        ERR(NC_EBADDIM, nc_copy_var(ncid, g, out_ncid)); /* no y, x there */
        OK(nc_copy_var(ncid, strs, out_ncid));
        OK(nc_inq_varid(out_ncid, "r2", &copied));
        OK(nc_inq_dimlen(out_ncid, tt, &len)); EQ_INT(len, 10);
        short a[40], b[40];
        OK(nc_get_var_short(ncid, r2, a));
        OK(nc_get_var_short(out_ncid, copied, b));
        TRUE_OR_FAIL(memcmp(a, b, sizeof a) == 0);
        EQ_INT(b[7 * 4], 1);
        char *sv[4];
        OK(nc_inq_varid(out_ncid, "strings", &copied));
        OK(nc_get_var_string(out_ncid, copied, sv));
        EQ_STR(sv[0], "p"); EQ_STR(sv[2], "abcd");
        OK(nc_free_string(4, sv));
        int maxlen;
        OK(nc_get_att_int(out_ncid, copied, "_nczarr_maxstrlen", &maxlen)); EQ_INT(maxlen, 4);
        OK(nc_close(out_ncid));
    }
    OK(nc_close(ncid));
    {
        /* The string variable's width is what _nczarr_maxstrlen said. */
        FILE *f = fopen("data.zarr/strings/.zarray", "r");
        char json[512] = {0};
        TRUE_OR_FAIL(f && fread(json, 1, sizeof json - 1, f) > 0);
        fclose(f);
        TRUE_OR_FAIL(strstr(json, "\"|S4\"") != NULL);
    }
    PASS();
}
