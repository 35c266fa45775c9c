/* app.c -- the program tests/package/run.sh builds against an installed
 * (or built) nczarr-rs in each way a netCDF user would: CMake's
 * find_package(netCDF), pkg-config, nc-config, plain -L.
 *
 * It checks that the library it runs is nczarr-rs, not another netcdf-c
 * that the loader found first (Debian's libnetcdf.so.19 has the same
 * SONAME): nc_inq_libvers must name nczarr-rs and start with the version
 * netcdf_meta.h declares. It prints the path of the loaded library
 * ("library: <path>") for the runner to compare with the expected one,
 * then writes an NCZarr dataset in the working directory and reads it back.
 *
 * Usage: app [URL]   (default file://app.zarr#mode=nczarr,file)
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netcdf.h>
#include <netcdf_meta.h>
#include <netcdf_filter.h>

#define CHECK(call) do { int _s = (call); if (_s != NC_NOERR) { \
    fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, nc_strerror(_s)); \
    exit(1); } } while (0)

#define FAIL(...) do { fprintf(stderr, "app: "); fprintf(stderr, __VA_ARGS__); \
    fprintf(stderr, "\n"); exit(1); } while (0)

int main(int argc, char **argv)
{
    const char *url = argc > 1 ? argv[1] : "file://app.zarr#mode=nczarr,file";

    /* Which library is this? */
    const char *vers = nc_inq_libvers();
    Dl_info info;
    if (!dladdr((void *)nc_inq_libvers, &info) || info.dli_fname == NULL)
        FAIL("dladdr cannot name the library holding nc_inq_libvers");
    printf("library: %s\n", info.dli_fname);
    printf("nc_inq_libvers: %s\n", vers);
    if (strstr(vers, "nczarr-rs") == NULL)
        FAIL("loaded %s, which is not nczarr-rs: nc_inq_libvers() = \"%s\"", info.dli_fname, vers);
    if (strncmp(vers, NC_VERSION " ", strlen(NC_VERSION) + 1) != 0)
        FAIL("nc_inq_libvers() = \"%s\" does not start with NC_VERSION \"%s\"", vers, NC_VERSION);

    /* Write an NCZarr dataset ... */
    int ncid, dims[2], varid;
    float data[3][4];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++) data[i][j] = 10.0f * i + j + 0.5f;
    CHECK(nc_create(url, NC_CLOBBER | NC_NETCDF4, &ncid));
    CHECK(nc_def_dim(ncid, "y", 3, &dims[0]));
    CHECK(nc_def_dim(ncid, "x", 4, &dims[1]));
    CHECK(nc_def_var(ncid, "t", NC_FLOAT, 2, dims, &varid));
    CHECK(nc_def_var_zstandard(ncid, varid, 3));
    CHECK(nc_put_att_text(ncid, varid, "units", 1, "K"));
    CHECK(nc_put_var_float(ncid, varid, &data[0][0]));
    CHECK(nc_close(ncid));

    /* ... and read it back. */
    float back[3][4];
    char units[2] = {0};
    size_t len;
    int zstd, level;
    CHECK(nc_open(url, NC_NOWRITE, &ncid));
    CHECK(nc_inq_varid(ncid, "t", &varid));
    CHECK(nc_inq_attlen(ncid, varid, "units", &len));
    if (len != 1) FAIL("units has length %zu", len);
    CHECK(nc_get_att_text(ncid, varid, "units", units));
    if (strcmp(units, "K") != 0) FAIL("units = \"%s\"", units);
    CHECK(nc_inq_var_zstandard(ncid, varid, &zstd, &level));
    if (!zstd || level != 3) FAIL("zstandard = %d, level %d", zstd, level);
    CHECK(nc_get_var_float(ncid, varid, &back[0][0]));
    CHECK(nc_close(ncid));
    if (memcmp(back, data, sizeof data) != 0) FAIL("data read back differ from data written");

    printf("ok: wrote and read back %s\n", url);
    return 0;
}
