/* Writing other layouts: pure Zarr (mode=zarr, noxarray), consolidated
 * metadata on and off, and netcdf-c 4.9.0's layout (nczarr_layout=4.9.0)
 * with its limits; each read back. */
#include "testutil.h"
#include <unistd.h>

static int exists(const char *path) { return access(path, F_OK) == 0; }

static char *slurp(const char *path)
{
    static char buf[8192];
    FILE *f = fopen(path, "r");
    if (!f) FAIL("cannot open %s", path);
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    fclose(f);
    return buf;
}

/* A small dataset: x(3), y(2); v(x, y) int; a text attribute. */
static void write_small(const char *url)
{
    int ncid, x, y, v, dims[2];
    int data[6] = {1, 2, 3, 4, 5, 6};
    OK(nc_create(url, NC_CLOBBER, &ncid));
    OK(nc_def_dim(ncid, "x", 3, &x));
    OK(nc_def_dim(ncid, "y", 2, &y));
    dims[0] = x; dims[1] = y;
    OK(nc_def_var(ncid, "v", NC_INT, 2, dims, &v));
    OK(nc_put_att_text(ncid, v, "units", 1, "m"));
    OK(nc_put_var_int(ncid, v, data));
    OK(nc_close(ncid));
}

static void check_small(const char *url, const char *dim0)
{
    int ncid, v, dims[2], data[6];
    char name[NC_MAX_NAME + 1], units[4] = {0};
    OK(nc_open(url, NC_NOWRITE, &ncid));
    OK(nc_inq_varid(ncid, "v", &v));
    OK(nc_inq_vardimid(ncid, v, dims));
    OK(nc_inq_dimname(ncid, dims[0], name));
    EQ_STR(name, dim0);
    OK(nc_get_var_int(ncid, v, data));
    EQ_INT(data[5], 6);
    OK(nc_get_att_text(ncid, v, "units", units));
    EQ_STR(units, "m");
    OK(nc_close(ncid));
}

int main(void)
{
    int ncid, d, v;

    /* Current layout, consolidated by default; noconsolidated removes it. */
    write_small("file://cur.zarr#mode=nczarr,file");
    TRUE_OR_FAIL(exists("cur.zarr/.zmetadata"));
    TRUE_OR_FAIL(strstr(slurp("cur.zarr/.zmetadata"), "\"v/.zarray\"") != NULL);
    check_small("file://cur.zarr#mode=nczarr,file", "x");
    OK(nc_open("file://cur.zarr#mode=nczarr,file,noconsolidated", NC_WRITE, &ncid));
    OK(nc_redef(ncid));
    OK(nc_def_dim(ncid, "extra", 1, &d));
    OK(nc_close(ncid));
    TRUE_OR_FAIL(!exists("cur.zarr/.zmetadata"));
    check_small("file://cur.zarr#mode=nczarr,file", "x");

    /* Pure Zarr: no NCZarr keys; dimension names from _ARRAY_DIMENSIONS. */
    write_small("file://pure.zarr#mode=zarr,file");
    TRUE_OR_FAIL(strstr(slurp("pure.zarr/v/.zattrs"), "_nczarr") == NULL);
    TRUE_OR_FAIL(strstr(slurp("pure.zarr/v/.zattrs"), "_ARRAY_DIMENSIONS") != NULL);
    check_small("file://pure.zarr#mode=zarr,file", "x");
    /* ... and without them, anonymous dimensions. */
    write_small("file://anon.zarr#mode=zarr,noxarray,file");
    TRUE_OR_FAIL(strstr(slurp("anon.zarr/v/.zattrs"), "_ARRAY_DIMENSIONS") == NULL);
    check_small("file://anon.zarr#mode=zarr,file", "_Anonymous_Dim_3");

    /* netcdf-c 4.9.0's layout, with its limits. */
    const char *old = "file://old.zarr#mode=nczarr,file&nczarr_layout=4.9.0";
    write_small(old);
    TRUE_OR_FAIL(strstr(slurp("old.zarr/.zgroup"), "_NCZARR_SUPERBLOCK") != NULL);
    TRUE_OR_FAIL(strstr(slurp("old.zarr/v/.zarray"), "_NCZARR_ARRAY") != NULL);
    TRUE_OR_FAIL(!exists("old.zarr/.zmetadata"));
    check_small("file://old.zarr#mode=nczarr,file", "x");
    OK(nc_create(old, NC_CLOBBER, &ncid));
    ERR(NC_EDIMSIZE, nc_def_dim(ncid, "t", NC_UNLIMITED, &d));
    ERR(NC_EBADTYPE, nc_def_var(ncid, "s", NC_STRING, 0, NULL, &v));
    {
        const char *strs[1] = {"a"};
        ERR(NC_EBADTYPE, nc_put_att_string(ncid, NC_GLOBAL, "s", 1, strs));
    }
    OK(nc_close(ncid));
    /* A 4.9.0 store opened without asking for its layout stays in it: an
     * attribute added, 4.9.0's limits kept (no unlimited dimension). */
    write_small(old);
    OK(nc_open("file://old.zarr#mode=nczarr,file", NC_WRITE, &ncid));
    OK(nc_redef(ncid));
    OK(nc_put_att_text(ncid, NC_GLOBAL, "edited", 3, "yes"));
    ERR(NC_EDIMSIZE, nc_def_dim(ncid, "t", NC_UNLIMITED, &d));
    OK(nc_close(ncid));
    TRUE_OR_FAIL(strstr(slurp("old.zarr/.zgroup"), "_NCZARR_SUPERBLOCK") != NULL);
    TRUE_OR_FAIL(strstr(slurp("old.zarr/.zattrs"), "\"edited\"") != NULL);
    TRUE_OR_FAIL(!exists("old.zarr/.zmetadata"));
    check_small("file://old.zarr#mode=nczarr,file", "x");
    PASS();
}
