/* A program that uses HDF5's global type ids directly (H5T_NATIVE_INT,
 * H5T_NATIVE_DOUBLE, as cdo does) and netCDF: the executable then has
 * R_X86_64_COPY relocations for H5T_NATIVE_INT_g and H5T_NATIVE_DOUBLE_g,
 * so HDF5 initialises the executable's copies of those variables. A
 * netcdf-c loaded with RTLD_DEEPBIND binds the same names to libhdf5's own
 * storage first, which HDF5 never initialises (it stays -1), and then
 * hands H5I_INVALID_HID to H5Aread/H5Tcopy while it opens or defines
 * anything in a netCDF-4 file.
 *
 * Usage: h5_copy_reloc IN.nc VAR OUT.nc
 * Reads VAR (as doubles) from IN.nc, writes a netCDF-4 OUT.nc with an
 * unlimited dimension, a deflated double variable and an int attribute,
 * reads it back, and prints every result. */
#include <hdf5.h>
#include <netcdf.h>
#include <stdio.h>
#include <stdlib.h>

static int failures;

#define CHECK(call)                                                            \
    do {                                                                       \
        int s_ = (call);                                                       \
        printf("%s -> %d%s%s\n", #call, s_, s_ ? " " : "", s_ ? nc_strerror(s_) : ""); \
        if (s_) failures++;                                                    \
    } while (0)

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s IN.nc VAR OUT.nc\n", argv[0]);
        return 2;
    }
    /* Reading these makes the executable's copies the ones HDF5 fills in. */
    printf("H5Tget_size(H5T_NATIVE_INT) = %zu\n", H5Tget_size(H5T_NATIVE_INT));
    printf("H5Tget_size(H5T_NATIVE_DOUBLE) = %zu\n", H5Tget_size(H5T_NATIVE_DOUBLE));

    int ncid = -1, varid = -1, ndims = 0, fmt = -1;
    size_t len = 1;
    CHECK(nc_open(argv[1], NC_NOWRITE, &ncid));
    CHECK(nc_inq_format(ncid, &fmt));
    printf("format %d\n", fmt);
    CHECK(nc_inq_varid(ncid, argv[2], &varid));
    CHECK(nc_inq_varndims(ncid, varid, &ndims));
    int dimids[NC_MAX_VAR_DIMS];
    CHECK(nc_inq_vardimid(ncid, varid, dimids));
    for (int i = 0; i < ndims; i++) {
        size_t n = 0;
        CHECK(nc_inq_dimlen(ncid, dimids[i], &n));
        len *= n;
    }
    double *vals = calloc(len, sizeof *vals);
    CHECK(nc_get_var_double(ncid, varid, vals));
    printf("%s:", argv[2]);
    for (size_t i = 0; i < len; i++) printf(" %g", vals[i]);
    printf("\n");
    CHECK(nc_close(ncid));

    int out, dim, var = -1, att = 7, back_att = 0;
    size_t chunk = 4;
    CHECK(nc_create(argv[3], NC_CLOBBER | NC_NETCDF4, &out));
    CHECK(nc_def_dim(out, "n", NC_UNLIMITED, &dim));
    CHECK(nc_def_var(out, "v", NC_DOUBLE, 1, &dim, &var));
    printf("varid %d\n", var);
    CHECK(nc_def_var_chunking(out, var, NC_CHUNKED, &chunk));
    CHECK(nc_def_var_deflate(out, var, 1, 1, 3));
    CHECK(nc_put_att_int(out, var, "seven", NC_INT, 1, &att));
    CHECK(nc_enddef(out));
    size_t start = 0;
    CHECK(nc_put_vara_double(out, var, &start, &len, vals));
    CHECK(nc_close(out));

    CHECK(nc_open(argv[3], NC_NOWRITE, &out));
    CHECK(nc_inq_varid(out, "v", &var));
    CHECK(nc_get_att_int(out, var, "seven", &back_att));
    double *back = calloc(len, sizeof *back);
    CHECK(nc_get_var_double(out, var, back));
    int same = 1;
    for (size_t i = 0; i < len; i++) same &= back[i] == vals[i];
    printf("read back: seven=%d values %s\n", back_att, same ? "equal" : "DIFFER");
    CHECK(nc_close(out));
    free(vals);
    free(back);
    printf("%d failures\n", failures);
    return failures != 0;
}
