/* Dataset life cycle: create/open/close/abort, define mode, fill mode,
 * format and path inquiries, dataset names, and their error codes. */
#include "testutil.h"
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

int main(void)
{
    int ncid, ncid2, old, format, mode, dimid;
    char path[512];
    size_t len;
    const char *url = test_url("life");
    /* These are the answers without a netcdf-c beside us (the delegate,
     * src/delegate): its variable names a file that is not there, so none
     * is loaded. t_delegate checks the answers with one. */
    setenv("NCZARR_RS_NETCDF_C", "/nonexistent/libnetcdf.so.19", 1);

    /* A new dataset starts in define mode with nothing in it. */
    OK(nc_create(url, NC_CLOBBER, &ncid));
    EQ_INT(ncid >> 16 > 0, 1);
    EQ_INT(ncid & 0xFFFF, 0);
    ERR(NC_EINDEFINE, nc_redef(ncid));
    OK(nc_def_dim(ncid, "x", 2, &dimid));
    OK(nc_enddef(ncid));
    ERR(NC_ENOTINDEFINE, nc_enddef(ncid));
    OK(nc_redef(ncid));
    OK(nc_sync(ncid)); /* sync in define mode ends it, as netcdf-c does for netCDF-4 */
    ERR(NC_ENOTINDEFINE, nc_enddef(ncid));
    /* netCDF-4 datasets re-enter define mode by themselves. */
    OK(nc_def_dim(ncid, "y", 3, &dimid));
    OK(nc__enddef(ncid, 0, 4, 0, 4));

    OK(nc_inq_format(ncid, &format));
    EQ_INT(format, NC_FORMAT_NETCDF4);
    OK(nc_inq_format_extended(ncid, &format, &mode));
    EQ_INT(format, NC_FORMATX_NCZARR);
    EQ_INT(mode & NC_NETCDF4, NC_NETCDF4);
    /* The path is reported as netcdf-c reports it: an absolute URL. */
    {
        char cwd[400], expected[512];
        TRUE_OR_FAIL(getcwd(cwd, sizeof cwd) != NULL);
        snprintf(expected, sizeof expected, "file://%s/life.zarr#mode=nczarr,file", cwd);
        OK(nc_inq_path(ncid, &len, NULL));
        EQ_INT(len, strlen(expected));
        OK(nc_inq_path(ncid, NULL, path));
        EQ_STR(path, expected);
    }

    /* Fill mode: returns the previous mode; only NC_FILL/NC_NOFILL. */
    OK(nc_set_fill(ncid, NC_NOFILL, &old));
    EQ_INT(old, NC_FILL);
    OK(nc_set_fill(ncid, NC_FILL, &old));
    EQ_INT(old, NC_NOFILL);
    ERR(NC_EINVAL, nc_set_fill(ncid, 7, &old));
    OK(nc_close(ncid));

    /* A closed id is gone; ids are reused lowest first like netcdf-c. */
    ERR(NC_EBADID, nc_close(ncid));
    ERR(NC_EBADID, nc_inq_format(ncid, &format));
    ERR(NC_EBADID, nc_redef(ncid));
    ERR(NC_EBADID, nc_inq_format(12345, &format));

    /* Read-only opens refuse every change. */
    OK(nc_open(url, NC_NOWRITE, &ncid));
    ERR(NC_EPERM, nc_redef(ncid));
    ERR(NC_EPERM, nc_def_dim(ncid, "z", 1, &dimid));
    ERR(NC_EPERM, nc_set_fill(ncid, NC_NOFILL, &old));
    ERR(NC_EPERM, nc_put_att_text(ncid, NC_GLOBAL, "a", 1, "x"));
    ERR(NC_ENOTINDEFINE, nc_enddef(ncid));
    OK(nc_sync(ncid));
    /* The same dataset may be open twice. */
    OK(nc__open(url, NC_NOWRITE, NULL, &ncid2));
    TRUE_OR_FAIL(ncid2 != ncid);
    OK(nc_close(ncid2));
    OK(nc_close(ncid));

    /* NC_NOCLOBBER on an existing dataset is NC_EEXIST and leaves it whole. */
    ERR(NC_EEXIST, nc_create(url, NC_NOCLOBBER, &ncid));
    OK(nc_open(url, NC_NOWRITE, &ncid));
    OK(nc_inq_dimid(ncid, "y", &dimid));
    OK(nc_close(ncid));
    /* NC_CLOBBER replaces it. */
    OK(nc__create(url, NC_CLOBBER | NC_NETCDF4, 0, NULL, &ncid));
    ERR(NC_EBADDIM, nc_inq_dimid(ncid, "y", &dimid));
    OK(nc_close(ncid));

    /* Abort of a new dataset deletes it; of an opened one drops changes. */
    OK(nc_create(test_url("aborted"), NC_CLOBBER, &ncid));
    OK(nc_def_dim(ncid, "x", 1, &dimid));
    OK(nc_enddef(ncid));
    OK(nc_abort(ncid));
    TRUE_OR_FAIL(!exists("aborted.zarr"));
    ERR(NC_EBADID, nc_close(ncid));
    OK(nc_open(url, NC_WRITE, &ncid));
    OK(nc_redef(ncid));
    OK(nc_def_dim(ncid, "lost", 1, &dimid));
    OK(nc_abort(ncid));
    OK(nc_open(url, NC_NOWRITE, &ncid));
    ERR(NC_EBADDIM, nc_inq_dimid(ncid, "lost", &dimid));
    OK(nc_close(ncid));

    /* Classic model: changes need an explicit redef. */
    OK(nc_create(test_url("classic"), NC_CLOBBER | NC_NETCDF4 | NC_CLASSIC_MODEL, &ncid));
    OK(nc_inq_format(ncid, &format));
    EQ_INT(format, NC_FORMAT_NETCDF4_CLASSIC);
    OK(nc_enddef(ncid));
    ERR(NC_ENOTINDEFINE, nc_def_dim(ncid, "x", 1, &dimid));
    OK(nc_redef(ncid));
    OK(nc_def_dim(ncid, "x", 1, &dimid));
    ERR(NC_EINDEFINE, nc_sync(ncid));
    OK(nc_close(ncid));

    /* Names: a plain path with a fragment works (netcdf-c cannot), as do
     * absolute file URLs, storage defaulting to file, and macros. */
    OK(nc_create("plain.zarr#mode=nczarr,file", NC_CLOBBER, &ncid));
    OK(nc_close(ncid));
    TRUE_OR_FAIL(exists("plain.zarr/.zgroup"));
    {
        char cwd[400], abs_url[512];
        TRUE_OR_FAIL(getcwd(cwd, sizeof cwd) != NULL);
        snprintf(abs_url, sizeof abs_url, "file://%s/plain.zarr#mode=nczarr", cwd);
        OK(nc_open(abs_url, NC_NOWRITE, &ncid));
        OK(nc_close(ncid));
    }
    OK(nc_open("file://plain.zarr#mode=nczarr&mode=file", NC_NOWRITE, &ncid));
    OK(nc_close(ncid));
    /* A bare path to an NCZarr directory opens too. */
    OK(nc_open("plain.zarr", NC_NOWRITE, &ncid));
    OK(nc_close(ncid));

    /* Bad names and flags. */
    ERR(NC_EINVAL, nc_create(NULL, NC_CLOBBER, &ncid));
    ERR(NC_EINVAL, nc_create("file://x.zarr#mode=nczarr,floppy", NC_CLOBBER, &ncid));
    ERR(NC_EINVAL, nc_create("file://x.zarr#mode=nczarr,file,zip", NC_CLOBBER, &ncid));
    ERR(NC_EINVAL, nc_create("gopher://host/x#mode=nczarr", NC_CLOBBER, &ncid));
    ERR(NC_EURL, nc_create("file://#mode=nczarr", NC_CLOBBER, &ncid));
    ERR(NC_ENOTBUILT, nc_create("file://x.zarr#mode=dap2", NC_CLOBBER, &ncid));
    ERR(NC_ENOTBUILT, nc_create("file://x.zarr", NC_CLOBBER, &ncid));
    ERR(NC_ENOTBUILT, nc_create("x.nc", NC_CLOBBER, &ncid));
    ERR(NC_EINVAL, nc_create(test_url("x"), NC_CLOBBER | NC_DISKLESS, &ncid));
    ERR(NC_EINVAL, nc_create(test_url("x"), NC_CLOBBER | NC_64BIT_OFFSET, &ncid));
    ERR(NC_EINVAL, nc_create(test_url("x"), NC_CLOBBER | NC_CDF5, &ncid));
    ERR(NC_EINVAL, nc_open(url, NC_MMAP, &ncid));
    TRUE_OR_FAIL(!exists("x.zarr"));

    /* Opening what is not there, or not Zarr. */
    ERR(NC_ENOOBJECT, nc_open(test_url("missing"), NC_NOWRITE, &ncid));
    TRUE_OR_FAIL(mkdir("empty.zarr", 0755) == 0);
    ERR(NC_ENOTNC, nc_open(test_url("empty"), NC_NOWRITE, &ncid));
    ERR(NC_ENOTNC, nc_open("empty.zarr", NC_NOWRITE, &ncid));
    {
        FILE *f = fopen("notdir.zarr", "w");
        fputs("hello", f);
        fclose(f);
    }
    ERR(NC_ENOTNC, nc_open(test_url("notdir"), NC_NOWRITE, &ncid));
    ERR(NC_ENOTNC, nc_open("notdir.zarr", NC_NOWRITE, &ncid));
    /* Plain paths answer as netcdf-c does: ENOENT for nothing there, and
     * NC_ENOTBUILT for classic and HDF5 files (formats this build lacks). */
    ERR(ENOENT, nc_open("missing.nc", NC_NOWRITE, &ncid));
    {
        FILE *f = fopen("classic.nc", "w");
        fwrite("CDF\001\0\0\0\0rest", 1, 12, f);
        fclose(f);
        f = fopen("hdf5.nc", "w");
        fwrite("\211HDF\r\n\032\nrest", 1, 12, f);
        fclose(f);
    }
    ERR(NC_ENOTBUILT, nc_open("classic.nc", NC_NOWRITE, &ncid));
    ERR(NC_ENOTBUILT, nc_open("hdf5.nc", NC_NOWRITE, &ncid));

    /* Corrupt metadata is an error code, never a crash. */
    OK(nc_create(test_url("corrupt"), NC_CLOBBER, &ncid));
    OK(nc_close(ncid));
    {
        FILE *f = fopen("corrupt.zarr/.zattrs", "w");
        fputs("{\"_nczarr_superblock\": {\"version\": \"2.0.0\"}, \"_nczarr_group\": ", f);
        fclose(f);
    }
    ERR(NC_ENCZARR, nc_open(test_url("corrupt"), NC_NOWRITE, &ncid));

    /* Library version: netcdf-c's API version first. */
    TRUE_OR_FAIL(strncmp(nc_inq_libvers(), "4.9.3", 5) == 0);
    PASS();
}
