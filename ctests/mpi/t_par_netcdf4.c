/* One program, one library, two formats in parallel (ctests/mpi/run.sh
 * runs it on 4 ranks): argv[1] a plain path, a netCDF-4/HDF5 file the
 * parallel netcdf-c beside us (Debian's libnetcdf_mpi.so.19) writes
 * through MPI-IO; argv[2] an NCZarr URL, ours. The same field goes to
 * both, each rank its own rows, deflated (HDF5 needs collective access for
 * that), then both are reopened in parallel and every rank checks every
 * value of both, and the .nc again through a serial nc_open; then each
 * rank writes a file of its own over MPI_COMM_SELF. Afterwards
 * run.sh reads the .nc with the serial build's ncdump (Debian's serial
 * netcdf-c behind it). */
#include "partest.h"

#define ROWS_PER_RANK 4
#define NX 6

static float value(size_t y, size_t x) { return (float)(y * 1000 + x) + 0.25f; }

static void write_field(const char *name, int rank, int nranks) {
    int ncid, dims[2], var, format;
    OK(nc_create_par(name, NC_NETCDF4 | NC_CLOBBER | NC_MPIIO, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid));
    OK(nc_def_dim(ncid, "y", (size_t)nranks * ROWS_PER_RANK, &dims[0]));
    OK(nc_def_dim(ncid, "x", NX, &dims[1]));
    OK(nc_def_var(ncid, "field", NC_FLOAT, 2, dims, &var));
    size_t chunks[2] = {ROWS_PER_RANK, NX};
    OK(nc_def_var_chunking(ncid, var, NC_CHUNKED, chunks));
    OK(nc_def_var_deflate(ncid, var, 1, 1, 1));
    OK(nc_put_att_text(ncid, NC_GLOBAL, "written_by", 3, "mpi"));
    OK(nc_enddef(ncid));
    OK(nc_var_par_access(ncid, var, NC_COLLECTIVE));
    ERR(NC_EINVAL, nc_var_par_access(ncid, var, 7));
    OK(nc_inq_format_extended(ncid, &format, NULL));
    float rows[ROWS_PER_RANK * NX];
    size_t start[2] = {(size_t)rank * ROWS_PER_RANK, 0}, count[2] = {ROWS_PER_RANK, NX};
    for (size_t i = 0; i < ROWS_PER_RANK; i++)
        for (size_t x = 0; x < NX; x++)
            rows[i * NX + x] = value(start[0] + i, x);
    OK(nc_put_vara_float(ncid, var, start, count, rows));
    OK(nc_close(ncid));
}

/* Every value, on this rank, from a dataset opened in parallel or not;
 * the format the library reports must be `want_format`. */
static void check_field(int ncid, int nranks, int want_format) {
    int var, format;
    OK(nc_inq_format_extended(ncid, &format, NULL));
    EQ_INT(format, want_format);
    OK(nc_inq_varid(ncid, "field", &var));
    size_t ny = (size_t)nranks * ROWS_PER_RANK;
    float *all = malloc(ny * NX * sizeof *all);
    OK(nc_get_var_float(ncid, var, all));
    for (size_t y = 0; y < ny; y++)
        for (size_t x = 0; x < NX; x++)
            EQ_DBL(all[y * NX + x], value(y, x));
    free(all);
    int shuffle, deflate, level;
    OK(nc_inq_var_deflate(ncid, var, &shuffle, &deflate, &level));
    EQ_INT(deflate, 1);
    char by[4] = {0};
    OK(nc_get_att_text(ncid, NC_GLOBAL, "written_by", by));
    if (strcmp(by, "mpi") != 0)
        FAIL("written_by == \"%s\"", by);
}

int main(int argc, char **argv) {
    int rank, nranks, ncid;
    partest_init(&argc, &argv, &rank, &nranks);
    if (argc != 3)
        FAIL("usage: t_par_netcdf4 FILE.nc NCZARR_URL");
    const char *nc = argv[1], *zarr = argv[2];

    write_field(nc, rank, nranks);
    write_field(zarr, rank, nranks);

    OK(nc_open_par(nc, NC_NOWRITE, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid));
    check_field(ncid, nranks, NC_FORMATX_NC_HDF5);
    OK(nc_close(ncid));
    OK(nc_open_par(zarr, NC_NOWRITE, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid));
    check_field(ncid, nranks, NC_FORMATX_NCZARR);
    OK(nc_close(ncid));

    /* A program that names MPI's predefined objects itself (so it holds
     * copies of them: see csrc/parallel.c) and then has HDF5 use them:
     * MPI_BYTE, MPI_INT, MPI_SUM in its own calls, and MPI_COMM_SELF for
     * a file of each rank's own. */
    int sum = rank;
    unsigned char byte = (unsigned char)rank;
    MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Bcast(&byte, 1, MPI_BYTE, 0, MPI_COMM_WORLD);
    EQ_INT(sum, nranks * (nranks - 1) / 2);
    EQ_INT(byte, 0);
    char mine[4096];
    snprintf(mine, sizeof mine, "%s.rank%d.nc", nc, rank);
    int self_id, dim, var;
    OK(nc_create_par(mine, NC_NETCDF4 | NC_CLOBBER, MPI_COMM_SELF, MPI_INFO_NULL, &self_id));
    OK(nc_def_dim(self_id, "n", 3, &dim));
    OK(nc_def_var(self_id, "v", NC_INT, 1, &dim, &var));
    OK(nc_def_var_deflate(self_id, var, 1, 1, 1));
    OK(nc_enddef(self_id));
    OK(nc_var_par_access(self_id, var, NC_COLLECTIVE));
    int three[3] = {rank, rank + 1, rank + 2}, back[3] = {0};
    OK(nc_put_var_int(self_id, var, three));
    OK(nc_close(self_id));
    OK(nc_open_par(mine, NC_NOWRITE, MPI_COMM_SELF, MPI_INFO_NULL, &self_id));
    OK(nc_get_var_int(self_id, var, back));
    for (int i = 0; i < 3; i++)
        EQ_INT(back[i], three[i]);
    OK(nc_close(self_id));

    /* Serially, each rank on its own, as a serial program would. */
    OK(nc_open(nc, NC_NOWRITE, &ncid));
    check_field(ncid, nranks, NC_FORMATX_NC_HDF5);
    /* Not opened in parallel: netcdf-c's answer. */
    ERR(NC_ENOPAR, nc_var_par_access(ncid, 0, NC_COLLECTIVE));
    OK(nc_close(ncid));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("t_par_netcdf4: %d ranks wrote and read %s and %s\n", nranks, nc, zarr);
    MPI_Finalize();
    return 0;
}
