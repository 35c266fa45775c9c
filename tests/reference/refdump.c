/* refdump.c -- what a dataset holds, value by value, for the reference
 * tests: built against our library (read through the reference) and
 * against netcdf-c 4.10.1 (read of the original .nc), so the two outputs
 * compare line by line.
 *
 * Usage:
 *   refdump read URL
 *        "open S"; then for every variable of every group (depth first,
 *        in the library's order):
 *          var <TAB> path <TAB> xtype <TAB> dim names (comma) <TAB> shape (comma)
 *          data <TAB> path <TAB> hex of nc_get_var's bytes (the variable's
 *                                own type, native byte order)
 *          data <TAB> path <TAB> error <TAB> S        on a netCDF error
 *          data <TAB> path <TAB> strings <TAB> hex,hex,...  for NC_STRING
 *   refdump slab URL VAR START COUNT [START COUNT ...]
 *        "open S", then one nc_get_vara of VAR (a path such as obs/value)
 *        with START and COUNT like 0x0x0 and 2x5x8: "data ..." as above;
 *        with more START COUNT pairs, one nc_get_vara each in turn, on
 *        the same open dataset (a "data" line each).
 *   refdump open URL
 *        "open S" and "close S": nc_open and nc_close alone.
 *   refdump write URL
 *        "open S" of nc_open(URL, NC_WRITE).
 * The exit status is 0 whatever the statuses printed; 2 on a usage error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netcdf.h>

#define MAXD NC_MAX_VAR_DIMS

static void hex(const unsigned char *p, size_t n)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        putchar(digits[p[i] >> 4]);
        putchar(digits[p[i] & 15]);
    }
}

static int var_size(int ncid, int varid, nc_type *xtype, size_t *elem, int *ndims, int *dimids)
{
    int s = nc_inq_var(ncid, varid, NULL, xtype, ndims, dimids, NULL);
    if (s == NC_NOERR)
        s = nc_inq_type(ncid, *xtype, NULL, elem);
    return s;
}

static void dump_data(const char *path, int ncid, int varid, size_t elem, int ndims, const size_t *start,
                      const size_t *count)
{
    size_t n = 1;
    for (int d = 0; d < ndims; d++)
        n *= count[d];
    /* Poisoned, so bytes the library did not write show. */
    unsigned char *buf = malloc(n * elem + 1);
    memset(buf, 0xA5, n * elem + 1);
    int s = nc_get_vara(ncid, varid, start, count, buf);
    if (s != NC_NOERR) {
        printf("data\t%s\terror\t%d\n", path, s);
    } else {
        printf("data\t%s\t", path);
        hex(buf, n * elem);
        putchar('\n');
    }
    free(buf);
}

/* An NC_STRING variable: "data <TAB> path <TAB> strings <TAB>" and the hex
 * of each string's bytes, comma separated ("-" for a NULL pointer). */
static void dump_strings(const char *path, int ncid, int varid, int ndims, const size_t *count)
{
    size_t n = 1, start[MAXD] = {0};
    for (int d = 0; d < ndims; d++)
        n *= count[d];
    char **buf = calloc(n ? n : 1, sizeof(char *));
    int s = nc_get_vara_string(ncid, varid, start, count, buf);
    if (s != NC_NOERR) {
        printf("data\t%s\terror\t%d\n", path, s);
    } else {
        printf("data\t%s\tstrings\t", path);
        for (size_t i = 0; i < n; i++) {
            if (i)
                putchar(',');
            if (buf[i])
                hex((const unsigned char *)buf[i], strlen(buf[i]));
            else
                putchar('-');
        }
        putchar('\n');
        nc_free_string(n, buf);
    }
    free(buf);
}

static void dump_group(int ncid, const char *prefix)
{
    int nvars = 0;
    nc_inq_nvars(ncid, &nvars);
    for (int v = 0; v < nvars; v++) {
        char name[NC_MAX_NAME + 1], path[4096];
        nc_type xtype;
        size_t elem, start[MAXD] = {0}, count[MAXD];
        int ndims, dimids[MAXD];
        nc_inq_varname(ncid, v, name);
        snprintf(path, sizeof path, "%s%s", prefix, name);
        int s = var_size(ncid, v, &xtype, &elem, &ndims, dimids);
        if (s != NC_NOERR) {
            printf("var\t%s\terror\t%d\n", path, s);
            continue;
        }
        printf("var\t%s\t%d\t", path, xtype);
        for (int d = 0; d < ndims; d++) {
            char dname[NC_MAX_NAME + 1];
            nc_inq_dim(ncid, dimids[d], dname, &count[d]);
            printf("%s%s", d ? "," : "", dname);
        }
        putchar('\t');
        for (int d = 0; d < ndims; d++)
            printf("%s%zu", d ? "," : "", count[d]);
        putchar('\n');
        if (xtype == NC_STRING) {
            dump_strings(path, ncid, v, ndims, count);
            continue;
        }
        if (xtype > NC_MAX_ATOMIC_TYPE) {
            printf("data\t%s\tskipped\n", path);
            continue;
        }
        dump_data(path, ncid, v, elem, ndims, start, count);
    }
    int ngroups = 0;
    nc_inq_grps(ncid, &ngroups, NULL);
    if (ngroups > 0) {
        int *ids = malloc(sizeof(int) * (size_t)ngroups);
        nc_inq_grps(ncid, NULL, ids);
        for (int g = 0; g < ngroups; g++) {
            char name[NC_MAX_NAME + 1], sub[4096];
            nc_inq_grpname(ids[g], name);
            snprintf(sub, sizeof sub, "%s%s/", prefix, name);
            dump_group(ids[g], sub);
        }
        free(ids);
    }
}

static int parse_dims(const char *text, size_t *out)
{
    int n = 0;
    char *copy = strdup(text), *save = NULL;
    for (char *tok = strtok_r(copy, "x", &save); tok && n < MAXD; tok = strtok_r(NULL, "x", &save))
        out[n++] = (size_t)strtoull(tok, NULL, 10);
    free(copy);
    return n;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: refdump open|read|slab|write URL ...\n");
        return 2;
    }
    int ncid, s;
    if (strcmp(argv[1], "write") == 0) {
        s = nc_open(argv[2], NC_WRITE, &ncid);
        printf("open %d\n", s);
        if (s == NC_NOERR)
            nc_close(ncid);
        return 0;
    }
    s = nc_open(argv[2], NC_NOWRITE, &ncid);
    printf("open %d\n", s);
    if (s != NC_NOERR)
        return 0;
    if (strcmp(argv[1], "open") == 0) {
        /* nothing more */
    } else if (strcmp(argv[1], "read") == 0) {
        dump_group(ncid, "");
    } else if (strcmp(argv[1], "slab") == 0 && argc >= 6 && argc % 2 == 0) {
        int grp, varid, ndims, dimids[MAXD];
        nc_type xtype;
        size_t elem, start[MAXD], count[MAXD];
        char *path = strdup(argv[3]), *slash = strrchr(path, '/');
        grp = ncid;
        if (slash) {
            *slash = '\0';
            s = nc_inq_grp_full_ncid(ncid, path, &grp);
        }
        if (s == NC_NOERR)
            s = nc_inq_varid(grp, slash ? slash + 1 : path, &varid);
        if (s == NC_NOERR)
            s = var_size(grp, varid, &xtype, &elem, &ndims, dimids);
        if (s != NC_NOERR) {
            printf("data\t%s\terror\t%d\n", argv[3], s);
        } else {
            for (int a = 4; a + 1 < argc; a += 2) {
                if (parse_dims(argv[a], start) != ndims || parse_dims(argv[a + 1], count) != ndims) {
                    fprintf(stderr, "START and COUNT need %d numbers\n", ndims);
                    return 2;
                }
                dump_data(argv[3], grp, varid, elem, ndims, start, count);
            }
        }
        free(path);
    } else {
        fprintf(stderr, "usage: refdump open|read|slab|write URL ...\n");
        return 2;
    }
    s = nc_close(ncid);
    printf("close %d\n", s);
    return 0;
}
