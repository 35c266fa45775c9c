/* modify_atts.c URL -- open a dataset for writing and add attributes to
 * the variable "v" and to group "g" (not the root group), then close.
 * Built against netcdf-c 4.10.1: it rewrites the objects, leaves
 * .zmetadata as it was, and rewrites the root objects unchanged. */
#include <stdio.h>
#include <stdlib.h>
#include <netcdf.h>

#define CHECK(call) do { int _s = (call); if (_s) { \
    fprintf(stderr, "%s: %s\n", #call, nc_strerror(_s)); exit(2); } } while (0)

int main(int argc, char **argv)
{
    int ncid, v, g, one = 1;
    if (argc != 2) return 2;
    CHECK(nc_open(argv[1], NC_WRITE, &ncid));
    CHECK(nc_inq_varid(ncid, "v", &v));
    CHECK(nc_inq_grp_ncid(ncid, "g", &g));
    CHECK(nc_put_att_int(ncid, v, "added_by_netcdf_c", NC_INT, 1, &one));
    CHECK(nc_put_att_text(g, NC_GLOBAL, "added_by_netcdf_c", 3, "yes"));
    CHECK(nc_close(ncid));
    return 0;
}
