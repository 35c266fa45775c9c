/* edit_store.c URL: reopen an existing NCZarr store for writing and add to
 * it what a second session adds: a dimension, a variable with its values,
 * a changed value of an existing variable, an attribute. Also tries an
 * unlimited dimension and prints the status (netcdf-c 4.9.0's layout has
 * no unlimited dimensions: NC_EDIMSIZE there). Prints "ok" at the end. */
#include <stdio.h>
#include <stdlib.h>
#include <netcdf.h>

#define CHECK(call) do { int s_ = (call); if (s_) { \
    fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, nc_strerror(s_)); exit(1); } } while (0)

int main(int argc, char **argv)
{
    int ncid, y, added, temp, rec, status;
    int values[4] = {7, 8, 9, 10};
    float hot = 99.5f;
    size_t at[2] = {1, 2};
    if (argc != 2) return 2;
    CHECK(nc_open(argv[1], NC_WRITE, &ncid));
    CHECK(nc_redef(ncid));
    CHECK(nc_def_dim(ncid, "y", 4, &y));
    CHECK(nc_def_var(ncid, "added", NC_INT, 1, &y, &added));
    CHECK(nc_put_att_text(ncid, added, "long_name", 11, "added later"));
    status = nc_def_dim(ncid, "rec", NC_UNLIMITED, &rec);
    printf("unlimited %d\n", status);
    CHECK(nc_enddef(ncid));
    CHECK(nc_put_var_int(ncid, added, values));
    CHECK(nc_inq_varid(ncid, "temp", &temp));
    CHECK(nc_put_var1_float(ncid, temp, at, &hot));
    CHECK(nc_close(ncid));
    printf("ok\n");
    return 0;
}
