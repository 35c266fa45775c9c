/* Renaming a variable and a group that are already stored, in parallel
 * (ctests/mpi/run.sh runs it on 4 ranks in a scratch directory, with the
 * store URL as argv[1]): the stored objects move once, and chunks every
 * rank wrote before and after the rename are all found under the new
 * names. */
#include "partest.h"

int main(int argc, char **argv)
{
    int rank, nprocs;
    partest_init(&argc, &argv, &rank, &nprocs);
    if (argc != 2)
        FAIL("usage: t_par_rename URL");
    const char *url = argv[1];
    int ncid, grp, x, v;
    size_t one = 1;
    OK(nc_create_par(url, NC_CLOBBER | NC_NETCDF4, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid));
    OK(nc_def_grp(ncid, "g", &grp));
    OK(nc_def_dim(ncid, "x", 2 * (size_t)nprocs, &x));
    OK(nc_def_var(grp, "v", NC_INT, 1, &x, &v));
    OK(nc_def_var_chunking(grp, v, NC_CHUNKED, &one));
    OK(nc_enddef(ncid));
    /* Each rank its element r, then (after the renames) element r + nprocs. */
    size_t at = (size_t)rank;
    int value = 100 + rank;
    OK(nc_put_var1_int(grp, v, &at, &value));
    OK(nc_sync(ncid));
    OK(nc_rename_var(grp, v, "w"));
    OK(nc_rename_grp(grp, "h"));
    at = (size_t)(rank + nprocs);
    value = 200 + rank;
    OK(nc_put_var1_int(grp, v, &at, &value));
    OK(nc_close(ncid));

    OK(nc_open_par(url, NC_NOWRITE, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid));
    ERR(NC_ENOGRP, nc_inq_grp_ncid(ncid, "g", &grp));
    OK(nc_inq_grp_ncid(ncid, "h", &grp));
    ERR(NC_ENOTVAR, nc_inq_varid(grp, "v", &v));
    OK(nc_inq_varid(grp, "w", &v));
    int values[128];
    OK(nc_get_var_int(grp, v, values));
    for (int r = 0; r < nprocs; r++) {
        EQ_INT(values[r], 100 + r);
        EQ_INT(values[r + nprocs], 200 + r);
    }
    OK(nc_close(ncid));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("t_par_rename %s: %d ranks: ok\n", url, nprocs);
    MPI_Finalize();
    return 0;
}
