/* A process that forks while it has a parallel dataset open (a program
 * running a helper with system(), say): the child inherits the dataset as
 * a read-only view, as for serial datasets, and closing or aborting it
 * there makes no MPI call (MPI belongs to the parent) and waits for no
 * rank. ctests/mpi/run.sh runs it on 4 ranks in a scratch directory. */
#define _POSIX_C_SOURCE 200809L
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "partest.h"

#define STORE "file://par_fork.zarr#mode=nczarr,file"

/* In the child: read, refuse to write, then close (status 0) or abort
 * (status 1 asks for nc_abort); the exit status says what went wrong. */
static int child(int ncid, int v, int nprocs, int abort_it)
{
    alarm(30); /* a close that waited for the ranks would never return */
    int values[64], one = 1;
    size_t at = 0;
    if (nc_get_var_int(ncid, v, values) != NC_NOERR)
        return 2;
    for (int r = 0; r < nprocs; r++)
        if (values[r] != 10 * r) {
            fprintf(stderr, "rank %d child: v[%d] = %d\n", partest_rank, r, values[r]);
            return 3;
        }
    if (nc_put_var1_int(ncid, v, &at, &one) != NC_EPERM)
        return 4;
    if ((abort_it ? nc_abort(ncid) : nc_close(ncid)) != NC_NOERR)
        return 5;
    return 0;
}

int main(int argc, char **argv)
{
    int rank, nprocs;
    partest_init(&argc, &argv, &rank, &nprocs);
    int ncid, x, v;
    size_t one = 1;
    OK(nc_create_par(STORE, NC_CLOBBER | NC_NETCDF4, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid));
    OK(nc_def_dim(ncid, "x", (size_t)nprocs, &x));
    OK(nc_def_var(ncid, "v", NC_INT, 1, &x, &v));
    OK(nc_def_var_chunking(ncid, v, NC_CHUNKED, &one));
    OK(nc_enddef(ncid));
    size_t at = (size_t)rank;
    int value = 10 * rank;
    OK(nc_put_var1_int(ncid, v, &at, &value));
    OK(nc_sync(ncid));

    for (int abort_it = 0; abort_it < 2; abort_it++) {
        fflush(NULL);
        pid_t pid = fork();
        if (pid < 0)
            FAIL("fork failed");
        if (pid == 0)
            _exit(child(ncid, v, nprocs, abort_it));
        int status;
        if (waitpid(pid, &status, 0) != pid)
            FAIL("waitpid failed");
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
            FAIL("the child (%s) ended with status 0x%x", abort_it ? "nc_abort" : "nc_close", status);
    }

    /* Every child done (they read the other ranks' chunks from storage),
     * the parent's dataset is still whole and still collective. */
    MPI_Barrier(MPI_COMM_WORLD);
    value = 10 * rank + 1;
    OK(nc_put_var1_int(ncid, v, &at, &value));
    OK(nc_close(ncid));
    OK(nc_open_par(STORE, NC_NOWRITE, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid));
    int values[64];
    OK(nc_get_var_int(ncid, v, values));
    for (int r = 0; r < nprocs; r++)
        EQ_INT(values[r], 10 * r + 1);
    OK(nc_close(ncid));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("t_par_fork: %d ranks: ok\n", nprocs);
    MPI_Finalize();
    return 0;
}
