/* write_filtered.c -- one variable per built-in codec (and a chain),
 * written with our library for zarr-python and netcdf-c to read.
 * Usage: write_filtered URL */
#include <stdio.h>
#include <stdlib.h>
#include <netcdf.h>
#include <netcdf_filter.h>

#define CHECK(call) do { int _s = (call); if (_s != NC_NOERR) { \
    fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, nc_strerror(_s)); exit(2); } } while (0)

int main(int argc, char **argv)
{
    int ncid, y, x, dims[2], v;
    if (argc != 2) return 2;
    float data[20 * 30];
    for (int i = 0; i < 20 * 30; i++) data[i] = (float)(i % 37) * 0.5f - 3.0f;
    CHECK(nc_create(argv[1], NC_CLOBBER, &ncid));
    CHECK(nc_def_dim(ncid, "y", 20, &y));
    CHECK(nc_def_dim(ncid, "x", 30, &x));
    dims[0] = y; dims[1] = x;
    const char *names[] = {"deflate", "shuffle_deflate", "zstd", "bz2", "fletcher32", "lz4", "chain", "blosc",
                           "blosc_bits", "blosclz"};
    for (int k = 0; k < 10; k++) {
        size_t chunks[2] = {8, 16};
        unsigned p;
        CHECK(nc_def_var(ncid, names[k], NC_FLOAT, 2, dims, &v));
        CHECK(nc_def_var_chunking(ncid, v, NC_CHUNKED, chunks));
        switch (k) {
        case 0: CHECK(nc_def_var_deflate(ncid, v, 0, 1, 5)); break;
        case 1: CHECK(nc_def_var_deflate(ncid, v, 1, 1, 1)); break;
        case 2: CHECK(nc_def_var_zstandard(ncid, v, 3)); break;
        case 3: CHECK(nc_def_var_bzip2(ncid, v, 9)); break;
        case 4: CHECK(nc_def_var_fletcher32(ncid, v, 1)); break;
        case 5: p = 1; CHECK(nc_def_var_filter(ncid, v, 32004, 1, &p)); break;
        case 6:
            CHECK(nc_def_var_filter(ncid, v, H5Z_FILTER_SHUFFLE, 0, NULL));
            CHECK(nc_def_var_filter(ncid, v, H5Z_FILTER_FLETCHER32, 0, NULL));
            p = 4;
            CHECK(nc_def_var_filter(ncid, v, H5Z_FILTER_ZSTD, 1, &p));
            break;
        case 7: CHECK(nc_def_var_blosc(ncid, v, BLOSC_LZ4, 5, 0, BLOSC_SHUFFLE)); break;
        case 8: CHECK(nc_def_var_blosc(ncid, v, BLOSC_ZSTD, 3, 0, BLOSC_BITSHUFFLE)); break;
        case 9: CHECK(nc_def_var_blosc(ncid, v, BLOSC_LZ, 9, 0, BLOSC_SHUFFLE)); break;
        }
        CHECK(nc_put_var_float(ncid, v, data));
    }
    CHECK(nc_close(ncid));
    return 0;
}
