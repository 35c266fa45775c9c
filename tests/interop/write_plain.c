/* write_plain.c -- a dataset within what netcdf-c 4.9.0 can represent
 * (fixed dimensions, no strings, no scalars: 4.9.0 crashes on its own),
 * for Debian's 4.9.0 tools to read. Usage: write_plain URL */
#include <stdio.h>
#include <stdlib.h>
#include <netcdf.h>

#define CHECK(call) do { int _s = (call); if (_s != NC_NOERR) { \
    fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, nc_strerror(_s)); exit(2); } } while (0)

int main(int argc, char **argv)
{
    int ncid, g, x, y, z, dims[2], v, c, w, b;
    if (argc != 2) return 2;
    CHECK(nc_create(argv[1], NC_CLOBBER, &ncid));
    CHECK(nc_put_att_text(ncid, NC_GLOBAL, "title", 5, "plain"));
    CHECK(nc_def_dim(ncid, "x", 3, &x));
    CHECK(nc_def_dim(ncid, "y", 4, &y));
    dims[0] = x; dims[1] = y;
    CHECK(nc_def_var(ncid, "v", NC_INT, 2, dims, &v));
    int offset = 100;
    CHECK(nc_put_att_int(ncid, v, "offset", NC_INT, 1, &offset));
    CHECK(nc_put_att_text(ncid, v, "units", 2, "m2"));
    CHECK(nc_def_var(ncid, "c", NC_CHAR, 1, &y, &c));
    CHECK(nc_def_var(ncid, "b", NC_BYTE, 1, &x, &b));
    CHECK(nc_def_grp(ncid, "g", &g));
    CHECK(nc_def_dim(g, "z", 2, &z));
    dims[0] = z; dims[1] = x;
    CHECK(nc_def_var(g, "w", NC_DOUBLE, 2, dims, &w));
    int vals[12];
    for (int i = 0; i < 12; i++) vals[i] = i * 10;
    CHECK(nc_put_var_int(ncid, v, vals));
    CHECK(nc_put_var_text(ncid, c, "wxyz"));
    signed char bytes[3] = {-1, 0, 1};
    CHECK(nc_put_var_schar(ncid, b, bytes));
    double d[6] = {0.5, 1.5, 2.5, 3.5, 4.5, 5.5};
    CHECK(nc_put_var_double(g, w, d));
    CHECK(nc_close(ncid));
    return 0;
}
