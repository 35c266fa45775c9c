/* The MPI side of parallel I/O (the parallel build only: Cargo feature
 * `mpi`, compiled with mpicc by build.rs).
 *
 * MPI_Comm and MPI_Info differ between MPI implementations (a pointer in
 * OpenMPI, an int in MPICH), so they are touched only here, from mpi.h.
 * The public entry points (netcdf_par.h) are defined here with their real
 * types; Rust exports each public name as a trampoline that jumps here
 * (src/parallel/mod.rs), because a Rust cdylib exports only symbols
 * defined in Rust. Each duplicates the caller's communicator (so the
 * library's collectives never mix with the program's messages, and the
 * program may free its own) into a heap handle that Rust owns from then
 * on and frees with nczrs_mpi_free. Rust calls back for the few
 * collectives it needs, on that handle, with plain C types only.
 */
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "netcdf.h"
#include "netcdf_par.h"

/* Implemented in Rust (src/parallel/mod.rs); they own `comm` whatever
 * they return. */
int nczrs_par_create(const char *path, int cmode, void *comm, int *ncidp);
int nczrs_par_open(const char *path, int mode, void *comm, int *ncidp);
/* 1 when `path` is a name the netcdf-c beside us serves (a `.nc` file):
 * it made the call, and *status is its result; 0 when the name is ours.
 * `comm` and `info` are the addresses of the caller's handles, passed
 * back to nczrs_c_call_delegate_par (src/parallel/delegated.rs). */
int nczrs_par_delegated(const char *path, int mode, int creating, const void *comm, const void *info, int *ncidp,
                        int *status);

struct nczrs_comm {
    MPI_Comm comm;
};

/* A private duplicate of `comm` whose errors are returned, not fatal (the
 * caller's handler may abort the job; ours turns them into NC_EMPI). */
static int dup_comm(MPI_Comm comm, struct nczrs_comm **out) {
    int initialized = 0, finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    /* netcdf-c leaves this undefined (MPI aborts); an error is kinder. */
    if (!initialized || finalized)
        return NC_EINVAL;
    if (comm == MPI_COMM_NULL)
        return NC_EINVAL;
    struct nczrs_comm *c = malloc(sizeof *c);
    if (c == NULL)
        return NC_ENOMEM;
    if (MPI_Comm_dup(comm, &c->comm) != MPI_SUCCESS) {
        free(c);
        return NC_EMPI;
    }
    MPI_Comm_set_errhandler(c->comm, MPI_ERRORS_RETURN);
    *out = c;
    return NC_NOERR;
}

/* A private duplicate of MPI_COMM_WORLD (NULL on failure), for the Rust
 * tests of the collectives (src/parallel/comm.rs). */
void *nczrs_mpi_dup_world(void) {
    struct nczrs_comm *c = NULL;
    return dup_comm(MPI_COMM_WORLD, &c) == NC_NOERR ? c : NULL;
}

/* A parallel netcdf-c's nc_create_par or nc_open_par (same prototype). */
typedef int (*par_function)(const char *, int, MPI_Comm, MPI_Info, int *);

/* Make the delegate's call with the caller's own handles (Rust holds
 * their addresses only: their types are the MPI implementation's). The
 * delegate binds MPI's predefined objects as the program does (it is
 * loaded without RTLD_DEEPBIND: src/delegate/loader.rs says why), so they
 * pass as they are. */
int nczrs_c_call_delegate_par(void *function, const char *path, int mode, const void *comm, const void *info,
                              int *ncidp) {
    par_function f;
    memcpy(&f, &function, sizeof f); /* ISO C has no cast from void * to a function pointer */
    return f(path, mode, *(const MPI_Comm *)comm, *(const MPI_Info *)info, ncidp);
}

int nczrs_c_create_par(const char *path, int cmode, MPI_Comm comm, MPI_Info info, int *ncidp) {
    int stat;
    if (nczrs_par_delegated(path, cmode, 1, &comm, &info, ncidp, &stat))
        return stat;
    /* MPI-IO hints (info): no MPI-IO for Zarr stores. */
    struct nczrs_comm *c;
    stat = dup_comm(comm, &c);
    if (stat != NC_NOERR)
        return stat;
    return nczrs_par_create(path, cmode, c, ncidp);
}

int nczrs_c_open_par(const char *path, int mode, MPI_Comm comm, MPI_Info info, int *ncidp) {
    int stat;
    if (nczrs_par_delegated(path, mode, 0, &comm, &info, ncidp, &stat))
        return stat;
    struct nczrs_comm *c;
    stat = dup_comm(comm, &c);
    if (stat != NC_NOERR)
        return stat;
    return nczrs_par_open(path, mode, c, ncidp);
}

/* Fortran handles (MPI_Fint), converted as netcdf-c converts them. */
int nczrs_c_create_par_fortran(const char *path, int cmode, int comm, int info, int *ncidp) {
    return nczrs_c_create_par(path, cmode, MPI_Comm_f2c(comm), MPI_Info_f2c(info), ncidp);
}

int nczrs_c_open_par_fortran(const char *path, int mode, int comm, int info, int *ncidp) {
    return nczrs_c_open_par(path, mode, MPI_Comm_f2c(comm), MPI_Info_f2c(info), ncidp);
}

/* ---- Collectives for Rust (src/parallel/comm.rs). Each returns
 * NC_NOERR or NC_EMPI (NC_EINVAL for sizes MPI cannot count). ---- */

#define CHECK(call) ((call) == MPI_SUCCESS ? NC_NOERR : NC_EMPI)

void nczrs_mpi_free(void *h) {
    struct nczrs_comm *c = h;
    if (c == NULL)
        return;
    int finalized = 0;
    MPI_Finalized(&finalized);
    /* After MPI_Finalize no MPI call is allowed; the process is ending. */
    if (!finalized)
        MPI_Comm_free(&c->comm);
    free(c);
}

int nczrs_mpi_rank(void *h) {
    int rank = 0;
    MPI_Comm_rank(((struct nczrs_comm *)h)->comm, &rank);
    return rank;
}

/* The rank in MPI_COMM_WORLD, which trace lines show (0 when MPI is not
 * running). */
int nczrs_mpi_world_rank(void) {
    int initialized = 0, finalized = 0, rank = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (initialized && !finalized)
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return rank;
}

int nczrs_mpi_size(void *h) {
    int size = 1;
    MPI_Comm_size(((struct nczrs_comm *)h)->comm, &size);
    return size;
}

int nczrs_mpi_barrier(void *h) {
    return CHECK(MPI_Barrier(((struct nczrs_comm *)h)->comm));
}

int nczrs_mpi_bcast(void *h, void *buf, size_t len, int root) {
    if (len > INT_MAX)
        return NC_EINVAL;
    return CHECK(MPI_Bcast(buf, (int)len, MPI_BYTE, root, ((struct nczrs_comm *)h)->comm));
}

/* op: 0 maximum, 1 minimum. */
static int allreduce(void *h, void *inout, size_t n, MPI_Datatype type, int op) {
    if (n > INT_MAX || (op != 0 && op != 1))
        return NC_EINVAL;
    return CHECK(MPI_Allreduce(MPI_IN_PLACE, inout, (int)n, type, op == 0 ? MPI_MAX : MPI_MIN,
                               ((struct nczrs_comm *)h)->comm));
}

int nczrs_mpi_allreduce_u64(void *h, uint64_t *inout, size_t n, int op) {
    return allreduce(h, inout, n, MPI_UINT64_T, op);
}

int nczrs_mpi_allreduce_i64(void *h, int64_t *inout, size_t n, int op) {
    return allreduce(h, inout, n, MPI_INT64_T, op);
}

/* Every rank's `len` bytes, in rank order, into `recv` (size * len). */
int nczrs_mpi_allgather(void *h, const void *send, size_t len, void *recv) {
    if (len > INT_MAX)
        return NC_EINVAL;
    return CHECK(MPI_Allgather(send, (int)len, MPI_BYTE, recv, (int)len, MPI_BYTE, ((struct nczrs_comm *)h)->comm));
}

/* Bytes to and from every rank: counts and displacements per rank (size
 * entries each). For exchanging the parts of chunks that several ranks
 * write (two-phase I/O). */
int nczrs_mpi_alltoallv(void *h, const void *send, const size_t *sendcounts, const size_t *sdispls, void *recv,
                        const size_t *recvcounts, const size_t *rdispls) {
    struct nczrs_comm *c = h;
    int size = nczrs_mpi_size(h);
    int *ints = malloc(4 * (size_t)size * sizeof(int));
    if (ints == NULL)
        return NC_ENOMEM;
    int *sc = ints, *sd = ints + size, *rc = ints + 2 * size, *rd = ints + 3 * size;
    for (int i = 0; i < size; i++) {
        if (sendcounts[i] > INT_MAX || sdispls[i] > INT_MAX || recvcounts[i] > INT_MAX || rdispls[i] > INT_MAX) {
            free(ints);
            return NC_EINVAL;
        }
        sc[i] = (int)sendcounts[i];
        sd[i] = (int)sdispls[i];
        rc[i] = (int)recvcounts[i];
        rd[i] = (int)rdispls[i];
    }
    int stat = CHECK(MPI_Alltoallv(send, sc, sd, MPI_BYTE, recv, rc, rd, MPI_BYTE, c->comm));
    free(ints);
    return stat;
}
