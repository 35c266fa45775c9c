/* zip_edit.c -- the zip tests' helper: open, edit, abort and probe datasets
 * through the netCDF API, printing every status it gets.
 *
 * Usage:
 *   zip_edit probe URL          open read-only; print "open S", then for each
 *                               variable (every group) "var PATH S [values]"
 *                               read whole as long long or double (char as
 *                               text); "close S". Exits 0 whatever the
 *                               statuses: only a crash is a failure.
 *   zip_edit make URL           create (NC_CLOBBER) a dataset of compressible
 *                               data: ramp int(x=4000) in chunks of 1000,
 *                               w double(n=10), g/gi short(n)
 *   zip_edit put URL VAR V...   open NC_WRITE, write V... (as doubles) to the
 *                               whole of VAR ("grp/var" for a subgroup), close
 *   zip_edit abort URL VAR V... the same, but nc_abort instead of nc_close
 *   zip_edit touch URL          open NC_WRITE and close, changing nothing
 *   zip_edit att URL NAME TEXT  open NC_WRITE, nc_redef, put a global text
 *                               attribute, close
 *   zip_edit sync URL VAR A B   open NC_WRITE, fill VAR with A, nc_sync, print
 *                               "synced", wait for a line on stdin, fill VAR
 *                               with B, close, print "closed"
 *   zip_edit create_pause URL   nc_create, define x=4 and v int(x), nc_enddef,
 *                               print "enddef", wait for a line on stdin, write
 *                               v = 1 2 3 4, close, print "closed"
 *   zip_edit create_abort URL [enddef]
 *                               nc_create, define v, (nc_enddef and write v,)
 *                               nc_abort; print "abort S"
 *   zip_edit noclobber URL      nc_create with NC_NOCLOBBER; print "create S"
 *
 * Every command but probe, create_abort and noclobber exits 2 on the first
 * failing call, naming it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netcdf.h>

#define CHECK(call) do { int _s = (call); if (_s != NC_NOERR) { \
    fprintf(stderr, "%s:%d: %s: %s (%d)\n", __FILE__, __LINE__, #call, nc_strerror(_s), _s); exit(2); } } while (0)

static void wait_line(void)
{
    char line[64];
    fflush(stdout);
    if (!fgets(line, sizeof line, stdin)) exit(3);
}

/* The number of values in a variable. */
static size_t var_len(int ncid, int varid)
{
    int ndims, dimids[NC_MAX_VAR_DIMS];
    size_t n = 1, len;
    CHECK(nc_inq_varndims(ncid, varid, &ndims));
    CHECK(nc_inq_vardimid(ncid, varid, dimids));
    for (int d = 0; d < ndims; d++) {
        CHECK(nc_inq_dimlen(ncid, dimids[d], &len));
        n *= len;
    }
    return n;
}

/* "grp/var" or "var" -> group and variable ids. */
static void find_var(int ncid, const char *path, int *grp, int *varid)
{
    const char *slash = strrchr(path, '/');
    *grp = ncid;
    if (slash) {
        char group[NC_MAX_NAME * 4 + 2] = "/";
        strncat(group, path, (size_t)(slash - path));
        CHECK(nc_inq_grp_full_ncid(ncid, group, grp));
        path = slash + 1;
    }
    CHECK(nc_inq_varid(*grp, path, varid));
}

static void fill_var(int ncid, const char *name, int nvals, char **vals, double constant)
{
    int grp, varid;
    find_var(ncid, name, &grp, &varid);
    size_t n = var_len(grp, varid);
    if (nvals >= 0 && (size_t)nvals != n) {
        fprintf(stderr, "%s has %zu values, %d given\n", name, n, nvals);
        exit(2);
    }
    double *buf = malloc(sizeof(double) * (n + 1));
    for (size_t i = 0; i < n; i++) buf[i] = nvals >= 0 ? strtod(vals[i], NULL) : constant;
    CHECK(nc_put_var_double(grp, varid, buf));
    free(buf);
}

static void probe_group(int ncid, const char *prefix)
{
    int nvars, ngrps;
    if (nc_inq_nvars(ncid, &nvars) != NC_NOERR) return;
    for (int v = 0; v < nvars; v++) {
        char name[NC_MAX_NAME + 1];
        nc_type t;
        if (nc_inq_varname(ncid, v, name) || nc_inq_vartype(ncid, v, &t)) continue;
        size_t n = 1, len;
        int ndims, dimids[NC_MAX_VAR_DIMS], status = NC_NOERR;
        if ((status = nc_inq_varndims(ncid, v, &ndims)) == NC_NOERR
            && (status = nc_inq_vardimid(ncid, v, dimids)) == NC_NOERR)
            for (int d = 0; d < ndims && status == NC_NOERR; d++) {
                status = nc_inq_dimlen(ncid, dimids[d], &len);
                n *= len;
            }
        printf("var %s%s", prefix, name);
        if (status != NC_NOERR || n > 100000) {
            printf(" %d\n", status != NC_NOERR ? status : -1000);
            continue;
        }
        if (t == NC_CHAR) {
            char *buf = calloc(n + 1, 1);
            status = nc_get_var_text(ncid, v, buf);
            printf(" %d", status);
            if (status == NC_NOERR) printf(" \"%s\"", buf);
            free(buf);
        } else if (t == NC_FLOAT || t == NC_DOUBLE) {
            double *buf = calloc(n + 1, sizeof(double));
            status = nc_get_var_double(ncid, v, buf);
            printf(" %d", status);
            if (status == NC_NOERR) for (size_t i = 0; i < n; i++) printf(" %.17g", buf[i]);
            free(buf);
        } else if (t == NC_UINT64) {
            unsigned long long *buf = calloc(n + 1, sizeof(unsigned long long));
            status = nc_get_var_ulonglong(ncid, v, buf);
            printf(" %d", status);
            if (status == NC_NOERR) for (size_t i = 0; i < n; i++) printf(" %llu", buf[i]);
            free(buf);
        } else if (t != NC_STRING && t <= NC_MAX_ATOMIC_TYPE) {
            long long *buf = calloc(n + 1, sizeof(long long));
            status = nc_get_var_longlong(ncid, v, buf);
            printf(" %d", status);
            if (status == NC_NOERR) for (size_t i = 0; i < n; i++) printf(" %lld", buf[i]);
            free(buf);
        } else {
            printf(" skipped");
        }
        printf("\n");
    }
    if (nc_inq_grps(ncid, &ngrps, NULL) != NC_NOERR || ngrps == 0) return;
    int *grps = malloc(sizeof(int) * (size_t)ngrps);
    if (nc_inq_grps(ncid, NULL, grps) == NC_NOERR)
        for (int g = 0; g < ngrps; g++) {
            char name[NC_MAX_NAME + 1], sub[NC_MAX_NAME * 8];
            if (nc_inq_grpname(grps[g], name)) continue;
            snprintf(sub, sizeof sub, "%s%s/", prefix, name);
            probe_group(grps[g], sub);
        }
    free(grps);
}

static void make(const char *url)
{
    int ncid, x, n, g, ramp, w, gi;
    CHECK(nc_create(url, NC_CLOBBER | NC_NETCDF4, &ncid));
    CHECK(nc_put_att_text(ncid, NC_GLOBAL, "title", 12, "compressible"));
    CHECK(nc_def_dim(ncid, "x", 4000, &x));
    CHECK(nc_def_dim(ncid, "n", 10, &n));
    CHECK(nc_def_var(ncid, "ramp", NC_INT, 1, &x, &ramp));
    size_t chunk = 1000;
    CHECK(nc_def_var_chunking(ncid, ramp, NC_CHUNKED, &chunk));
    CHECK(nc_def_var(ncid, "w", NC_DOUBLE, 1, &n, &w));
    CHECK(nc_put_att_text(ncid, w, "units", 1, "m"));
    CHECK(nc_def_grp(ncid, "g", &g));
    CHECK(nc_def_var(g, "gi", NC_SHORT, 1, &n, &gi));
    int *r = malloc(sizeof(int) * 4000);
    for (int i = 0; i < 4000; i++) r[i] = i % 7;
    CHECK(nc_put_var_int(ncid, ramp, r));
    free(r);
    double wv[10];
    short sv[10];
    for (int i = 0; i < 10; i++) { wv[i] = 0.5 * i; sv[i] = (short)(100 - i); }
    CHECK(nc_put_var_double(ncid, w, wv));
    CHECK(nc_put_var_short(g, gi, sv));
    CHECK(nc_close(ncid));
}

int main(int argc, char **argv)
{
    int ncid, s;
    if (argc < 3) { fprintf(stderr, "usage: zip_edit COMMAND URL ...\n"); return 2; }
    const char *cmd = argv[1], *url = argv[2];
    if (!strcmp(cmd, "probe")) {
        s = nc_open(url, NC_NOWRITE, &ncid);
        printf("open %d\n", s);
        if (s == NC_NOERR) {
            probe_group(ncid, "");
            printf("close %d\n", nc_close(ncid));
        }
    } else if (!strcmp(cmd, "make")) {
        make(url);
    } else if (!strcmp(cmd, "put") && argc >= 5) {
        CHECK(nc_open(url, NC_WRITE, &ncid));
        fill_var(ncid, argv[3], argc - 4, argv + 4, 0);
        CHECK(nc_close(ncid));
    } else if (!strcmp(cmd, "abort") && argc >= 5) {
        CHECK(nc_open(url, NC_WRITE, &ncid));
        fill_var(ncid, argv[3], argc - 4, argv + 4, 0);
        printf("abort %d\n", nc_abort(ncid));
    } else if (!strcmp(cmd, "touch")) {
        CHECK(nc_open(url, NC_WRITE, &ncid));
        CHECK(nc_close(ncid));
    } else if (!strcmp(cmd, "att") && argc == 5) {
        CHECK(nc_open(url, NC_WRITE, &ncid));
        CHECK(nc_redef(ncid));
        CHECK(nc_put_att_text(ncid, NC_GLOBAL, argv[3], strlen(argv[4]), argv[4]));
        CHECK(nc_close(ncid));
    } else if (!strcmp(cmd, "sync") && argc == 6) {
        CHECK(nc_open(url, NC_WRITE, &ncid));
        fill_var(ncid, argv[3], -1, NULL, strtod(argv[4], NULL));
        CHECK(nc_sync(ncid));
        printf("synced\n");
        wait_line();
        fill_var(ncid, argv[3], -1, NULL, strtod(argv[5], NULL));
        CHECK(nc_close(ncid));
        printf("closed\n");
    } else if (!strcmp(cmd, "create_pause")) {
        int x, v, vals[4] = {1, 2, 3, 4};
        CHECK(nc_create(url, NC_CLOBBER | NC_NETCDF4, &ncid));
        CHECK(nc_def_dim(ncid, "x", 4, &x));
        CHECK(nc_def_var(ncid, "v", NC_INT, 1, &x, &v));
        CHECK(nc_put_att_text(ncid, v, "units", 1, "K"));
        CHECK(nc_enddef(ncid));
        printf("enddef\n");
        wait_line();
        CHECK(nc_put_var_int(ncid, v, vals));
        CHECK(nc_close(ncid));
        printf("closed\n");
    } else if (!strcmp(cmd, "create_abort")) {
        int x, v, vals[4] = {1, 2, 3, 4};
        CHECK(nc_create(url, NC_CLOBBER | NC_NETCDF4, &ncid));
        CHECK(nc_def_dim(ncid, "x", 4, &x));
        CHECK(nc_def_var(ncid, "v", NC_INT, 1, &x, &v));
        if (argc == 4 && !strcmp(argv[3], "enddef")) {
            CHECK(nc_enddef(ncid));
            CHECK(nc_put_var_int(ncid, v, vals));
        }
        printf("abort %d\n", nc_abort(ncid));
    } else if (!strcmp(cmd, "noclobber")) {
        s = nc_create(url, NC_NOCLOBBER | NC_NETCDF4, &ncid);
        printf("create %d\n", s);
        if (s == NC_NOERR) nc_close(ncid);
    } else {
        fprintf(stderr, "zip_edit: bad command %s\n", cmd);
        return 2;
    }
    return 0;
}
