/* dump_values.c -- print every group, dimension, attribute, fill value and
 * value of a dataset, recursively, in a fixed text form that
 * tests/v3/test_read_v3.py parses. Built against our library.
 *
 * Usage: dump_values URL
 *
 * One record per line, fields separated by tabs (netCDF names cannot hold
 * control characters; JSON escapes them):
 *   open	ok | open	error	<code>
 *   group	<group path>
 *   dim	<group path>	<name as JSON>	<length>
 *   gatt	<group path>	<name as JSON>	<type>	<value>
 *   var	<var path>	<type>
 *   dims	<var path>	[["name", length], ...]
 *   fill	<var path>	<nofill>	<value>[	<bits>]  | fill	<var path>	error	<code>
 *   vatt	<var path>	<name as JSON>	<type>	<value>
 *   data	<var path>	[values...]  | data	<var path>	error	<code>
 *   error	<what>	<code>   (an inquiry failed; the dump goes on)
 * Values are JSON: numbers (floats with %.17g, NaN, Infinity, -Infinity),
 * strings escaped (bytes from 0x80 passed as they are); char attributes
 * are one JSON string. <bits> is the IEEE bit pattern of a float or double
 * fill value (0x%08x / 0x%016llx). Exit status 0 unless the arguments
 * are wrong; a failed open is reported on stdout. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netcdf.h>

static const char *type_name(nc_type t)
{
    static const char *names[] = {"nat", "byte", "char", "short", "int", "float", "double",
                                  "ubyte", "ushort", "uint", "int64", "uint64", "string"};
    return (t >= 0 && t <= NC_STRING) ? names[t] : "user";
}

static int failed(const char *what, const char *path, int status)
{
    if (status != NC_NOERR) printf("error\t%s %s\t%d\n", what, path, status);
    return status != NC_NOERR;
}

static void print_json_text(const char *s, size_t len)
{
    putchar('"');
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') printf("\\%c", c);
        else if (c < 0x20) printf("\\u%04x", c);
        else putchar(c);
    }
    putchar('"');
}

static void print_double(double x)
{
    if (isnan(x)) { printf("NaN"); return; }
    if (isinf(x)) { printf(x > 0 ? "Infinity" : "-Infinity"); return; }
    char buf[64];
    snprintf(buf, sizeof buf, "%.17g", x);
    /* Keep it a float for the parser: "1" -> "1.0", "-0" -> "-0.0". */
    printf("%s%s", buf, strpbrk(buf, ".e") ? "" : ".0");
}

static void print_one(nc_type t, const void *buf, size_t i)
{
    switch (t) {
    case NC_BYTE: printf("%d", ((const signed char *)buf)[i]); break;
    case NC_UBYTE: printf("%u", ((const unsigned char *)buf)[i]); break;
    case NC_SHORT: printf("%d", ((const short *)buf)[i]); break;
    case NC_USHORT: printf("%u", ((const unsigned short *)buf)[i]); break;
    case NC_INT: printf("%d", ((const int *)buf)[i]); break;
    case NC_UINT: printf("%u", ((const unsigned int *)buf)[i]); break;
    case NC_INT64: printf("%lld", ((const long long *)buf)[i]); break;
    case NC_UINT64: printf("%llu", ((const unsigned long long *)buf)[i]); break;
    case NC_FLOAT: print_double(((const float *)buf)[i]); break;
    case NC_DOUBLE: print_double(((const double *)buf)[i]); break;
    case NC_CHAR: print_json_text((const char *)buf + i, 1); break;
    case NC_STRING: {
        const char *s = ((char *const *)buf)[i];
        if (s) print_json_text(s, strlen(s)); else printf("null");
        break;
    }
    default: printf("\"?\"");
    }
}

/* `n` values of type `t`: a JSON list, or one JSON string for NC_CHAR. */
static void print_values(nc_type t, size_t n, const void *buf)
{
    if (t == NC_CHAR) { print_json_text(buf, n); return; }
    putchar('[');
    for (size_t i = 0; i < n; i++) {
        if (i) printf(", ");
        print_one(t, buf, i);
    }
    putchar(']');
}

static void dump_atts(int ncid, int varid, int natts, const char *tag, const char *path)
{
    for (int a = 0; a < natts; a++) {
        char name[NC_MAX_NAME + 1];
        nc_type t;
        size_t len, size;
        if (failed("nc_inq_attname", path, nc_inq_attname(ncid, varid, a, name))) continue;
        if (failed("nc_inq_att", path, nc_inq_att(ncid, varid, name, &t, &len))) continue;
        if (failed("nc_inq_type", path, nc_inq_type(ncid, t, NULL, &size))) continue;
        void *buf = calloc(len + 1, size);
        if (!failed("nc_get_att", path, nc_get_att(ncid, varid, name, buf))) {
            printf("%s\t%s\t", tag, path);
            print_json_text(name, strlen(name));
            printf("\t%s\t", type_name(t));
            print_values(t, len, buf);
            putchar('\n');
            if (t == NC_STRING) nc_free_string(len, buf);
        }
        free(buf);
    }
}

static void dump_fill(int ncid, int varid, nc_type t, size_t tsize, const char *path)
{
    int nofill = 0;
    void *fill = calloc(1, tsize + 8);
    int status = nc_inq_var_fill(ncid, varid, &nofill, fill);
    if (status != NC_NOERR) {
        printf("fill\t%s\terror\t%d\n", path, status);
    } else {
        printf("fill\t%s\t%d\t", path, nofill);
        print_one(t, fill, 0);
        if (t == NC_FLOAT) {
            uint32_t bits;
            memcpy(&bits, fill, 4);
            printf("\t0x%08" PRIx32, bits);
        } else if (t == NC_DOUBLE) {
            uint64_t bits;
            memcpy(&bits, fill, 8);
            printf("\t0x%016" PRIx64, bits);
        }
        putchar('\n');
        if (t == NC_STRING) nc_free_string(1, fill);
    }
    free(fill);
}

static void dump_var(int ncid, int varid, const char *gpath)
{
    char name[NC_MAX_NAME + 1];
    nc_type t;
    int ndims, dimids[NC_MAX_VAR_DIMS], natts;
    size_t tsize, n = 1, lens[NC_MAX_VAR_DIMS];
    if (failed("nc_inq_var", gpath, nc_inq_var(ncid, varid, name, &t, &ndims, dimids, &natts))) return;
    size_t plen = strlen(gpath) + strlen(name) + 2;
    char *path = malloc(plen);
    snprintf(path, plen, "%s%s%s", gpath, strcmp(gpath, "/") ? "/" : "", name);
    printf("var\t%s\t%s\n", path, type_name(t));
    printf("dims\t%s\t[", path);
    for (int d = 0; d < ndims; d++) {
        char dname[NC_MAX_NAME + 1];
        lens[d] = 0;
        if (nc_inq_dim(ncid, dimids[d], dname, &lens[d]) != NC_NOERR) strcpy(dname, "?");
        printf("%s[", d ? ", " : "");
        print_json_text(dname, strlen(dname));
        printf(", %zu]", lens[d]);
        n *= lens[d];
    }
    printf("]\n");
    if (!failed("nc_inq_type", path, nc_inq_type(ncid, t, NULL, &tsize))) {
        dump_fill(ncid, varid, t, tsize, path);
        dump_atts(ncid, varid, natts, "vatt", path);
        void *buf = calloc(n + 1, tsize);
        int status = buf ? nc_get_var(ncid, varid, buf) : NC_ENOMEM;
        if (status != NC_NOERR) {
            printf("data\t%s\terror\t%d\n", path, status);
        } else {
            printf("data\t%s\t", path);
            print_values(t == NC_CHAR ? NC_UBYTE : t, n, buf);
            putchar('\n');
            if (t == NC_STRING) nc_free_string(n, buf);
        }
        free(buf);
    }
    free(path);
}

static void dump_group(int ncid)
{
    size_t len;
    int ndims, nvars, natts, unlim;
    if (failed("nc_inq_grpname_full", "?", nc_inq_grpname_full(ncid, &len, NULL))) return;
    char *gpath = malloc(len + 1);
    if (failed("nc_inq_grpname_full", "?", nc_inq_grpname_full(ncid, NULL, gpath))) { free(gpath); return; }
    printf("group\t%s\n", gpath);
    if (!failed("nc_inq", gpath, nc_inq(ncid, &ndims, &nvars, &natts, &unlim))) {
        int *dimids = malloc(sizeof(int) * (ndims + 1));
        if (!failed("nc_inq_dimids", gpath, nc_inq_dimids(ncid, &ndims, dimids, 0))) {
            for (int d = 0; d < ndims; d++) {
                char name[NC_MAX_NAME + 1];
                if (failed("nc_inq_dim", gpath, nc_inq_dim(ncid, dimids[d], name, &len))) continue;
                printf("dim\t%s\t", gpath);
                print_json_text(name, strlen(name));
                printf("\t%zu\n", len);
            }
        }
        free(dimids);
        dump_atts(ncid, NC_GLOBAL, natts, "gatt", gpath);
        int *varids = malloc(sizeof(int) * (nvars + 1));
        if (!failed("nc_inq_varids", gpath, nc_inq_varids(ncid, &nvars, varids)))
            for (int v = 0; v < nvars; v++) dump_var(ncid, varids[v], gpath);
        free(varids);
    }
    int ngrps;
    if (!failed("nc_inq_grps", gpath, nc_inq_grps(ncid, &ngrps, NULL))) {
        int *grps = malloc(sizeof(int) * (ngrps + 1));
        if (!failed("nc_inq_grps", gpath, nc_inq_grps(ncid, NULL, grps)))
            for (int g = 0; g < ngrps; g++) dump_group(grps[g]);
        free(grps);
    }
    free(gpath);
}

int main(int argc, char **argv)
{
    int ncid;
    if (argc != 2) { fprintf(stderr, "usage: dump_values URL\n"); return 2; }
    int status = nc_open(argv[1], NC_NOWRITE, &ncid);
    if (status != NC_NOERR) {
        printf("open\terror\t%d\n", status);
        return 0;
    }
    printf("open\tok\n");
    dump_group(ncid);
    status = nc_close(ncid);
    if (status != NC_NOERR) printf("error\tnc_close\t%d\n", status);
    return 0;
}
