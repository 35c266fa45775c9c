/* quickstart.c -- write a small NCZarr dataset, read its structure back.
 *
 * Build and run from the repository root with:   make quickstart
 * It creates quickstart.zarr in the working directory.
 */
#include <stdio.h>
#include <stdlib.h>
#include <netcdf.h>

#define CHECK(call) do { int _s = (call); if (_s != NC_NOERR) { \
    fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, nc_strerror(_s)); \
    exit(1); } } while (0)

int main(void)
{
    const char *url = "file://quickstart.zarr#mode=nczarr,file";
    int ncid, time_dim, lat_dim, lon_dim, tas, grp;
    int dims[3];
    double scale = 0.01;

    /* Define: dimensions, a variable with attributes, a subgroup. */
    CHECK(nc_create(url, NC_CLOBBER, &ncid));
    CHECK(nc_def_dim(ncid, "time", NC_UNLIMITED, &time_dim));
    CHECK(nc_def_dim(ncid, "lat", 3, &lat_dim));
    CHECK(nc_def_dim(ncid, "lon", 4, &lon_dim));
    dims[0] = time_dim; dims[1] = lat_dim; dims[2] = lon_dim;
    CHECK(nc_def_var(ncid, "tas", NC_FLOAT, 3, dims, &tas));
    CHECK(nc_put_att_text(ncid, tas, "units", 1, "K"));
    CHECK(nc_put_att_double(ncid, tas, "scale_factor", NC_DOUBLE, 1, &scale));
    CHECK(nc_put_att_text(ncid, NC_GLOBAL, "title", 10, "quickstart"));
    CHECK(nc_def_grp(ncid, "forecast", &grp));

    /* Write two time steps (the unlimited dimension grows). */
    float field[2][3][4];
    for (int t = 0; t < 2; t++)
        for (int y = 0; y < 3; y++)
            for (int x = 0; x < 4; x++) field[t][y][x] = 270.0f + t * 10 + y + 0.25f * x;
    size_t start[3] = {0, 0, 0}, count[3] = {2, 3, 4};
    CHECK(nc_put_vara_float(ncid, tas, start, count, &field[0][0][0]));
    CHECK(nc_close(ncid));

    /* Read it back. */
    int ndims, nvars, natts, unlim, ngrps, varnatts;
    char name[NC_MAX_NAME + 1], units[16] = {0};
    size_t len;
    nc_type type;
    CHECK(nc_open(url, NC_NOWRITE, &ncid));
    CHECK(nc_inq(ncid, &ndims, &nvars, &natts, &unlim));
    printf("dimensions: %d, variables: %d, global attributes: %d\n", ndims, nvars, natts);
    for (int d = 0; d < ndims; d++) {
        CHECK(nc_inq_dim(ncid, d, name, &len));
        printf("  dim %s = %zu%s\n", name, len, d == unlim ? " (unlimited)" : "");
    }
    CHECK(nc_inq_var(ncid, 0, name, &type, &ndims, dims, &varnatts));
    CHECK(nc_get_att_text(ncid, 0, "units", units));
    CHECK(nc_get_att_double(ncid, 0, "scale_factor", &scale));
    printf("  var %s: type %d, %d dims, units \"%s\", scale_factor %g\n", name, type, ndims, units, scale);
    float value;
    size_t index[3] = {1, 2, 3};
    CHECK(nc_get_var1_float(ncid, 0, index, &value));
    printf("  tas[1][2][3] = %g\n", value);
    CHECK(nc_inq_grps(ncid, &ngrps, &grp));
    CHECK(nc_inq_grpname(grp, name));
    printf("  group %s\n", name);
    CHECK(nc_close(ncid));
    return 0;
}
