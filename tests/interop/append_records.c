/* append_records.c URL create|append: create a dataset with records
 * v(t, x) along an unlimited t and a fixed x, two records; or reopen it
 * and append two records, then try to write past the end of x. Prints
 * each status, so that the test can tell what was refused. */
#include <stdio.h>
#include <netcdf.h>

int main(int argc, char **argv)
{
    int ncid, dims[2], v, r;
    size_t start[2] = {0, 0}, count[2] = {2, 3}, len;
    int two[6] = {1, 2, 3, 4, 5, 6}, more[6] = {7, 8, 9, 10, 11, 12};
    if (argc != 3) return 2;
    if (argv[2][0] == 'c') {
        if ((r = nc_create(argv[1], NC_CLOBBER, &ncid))) { printf("create %d\n", r); return 1; }
        nc_def_dim(ncid, "t", NC_UNLIMITED, &dims[0]);
        nc_def_dim(ncid, "x", 3, &dims[1]);
        nc_def_var(ncid, "v", NC_INT, 2, dims, &v);
        printf("put %d\n", nc_put_vara_int(ncid, v, start, count, two));
        printf("close %d\n", nc_close(ncid));
        return 0;
    }
    if ((r = nc_open(argv[1], NC_WRITE, &ncid))) { printf("open %d\n", r); return 1; }
    nc_inq_varid(ncid, "v", &v);
    nc_inq_vardimid(ncid, v, dims);
    start[0] = 2;
    printf("append %d\n", nc_put_vara_int(ncid, v, start, count, more));
    nc_inq_dimlen(ncid, dims[0], &len);
    printf("t %zu\n", len);
    size_t past[2] = {0, 3}, one[2] = {1, 1};
    printf("past x %d\n", nc_put_vara_int(ncid, v, past, one, two));
    printf("close %d\n", nc_close(ncid));
    return 0;
}
