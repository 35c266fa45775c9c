/* Chunks shared by several ranks (two-phase I/O at chunk granularity,
 * src/io/shared.rs): no rank's part of a chunk is lost, whatever the
 * access mode, compressed or not.
 *
 *   t_par_shared URL
 *
 * On N ranks, an 8 x 8 int field in 4 x 4 chunks, written four ways, each
 * as a plain and as a shuffled, deflated variable:
 *   rows      rank r writes rows r, r+N, ... (every chunk: 4 ranks' rows)
 *   cols      rank r writes columns r, r+N, ... with strided writes
 *   cells     rank r writes the elements with (i*8+j) % N == r, one by one
 *   coll      as rows, in collective access, with an nc_sync between two
 *             halves of the rows
 *   slabs     in 2 x 4 chunks, rank r writing blocks of 2 whole rows
 *             (whole chunks, stored at once: nothing shared)
 * and a record variable along an unlimited dimension in chunks of 4
 * records, where rank r writes record r (every chunk shared by 4 ranks).
 * Every rank then reopens the store and checks every value; so does the
 * serial library's ncdump (ctests/mpi/run.sh).
 *
 * With "sharded" after the URL (a Zarr v3 store) every variable's chunks
 * are in shards (`_Shards`): the 8 x 8 arrays in one shard of 2 x 2
 * chunks, the slabs in shards of 1 x 2 chunks (so each block of rows is
 * a whole shard, rewritten at once by its rank), the records in shards of
 * 8: every shard but the slabs' written by several ranks. */
#include "partest.h"

#define NY 8
#define NX 8
#define NREC 8

/* What kind k (0 rows, 1 cols, 2 cells, 3 coll) stores at (i, j). */
static int value(int k, size_t i, size_t j) { return 1000 * (k + 1) + (int)(i * NX + j); }

static const char *KINDS[] = {"rows", "cols", "cells", "coll", "slabs"};
#define NKINDS 5

int main(int argc, char **argv) {
    int rank, nranks, ncid, dims[2], t, y, x, rec, varids[NKINDS][2];
    partest_init(&argc, &argv, &rank, &nranks);
    if (argc != 2 && !(argc == 3 && strcmp(argv[2], "sharded") == 0)) FAIL("usage: t_par_shared URL [sharded]");
    const char *url = argv[1];
    int sharded = argc == 3;

    OK(nc_create_par(url, NC_CLOBBER | NC_NETCDF4, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid));
    OK(nc_def_dim(ncid, "t", NC_UNLIMITED, &t));
    OK(nc_def_dim(ncid, "y", NY, &y));
    OK(nc_def_dim(ncid, "x", NX, &x));
    size_t chunks[2] = {4, 4}, slab_chunks[2] = {2, 4};
    int shards[2] = {2, 2}, slab_shards[2] = {1, 2}, rec_shards = 2;
    dims[0] = y, dims[1] = x;
    for (int k = 0; k < NKINDS; k++)
        for (int z = 0; z < 2; z++) {
            char name[32];
            snprintf(name, sizeof name, "%s%s", z ? "z" : "", KINDS[k]);
            OK(nc_def_var(ncid, name, NC_INT, 2, dims, &varids[k][z]));
            OK(nc_def_var_chunking(ncid, varids[k][z], NC_CHUNKED, k == 4 ? slab_chunks : chunks));
            if (z) OK(nc_def_var_deflate(ncid, varids[k][z], 1, 1, 1));
            if (sharded) OK(nc_put_att_int(ncid, varids[k][z], "_Shards", NC_INT, 2, k == 4 ? slab_shards : shards));
        }
    size_t rec_chunk = 4;
    OK(nc_def_var(ncid, "rec", NC_INT, 1, &t, &rec));
    OK(nc_def_var_chunking(ncid, rec, NC_CHUNKED, &rec_chunk));
    if (sharded) OK(nc_put_att_int(ncid, rec, "_Shards", NC_INT, 1, &rec_shards));
    OK(nc_enddef(ncid));
    for (int z = 0; z < 2; z++) OK(nc_var_par_access(ncid, varids[3][z], NC_COLLECTIVE));

    int row[NX];
    for (int z = 0; z < 2; z++) {
        /* rows */
        for (size_t i = (size_t)rank; i < NY; i += (size_t)nranks) {
            size_t start[2] = {i, 0}, count[2] = {1, NX};
            for (size_t j = 0; j < NX; j++) row[j] = value(0, i, j);
            OK(nc_put_vara_int(ncid, varids[0][z], start, count, row));
        }
        /* cols: one strided write of every column this rank has */
        if ((size_t)rank < NX) {
            size_t ncols = (NX - (size_t)rank + (size_t)nranks - 1) / (size_t)nranks;
            size_t start[2] = {0, (size_t)rank}, count[2] = {NY, ncols};
            ptrdiff_t stride[2] = {1, nranks};
            int *cols = malloc(NY * ncols * sizeof *cols);
            for (size_t i = 0; i < NY; i++)
                for (size_t c = 0; c < ncols; c++) cols[i * ncols + c] = value(1, i, (size_t)rank + c * (size_t)nranks);
            OK(nc_put_vars_int(ncid, varids[1][z], start, count, stride, cols));
            free(cols);
        }
        /* cells */
        for (size_t i = 0; i < NY; i++)
            for (size_t j = 0; j < NX; j++)
                if ((int)((i * NX + j) % (size_t)nranks) == rank) {
                    size_t at[2] = {i, j};
                    int v = value(2, i, j);
                    OK(nc_put_var1_int(ncid, varids[2][z], at, &v));
                }
        /* slabs: blocks of 2 rows, block b by rank b % N */
        for (size_t b = (size_t)rank; b < NY / 2; b += (size_t)nranks) {
            int block[2 * NX];
            size_t start[2] = {2 * b, 0}, count[2] = {2, NX};
            for (size_t i = 0; i < 2; i++)
                for (size_t j = 0; j < NX; j++) block[i * NX + j] = value(4, 2 * b + i, j);
            OK(nc_put_vara_int(ncid, varids[4][z], start, count, block));
        }
    }
    /* coll: collective writes, every rank making each call (an empty one
     * when it has no row), the first half, a sync, the second half. */
    for (int half = 0; half < 2; half++) {
        for (size_t round = 0; round < (NY / 2 + (size_t)nranks - 1) / (size_t)nranks; round++) {
            size_t i = (size_t)half * NY / 2 + round * (size_t)nranks + (size_t)rank;
            int mine = i < (size_t)(half + 1) * NY / 2;
            size_t start[2] = {mine ? i : 0, 0}, count[2] = {mine ? 1 : 0, NX};
            for (size_t j = 0; j < NX; j++) row[j] = value(3, mine ? i : 0, j);
            for (int z = 0; z < 2; z++) OK(nc_put_vara_int(ncid, varids[3][z], start, count, row));
        }
        if (half == 0) OK(nc_sync(ncid));
    }
    /* records: rank r writes record r (and r + N...) */
    for (size_t r = (size_t)rank; r < NREC; r += (size_t)nranks) {
        int v = 100 + (int)r;
        OK(nc_put_var1_int(ncid, rec, &r, &v));
    }
    OK(nc_close(ncid));

    /* Every rank reads everything back. */
    OK(nc_open_par(url, NC_NOWRITE, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid));
    size_t nrec;
    OK(nc_inq_dimid(ncid, "t", &t));
    OK(nc_inq_dimlen(ncid, t, &nrec));
    EQ_INT(nrec, NREC);
    /* By name: a store's variables need not come back in the order they
     * were defined (Zarr v3 lists them by name). */
    for (int k = 0; k < NKINDS; k++)
        for (int z = 0; z < 2; z++) {
            int all[NY * NX], varid;
            char name[32];
            snprintf(name, sizeof name, "%s%s", z ? "z" : "", KINDS[k]);
            OK(nc_inq_varid(ncid, name, &varid));
            OK(nc_get_var_int(ncid, varid, all));
            for (size_t i = 0; i < NY; i++)
                for (size_t j = 0; j < NX; j++)
                    if (all[i * NX + j] != value(k, i, j))
                        FAIL("%s%s[%zu][%zu] = %d, expected %d", z ? "z" : "", KINDS[k], i, j, all[i * NX + j],
                             value(k, i, j));
        }
    int recs[NREC];
    OK(nc_inq_varid(ncid, "rec", &rec));
    OK(nc_get_var_int(ncid, rec, recs));
    for (size_t r = 0; r < NREC; r++) EQ_INT(recs[r], 100 + (int)r);
    OK(nc_close(ncid));
    if (rank == 0) printf("t_par_shared %s%s: %d ranks: ok\n", url, sharded ? " (sharded)" : "", nranks);
    MPI_Finalize();
    return 0;
}
