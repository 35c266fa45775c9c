/* t_write_reads.c -- what a partial write reads first (src/io/write.rs):
 * of a variable this handle defined, a chunk it never wrote is not read
 * (it cannot be stored: the variable's key prefix was emptied at its
 * first commit); of a variable read from storage, it is.
 *
 * Storage requests are counted from the library's own trace
 * (NCTRACING=5: one "file get KEY" line per read), with stderr sent to a
 * file. Every value is checked after each session.
 */
#include "testutil.h"

#define NX 64
#define CHUNK_T 4

/* Trace lines that read one of v's chunks ("get v/<t>.0"). */
static int chunk_gets(const char *log) {
    FILE *f = fopen(log, "r");
    if (!f) FAIL("no trace %s", log);
    char line[1024];
    int n = 0;
    while (fgets(line, sizeof line, f))
        if (strstr(line, " get v/") && !strstr(line, " get v/.z")) n++;
    fclose(f);
    return n;
}

/* Records from..to-1, columns x0..x0+nx-1 only (a part of each chunk). */
static void write_records(int ncid, int v, size_t from, size_t to, size_t x0, size_t nx) {
    int row[NX];
    for (size_t t = from; t < to; t++) {
        for (size_t x = 0; x < nx; x++) row[x] = (int)(t * 1000 + x0 + x);
        size_t start[2] = {t, x0}, count[2] = {1, nx};
        OK(nc_put_vara_int(ncid, v, start, count, row));
    }
}

/* Every record below n holds its values; records from n on, written
 * only in columns below half, hold fill in the others. */
static void check_records(const char *url, size_t n, size_t nrec) {
    int ncid, v;
    static int back[64][NX];
    size_t len;
    OK(nc_open(url, NC_NOWRITE, &ncid));
    OK(nc_inq_varid(ncid, "v", &v));
    OK(nc_inq_dimlen(ncid, 0, &len));
    EQ_INT(len, nrec);
    OK(nc_get_var_int(ncid, v, &back[0][0]));
    for (size_t t = 0; t < nrec; t++)
        for (int x = 0; x < NX; x++) {
            int want = t < n || x < NX / 2 ? (int)(t * 1000 + x) : NC_FILL_INT;
            if (t >= n && t < nrec - 1) want = NC_FILL_INT;
            if (back[t][x] != want) FAIL("v[%zu][%d] = %d, expected %d", t, x, back[t][x], want);
        }
    OK(nc_close(ncid));
}

int main(void) {
    setenv("NCTRACING", "5", 1);
    if (!freopen("trace1.log", "w", stderr)) FAIL("cannot redirect stderr");
    const char *url = "file://reads.zarr#mode=nczarr,file";
    int ncid, dims[2], v;
    size_t chunks[2] = {CHUNK_T, NX};
    OK(nc_create(url, NC_CLOBBER, &ncid));
    OK(nc_def_dim(ncid, "t", NC_UNLIMITED, &dims[0]));
    OK(nc_def_dim(ncid, "x", NX, &dims[1]));
    OK(nc_def_var(ncid, "v", NC_INT, 2, dims, &v));
    OK(nc_def_var_chunking(ncid, v, NC_CHUNKED, chunks));
    /* A cache of one chunk: each chunk is stored before the next begins. */
    OK(nc_set_var_chunk_cache(ncid, v, CHUNK_T * NX * sizeof(int), 1, 0.75f));
    OK(nc_enddef(ncid));
    /* 16 records, the left half of each, one at a time: 4 chunks, each
     * first written in parts and never read (none was stored), each
     * stored when the next begins. Then the right halves: each chunk,
     * stored by now, is read once (4 reads, not 8). */
    write_records(ncid, v, 0, 16, 0, NX / 2);
    write_records(ncid, v, 0, 16, NX / 2, NX / 2);
    OK(nc_close(ncid));
    fflush(stderr);
    int gets = chunk_gets("trace1.log");
    check_records(url, 16, 16);
    EQ_INT(gets, 4);

    /* A variable read from storage: a new chunk's first part is read
     * first (here nothing is stored there: a miss). */
    if (!freopen("trace2.log", "w", stderr)) FAIL("cannot redirect stderr");
    OK(nc_open(url, NC_WRITE, &ncid));
    OK(nc_inq_varid(ncid, "v", &v));
    write_records(ncid, v, 20, 21, 0, NX / 2);
    OK(nc_close(ncid));
    fflush(stderr);
    gets = chunk_gets("trace2.log");
    check_records(url, 16, 21);
    EQ_INT(gets, 1);
    PASS();
}
