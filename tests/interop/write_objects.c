/* write_objects.c write URL -- reopen, for writing, a Zarr v2 store that
 * zarr-python wrote with numpy object arrays of strings (test_objects.py
 * makes it: "s" (7) vlen-utf8, "grid" (3x4, order F) vlen-utf8, "raw" (5)
 * vlen-bytes, "g/t" (2) vlen-utf8, all on dimensions named by
 * _ARRAY_DIMENSIONS) and write strings into them: whole and partial
 * chunks, chunks never stored, an empty string, non-ASCII text, one string
 * longer than 64 KiB, bytes that are not UTF-8 into vlen-bytes (and into
 * vlen-utf8, which must be refused). Also adds attributes and a variable.
 *
 * write_objects dump URL VAR -- print every value of a string variable,
 * one per line, as hex ("-" for an empty string), or "error N" when the
 * read fails.
 *
 * write_objects put URL VAR INDEX TEXT -- write one element of a
 * one-dimensional string variable of the root group; the exit status is
 * 3 if the write or the close fails. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netcdf.h>

#define CHECK(call) do { int _s = (call); if (_s) { \
    fprintf(stderr, "%s: %s\n", #call, nc_strerror(_s)); exit(2); } } while (0)

static int write_all(const char *url)
{
    int ncid, s, grid, raw, g, t, added, n, type, one = 1;
    CHECK(nc_open(url, NC_WRITE, &ncid));
    CHECK(nc_inq_varid(ncid, "s", &s));
    CHECK(nc_inq_vartype(ncid, s, &type));
    if (type != NC_STRING) {
        fprintf(stderr, "s is type %d, not NC_STRING\n", type);
        return 2;
    }
    CHECK(nc_inq_varid(ncid, "grid", &grid));
    CHECK(nc_inq_varid(ncid, "raw", &raw));
    CHECK(nc_inq_grp_ncid(ncid, "g", &g));
    CHECK(nc_inq_varid(g, "t", &t));

    /* s has chunks of 3; zarr-python stored elements 0-3. Elements 4-5
     * finish chunk 1 (element 3 is zarr-python's), element 6 starts chunk
     * 2, never stored (7 and 8 lie past the shape). */
    char *longest = malloc(70001);
    memset(longest, 'L', 70000);
    longest[70000] = '\0';
    const char *tail[3] = {"\xc3\xb1" "and\xc3\xba \xe2\x82\xac", "\xf0\x9f\x98\x80", longest};
    size_t start = 4, count = 3;
    CHECK(nc_put_vara_string(ncid, s, &start, &count, tail));
    free(longest);
    /* Element by element, into a stored chunk: an empty string over
     * text, text over an empty string. */
    const char *empty = "", *set = "now set";
    size_t at = 0;
    CHECK(nc_put_var1_string(ncid, s, &at, &empty));
    at = 1;
    CHECK(nc_put_var1_string(ncid, s, &at, &set));
    /* vlen-utf8 readers decode every element: not UTF-8 is refused, and
     * nothing of the call is written. */
    const char *bad[2] = {"fine", "\xff\xfe"};
    start = 2;
    count = 2;
    int status = nc_put_vara_string(ncid, s, &start, &count, bad);
    if (status != NC_EINVAL) {
        fprintf(stderr, "non-UTF-8 into vlen-utf8: %d, not NC_EINVAL\n", status);
        return 2;
    }

    /* vlen-bytes takes any bytes. raw has chunks of 2; elements 0-2 are
     * zarr-python's. */
    const char *bytes[3] = {"\xff\xfe", "", "tail"};
    start = 2;
    count = 3;
    CHECK(nc_put_vara_string(ncid, raw, &start, &count, bytes));

    /* grid (3x4, chunks 2x3): a 2x2 slab across all four chunks, two of
     * them never stored. */
    const char *slab[4] = {"p", "q", "r", "s"};
    size_t gstart[2] = {1, 2}, gcount[2] = {2, 2};
    CHECK(nc_put_vara_string(ncid, grid, gstart, gcount, slab));

    /* A whole chunk in a subgroup. */
    const char *whole[2] = {"", "\xc3\xa9"};
    CHECK(nc_put_var_string(g, t, whole));

    /* Other changes in the same session. */
    CHECK(nc_put_att_text(ncid, s, "units", 4, "text"));
    CHECK(nc_put_att_text(ncid, NC_GLOBAL, "edited", 3, "yes"));
    CHECK(nc_inq_dimid(ncid, "n", &n));
    CHECK(nc_def_var(ncid, "added", NC_INT, 1, &n, &added));
    int values[7] = {1, 2, 3, 4, 5, 6, 7};
    CHECK(nc_put_var_int(ncid, added, values));
    CHECK(nc_put_att_int(ncid, added, "one", NC_INT, 1, &one));
    CHECK(nc_close(ncid));
    return 0;
}

static int dump(const char *url, const char *path)
{
    int ncid, grp, varid, ndims, dimids[NC_MAX_VAR_DIMS];
    CHECK(nc_open(url, NC_NOWRITE, &ncid));
    /* "g/t": the variable t of group g. */
    const char *slash = strchr(path, '/');
    grp = ncid;
    if (slash) {
        char name[NC_MAX_NAME + 1];
        snprintf(name, sizeof name, "%.*s", (int)(slash - path), path);
        CHECK(nc_inq_grp_ncid(ncid, name, &grp));
        path = slash + 1;
    }
    CHECK(nc_inq_varid(grp, path, &varid));
    CHECK(nc_inq_varndims(grp, varid, &ndims));
    CHECK(nc_inq_vardimid(grp, varid, dimids));
    size_t n = 1;
    for (int d = 0; d < ndims; d++) {
        size_t len;
        CHECK(nc_inq_dimlen(grp, dimids[d], &len));
        n *= len;
    }
    char **values = calloc(n ? n : 1, sizeof *values);
    int status = nc_get_var_string(grp, varid, values);
    if (status) {
        printf("error %d\n", status);
    } else {
        for (size_t k = 0; k < n; k++) {
            const unsigned char *v = (const unsigned char *)values[k];
            if (!v || !*v) {
                printf("-\n");
                continue;
            }
            for (; *v; v++) printf("%02x", *v);
            printf("\n");
        }
        CHECK(nc_free_string(n, values));
    }
    free(values);
    CHECK(nc_close(ncid));
    return 0;
}

static int put(const char *url, const char *name, const char *index, const char *text)
{
    int ncid, varid;
    size_t at = strtoul(index, NULL, 10);
    CHECK(nc_open(url, NC_WRITE, &ncid));
    CHECK(nc_inq_varid(ncid, name, &varid));
    int status = nc_put_var1_string(ncid, varid, &at, &text);
    int closed = nc_close(ncid);
    if (status || closed) {
        printf("error %d %d\n", status, closed);
        return 3;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "write")) return write_all(argv[2]);
    if (argc == 4 && !strcmp(argv[1], "dump")) return dump(argv[2], argv[3]);
    if (argc == 6 && !strcmp(argv[1], "put")) return put(argv[2], argv[3], argv[4], argv[5]);
    fprintf(stderr, "usage: write_objects write URL | dump URL VAR | put URL VAR INDEX TEXT\n");
    return 2;
}
