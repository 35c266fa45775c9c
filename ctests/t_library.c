/* Library-wide calls and the dataset-level calls around the core ones:
 * default format, alignment, log level, user formats, .ncrc settings,
 * in-memory and parallel entry points (not built: netcdf-c's answers),
 * nc_delete, the _mp forms, base PE, show_metadata, ubyte attributes,
 * Fortran id forms. */
#define _GNU_SOURCE
#include "testutil.h"
#include <netcdf_mem.h>
#include <netcdf_f.h>
#include <sys/stat.h>
#include <unistd.h>

EXTERNL int nc_var_par_access(int ncid, int varid, int par_access);
EXTERNL int ncsetlogging(int tf); /* netcdf-c internal, imported by ncdump */

/* Enough of netcdf-c's NC_Dispatch for nc_def_user_format's checks. */
struct fake_dispatch { int model; int dispatch_version; void *rest[80]; };

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

int main(void)
{
    int ncid, old = -1, a = -1, b = -1;
    /* These are the answers without a netcdf-c beside us (the delegate,
     * src/delegate): its variable names a file that is not there, so none
     * is loaded. t_delegate checks the answers with one. */
    setenv("NCZARR_RS_NETCDF_C", "/nonexistent/libnetcdf.so.19", 1);

    /* Default create format: kept and reported. */
    OK(nc_set_default_format(NC_FORMAT_NETCDF4, &old));
    EQ_INT(old, NC_FORMAT_CLASSIC);
    OK(nc_set_default_format(NC_FORMAT_CDF5, &old));
    EQ_INT(old, NC_FORMAT_NETCDF4);
    ERR(NC_EINVAL, nc_set_default_format(99, &old));
    EQ_INT(old, NC_FORMAT_CDF5);

    /* Alignment: kept and reported. */
    OK(nc_set_alignment(4096, 512));
    OK(nc_get_alignment(&a, &b));
    EQ_INT(a, 4096);
    EQ_INT(b, 512);
    OK(nc_set_log_level(3));

    /* User-defined formats: checked, kept, never used to open. */
    struct fake_dispatch table = {0, 5, {0}};
    char magic[NC_MAX_MAGIC_NUMBER_LEN + 1] = {0};
    NC_Dispatch *got = NULL;
    ERR(NC_EINVAL, nc_def_user_format(NC_NETCDF4, (NC_Dispatch *)&table, NULL));
    ERR(NC_EINVAL, nc_def_user_format(NC_UDF0, NULL, NULL));
    ERR(NC_EINVAL, nc_def_user_format(NC_UDF0, (NC_Dispatch *)&table, "TOOLONGMAGIC"));
    table.dispatch_version = 4;
    ERR(NC_EINVAL, nc_def_user_format(NC_UDF0, (NC_Dispatch *)&table, NULL));
    table.dispatch_version = 5;
    OK(nc_def_user_format(NC_UDF1, (NC_Dispatch *)&table, "MYFMT"));
    OK(nc_inq_user_format(NC_UDF1, &got, magic));
    TRUE_OR_FAIL(got == (NC_Dispatch *)&table);
    EQ_STR(magic, "MYFMT");
    OK(nc_inq_user_format(NC_UDF0, &got, NULL));
    TRUE_OR_FAIL(got == NULL);
    ERR(NC_ENOTBUILT, nc_create(test_url("udf"), NC_UDF1, &ncid));
    ERR(NC_ENOTBUILT, nc_open(test_url("udf"), NC_UDF0, &ncid));

    /* .ncrc: the file NCRCENV_RC names is read on first use; nc_rc_set adds. */
    FILE *rc = fopen("test.ncrc", "w");
    fprintf(rc, "# settings\nHTTP.TIMEOUT = 7\n[https://h.example/p]AWS.PROFILE=special\nAWS.PROFILE=plain\n");
    fclose(rc);
    setenv("NCRCENV_RC", "test.ncrc", 1);
    char *v = nc_rc_get("HTTP.TIMEOUT");
    TRUE_OR_FAIL(v != NULL);
    EQ_STR(v, "7");
    free(v);
    v = nc_rc_get("AWS.PROFILE");
    EQ_STR(v, "plain");
    free(v);
    TRUE_OR_FAIL(nc_rc_get("NO.SUCH.KEY") == NULL);
    TRUE_OR_FAIL(nc_rc_get(NULL) == NULL);
    OK(nc_rc_set("MY.KEY", "value"));
    v = nc_rc_get("MY.KEY");
    EQ_STR(v, "value");
    free(v);
    ERR(NC_EINVAL, nc_rc_set("MY.KEY", NULL));

    /* In memory: classic/HDF5 images are formats not built; other bytes
     * are not netCDF; NCZarr has no in-memory form. */
    char cdf[16] = "CDF\001", hdf[16] = "\211HDF\r\n\032\n", junk[16] = "hello, world";
    ERR(NC_ENOTBUILT, nc_open_mem("mem.nc", NC_NOWRITE, sizeof cdf, cdf, &ncid));
    ERR(NC_ENOTBUILT, nc_open_mem("mem.nc", NC_NOWRITE, sizeof hdf, hdf, &ncid));
    ERR(NC_ENOTNC, nc_open_mem("mem.nc", NC_NOWRITE, sizeof junk, junk, &ncid));
    ERR(NC_EINVAL, nc_open_mem("mem.nc", NC_WRITE, sizeof cdf, cdf, &ncid));
    ERR(NC_EINVAL, nc_open_mem("mem.nc", NC_NOWRITE, 4, cdf, &ncid));
    ERR(NC_EINVAL, nc_open_mem(NULL, NC_NOWRITE, sizeof cdf, cdf, &ncid));
    ERR(NC_EINVAL, nc_open_mem(test_url("m"), NC_NOWRITE, sizeof cdf, cdf, &ncid));
    NC_memio memio = {sizeof hdf, hdf, 0};
    ERR(NC_ENOTBUILT, nc_open_memio("mem.nc", NC_NOWRITE, &memio, &ncid));
    ERR(NC_EINVAL, nc_open_memio("mem.nc", NC_NOWRITE, NULL, &ncid));
    ERR(NC_ENOTBUILT, nc_create_mem("mem.nc", NC_NETCDF4, 0, &ncid));
    ERR(NC_EINVAL, nc_create_mem(test_url("m"), 0, 0, &ncid));
    ERR(NC_EINVAL, nc_create_mem("mem.nc", NC_MMAP, 0, &ncid));

    /* Parallel I/O is not built. */
    ERR(NC_ENOPAR, nc_create_par_fortran(test_url("par"), 0, 0, 0, &ncid));
    ERR(NC_ENOPAR, nc_open_par_fortran(test_url("par"), 0, 0, 0, &ncid));

    /* The _mp forms, base PE, show_metadata, ubyte atts, Fortran ids. */
    int dimid, varid, pe = -1, ids[4], n = -1;
    OK(nc__create_mp(test_url("mp"), NC_CLOBBER, 0, 3, NULL, &ncid));
    OK(nc_def_dim(ncid, "x", 2, &dimid));
    OK(nc_def_var(ncid, "a", NC_INT, 1, &dimid, &varid));
    OK(nc_def_var(ncid, "b", NC_INT, 1, &dimid, &varid));
    unsigned char bytes[2] = {200, 7}, bytes_in[2] = {0, 0};
    OK(nc_put_att_ubyte(ncid, NC_GLOBAL, "u", NC_UBYTE, 2, bytes));
    OK(nc_get_att_ubyte(ncid, NC_GLOBAL, "u", bytes_in));
    EQ_INT(bytes_in[0], 200);
    EQ_INT(bytes_in[1], 7);
    OK(nc_set_base_pe(ncid, 2));
    OK(nc_inq_base_pe(ncid, &pe));
    EQ_INT(pe, 0);
    OK(nc_show_metadata(ncid));
    ERR(NC_ENOPAR, nc_var_par_access(ncid, varid, 1));
    OK(nc_inq_varids_f(ncid, &n, ids));
    EQ_INT(n, 2);
    EQ_INT(ids[0], 1);
    EQ_INT(ids[1], 2);
    OK(nc_inq_dimids_f(ncid, &n, ids, 0));
    EQ_INT(n, 1);
    EQ_INT(ids[0], 1);
    OK(nc_close_memio(ncid, &memio)); /* closes like nc_close */
    ERR(NC_EBADID, nc_set_base_pe(ncid, 0));
    ERR(NC_EBADID, nc_show_metadata(ncid));
    OK(nc__open_mp(test_url("mp"), NC_NOWRITE, 0, NULL, &ncid));
    OK(nc_inq_nvars(ncid, &n));
    EQ_INT(n, 2);
    OK(nc_close(ncid));

    /* The fragment key "log" turns netcdf-c's log on. */
    ncsetlogging(0);
    OK(nc_open("file://mp.zarr#mode=nczarr,file&log", NC_NOWRITE, &ncid));
    EQ_INT(ncsetlogging(0), 1);
    OK(nc_close(ncid));

    /* nc_delete removes a dataset's store, and only a dataset's. */
    TRUE_OR_FAIL(exists("mp.zarr"));
    OK(nc_delete(test_url("mp")));
    TRUE_OR_FAIL(!exists("mp.zarr"));
    ERR(NC_ENOOBJECT, nc_delete(test_url("mp"))); /* as nc_open answers */
    OK(mkdir("notzarr.zarr", 0755) == 0 ? NC_NOERR : NC_EIO);
    FILE *f = fopen("notzarr.zarr/precious.txt", "w");
    fputs("keep me\n", f);
    fclose(f);
    TRUE_OR_FAIL(nc_delete_mp("file://notzarr.zarr#mode=nczarr,file", 0) != NC_NOERR);
    TRUE_OR_FAIL(exists("notzarr.zarr/precious.txt"));
    PASS();
}
