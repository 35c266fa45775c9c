/* Buffers C callers size by netCDF's constants, filled from what a store
 * says: names in NC_MAX_NAME + 1 bytes, dimension ids and chunk sizes in
 * NC_MAX_VAR_DIMS entries, a fill value in room for one value. A store
 * exceeding them is refused at open (NC_ENCZARR) rather than overflowing
 * the caller's buffer; under `NCZARR_RS_CTEST_SANITIZE=asan` (make
 * memcheck-test) an overflow fails this test even where the answer looks
 * right. Also: strings we allocate for strided and mapped reads, freed
 * with nc_free_string (leaks show under LeakSanitizer and valgrind), a
 * map that sends several elements to one place, and the version string as
 * netcdf-fortran reads it. */
#include "testutil.h"
#include <sys/stat.h>

static void put_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0) FAIL("cannot write %s", path);
}

/* A pure Zarr store s.zarr: root attributes `zattrs`, one int array v
 * with `rank` dimensions of length 1 (4 when rank is 1) and `fill`. */
static const char *pure_store(const char *zattrs, int rank, const char *fill)
{
    static char zarray[10240];
    char shape[4096] = "[";
    for (int i = 0; i < rank; i++) strcat(shape, rank == 1 ? "4" : i ? ",1" : "1");
    strcat(shape, "]");
    snprintf(zarray, sizeof zarray,
             "{\"zarr_format\": 2, \"shape\": %s, \"chunks\": %s, \"dtype\": \"<i4\", \"compressor\": null, "
             "\"fill_value\": %s, \"filters\": null, \"order\": \"C\"}", shape, shape, fill);
    mkdir("s.zarr", 0777);
    mkdir("s.zarr/v", 0777);
    put_file("s.zarr/.zgroup", "{\"zarr_format\": 2}");
    put_file("s.zarr/.zattrs", zattrs);
    put_file("s.zarr/v/.zarray", zarray);
    put_file("s.zarr/v/.zattrs", "{}");
    return "file://s.zarr#mode=zarr,file";
}

static void long_names(void)
{
    int ncid, dimid;
    char name[NC_MAX_NAME + 1], zattrs[1024], longname[NC_MAX_NAME + 2];
    memset(longname, 'a', sizeof longname - 1);
    longname[sizeof longname - 1] = 0; /* NC_MAX_NAME + 1 characters */

    /* NC_MAX_NAME bytes fit... */
    snprintf(zattrs, sizeof zattrs, "{\"%s\": 1}", longname + 1);
    OK(nc_open(pure_store(zattrs, 1, "0"), NC_NOWRITE, &ncid));
    OK(nc_inq_attname(ncid, NC_GLOBAL, 0, name));
    EQ_INT(strlen(name), NC_MAX_NAME);
    OK(nc_close(ncid));
    /* ...one more does not. */
    snprintf(zattrs, sizeof zattrs, "{\"%s\": 1}", longname);
    ERR(NC_ENCZARR, nc_open(pure_store(zattrs, 1, "0"), NC_NOWRITE, &ncid));

    /* An NCZarr dimension name. */
    snprintf(zattrs, sizeof zattrs,
             "{\"_nczarr_superblock\": {\"version\": \"2.0.0\"}, "
             "\"_nczarr_group\": {\"dimensions\": {\"%s\": 4}, \"arrays\": [], \"groups\": []}}", longname + 1);
    put_file("s.zarr/.zattrs", zattrs);
    OK(nc_open("file://s.zarr#mode=nczarr,file", NC_NOWRITE, &ncid));
    OK(nc_inq_dimid(ncid, longname + 1, &dimid));
    OK(nc_inq_dimname(ncid, dimid, name));
    EQ_STR(name, longname + 1);
    OK(nc_close(ncid));
    snprintf(zattrs, sizeof zattrs,
             "{\"_nczarr_superblock\": {\"version\": \"2.0.0\"}, "
             "\"_nczarr_group\": {\"dimensions\": {\"%s\": 4}, \"arrays\": [], \"groups\": []}}", longname);
    put_file("s.zarr/.zattrs", zattrs);
    ERR(NC_ENCZARR, nc_open("file://s.zarr#mode=nczarr,file", NC_NOWRITE, &ncid));
}

static void many_dimensions(void)
{
    int ncid, ndims, storage;
    int dimids[NC_MAX_VAR_DIMS];
    size_t chunks[NC_MAX_VAR_DIMS];
    OK(nc_open(pure_store("{}", NC_MAX_VAR_DIMS, "0"), NC_NOWRITE, &ncid));
    OK(nc_inq_var(ncid, 0, NULL, NULL, &ndims, dimids, NULL));
    EQ_INT(ndims, NC_MAX_VAR_DIMS);
    OK(nc_inq_var_chunking(ncid, 0, &storage, chunks));
    EQ_INT(chunks[NC_MAX_VAR_DIMS - 1], 1);
    OK(nc_close(ncid));
    ERR(NC_EMAXDIMS, nc_open(pure_store("{}", NC_MAX_VAR_DIMS + 1, "0"), NC_NOWRITE, &ncid));
}

static void fill_values(void)
{
    /* A fill value is one value. A list is not a fill value of an int
     * variable: the variable's fill and data are refused (NC_ENCZARR), and
     * nothing is written past the one value a caller's buffer holds. */
    const char *lists[] = {"[8]", "[1, 2, 3, 4, 5, 6, 7, 8]", "[]"};
    int ncid, no_fill, fill[2] = {0, 12345}, data[4];
    OK(nc_open(pure_store("{}", 1, "7"), NC_NOWRITE, &ncid));
    OK(nc_inq_var_fill(ncid, 0, &no_fill, fill));
    EQ_INT(no_fill, 0);
    EQ_INT(fill[0], 7);
    EQ_INT(fill[1], 12345);
    OK(nc_get_var_int(ncid, 0, data));
    EQ_INT(data[3], 7);
    OK(nc_close(ncid));
    for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++) {
        fill[0] = 0;
        OK(nc_open(pure_store("{}", 1, lists[i]), NC_NOWRITE, &ncid));
        ERR(NC_ENCZARR, nc_inq_var_fill(ncid, 0, &no_fill, fill));
        EQ_INT(fill[1], 12345);
        ERR(NC_ENCZARR, nc_get_var_int(ncid, 0, data));
        OK(nc_close(ncid));
    }
}

/* Strided and mapped string reads hand out one malloc'ed string per
 * element; a failing read hands out none. */
static void string_reads(void)
{
    int ncid, x, v;
    const char *in[6] = {"a", "bb", "", "dddd", "eeeee", "ffffff"};
    char *out[6] = {0};
    size_t start = 1, count = 3, len;
    ptrdiff_t stride = 2, imap = -1;
    OK(nc_create(test_url("strings"), NC_CLOBBER, &ncid));
    OK(nc_def_dim(ncid, "x", 6, &x));
    OK(nc_def_var(ncid, "v", NC_STRING, 1, &x, &v));
    OK(nc_put_var_string(ncid, v, in));
    OK(nc_put_att_string(ncid, v, "s", 2, in + 3));
    OK(nc_close(ncid));

    OK(nc_open(test_url("strings"), NC_NOWRITE, &ncid));
    start = 0;
    OK(nc_get_vars_string(ncid, v, &start, &count, &stride, out));
    EQ_STR(out[0], "a");
    EQ_STR(out[2], "eeeee");
    OK(nc_free_string(3, out));
    /* Mapped backwards: out[2], out[1], out[0]. */
    start = 3;
    OK(nc_get_varm_string(ncid, v, &start, &count, NULL, &imap, out + 2));
    EQ_STR(out[0], "ffffff");
    EQ_STR(out[2], "dddd");
    OK(nc_free_string(3, out));
    /* Through the untyped calls, as ncdump reads them. */
    OK(nc_inq_attlen(ncid, v, "s", &len));
    EQ_INT(len, 2);
    OK(nc_get_att(ncid, v, "s", out));
    EQ_STR(out[1], "eeeee");
    OK(nc_free_string(len, out));
    OK(nc_get_var(ncid, v, out));
    EQ_STR(out[5], "ffffff");
    OK(nc_free_string(6, out));
    /* Out of range: nothing allocated (a leak would show). */
    memset(out, 0, sizeof out);
    start = 4;
    ERR(NC_EEDGE, nc_get_vara_string(ncid, v, &start, &count, out));
    TRUE_OR_FAIL(out[0] == NULL);
    OK(nc_close(ncid));
}

/* A string read that fails part-way (here: a truncated second chunk)
 * hands out no strings: the caller, seeing an error, frees none. */
static void failed_string_read(void)
{
    int ncid, x, v;
    const char *in[8] = {"a", "b", "c", "d", "e", "f", "g", "h"};
    char *out[2] = {NULL, NULL};
    size_t chunk = 4, start = 3, count = 2;
    OK(nc_create("file://fs.zarr#mode=nczarr,file", NC_CLOBBER, &ncid));
    OK(nc_def_dim(ncid, "x", 8, &x));
    OK(nc_def_var(ncid, "v", NC_STRING, 1, &x, &v));
    OK(nc_def_var_chunking(ncid, v, NC_CHUNKED, &chunk));
    OK(nc_put_var_string(ncid, v, in));
    OK(nc_close(ncid));
    FILE *f = fopen("fs.zarr/v/1", "w"); /* truncated to nothing */
    TRUE_OR_FAIL(f != NULL);
    fclose(f);
    OK(nc_open("file://fs.zarr#mode=nczarr,file", NC_NOWRITE, &ncid));
    /* Elements 3 and 4: a little of each chunk. */
    TRUE_OR_FAIL(nc_get_vara_string(ncid, v, &start, &count, out) != NC_NOERR);
    TRUE_OR_FAIL(out[0] == NULL && out[1] == NULL);
    start = 0;
    count = 1;
    OK(nc_get_vara_string(ncid, v, &start, &count, out));
    EQ_STR(out[0], "a");
    OK(nc_free_string(1, out));
    OK(nc_close(ncid));
}

/* A map may send several elements to one place (imap 0: every row onto
 * the first); the last one read stays, as in netcdf-c. Such a read must
 * not take the path that borrows each run's destination separately. */
static void overlapping_map(void)
{
    int ncid, x, y, v, dims[2], in[8] = {1, 2, 3, 4, 5, 6, 7, 8}, out[5] = {0, 0, 0, 0, -1};
    size_t start[2] = {0, 0}, count[2] = {2, 4};
    ptrdiff_t imap[2] = {0, 1};
    OK(nc_create(test_url("overlap"), NC_CLOBBER, &ncid));
    OK(nc_def_dim(ncid, "x", 2, &x));
    OK(nc_def_dim(ncid, "y", 4, &y));
    dims[0] = x; dims[1] = y;
    OK(nc_def_var(ncid, "v", NC_INT, 2, dims, &v));
    OK(nc_put_var_int(ncid, v, in));
    OK(nc_close(ncid));
    OK(nc_open(test_url("overlap"), NC_NOWRITE, &ncid));
    OK(nc_get_varm_int(ncid, v, start, count, NULL, imap, out));
    for (int j = 0; j < 4; j++) EQ_INT(out[j], 5 + j);
    EQ_INT(out[4], -1);
    OK(nc_close(ncid));
}

/* netcdf-fortran's NF_INQ_LIBVERS reads 81 characters from what
 * nc_inq_libvers() returns, however short the string. */
static void libvers_as_fortran_reads_it(void)
{
    char buf[81];
    memcpy(buf, nc_inq_libvers(), sizeof buf);
    TRUE_OR_FAIL(memchr(buf, 0, sizeof buf) != NULL);
    TRUE_OR_FAIL(strstr(buf, "nczarr-rs") != NULL);
}

int main(void)
{
    long_names();
    many_dimensions();
    fill_values();
    string_reads();
    failed_string_read();
    overlapping_map();
    libvers_as_fortran_reads_it();
    PASS();
}
