/* s3probe.c -- small operations on one dataset for the S3 tests; every
 * netCDF status is printed (never exits non-zero on a netCDF error, so the
 * test can check the code).
 *
 * Usage:
 *   s3probe open URL                  nc_open + nc_close: "open S" "close S"
 *   s3probe meta URL                  open and inquire everything but data
 *   s3probe noclobber URL             nc_create(NC_NOCLOBBER): "create S"
 *   s3probe writebig URL NCHUNKS CHUNK OFFSET
 *                                     int v(x = NCHUNKS*CHUNK) chunked CHUNK,
 *                                     v[i] = i + OFFSET: "close S"
 *   s3probe rewrite URL OFFSET        open for writing, v[i] = i + OFFSET,
 *                                     close: "put S" "close S"
 *   s3probe readbig URL [OFFSET...]   read v: "values offset K" when v[i] ==
 *                                     i + K for every i, "WRONG ..." when not,
 *                                     "error S" on a netCDF error; with
 *                                     OFFSETs, also how many values are
 *                                     neither i + one of them nor the fill
 *                                     value: "fill F other O"
 *   s3probe rereads URL N             readbig N times in this process, each
 *                                     an nc_open to nc_close, reading a
 *                                     line of stdin between them (so a test
 *                                     can look at the server in between)
 *   s3probe growrec URL START N       r(t unlimited, x 256), rows START..
 *                                     START+N-1 written: "close S"
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netcdf.h>
#include <netcdf_filter.h>

static void meta_atts(int ncid, int varid, int natts, const char *indent)
{
    for (int a = 0; a < natts; a++) {
        char name[NC_MAX_NAME + 1];
        nc_type t;
        size_t len, size;
        if (nc_inq_attname(ncid, varid, a, name) || nc_inq_att(ncid, varid, name, &t, &len) ||
            nc_inq_type(ncid, t, NULL, &size)) {
            printf("att error\n");
            continue;
        }
        void *buf = calloc(len + 1, size);
        int s = nc_get_att(ncid, varid, name, buf);
        printf("%satt %s type=%d len=%zu status=%d\n", indent, name, t, len, s);
        if (s == NC_NOERR && t == NC_STRING) nc_free_string(len, buf);
        free(buf);
    }
}

static void meta_group(int ncid)
{
    char name[NC_MAX_NAME + 1];
    size_t len;
    int ndims, nvars, natts, unlim, dimids[NC_MAX_DIMS];
    nc_inq_grpname_full(ncid, &len, NULL);
    char *full = malloc(len + 1);
    nc_inq_grpname_full(ncid, NULL, full);
    printf("group %s\n", full);
    free(full);
    nc_inq(ncid, &ndims, &nvars, &natts, &unlim);
    nc_inq_dimids(ncid, &ndims, dimids, 0);
    for (int d = 0; d < ndims; d++) {
        nc_inq_dim(ncid, dimids[d], name, &len);
        printf("  dim %s %zu\n", name, len);
    }
    meta_atts(ncid, NC_GLOBAL, natts, "  ");
    for (int v = 0; v < nvars; v++) {
        nc_type t;
        int vndims, vdims[NC_MAX_VAR_DIMS], vnatts, storage, nofill;
        size_t chunks[NC_MAX_VAR_DIMS], nfilters = 0, tsize;
        unsigned ids[16];
        nc_inq_var(ncid, v, name, &t, &vndims, vdims, &vnatts);
        nc_inq_var_chunking(ncid, v, &storage, chunks);
        nc_inq_type(ncid, t, NULL, &tsize);
        void *fill = calloc(1, tsize + 8);
        nc_inq_var_fill(ncid, v, &nofill, fill);
        if (t == NC_STRING) nc_free_string(1, fill);
        free(fill);
        nc_inq_var_filter_ids(ncid, v, &nfilters, NULL);
        if (nfilters <= 16) nc_inq_var_filter_ids(ncid, v, &nfilters, ids);
        printf("  var %s type=%d ndims=%d storage=%d nofill=%d nfilters=%zu\n", name, t, vndims, storage, nofill,
               nfilters);
        meta_atts(ncid, v, vnatts, "    ");
    }
    int ngrps;
    nc_inq_grps(ncid, &ngrps, NULL);
    int *grps = malloc(sizeof(int) * (ngrps + 1));
    nc_inq_grps(ncid, NULL, grps);
    for (int g = 0; g < ngrps; g++) meta_group(grps[g]);
    free(grps);
}

static int readbig(const char *url, int nallowed, char **allowed)
{
    int ncid, v, x, s;
    size_t n;
    if ((s = nc_open(url, NC_NOWRITE, &ncid))) { printf("error %d\n", s); return 0; }
    if ((s = nc_inq_varid(ncid, "v", &v)) || (s = nc_inq_dimid(ncid, "x", &x)) || (s = nc_inq_dimlen(ncid, x, &n))) {
        printf("error %d\n", s);
        nc_close(ncid);
        return 0;
    }
    int *data = malloc(sizeof(int) * (n + 1));
    /* Poisoned, so a short read that reports success shows as wrong values. */
    for (size_t i = 0; i < n; i++) data[i] = 0x5a5a5a5a;
    s = nc_get_var_int(ncid, v, data);
    if (s) {
        printf("error %d\n", s);
    } else {
        long long k = (long long)data[0];
        size_t bad = n;
        for (size_t i = 0; i < n; i++)
            if ((long long)data[i] != (long long)i + k) { bad = i; break; }
        if (bad == n) {
            printf("values offset %lld\n", k);
        } else {
            /* The distinct offsets v[i] - i (up to 8), so a test can tell old and
             * new chunks mixed from fill values or garbage. */
            long long offs[8];
            int noffs = 0, more = 0;
            for (size_t i = 0; i < n; i++) {
                long long o = (long long)data[i] - (long long)i;
                int known = 0;
                for (int j = 0; j < noffs; j++) known |= offs[j] == o;
                if (!known) { if (noffs < 8) offs[noffs++] = o; else more = 1; }
            }
            printf("WRONG at %zu: got %d, offset %lld; offsets", bad, data[bad], k);
            for (int j = 0; j < noffs; j++) printf(" %lld", offs[j]);
            printf("%s\n", more ? " more" : "");
            /* With allowed offsets: is every value i + one of them, or the
             * fill value (a chunk never written)? */
            if (nallowed > 0) {
                size_t nfill = 0, nother = 0;
                for (size_t i = 0; i < n; i++) {
                    int ok = data[i] == NC_FILL_INT;
                    nfill += ok;
                    for (int j = 0; j < nallowed && !ok; j++) ok = (long long)data[i] == (long long)i + atoll(allowed[j]);
                    nother += !ok;
                }
                printf("fill %zu other %zu\n", nfill, nother);
            }
        }
    }
    free(data);
    s = nc_close(ncid);
    if (s) printf("close %d\n", s);
    return 0;
}

static int writebig(const char *url, size_t nchunks, size_t chunk, int offset, int rewrite)
{
    int ncid, x, v, s;
    size_t n = nchunks * chunk;
    int *data = malloc(sizeof(int) * (n + 1));
    if (rewrite) {
        if ((s = nc_open(url, NC_WRITE, &ncid))) { printf("open %d\n", s); return 0; }
        size_t len;
        if (nc_inq_varid(ncid, "v", &v) || nc_inq_dimid(ncid, "x", &x) || nc_inq_dimlen(ncid, x, &len)) {
            printf("inq error\n");
            return 0;
        }
        n = len;
        data = realloc(data, sizeof(int) * (n + 1));
    } else {
        if ((s = nc_create(url, NC_CLOBBER, &ncid))) { printf("create %d\n", s); return 0; }
        nc_def_dim(ncid, "x", n, &x);
        nc_def_var(ncid, "v", NC_INT, 1, &x, &v);
        nc_def_var_chunking(ncid, v, NC_CHUNKED, &chunk);
        nc_put_att_int(ncid, v, "offset", NC_INT, 1, &offset);
    }
    for (size_t i = 0; i < n; i++) data[i] = (int)i + offset;
    s = nc_put_var_int(ncid, v, data);
    printf("put %d\n", s);
    fflush(stdout);
    s = nc_close(ncid);
    printf("close %d\n", s);
    free(data);
    return 0;
}

/* r(t = unlimited, x = 256) int, chunks (1, 256), r[t][i] = t * 256 + i:
 * rows START .. START+N-1 written (the dataset created when START is 0). */
static int growrec(const char *url, size_t start, size_t nrows)
{
    int ncid, t, x, v, s, dims[2];
    size_t chunks[2] = {1, 256};
    if (start == 0) {
        if ((s = nc_create(url, NC_CLOBBER, &ncid))) { printf("create %d\n", s); return 0; }
        nc_def_dim(ncid, "t", NC_UNLIMITED, &t);
        nc_def_dim(ncid, "x", 256, &x);
        dims[0] = t; dims[1] = x;
        nc_def_var(ncid, "r", NC_INT, 2, dims, &v);
        nc_def_var_chunking(ncid, v, NC_CHUNKED, chunks);
    } else {
        if ((s = nc_open(url, NC_WRITE, &ncid))) { printf("open %d\n", s); return 0; }
        nc_inq_varid(ncid, "r", &v);
    }
    int *data = malloc(sizeof(int) * 256 * nrows);
    for (size_t k = 0; k < 256 * nrows; k++) data[k] = (int)(start * 256 + k);
    size_t st[2] = {start, 0}, count[2] = {nrows, 256};
    printf("put %d\n", nc_put_vara_int(ncid, v, st, count, data));
    printf("close %d\n", nc_close(ncid));
    free(data);
    return 0;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc < 3) { fprintf(stderr, "usage: s3probe CMD URL ...\n"); return 2; }
    const char *cmd = argv[1], *url = argv[2];
    int ncid, s;
    if (!strcmp(cmd, "open")) {
        s = nc_open(url, NC_NOWRITE, &ncid);
        printf("open %d\n", s);
        if (!s) printf("close %d\n", nc_close(ncid));
        return 0;
    }
    if (!strcmp(cmd, "openw")) {
        s = nc_open(url, NC_WRITE, &ncid);
        printf("open %d\n", s);
        if (!s) printf("close %d\n", nc_close(ncid));
        return 0;
    }
    if (!strcmp(cmd, "meta")) {
        s = nc_open(url, NC_NOWRITE, &ncid);
        printf("open %d\n", s);
        if (s) return 0;
        meta_group(ncid);
        printf("close %d\n", nc_close(ncid));
        return 0;
    }
    if (!strcmp(cmd, "noclobber")) {
        s = nc_create(url, NC_NOCLOBBER, &ncid);
        printf("create %d\n", s);
        if (!s) printf("close %d\n", nc_close(ncid));
        return 0;
    }
    if (!strcmp(cmd, "writebig") && argc == 6)
        return writebig(url, strtoul(argv[3], NULL, 10), strtoul(argv[4], NULL, 10), atoi(argv[5]), 0);
    if (!strcmp(cmd, "rewrite") && argc == 4) return writebig(url, 0, 0, atoi(argv[3]), 1);
    if (!strcmp(cmd, "readbig")) return readbig(url, argc - 3, argv + 3);
    if (!strcmp(cmd, "rereads") && argc == 4) {
        char line[64];
        for (int i = atoi(argv[3]); i > 0; i--) {
            readbig(url, 0, NULL);
            if (i > 1 && !fgets(line, sizeof line, stdin)) return 1;
        }
        return 0;
    }
    if (!strcmp(cmd, "growrec") && argc == 5) return growrec(url, strtoul(argv[3], NULL, 10), strtoul(argv[4], NULL, 10));
    fprintf(stderr, "bad command\n");
    return 2;
}
