/* write_codecs.c -- what write_data.c, write_sample.c and write_filtered.c
 * leave out, for the S3 round trips: a dataset-wide NOFILL, szip when the
 * library has it, and an unlimited dimension grown again after a reopen
 * (so a second commit rewrites metadata over the first).
 *
 * Usage: write_codecs URL      prints "szip S" (the nc_def_var_szip status)
 */
#include <stdio.h>
#include <stdlib.h>
#include <netcdf.h>
#include <netcdf_filter.h>

#define CHECK(call) do { int _s = (call); if (_s != NC_NOERR) { \
    fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, nc_strerror(_s)); exit(2); } } while (0)

int main(int argc, char **argv)
{
    int ncid, t, x, dims[2], v, old;
    if (argc != 2) return 2;
    CHECK(nc_create(argv[1], NC_CLOBBER, &ncid));
    CHECK(nc_set_fill(ncid, NC_NOFILL, &old));
    CHECK(nc_def_dim(ncid, "t", NC_UNLIMITED, &t));
    CHECK(nc_def_dim(ncid, "x", 16, &x));
    dims[0] = t; dims[1] = x;
    CHECK(nc_def_var(ncid, "grow", NC_DOUBLE, 2, dims, &v));
    size_t chunks[2] = {2, 8};
    CHECK(nc_def_var_chunking(ncid, v, NC_CHUNKED, chunks));
    CHECK(nc_def_var_deflate(ncid, v, 1, 1, 4));
    double row[16];
    for (int i = 0; i < 16; i++) row[i] = i * 1.25;
    size_t start[2] = {0, 0}, count[2] = {1, 16};
    CHECK(nc_put_vara_double(ncid, v, start, count, row));

    /* szip, when the library has it (netcdf-c without libsz answers an error). */
    int sz;
    CHECK(nc_def_var(ncid, "szipped", NC_INT, 1, &x, &sz));
    size_t c16 = 16;
    CHECK(nc_def_var_chunking(ncid, sz, NC_CHUNKED, &c16));
    int s = nc_def_var_szip(ncid, sz, H5_SZIP_NN_OPTION_MASK, 8);
    printf("szip %d\n", s);
    int ivals[16];
    for (int i = 0; i < 16; i++) ivals[i] = i * i - 7;
    CHECK(nc_put_var_int(ncid, sz, ivals));

    /* Unwritten under NOFILL: must still read back as the fill value. */
    int nf;
    CHECK(nc_def_var(ncid, "never_written", NC_SHORT, 1, &x, &nf));
    CHECK(nc_close(ncid));

    /* Reopen and grow the unlimited dimension. */
    CHECK(nc_open(argv[1], NC_WRITE, &ncid));
    CHECK(nc_inq_varid(ncid, "grow", &v));
    for (int r = 1; r < 5; r++) {
        for (int i = 0; i < 16; i++) row[i] = r * 100 + i * 1.25;
        start[0] = r;
        CHECK(nc_put_vara_double(ncid, v, start, count, row));
    }
    CHECK(nc_put_att_text(ncid, NC_GLOBAL, "history", 7, "grown 4"));
    CHECK(nc_close(ncid));
    return 0;
}
