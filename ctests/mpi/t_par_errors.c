/* What parallel I/O refuses, and how (ctests/mpi/run.sh runs it on 4
 * ranks in a scratch directory):
 * - ranks whose metadata differ at a commit: NC_EINVAL on every rank,
 *   nothing written, the store still readable with its last agreed state;
 *   the ranks can then agree and commit;
 * - zip stores written in parallel: NC_EINVAL on every rank (read: fine);
 * - NC_NOCLOBBER on an existing store: NC_EEXIST on every rank;
 * - modes parallel I/O cannot have, a null communicator;
 * - nc_var_par_access on a dataset not opened in parallel: NC_ENOPAR. */
#include "partest.h"

#define STORE "file://par_errors.zarr#mode=nczarr,file"
#define ZIP "file://par_errors.zip#mode=nczarr,zip"

/* Rank 0 opens `url` serially and checks what the last agreed commit
 * left: variable v, and global attribute "agreed" (if `agreed` >= 0) but
 * no "by_rank"; the others wait. */
static void check_serially(int rank, const char *url, int agreed)
{
    if (rank == 0) {
        int ncid, varid, value;
        OK(nc_open(url, NC_NOWRITE, &ncid));
        OK(nc_inq_varid(ncid, "v", &varid));
        ERR(NC_ENOTATT, nc_inq_att(ncid, NC_GLOBAL, "by_rank", NULL, NULL));
        if (agreed < 0) {
            ERR(NC_ENOTATT, nc_inq_att(ncid, NC_GLOBAL, "agreed", NULL, NULL));
        } else {
            OK(nc_get_att_int(ncid, NC_GLOBAL, "agreed", &value));
            EQ_INT(value, agreed);
        }
        int dimid;
        ERR(NC_EBADDIM, nc_inq_dimid(ncid, "only_on_some", &dimid));
        OK(nc_close(ncid));
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    int rank, nprocs;
    partest_init(&argc, &argv, &rank, &nprocs);
    int ncid, x, v;

    /* A store the ranks agree on. */
    OK(nc_create_par(STORE, NC_CLOBBER | NC_NETCDF4, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid));
    OK(nc_def_dim(ncid, "x", (size_t)nprocs, &x));
    OK(nc_def_var(ncid, "v", NC_INT, 1, &x, &v));
    /* One element a chunk: each rank writes its own chunk (chunks shared
     * by several ranks need two-phase I/O, not there yet). */
    size_t one = 1;
    OK(nc_def_var_chunking(ncid, v, NC_CHUNKED, &one));
    OK(nc_close(ncid));
    check_serially(rank, STORE, -1);

    /* NC_NOCLOBBER on it: NC_EEXIST everywhere, the store untouched. */
    ERR(NC_EEXIST, nc_create_par(STORE, NC_NOCLOBBER | NC_NETCDF4, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid));
    check_serially(rank, STORE, -1);

    /* An attribute each rank gives its own value: the commit fails on
     * every rank and writes nothing. */
    OK(nc_open_par(STORE, NC_WRITE, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid));
    OK(nc_redef(ncid));
    OK(nc_put_att_int(ncid, NC_GLOBAL, "by_rank", NC_INT, 1, &rank));
    ERR(NC_EINVAL, nc_enddef(ncid));
    check_serially(rank, STORE, -1);
    /* Still in define mode: the ranks agree now, and the commit works. */
    OK(nc_del_att(ncid, NC_GLOBAL, "by_rank"));
    int agreed = 42;
    OK(nc_put_att_int(ncid, NC_GLOBAL, "agreed", NC_INT, 1, &agreed));
    OK(nc_enddef(ncid));
    int value = rank * 3;
    size_t at = (size_t)rank;
    OK(nc_put_var1_int(ncid, v, &at, &value));
    OK(nc_close(ncid));
    check_serially(rank, STORE, 42);

    /* A dimension only some ranks define, found at nc_close: the close
     * fails everywhere and the dataset stays open; nc_abort then drops it
     * on every rank, and the store keeps its last state. */
    OK(nc_open_par(STORE, NC_WRITE, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid));
    OK(nc_redef(ncid));
    if (rank % 2 == 1)
        OK(nc_def_dim(ncid, "only_on_some", 3, &x));
    ERR(NC_EINVAL, nc_close(ncid));
    OK(nc_abort(ncid));
    check_serially(rank, STORE, 42);
    OK(nc_open_par(STORE, NC_NOWRITE, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid));
    int values[64];
    OK(nc_get_var_int(ncid, v, values));
    for (int r = 0; r < nprocs; r++)
        EQ_INT(values[r], r * 3);
    OK(nc_close(ncid));

    /* Zip: never written by several processes. */
    ERR(NC_EINVAL, nc_create_par(ZIP, NC_CLOBBER | NC_NETCDF4, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid));
    if (rank == 0) {
        OK(nc_create(ZIP, NC_CLOBBER | NC_NETCDF4, &ncid));
        OK(nc_def_dim(ncid, "x", 2, &x));
        OK(nc_def_var(ncid, "v", NC_INT, 1, &x, &v));
        int two[2] = {5, 6};
        OK(nc_put_var_int(ncid, v, two));
        OK(nc_close(ncid));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    ERR(NC_EINVAL, nc_open_par(ZIP, NC_WRITE, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid));
    OK(nc_open_par(ZIP, NC_NOWRITE, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid));
    int two[2];
    OK(nc_inq_varid(ncid, "v", &v));
    OK(nc_get_var_int(ncid, v, two));
    EQ_INT(two[0], 5);
    EQ_INT(two[1], 6);
    /* Read only: no data writes, as for a serial read-only open. */
    ERR(NC_EPERM, nc_put_var_int(ncid, v, two));
    OK(nc_close(ncid));

    /* Modes parallel I/O cannot have (netcdf-c: NC_EINVAL), a null
     * communicator, no path. */
    ERR(NC_EINVAL, nc_create_par(STORE, NC_CLOBBER | NC_DISKLESS, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid));
    ERR(NC_EINVAL, nc_create_par(STORE, NC_CLOBBER | NC_INMEMORY, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid));
    ERR(NC_EINVAL, nc_open_par(STORE, NC_MMAP, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid));
    ERR(NC_EINVAL, nc_open_par(STORE, NC_NOWRITE, MPI_COMM_NULL, MPI_INFO_NULL, &ncid));
    ERR(NC_EINVAL, nc_open_par(NULL, NC_NOWRITE, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid));
    ERR(NC_ENOOBJECT, nc_open_par("file://missing.zarr#mode=nczarr,file", NC_NOWRITE, MPI_COMM_WORLD,
                                  MPI_INFO_NULL, &ncid));

    /* The Fortran forms, with Fortran handles. */
    MPI_Fint fcomm = MPI_Comm_c2f(MPI_COMM_WORLD), finfo = MPI_Info_c2f(MPI_INFO_NULL);
    OK(nc_open_par_fortran(STORE, NC_NOWRITE, fcomm, finfo, &ncid));
    OK(nc_get_var_int(ncid, v, values));
    EQ_INT(values[nprocs - 1], (nprocs - 1) * 3);
    OK(nc_var_par_access(ncid, v, NC_COLLECTIVE));
    OK(nc_close(ncid));

    /* nc_create_par_fortran, then nc_abort: rank 0 deletes the new store
     * once, every rank succeeds, and it is gone. */
#define ABORTED "file://par_aborted.zarr#mode=nczarr,file"
    OK(nc_create_par_fortran(ABORTED, NC_CLOBBER | NC_NETCDF4, fcomm, finfo, &ncid));
    OK(nc_def_dim(ncid, "x", 1, &x));
    OK(nc_enddef(ncid));
    OK(nc_abort(ncid));
    ERR(NC_ENOOBJECT, nc_open_par(ABORTED, NC_NOWRITE, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid));

    /* Not opened in parallel: NC_ENOPAR once id and mode are valid. */
    OK(nc_open(STORE, NC_NOWRITE, &ncid));
    ERR(NC_ENOPAR, nc_var_par_access(ncid, v, NC_COLLECTIVE));
    ERR(NC_EINVAL, nc_var_par_access(ncid, v, 7));
    ERR(NC_ENOPAR, nc_var_par_access(ncid, 99, NC_INDEPENDENT));
    OK(nc_close(ncid));
    ERR(NC_EBADID, nc_var_par_access(ncid, v, NC_COLLECTIVE));

    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("t_par_errors: %d ranks: ok\n", nprocs);
    MPI_Finalize();
    return 0;
}
