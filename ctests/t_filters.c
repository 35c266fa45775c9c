/* Filters: every built-in codec round-trips; the filter API's answers and
 * error codes; _Codecs; a corrupt compressed chunk is an error, never
 * wrong data. */
#include "testutil.h"
#include <netcdf_filter.h>

#define N 1000

int main(void)
{
    int ncid, x, v[8], s;
    float data[N], back[N];
    for (int i = 0; i < N; i++) data[i] = (float)(i / 7) * 0.5f;
    const char *names[] = {"deflate", "shuffle_deflate", "zstd", "bz2", "fletcher", "lz4", "chain", "blosc"};

    OK(nc_create(test_url("filters"), NC_CLOBBER, &ncid));
    OK(nc_def_dim(ncid, "x", N, &x));
    for (int k = 0; k < 8; k++) {
        size_t chunk = 300; /* an edge chunk too */
        OK(nc_def_var(ncid, names[k], NC_FLOAT, 1, &x, &v[k]));
        OK(nc_def_var_chunking(ncid, v[k], NC_CHUNKED, &chunk));
    }
    OK(nc_def_var_deflate(ncid, v[0], 0, 1, 6));
    OK(nc_def_var_deflate(ncid, v[1], 1, 1, 1));
    OK(nc_def_var_zstandard(ncid, v[2], 3));
    OK(nc_def_var_bzip2(ncid, v[3], 9));
    OK(nc_def_var_fletcher32(ncid, v[4], 1));
    unsigned one = 1, level = 4;
    OK(nc_def_var_filter(ncid, v[5], 32004, 1, &one));
    OK(nc_def_var_filter(ncid, v[6], H5Z_FILTER_SHUFFLE, 0, NULL));
    OK(nc_def_var_filter(ncid, v[6], H5Z_FILTER_FLETCHER32, 0, NULL));
    OK(nc_def_var_filter(ncid, v[6], H5Z_FILTER_DEFLATE, 1, &level));
    OK(nc_def_var_blosc(ncid, v[7], BLOSC_LZ4, 5, 0, BLOSC_SHUFFLE));
    /* Redefining a filter replaces its parameters in place. */
    level = 2;
    OK(nc_def_var_filter(ncid, v[6], H5Z_FILTER_DEFLATE, 1, &level));

    /* Errors. */
    ERR(NC_EINVAL, nc_def_var_deflate(ncid, v[0], 0, 1, 10));
    ERR(NC_EFILTER, nc_def_var_filter(ncid, v[0], H5Z_FILTER_DEFLATE, 2, (unsigned[]){1, 2}));
    ERR(NC_EINVAL, nc_def_var_filter(ncid, v[0], H5Z_FILTER_DEFLATE, 1, NULL));
    ERR(NC_ENOFILTER, nc_def_var_filter(ncid, v[0], 54321, 0, NULL));
    ERR(NC_ENOFILTER, nc_def_var_szip(ncid, v[0], NC_SZIP_NN, 8));
    ERR(NC_ENOFILTER, nc_def_var_blosc(ncid, v[0], BLOSC_SNAPPY, 5, 0, 1)); /* snappy is not built in */
    ERR(NC_EINVAL, nc_def_var_blosc(ncid, v[0], 9, 5, 0, 1));
    ERR(NC_EINVAL, nc_def_var_bzip2(ncid, v[0], 0));
    ERR(NC_EINVAL, nc_def_var_zstandard(ncid, v[0], 23));
    OK(nc_def_var(ncid, "scalar", NC_INT, 0, NULL, &s));
    ERR(NC_EINVAL, nc_def_var_deflate(ncid, s, 0, 1, 1));
    ERR(NC_ENOTVAR, nc_def_var_deflate(ncid, 99, 0, 1, 1));
    OK(nc_inq_filter_avail(ncid, H5Z_FILTER_DEFLATE));
    OK(nc_inq_filter_avail(ncid, H5Z_FILTER_ZSTD));
    ERR(NC_ENOFILTER, nc_inq_filter_avail(ncid, H5Z_FILTER_SZIP));
    ERR(NC_EBADID, nc_inq_filter_avail(ncid + 5, 1));

    /* Inquiry. */
    {
        size_t nf, np;
        unsigned ids[4], params[4], id;
        OK(nc_inq_var_filter_ids(ncid, v[6], &nf, ids));
        EQ_INT(nf, 3);
        EQ_INT(ids[0], H5Z_FILTER_SHUFFLE); EQ_INT(ids[1], H5Z_FILTER_FLETCHER32); EQ_INT(ids[2], H5Z_FILTER_DEFLATE);
        OK(nc_inq_var_filter_info(ncid, v[6], H5Z_FILTER_DEFLATE, &np, params));
        EQ_INT(np, 1); EQ_INT(params[0], 2);
        ERR(NC_ENOFILTER, nc_inq_var_filter_info(ncid, v[6], H5Z_FILTER_ZSTD, &np, params));
        OK(nc_inq_var_filter(ncid, v[6], &id, &np, params));
        EQ_INT(id, H5Z_FILTER_SHUFFLE); EQ_INT(np, 0);
        OK(nc_inq_var_filter(ncid, s, &id, &np, params));
        EQ_INT(id, 0);
        int sh, df, lv, has;
        OK(nc_inq_var_deflate(ncid, v[1], &sh, &df, &lv));
        EQ_INT(sh, 1); EQ_INT(df, 1); EQ_INT(lv, 1);
        OK(nc_inq_var_deflate(ncid, v[2], &sh, &df, &lv));
        EQ_INT(sh, 0); EQ_INT(df, 0);
        OK(nc_inq_var_zstandard(ncid, v[2], &has, &lv));
        EQ_INT(has, 1); EQ_INT(lv, 3);
        OK(nc_inq_var_bzip2(ncid, v[3], &has, &lv));
        EQ_INT(has, 1); EQ_INT(lv, 9);
        OK(nc_inq_var_bzip2(ncid, v[2], &has, &lv));
        EQ_INT(has, 0);
        OK(nc_inq_var_fletcher32(ncid, v[4], &has));
        EQ_INT(has, 1);
        /* Spelled as netcdf-c spells it, and like netcdf-c the text comes
         * with its NUL one byte past the length (ncdump relies on it). */
        char codecs[256];
        size_t codecs_len;
        memset(codecs, 'x', sizeof codecs);
        OK(nc_inq_attlen(ncid, v[1], "_Codecs", &codecs_len));
        OK(nc_get_att_text(ncid, v[1], "_Codecs", codecs));
        EQ_STR(codecs, "[{\"id\": \"shuffle\", \"elementsize\": 4},{\"id\": \"zlib\", \"level\": 1}]");
        EQ_INT(codecs_len, strlen(codecs));
        ERR(NC_ENOTATT, nc_get_att_text(ncid, s, "_Codecs", codecs));
    }

    {
        int has;
        unsigned sub, lv, bs, sh;
        OK(nc_inq_var_blosc(ncid, v[7], &has, &sub, &lv, &bs, &sh));
        EQ_INT(has, 1); EQ_INT(sub, BLOSC_LZ4); EQ_INT(lv, 5); EQ_INT(sh, BLOSC_SHUFFLE);
        OK(nc_inq_filter_avail(ncid, H5Z_FILTER_BLOSC));
    }
    for (int k = 0; k < 8; k++) OK(nc_put_var_float(ncid, v[k], data));
    /* Filters are fixed once data exists. */
    ERR(NC_ELATEDEF, nc_def_var_deflate(ncid, v[2], 0, 1, 1));
    OK(nc_close(ncid));

    OK(nc_open(test_url("filters"), NC_NOWRITE, &ncid));
    for (int k = 0; k < 8; k++) {
        memset(back, 0, sizeof back);
        OK(nc_get_var_float(ncid, v[k], back));
        TRUE_OR_FAIL(memcmp(back, data, sizeof data) == 0);
    }
    {
        size_t nf;
        unsigned ids[4];
        OK(nc_inq_var_filter_ids(ncid, v[6], &nf, ids));
        EQ_INT(nf, 3); EQ_INT(ids[2], H5Z_FILTER_DEFLATE);
        int sh, df, lv;
        OK(nc_inq_var_deflate(ncid, v[0], &sh, &df, &lv));
        EQ_INT(df, 1); EQ_INT(lv, 6);
    }
    OK(nc_close(ncid));

    /* Compressed bytes are never handed out as data: a stored chunk that
     * does not decode (or fails its checksum) is an error. */
    {
        FILE *f = fopen("filters.zarr/deflate/0", "r+b");
        TRUE_OR_FAIL(f != NULL);
        fseek(f, 20, SEEK_SET);
        fputc(0x55, f);
        fputc(0xAA, f);
        fclose(f);
        f = fopen("filters.zarr/fletcher/1", "r+b");
        TRUE_OR_FAIL(f != NULL);
        fseek(f, 8, SEEK_SET);
        fputc(0x7f, f);
        fclose(f);
        f = fopen("filters.zarr/zstd/2", "wb"); /* truncated to nothing useful */
        fputs("junk", f);
        fclose(f);
    }
    OK(nc_open(test_url("filters"), NC_NOWRITE, &ncid));
    ERR(NC_EFILTER, nc_get_var_float(ncid, v[0], back));
    ERR(NC_EFILTER, nc_get_var_float(ncid, v[4], back));
    ERR(NC_EFILTER, nc_get_var_float(ncid, v[2], back));
    /* Chunks still intact read fine. */
    {
        size_t start = 300, count = 10;
        OK(nc_get_vara_float(ncid, v[0], &start, &count, back));
        EQ_DBL(back[0], data[300]);
    }
    OK(nc_close(ncid));
    PASS();
}
