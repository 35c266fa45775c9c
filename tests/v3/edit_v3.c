/* edit_v3.c -- a Zarr v3 dataset written in two sessions through our
 * library, for zarr-python and xarray to read (test_write_v3.py has the
 * values it must hold).
 *
 * Session 1 creates: an unlimited dimension, variable-length strings in
 * 2x2 chunks, a float with a _FillValue, gzip (nc_def_var_deflate) with
 * shuffle, a NOFILL int, a group using its parent's dimension.
 * Session 2 reopens: appends a record, rewrites strings (longer, shorter,
 * non-ASCII, part of a chunk), renames a variable and a group, adds an
 * attribute and a variable, rewrites a block across shards.
 * Two variables are sharded (the _Shards attribute): a float with gzip
 * and a string.
 *
 * Usage: edit_v3 URL [fixed]   (URL with #mode=...,v3; "fixed": pure Zarr,
 * whose dimensions are never unlimited once stored, so no record is
 * appended)
 */
#include <netcdf.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call) do { int _s = (call); if (_s != NC_NOERR) { \
    fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, nc_strerror(_s)); exit(2); } } while (0)

int main(int argc, char **argv)
{
    int ncid, g, t, x, dims[2], vs, vf, vz, vn, vi, vl;
    if (argc < 2 || argc > 3) return 2;
    int append = argc == 2;

    /* Session 1. */
    CHECK(nc_create(argv[1], NC_CLOBBER, &ncid));
    CHECK(nc_def_dim(ncid, "time", NC_UNLIMITED, &t));
    CHECK(nc_def_dim(ncid, "x", 4, &x));
    dims[0] = t; dims[1] = x;
    size_t chunks[2] = {2, 2};
    CHECK(nc_def_var(ncid, "strs", NC_STRING, 2, dims, &vs));
    CHECK(nc_def_var_chunking(ncid, vs, NC_CHUNKED, chunks));
    CHECK(nc_def_var(ncid, "temp", NC_FLOAT, 2, dims, &vf));
    CHECK(nc_def_var_chunking(ncid, vf, NC_CHUNKED, chunks));
    float ffill = -999.0f;
    CHECK(nc_def_var_fill(ncid, vf, 0, &ffill));
    CHECK(nc_put_att_text(ncid, vf, "units", 1, "K"));
    CHECK(nc_def_var(ncid, "zipped", NC_INT, 1, &x, &vz));
    CHECK(nc_def_var_deflate(ncid, vz, 1, 1, 4));
    CHECK(nc_def_var(ncid, "nofill", NC_INT, 1, &x, &vn));
    CHECK(nc_def_var_fill(ncid, vn, 1, NULL));
    /* Shards: 2x1 chunks of 2x2 each, on a 5x4 grid (edge shards). */
    int y, vt, vnames;
    CHECK(nc_def_dim(ncid, "y", 5, &y));
    dims[0] = y; dims[1] = x;
    CHECK(nc_def_var(ncid, "tiles", NC_FLOAT, 2, dims, &vt));
    CHECK(nc_def_var_chunking(ncid, vt, NC_CHUNKED, chunks));
    int per_shard[2] = {2, 1};
    CHECK(nc_put_att_int(ncid, vt, "_Shards", NC_INT, 2, per_shard));
    CHECK(nc_def_var_deflate(ncid, vt, 0, 1, 1));
    CHECK(nc_def_var(ncid, "names", NC_STRING, 1, &x, &vnames));
    size_t one_chunk = 1;
    CHECK(nc_def_var_chunking(ncid, vnames, NC_CHUNKED, &one_chunk));
    int two = 2;
    CHECK(nc_put_att_int(ncid, vnames, "_Shards", NC_INT, 1, &two));
    CHECK(nc_def_grp(ncid, "g", &g));
    CHECK(nc_def_var(g, "inner", NC_DOUBLE, 1, &x, &vi));
    CHECK(nc_enddef(ncid));

    const char *s1[8] = {"a", "bb", "ccc", "dddd", "", "f", "gg", "hhh"};
    size_t start[2] = {0, 0}, count[2] = {2, 4};
    CHECK(nc_put_vara_string(ncid, vs, start, count, s1));
    float f1[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    count[1] = 3; /* x = 3 stays fill in both records */
    CHECK(nc_put_vara_float(ncid, vf, start, count, f1));
    int z[4] = {10, 20, 30, 40};
    CHECK(nc_put_var_int(ncid, vz, z));
    size_t one = 1, at = 1;
    int n1 = 7;
    CHECK(nc_put_vara_int(ncid, vn, &at, &one, &n1));
    double d[4] = {0.5, 1.5, 2.5, 3.5};
    CHECK(nc_put_var_double(g, vi, d));
    float tiles[20];
    for (int k = 0; k < 20; k++) tiles[k] = (float)k;
    CHECK(nc_put_var_float(ncid, vt, tiles));
    const char *names[4] = {"n0", "n1", "n2", "n3"};
    CHECK(nc_put_var_string(ncid, vnames, names));
    CHECK(nc_close(ncid));

    /* Session 2. */
    CHECK(nc_open(argv[1], NC_WRITE, &ncid));
    CHECK(nc_inq_varid(ncid, "strs", &vs));
    CHECK(nc_inq_varid(ncid, "temp", &vf));
    CHECK(nc_inq_ncid(ncid, "g", &g));
    /* Dimension ids are the reopened dataset's (pure Zarr numbers them
       in the order its arrays are read). */
    CHECK(nc_inq_dimid(ncid, "x", &x));
    const char *s2[4] = {"record three", "\xc3\xa9t\xc3\xa9", "", "last"};
    start[0] = 2; count[0] = 1; count[1] = 4;
    if (append) CHECK(nc_put_vara_string(ncid, vs, start, count, s2));
    /* Rewrite inside a chunk: a longer and a shorter string. */
    const char *s3[2] = {"a much longer string than before", "B"};
    start[0] = 0; start[1] = 0; count[0] = 2; count[1] = 1;
    CHECK(nc_put_vara_string(ncid, vs, start, count, s3));
    float f2[4] = {9, 10, 11, 12};
    start[0] = 2; start[1] = 0; count[0] = 1; count[1] = 4;
    if (append) CHECK(nc_put_vara_float(ncid, vf, start, count, f2));
    /* Inside shards: a block across four of them, one string. */
    CHECK(nc_inq_varid(ncid, "tiles", &vt));
    CHECK(nc_inq_varid(ncid, "names", &vnames));
    float block[6] = {-1, -2, -3, -4, -5, -6};
    size_t bstart[2] = {1, 1}, bcount[2] = {3, 2};
    CHECK(nc_put_vara_float(ncid, vt, bstart, bcount, block));
    const char *renamed[1] = {"third name"};
    size_t at2 = 2;
    CHECK(nc_put_vara_string(ncid, vnames, &at2, &one, renamed));
    CHECK(nc_redef(ncid));
    CHECK(nc_rename_var(ncid, vf, "tas"));
    CHECK(nc_rename_grp(g, "h"));
    CHECK(nc_put_att_text(ncid, NC_GLOBAL, "history", 6, "edited"));
    CHECK(nc_def_var(ncid, "late", NC_DOUBLE, 1, &x, &vl));
    CHECK(nc_enddef(ncid));
    double late[4] = {-1, -2, -3, -4};
    CHECK(nc_put_var_double(ncid, vl, late));
    CHECK(nc_close(ncid));
    return 0;
}
