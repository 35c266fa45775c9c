/* durability.c -- write a small dataset, optionally nc_sync it, close it,
 * reopen it and check every value; t_durability.sh runs it under strace
 * to count the fsync calls each durability setting makes.
 *
 *   durability URL [sync]
 *
 * Exit status: 0 when every value read back; 1 on a wrong value; the
 * netCDF error code's absolute value (capped at 125) when a call fails,
 * after printing it.
 */
#include <netcdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NT 16
#define NX 64

static void check(int status, const char *what) {
    if (status != NC_NOERR) {
        printf("%s: %s (%d)\n", what, nc_strerror(status), status);
        exit(-status > 125 ? 125 : -status);
    }
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: durability URL [sync]\n");
        return 2;
    }
    const char *url = argv[1];
    int sync = argc > 2 && strcmp(argv[2], "sync") == 0;
    int ncid, dims[2], varid;
    static float data[NT][NX], back[NT][NX];
    size_t chunks[2] = {4, 16};
    for (int t = 0; t < NT; t++)
        for (int x = 0; x < NX; x++) data[t][x] = (float)(t * 1000 + x) + 0.25f;

    check(nc_create(url, NC_CLOBBER | NC_NETCDF4, &ncid), "nc_create");
    check(nc_def_dim(ncid, "t", NC_UNLIMITED, &dims[0]), "nc_def_dim t");
    check(nc_def_dim(ncid, "x", NX, &dims[1]), "nc_def_dim x");
    check(nc_def_var(ncid, "v", NC_FLOAT, 2, dims, &varid), "nc_def_var");
    check(nc_def_var_chunking(ncid, varid, NC_CHUNKED, chunks), "nc_def_var_chunking");
    check(nc_put_att_text(ncid, NC_GLOBAL, "title", 4, "test"), "nc_put_att_text");
    check(nc_enddef(ncid), "nc_enddef");
    size_t start[2] = {0, 0}, count[2] = {NT, NX};
    check(nc_put_vara_float(ncid, varid, start, count, &data[0][0]), "nc_put_vara_float");
    if (sync) check(nc_sync(ncid), "nc_sync");
    check(nc_close(ncid), "nc_close");

    check(nc_open(url, NC_NOWRITE, &ncid), "nc_open");
    check(nc_inq_varid(ncid, "v", &varid), "nc_inq_varid");
    size_t len;
    check(nc_inq_dimlen(ncid, dims[0], &len), "nc_inq_dimlen");
    if (len != NT) {
        printf("t has %zu records, not %d\n", len, NT);
        return 1;
    }
    check(nc_get_var_float(ncid, varid, &back[0][0]), "nc_get_var_float");
    check(nc_close(ncid), "nc_close (read)");
    for (int t = 0; t < NT; t++)
        for (int x = 0; x < NX; x++)
            if (back[t][x] != data[t][x]) {
                printf("v[%d][%d] = %g, not %g\n", t, x, back[t][x], data[t][x]);
                return 1;
            }
    printf("ok %d values\n", NT * NX);
    return 0;
}
