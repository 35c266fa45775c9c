/* write_data.c -- write variables with data through our library, for
 * netcdf-c and netCDF4-python to read: every type, partial and edge
 * chunks, fill values, big-endian, strings, an unlimited dimension grown
 * by writes, a scalar and a subgroup.
 *
 * Usage: write_data URL
 */
#include <stdio.h>
#include <stdlib.h>
#include <netcdf.h>

#define CHECK(call) do { int _s = (call); if (_s != NC_NOERR) { \
    fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, nc_strerror(_s)); exit(2); } } while (0)

int main(int argc, char **argv)
{
    int ncid, grp, t, y, x, s, dims[3], v;
    if (argc != 2) return 2;
    CHECK(nc_create(argv[1], NC_CLOBBER, &ncid));
    CHECK(nc_def_dim(ncid, "t", NC_UNLIMITED, &t));
    CHECK(nc_def_dim(ncid, "y", 5, &y));
    CHECK(nc_def_dim(ncid, "x", 7, &x));
    CHECK(nc_def_dim(ncid, "s", 3, &s));

    /* A float grid in 2x3 chunks (edge chunks on both axes), partly written. */
    dims[0] = y; dims[1] = x;
    CHECK(nc_def_var(ncid, "grid", NC_FLOAT, 2, dims, &v));
    size_t chunks[] = {2, 3};
    CHECK(nc_def_var_chunking(ncid, v, NC_CHUNKED, chunks));
    float fill = -1.0f;
    CHECK(nc_def_var_fill(ncid, v, 0, &fill));
    {
        float vals[4 * 5];
        for (int i = 0; i < 20; i++) vals[i] = 0.5f * i;
        size_t start[] = {1, 2}, count[] = {4, 5};
        CHECK(nc_put_vara_float(ncid, v, start, count, vals));
    }

    /* One variable per numeric type, written from doubles. */
    const nc_type types[] = {NC_BYTE, NC_UBYTE, NC_SHORT, NC_USHORT, NC_INT, NC_UINT,
                             NC_INT64, NC_UINT64, NC_DOUBLE};
    const char *names[] = {"b", "ub", "sh", "us", "i", "ui", "i64", "u64", "d"};
    for (int k = 0; k < 9; k++) {
        int id;
        double vals[3] = {1, 2.5, 100};
        CHECK(nc_def_var(ncid, names[k], types[k], 1, &s, &id));
        CHECK(nc_put_var_double(ncid, id, vals));
    }
    {
        int id;
        long long big[3] = {-9223372036854775807LL - 1, 0, 9223372036854775807LL};
        CHECK(nc_def_var(ncid, "exact64", NC_INT64, 1, &s, &id));
        CHECK(nc_put_var_longlong(ncid, id, big));
    }

    /* Big-endian, stored as such. */
    CHECK(nc_def_var(ncid, "be", NC_INT, 1, &x, &v));
    CHECK(nc_def_var_endian(ncid, v, NC_ENDIAN_BIG));
    {
        int vals[7] = {1, -2, 3, 65536, 5, 6, 2147483647};
        CHECK(nc_put_var_int(ncid, v, vals));
    }

    /* Text and strings. */
    dims[0] = s; dims[1] = x;
    CHECK(nc_def_var(ncid, "chars", NC_CHAR, 2, dims, &v));
    CHECK(nc_put_var_text(ncid, v, "abcdefghijklmnopqrstu"));
    CHECK(nc_def_var(ncid, "strs", NC_STRING, 1, &s, &v));
    {
        const char *vals[3] = {"short", "", "a rather longer string"};
        CHECK(nc_put_var_string(ncid, v, vals));
    }

    /* Records: two variables share the unlimited dimension. */
    dims[0] = t; dims[1] = s;
    CHECK(nc_def_var(ncid, "rec", NC_SHORT, 2, dims, &v));
    {
        short vals[3] = {10, 11, 12};
        size_t start[] = {2, 0}, count[] = {1, 3};
        CHECK(nc_put_vara_short(ncid, v, start, count, vals));
    }
    CHECK(nc_def_var(ncid, "time", NC_DOUBLE, 1, &t, &v));
    {
        double tv = 42.0;
        size_t idx[] = {0};
        CHECK(nc_put_var1_double(ncid, v, idx, &tv));
    }

    /* A scalar and a NOFILL variable never written. */
    CHECK(nc_def_var(ncid, "scalar", NC_DOUBLE, 0, NULL, &v));
    {
        double pi = 3.141592653589793;
        CHECK(nc_put_var_double(ncid, v, &pi));
    }

    /* A group variable. */
    CHECK(nc_def_grp(ncid, "g", &grp));
    CHECK(nc_def_var(grp, "inner", NC_USHORT, 1, &x, &v));
    {
        unsigned short vals[7] = {0, 1, 2, 3, 4, 5, 65535};
        CHECK(nc_put_var_ushort(grp, v, vals));
    }
    CHECK(nc_close(ncid));
    return 0;
}
