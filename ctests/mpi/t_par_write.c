/* Parallel writing of one store (ctests/mpi/run.sh runs it on 4 ranks,
 * on an NCZarr, a pure Zarr and a Zarr v3 URL given as argv[1]).
 *
 * Every rank writes its own rows of a 2-D float variable "field" and of
 * its shuffled and deflated copy "zfield" (whole chunks: rank r's rows
 * are chunk r) and its own records of "rec" along
 * the unlimited dimension "time", rank r writing r+1 records (so the
 * ranks' views of time's length differ until they commit). Then every
 * rank reopens the store and checks every value; then all reopen it for
 * writing and each appends one more record. ctests/mpi/check_dump.py
 * checks the same values through ncdump afterwards. */
#include "partest.h"

#define ROWS_PER_RANK 3
#define NX 8

/* The values every check expects. */
static float field_value(size_t y, size_t x) { return (float)(y * 100 + x) + 0.5f; }
static int rec_value(size_t t) { return (int)(t * 10 + 7); }

/* Does rank owner write record t in the first pass? Rank r owns the
 * records t with t % nprocs == r and writes the first r+1 of them. */
static int rec_written(size_t t, int nprocs) { return (int)(t / (size_t)nprocs) <= (int)(t % (size_t)nprocs); }

static void check_all(int ncid, int nprocs, size_t ntime)
{
    int field, rec, time_dim;
    size_t len;
    OK(nc_inq_varid(ncid, "field", &field));
    OK(nc_inq_varid(ncid, "rec", &rec));
    OK(nc_inq_dimid(ncid, "time", &time_dim));
    OK(nc_inq_dimlen(ncid, time_dim, &len));
    EQ_INT(len, ntime);
    size_t ny = (size_t)nprocs * ROWS_PER_RANK;
    float *f = malloc(ny * NX * sizeof *f);
    OK(nc_get_var_float(ncid, field, f));
    for (size_t y = 0; y < ny; y++)
        for (size_t x = 0; x < NX; x++)
            EQ_DBL(f[y * NX + x], field_value(y, x));
    int zfield, shuffle, deflate, level;
    OK(nc_inq_varid(ncid, "zfield", &zfield));
    OK(nc_inq_var_deflate(ncid, zfield, &shuffle, &deflate, &level));
    EQ_INT(deflate, 1);
    memset(f, 0, ny * NX * sizeof *f);
    OK(nc_get_var_float(ncid, zfield, f));
    for (size_t y = 0; y < ny; y++)
        for (size_t x = 0; x < NX; x++)
            EQ_DBL(f[y * NX + x], field_value(y, x));
    free(f);
    int *r = malloc(ntime * sizeof *r);
    OK(nc_get_var_int(ncid, rec, r));
    size_t first_pass = (size_t)nprocs * (size_t)nprocs;
    for (size_t t = 0; t < ntime; t++) {
        int want = t >= first_pass || rec_written(t, nprocs) ? rec_value(t) : NC_FILL_INT;
        if (r[t] != want)
            FAIL("rec[%zu] == %d, expected %d", t, r[t], want);
    }
    free(r);
    char title[32] = {0};
    OK(nc_get_att_text(ncid, NC_GLOBAL, "title", title));
    if (strcmp(title, "parallel") != 0)
        FAIL("title is \"%s\"", title);
}

int main(int argc, char **argv)
{
    int rank, nprocs;
    partest_init(&argc, &argv, &rank, &nprocs);
    if (argc != 2)
        FAIL("usage: t_par_write URL");
    const char *url = argv[1];
    size_t ny = (size_t)nprocs * ROWS_PER_RANK;
    size_t first_pass = (size_t)nprocs * (size_t)nprocs;

    /* Create; define (every rank alike). */
    int ncid, ydim, xdim, tdim, field, zfield, rec, format, mode;
    OK(nc_create_par(url, NC_CLOBBER | NC_NETCDF4, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid));
    OK(nc_inq_format_extended(ncid, &format, &mode));
    EQ_INT(format, NC_FORMATX_NCZARR);
    EQ_INT(mode, NC_NETCDF4);
    OK(nc_def_dim(ncid, "y", ny, &ydim));
    OK(nc_def_dim(ncid, "x", NX, &xdim));
    OK(nc_def_dim(ncid, "time", NC_UNLIMITED, &tdim));
    int dims[2] = {ydim, xdim};
    size_t chunks[2] = {ROWS_PER_RANK, NX};
    OK(nc_def_var(ncid, "field", NC_FLOAT, 2, dims, &field));
    OK(nc_def_var_chunking(ncid, field, NC_CHUNKED, chunks));
    OK(nc_def_var(ncid, "zfield", NC_FLOAT, 2, dims, &zfield));
    OK(nc_def_var_chunking(ncid, zfield, NC_CHUNKED, chunks));
    OK(nc_def_var_deflate(ncid, zfield, 1, 1, 4));
    /* Independent access to a compressed variable: allowed here (HDF5
     * needs collective access for filters; each chunk here is one rank's). */
    OK(nc_var_par_access(ncid, zfield, NC_INDEPENDENT));
    OK(nc_def_var(ncid, "rec", NC_INT, 1, &tdim, &rec));
    size_t one = 1;
    OK(nc_def_var_chunking(ncid, rec, NC_CHUNKED, &one));
    OK(nc_put_att_text(ncid, NC_GLOBAL, "title", 8, "parallel"));
    /* Access modes: recorded; bad ones refused as netcdf-c refuses them. */
    OK(nc_var_par_access(ncid, field, NC_COLLECTIVE));
    OK(nc_var_par_access(ncid, field, NC_INDEPENDENT));
    ERR(NC_EINVAL, nc_var_par_access(ncid, field, 2));
    ERR(NC_ENOTVAR, nc_var_par_access(ncid, 99, NC_COLLECTIVE));
    ERR(NC_ENOTVAR, nc_var_par_access(ncid, NC_GLOBAL, NC_COLLECTIVE));
    ERR(NC_EBADID, nc_var_par_access(ncid + 0x7000000, field, NC_COLLECTIVE));
    OK(nc_enddef(ncid));

    /* Each rank its own rows (whole chunks) and its own records. */
    float rows[ROWS_PER_RANK * NX];
    for (size_t i = 0; i < ROWS_PER_RANK; i++)
        for (size_t x = 0; x < NX; x++)
            rows[i * NX + x] = field_value((size_t)rank * ROWS_PER_RANK + i, x);
    size_t start[2] = {(size_t)rank * ROWS_PER_RANK, 0}, count[2] = {ROWS_PER_RANK, NX};
    OK(nc_put_vara_float(ncid, field, start, count, rows));
    OK(nc_put_vara_float(ncid, zfield, start, count, rows));
    size_t my_len = 0;
    for (size_t t = (size_t)rank; t < first_pass; t += (size_t)nprocs) {
        if (!rec_written(t, nprocs))
            continue;
        int v = rec_value(t);
        OK(nc_put_var1_int(ncid, rec, &t, &v));
        my_len = t + 1;
    }
    /* The next rank's rows, read before the commit, are fill or its
     * values (it may have stored them already)... */
    int next = (rank + 1) % nprocs;
    float theirs[ROWS_PER_RANK * NX];
    size_t their_start[2] = {(size_t)next * ROWS_PER_RANK, 0};
    OK(nc_get_vara_float(ncid, field, their_start, count, theirs));
    for (size_t i = 0; i < ROWS_PER_RANK * NX; i++)
        if (theirs[i] != NC_FILL_FLOAT && theirs[i] != field_value((size_t)next * ROWS_PER_RANK + i / NX, i % NX))
            FAIL("field[%zu] of rank %d reads %g before the commit", i, next, theirs[i]);
    /* Before the commit each rank sees only its own records... */
    size_t len;
    OK(nc_inq_dimlen(ncid, tdim, &len));
    EQ_INT(len, my_len);
    /* ...after it, the longest. */
    OK(nc_sync(ncid));
    OK(nc_inq_dimlen(ncid, tdim, &len));
    EQ_INT(len, first_pass);
    /* ...and every rank's values, whatever this rank read before. */
    check_all(ncid, nprocs, first_pass);
    OK(nc_close(ncid));

    /* Every rank reads everything back. */
    OK(nc_open_par(url, NC_NOWRITE, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid));
    check_all(ncid, nprocs, first_pass);
    OK(nc_close(ncid));

    /* Reopened for writing (NC_MPIIO reported back as given): each rank
     * appends one record past the end. */
    OK(nc_open_par(url, NC_WRITE | NC_MPIIO, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid));
    OK(nc_inq_format_extended(ncid, &format, &mode));
    EQ_INT(mode, NC_WRITE | NC_MPIIO | NC_NETCDF4);
    OK(nc_inq_varid(ncid, "rec", &rec));
    /* Every rank reads the first row of every rank's chunk of zfield (a
     * part of a compressed chunk: the whole chunk is fetched, and the
     * chunk cache keeps it), then changes its own rows: after the commit
     * every rank sees every rank's new rows, not what it cached before.
     * Then the rows are put back. */
    OK(nc_inq_varid(ncid, "zfield", &zfield));
    float row[NX];
    size_t row_count[2] = {1, NX};
    for (int pass = 0; pass < 3; pass++) {
        float shift = pass == 1 ? 1000.0f : 0.0f;
        if (pass > 0) {
            for (size_t i = 0; i < ROWS_PER_RANK; i++)
                for (size_t x = 0; x < NX; x++)
                    rows[i * NX + x] = field_value((size_t)rank * ROWS_PER_RANK + i, x) + shift;
            OK(nc_put_vara_float(ncid, zfield, start, count, rows));
            OK(nc_sync(ncid));
        }
        for (int r = 0; r < nprocs; r++) {
            size_t row_start[2] = {(size_t)r * ROWS_PER_RANK, 0};
            OK(nc_get_vara_float(ncid, zfield, row_start, row_count, row));
            for (size_t x = 0; x < NX; x++)
                EQ_DBL(row[x], field_value(row_start[0], x) + shift);
        }
        /* No rank writes the next pass's rows while another still reads. */
        MPI_Barrier(MPI_COMM_WORLD);
    }
    size_t t = first_pass + (size_t)rank;
    int v = rec_value(t);
    OK(nc_put_var1_int(ncid, rec, &t, &v));
    OK(nc_close(ncid));

    /* A serial open by each rank in turn sees the agreed length. */
    size_t total = first_pass + (size_t)nprocs;
    OK(nc_open(url, NC_NOWRITE, &ncid));
    check_all(ncid, nprocs, total);
    OK(nc_close(ncid));

    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("t_par_write %s: %d ranks, %zu rows, %zu records: ok\n", url, nprocs, ny, total);
    MPI_Finalize();
    return 0;
}
