/* read_parts URL VAR OUT: read parts of the 3-D float variable VAR as a
 * model's reader does, each in its own call, and write the values read,
 * float32 in native order, one part after another, to OUT:
 *   - the time series at each of 6 points (count T, 1, 1);
 *   - each time step whole (count 1, Y, X), in the order 0, 5, 10, ...
 *     modulo T, then the rest;
 *   - a block inside one time step (1, Y/3 .. 2Y/3, X/5 .. X - 3).
 * Each read opens the dataset afresh, so no read finds another's chunks
 * in the cache. */
#include <netcdf.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(e) do { int _s = (e); if (_s) { fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, nc_strerror(_s)); exit(1); } } while (0)

static void get(const char *url, const char *var, const size_t *start, const size_t *count, FILE *out) {
    int ncid, varid;
    size_t n = count[0] * count[1] * count[2];
    float *buf = malloc(n * sizeof(float));
    CHECK(nc_open(url, NC_NOWRITE, &ncid));
    CHECK(nc_inq_varid(ncid, var, &varid));
    CHECK(nc_get_vara_float(ncid, varid, start, count, buf));
    CHECK(nc_close(ncid));
    fwrite(buf, sizeof(float), n, out);
    free(buf);
}

int main(int argc, char **argv) {
    if (argc != 4) { fprintf(stderr, "usage: read_parts URL VAR OUT\n"); return 2; }
    int ncid, varid, dimids[3];
    size_t T, Y, X;
    CHECK(nc_open(argv[1], NC_NOWRITE, &ncid));
    CHECK(nc_inq_varid(ncid, argv[2], &varid));
    CHECK(nc_inq_vardimid(ncid, varid, dimids));
    CHECK(nc_inq_dimlen(ncid, dimids[0], &T));
    CHECK(nc_inq_dimlen(ncid, dimids[1], &Y));
    CHECK(nc_inq_dimlen(ncid, dimids[2], &X));
    CHECK(nc_close(ncid));
    FILE *out = fopen(argv[3], "wb");
    if (!out) { perror(argv[3]); return 1; }
    for (size_t p = 0; p < 6; p++) {
        size_t start[3] = {0, (p * 37) % Y, (p * 53 + p) % X}, count[3] = {T, 1, 1};
        get(argv[1], argv[2], start, count, out);
    }
    for (size_t k = 0; k < T; k++) {
        size_t start[3] = {(k * 5) % T, 0, 0}, count[3] = {1, Y, X};
        get(argv[1], argv[2], start, count, out);
    }
    size_t start[3] = {T / 2, Y / 3, X / 5}, count[3] = {1, Y / 3, X - 3 - X / 5};
    get(argv[1], argv[2], start, count, out);
    fclose(out);
    printf("T %zu Y %zu X %zu\n", T, Y, X);
    return 0;
}
