/* write_sample.c -- define a dataset that exercises every part of the
 * metadata model, with our library, for other readers to check.
 *
 * Usage: write_sample URL
 */
#include <stdio.h>
#include <stdlib.h>
#include <netcdf.h>

#define CHECK(call) do { int _s = (call); if (_s != NC_NOERR) { \
    fprintf(stderr, "%s: %s\n", #call, nc_strerror(_s)); exit(2); } } while (0)

int main(int argc, char **argv)
{
    int ncid, g1, g2, time, lat, lon, n, dims[3], v;
    if (argc != 2) return 2;
    CHECK(nc_create(argv[1], NC_CLOBBER | NC_NETCDF4, &ncid));
    CHECK(nc_def_dim(ncid, "time", NC_UNLIMITED, &time));
    CHECK(nc_def_dim(ncid, "lat", 3, &lat));
    CHECK(nc_def_dim(ncid, "lon", 4, &lon));

    /* Global attributes of every type. */
    signed char b[] = {-128, 127};
    unsigned char ub[] = {0, 255};
    short s[] = {-32768, 32767};
    unsigned short us[] = {65535};
    int i[] = {-2147483647 - 1, 7};
    unsigned int ui[] = {4294967295U};
    long long ll[] = {-9223372036854775807LL - 1, 9223372036854775807LL};
    unsigned long long ull[] = {18446744073709551615ULL, 0};
    float f[] = {0.1f, -1.5e-30f, 3.4028235e38f};
    double d[] = {3.141592653589793, 1234567.891, -2.5e-300};
    const char *strs[] = {"first", "", "third value"};
    CHECK(nc_put_att_text(ncid, NC_GLOBAL, "title", 17, "interop \"sample\"\n"));
    CHECK(nc_put_att_schar(ncid, NC_GLOBAL, "att_byte", NC_BYTE, 2, b));
    CHECK(nc_put_att_uchar(ncid, NC_GLOBAL, "att_ubyte", NC_UBYTE, 2, ub));
    CHECK(nc_put_att_short(ncid, NC_GLOBAL, "att_short", NC_SHORT, 2, s));
    CHECK(nc_put_att_ushort(ncid, NC_GLOBAL, "att_ushort", NC_USHORT, 1, us));
    CHECK(nc_put_att_int(ncid, NC_GLOBAL, "att_int", NC_INT, 2, i));
    CHECK(nc_put_att_uint(ncid, NC_GLOBAL, "att_uint", NC_UINT, 1, ui));
    CHECK(nc_put_att_longlong(ncid, NC_GLOBAL, "att_int64", NC_INT64, 2, ll));
    CHECK(nc_put_att_ulonglong(ncid, NC_GLOBAL, "att_uint64", NC_UINT64, 2, ull));
    CHECK(nc_put_att_float(ncid, NC_GLOBAL, "att_float", NC_FLOAT, 3, f));
    CHECK(nc_put_att_double(ncid, NC_GLOBAL, "att_double", NC_DOUBLE, 3, d));
    CHECK(nc_put_att_double(ncid, NC_GLOBAL, "att_one_double", NC_DOUBLE, 1, d));
    CHECK(nc_put_att_string(ncid, NC_GLOBAL, "att_strings", 3, strs));
    CHECK(nc_put_att_string(ncid, NC_GLOBAL, "att_string", 1, strs));

    /* Variables of every type; one with a fill value, one big-endian,
     * one with explicit chunks, one NOFILL, one scalar. */
    nc_type types[] = {NC_BYTE, NC_CHAR, NC_SHORT, NC_INT, NC_FLOAT, NC_DOUBLE,
                       NC_UBYTE, NC_USHORT, NC_UINT, NC_INT64, NC_UINT64, NC_STRING};
    const char *names[] = {"v_byte", "v_char", "v_short", "v_int", "v_float", "v_double",
                           "v_ubyte", "v_ushort", "v_uint", "v_int64", "v_uint64", "v_string"};
    for (n = 0; n < 12; n++) {
        dims[0] = lat; dims[1] = lon;
        CHECK(nc_def_var(ncid, names[n], types[n], 2, dims, &v));
    }
    dims[0] = time; dims[1] = lat; dims[2] = lon;
    CHECK(nc_def_var(ncid, "tas", NC_FLOAT, 3, dims, &v));
    {
        float fill = -999.0f;
        size_t chunks[] = {10, 3, 2};
        CHECK(nc_def_var_fill(ncid, v, 0, &fill));
        CHECK(nc_def_var_chunking(ncid, v, NC_CHUNKED, chunks));
        CHECK(nc_put_att_text(ncid, v, "units", 1, "K"));
        CHECK(nc_put_att_text(ncid, v, "long_name", 19, "surface temperature"));
        double range[] = {180.0, 330.5};
        CHECK(nc_put_att_double(ncid, v, "valid_range", NC_FLOAT, 2, range));
    }
    CHECK(nc_def_var(ncid, "big", NC_INT, 1, &lat, &v));
    CHECK(nc_def_var_endian(ncid, v, NC_ENDIAN_BIG));
    {
        /* Written: netcdf-c 4.10.1 byte-swaps the fill value of a big-endian
         * variable's missing chunks wrongly, so an unwritten one would not
         * compare equal. */
        int vals[3] = {1, -2, 0x01020304};
        CHECK(nc_put_var_int(ncid, v, vals));
    }
    CHECK(nc_def_var(ncid, "nofill", NC_DOUBLE, 1, &lon, &v));
    CHECK(nc_def_var_fill(ncid, v, 1, NULL));
    CHECK(nc_def_var(ncid, "scalar", NC_DOUBLE, 0, NULL, &v));
    CHECK(nc_put_att_text(ncid, v, "comment", 6, "scalar"));

    /* Groups with their own dimensions and variables using inherited ones. */
    CHECK(nc_def_grp(ncid, "g1", &g1));
    CHECK(nc_def_grp(g1, "g2", &g2));
    int z;
    CHECK(nc_def_dim(g1, "z", 2, &z));
    CHECK(nc_put_att_int(g1, NC_GLOBAL, "level", NC_INT, 1, i + 1));
    dims[0] = z; dims[1] = lat;
    CHECK(nc_def_var(g2, "deep", NC_SHORT, 2, dims, &v));
    CHECK(nc_put_att_text(g2, v, "where", 4, "deep"));
    CHECK(nc_close(ncid));
    return 0;
}
