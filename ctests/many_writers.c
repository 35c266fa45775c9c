/* Several processes writing one store at the same time, without MPI
 * (xarray's region= pattern, job arrays): each opens the existing store
 * with NC_WRITE, adds a global attribute of its own, appends its own
 * records along the unlimited dimension and writes its own rows of a
 * fixed-size variable. Every value and attribute must be there at the
 * end, and the record count must be the largest any writer reached.
 *
 *   many_writers create URL            the empty store
 *   many_writers write URL K DELAY_MS  writer K: records 3K..3K+2, rows
 *                                      2K..2K+1, attribute writer_K; waits
 *                                      DELAY_MS before its close
 *   many_writers check URL N           N writers' work all there
 *
 * Writer K closes DELAY_MS after its writes: with delays falling as K
 * grows, the writer that saw the fewest records commits last (the lost
 * update the merge at commit exists for).
 */
#include <netcdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NX 4
#define NY 16
#define RECS_PER_WRITER 3
#define ROWS_PER_WRITER 2

#define CHECK(call)                                                                  \
    do {                                                                             \
        int rc_ = (call);                                                            \
        if (rc_ != NC_NOERR) {                                                       \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, nc_strerror(rc_)); \
            exit(1);                                                                 \
        }                                                                            \
    } while (0)

static int rec_value(size_t r, size_t x) { return (int)(r * 10 + x); }
static int row_value(size_t y, size_t x) { return (int)(1000 + y * 10 + x); }

static void create(const char *url) {
    int ncid, t, x, y, v, dims[2];
    size_t rec_chunks[2] = {1, NX}, row_chunks[2] = {ROWS_PER_WRITER, NX};
    CHECK(nc_create(url, NC_CLOBBER | NC_NETCDF4, &ncid));
    CHECK(nc_def_dim(ncid, "t", NC_UNLIMITED, &t));
    CHECK(nc_def_dim(ncid, "y", NY, &y));
    CHECK(nc_def_dim(ncid, "x", NX, &x));
    dims[0] = t, dims[1] = x;
    CHECK(nc_def_var(ncid, "rec", NC_INT, 2, dims, &v));
    CHECK(nc_def_var_chunking(ncid, v, NC_CHUNKED, rec_chunks));
    dims[0] = y;
    CHECK(nc_def_var(ncid, "grid", NC_INT, 2, dims, &v));
    CHECK(nc_def_var_chunking(ncid, v, NC_CHUNKED, row_chunks));
    CHECK(nc_close(ncid));
}

static void write_part(const char *url, int k, int delay_ms) {
    int ncid, rec, grid, values[RECS_PER_WRITER * NX];
    char name[32];
    size_t start[2] = {(size_t)k * RECS_PER_WRITER, 0}, count[2] = {RECS_PER_WRITER, NX};
    CHECK(nc_open(url, NC_WRITE, &ncid));
    CHECK(nc_redef(ncid));
    snprintf(name, sizeof name, "writer_%d", k);
    CHECK(nc_put_att_int(ncid, NC_GLOBAL, name, NC_INT, 1, &k));
    CHECK(nc_enddef(ncid));
    CHECK(nc_inq_varid(ncid, "rec", &rec));
    CHECK(nc_inq_varid(ncid, "grid", &grid));
    for (size_t r = 0; r < RECS_PER_WRITER; r++)
        for (size_t x = 0; x < NX; x++) values[r * NX + x] = rec_value(start[0] + r, x);
    CHECK(nc_put_vara_int(ncid, rec, start, count, values));
    start[0] = (size_t)k * ROWS_PER_WRITER, count[0] = ROWS_PER_WRITER;
    for (size_t r = 0; r < ROWS_PER_WRITER; r++)
        for (size_t x = 0; x < NX; x++) values[r * NX + x] = row_value(start[0] + r, x);
    CHECK(nc_put_vara_int(ncid, grid, start, count, values));
    struct timespec pause = {delay_ms / 1000, (long)(delay_ms % 1000) * 1000000L};
    nanosleep(&pause, NULL);
    CHECK(nc_close(ncid));
}

static int check(const char *url, int writers) {
    int ncid, rec, grid, t, bad = 0, value;
    size_t len;
    char name[32];
    CHECK(nc_open(url, NC_NOWRITE, &ncid));
    CHECK(nc_inq_dimid(ncid, "t", &t));
    CHECK(nc_inq_dimlen(ncid, t, &len));
    if (len != (size_t)writers * RECS_PER_WRITER) {
        fprintf(stderr, "t has %zu records, not %d\n", len, writers * RECS_PER_WRITER);
        bad++;
    }
    CHECK(nc_inq_varid(ncid, "rec", &rec));
    CHECK(nc_inq_varid(ncid, "grid", &grid));
    for (size_t r = 0; r < len; r++)
        for (size_t x = 0; x < NX; x++) {
            size_t at[2] = {r, x};
            CHECK(nc_get_var1_int(ncid, rec, at, &value));
            if (value != rec_value(r, x) && bad++ < 10) fprintf(stderr, "rec[%zu][%zu] = %d\n", r, x, value);
        }
    for (size_t y = 0; y < (size_t)writers * ROWS_PER_WRITER; y++)
        for (size_t x = 0; x < NX; x++) {
            size_t at[2] = {y, x};
            CHECK(nc_get_var1_int(ncid, grid, at, &value));
            if (value != row_value(y, x) && bad++ < 10) fprintf(stderr, "grid[%zu][%zu] = %d\n", y, x, value);
        }
    for (int k = 0; k < writers; k++) {
        snprintf(name, sizeof name, "writer_%d", k);
        if (nc_get_att_int(ncid, NC_GLOBAL, name, &value) != NC_NOERR || value != k) {
            fprintf(stderr, "attribute %s missing or wrong\n", name);
            bad++;
        }
    }
    CHECK(nc_close(ncid));
    if (bad) return 1;
    printf("ok: %zu records, %d writers\n", len, writers);
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "create") == 0) {
        create(argv[2]);
        return 0;
    }
    if (argc == 5 && strcmp(argv[1], "write") == 0) {
        int k = atoi(argv[3]);
        if (k < 0 || (k + 1) * ROWS_PER_WRITER > NY) return 2;
        write_part(argv[2], k, atoi(argv[4]));
        return 0;
    }
    if (argc == 4 && strcmp(argv[1], "check") == 0) return check(argv[2], atoi(argv[3]));
    fprintf(stderr, "usage: many_writers create URL | write URL K DELAY_MS | check URL N\n");
    return 2;
}
