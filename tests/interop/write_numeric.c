/* write_numeric.c -- an NCZarr dataset of numbers only, shaped the way
 * xarray expects (coordinate variables, a record dimension), written with
 * our library for xarray to read. Usage: write_numeric URL */
#include <stdio.h>
#include <stdlib.h>
#include <netcdf.h>

#define CHECK(call) do { int _s = (call); if (_s != NC_NOERR) { \
    fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, nc_strerror(_s)); exit(2); } } while (0)

int main(int argc, char **argv)
{
    int ncid, time, lat, lon, vt, vlat, dims[3];
    if (argc != 2) return 2;
    CHECK(nc_create(argv[1], NC_CLOBBER, &ncid));
    CHECK(nc_put_att_text(ncid, NC_GLOBAL, "title", 10, "for xarray"));
    CHECK(nc_def_dim(ncid, "time", NC_UNLIMITED, &time));
    CHECK(nc_def_dim(ncid, "lat", 3, &lat));
    CHECK(nc_def_dim(ncid, "lon", 2, &lon));
    CHECK(nc_def_var(ncid, "lat", NC_DOUBLE, 1, &lat, &vlat));
    dims[0] = time; dims[1] = lat; dims[2] = lon;
    CHECK(nc_def_var(ncid, "t", NC_FLOAT, 3, dims, &vt));
    float fill = 1e20f;
    CHECK(nc_def_var_fill(ncid, vt, 0, &fill));
    CHECK(nc_put_att_text(ncid, vt, "units", 1, "K"));
    double lats[3] = {-10, 0, 10};
    CHECK(nc_put_var_double(ncid, vlat, lats));
    float rec[6];
    for (int i = 0; i < 6; i++) rec[i] = 300.5f + i;
    size_t start[3] = {3, 0, 0}, count[3] = {1, 3, 2};
    CHECK(nc_put_vara_float(ncid, vt, start, count, rec));
    CHECK(nc_close(ncid));
    return 0;
}
