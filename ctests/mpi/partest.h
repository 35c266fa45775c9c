/* Helpers for the MPI tests (ctests/mpi/run.sh runs them under mpirun).
 * A failing check prints the rank, the expression and where, then aborts
 * the whole job, so one rank's failure can never leave the others waiting
 * in a collective call. */
#ifndef NCZARR_RS_PARTEST_H
#define NCZARR_RS_PARTEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>
#include <netcdf.h>
#include <netcdf_par.h>

static int partest_rank = -1;

#define FAIL(...) do { fprintf(stderr, "rank %d: %s:%d: ", partest_rank, __FILE__, __LINE__); \
    fprintf(stderr, __VA_ARGS__); fprintf(stderr, "\n"); fflush(stderr); \
    MPI_Abort(MPI_COMM_WORLD, 1); } while (0)

/* A call that must succeed. */
#define OK(call) do { int _s = (call); if (_s != NC_NOERR) \
    FAIL("%s returned %d (%s)", #call, _s, nc_strerror(_s)); } while (0)

/* A call that must fail with exactly `code`. */
#define ERR(code, call) do { int _s = (call); if (_s != (code)) \
    FAIL("%s returned %d (%s), expected %d (%s)", #call, _s, nc_strerror(_s), \
         (int)(code), nc_strerror(code)); } while (0)

#define EQ_INT(a, b) do { long long _a = (long long)(a), _b = (long long)(b); \
    if (_a != _b) FAIL("%s == %lld, expected %s == %lld", #a, _a, #b, _b); } while (0)

#define EQ_DBL(a, b) do { double _a = (a), _b = (b); \
    if (!(_a == _b)) FAIL("%s == %.17g, expected %.17g", #a, _a, _b); } while (0)

/* MPI started, this process's rank and the number of ranks known (and
 * the rank given to FAIL). */
static void partest_init(int *argc, char ***argv, int *rank, int *nranks) {
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, nranks);
    partest_rank = *rank;
}

#endif
