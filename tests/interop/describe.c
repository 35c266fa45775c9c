/* describe.c -- print everything the netCDF API reports about a dataset's
 * structure, in a fixed text form.
 *
 * The interop tests build this program twice, once against our library and
 * once against netcdf-c (the netCDF4 wheel's libnetcdf), and compare the
 * two descriptions of the same dataset.
 *
 * Usage: describe [-w] URL
 *   -w  open for writing and first print what nc_redef answers
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netcdf.h>

#define CHECK(call) do { int _s = (call); if (_s != NC_NOERR) { \
    fprintf(stderr, "%s: %s\n", #call, nc_strerror(_s)); exit(2); } } while (0)

static const char *type_name(nc_type t)
{
    static const char *names[] = {"nat", "byte", "char", "short", "int", "float", "double",
                                  "ubyte", "ushort", "uint", "int64", "uint64", "string"};
    return (t >= 0 && t <= NC_STRING) ? names[t] : "user";
}

static void print_text(const char *s, size_t len)
{
    putchar('"');
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') printf("\\%c", c);
        else if (c < 0x20 || c >= 0x7f) printf("\\x%02x", c);
        else putchar(c);
    }
    putchar('"');
}

/* Print `n` values of type `t` from `buf`. */
static void print_values(nc_type t, size_t n, const void *buf)
{
    if (t == NC_CHAR) { print_text(buf, n); return; }
    printf("[");
    for (size_t i = 0; i < n; i++) {
        if (i) printf(", ");
        switch (t) {
        case NC_BYTE: printf("%d", ((const signed char *)buf)[i]); break;
        case NC_UBYTE: printf("%u", ((const unsigned char *)buf)[i]); break;
        case NC_SHORT: printf("%d", ((const short *)buf)[i]); break;
        case NC_USHORT: printf("%u", ((const unsigned short *)buf)[i]); break;
        case NC_INT: printf("%d", ((const int *)buf)[i]); break;
        case NC_UINT: printf("%u", ((const unsigned int *)buf)[i]); break;
        case NC_INT64: printf("%lld", ((const long long *)buf)[i]); break;
        case NC_UINT64: printf("%llu", ((const unsigned long long *)buf)[i]); break;
        case NC_FLOAT: printf("%.9g", ((const float *)buf)[i]); break;
        case NC_DOUBLE: printf("%.17g", ((const double *)buf)[i]); break;
        case NC_STRING: {
            const char *s = ((char *const *)buf)[i];
            if (s) print_text(s, strlen(s)); else printf("NULL");
            break;
        }
        default: printf("?");
        }
    }
    printf("]");
}

static void describe_atts(int ncid, int varid, int natts, const char *indent)
{
    for (int a = 0; a < natts; a++) {
        char name[NC_MAX_NAME + 1];
        nc_type t;
        size_t len, size;
        CHECK(nc_inq_attname(ncid, varid, a, name));
        CHECK(nc_inq_att(ncid, varid, name, &t, &len));
        CHECK(nc_inq_type(ncid, t, NULL, &size));
        void *buf = calloc(len + 1, size);
        CHECK(nc_get_att(ncid, varid, name, buf));
        printf("%satt %s %s %zu ", indent, name, type_name(t), len);
        print_values(t, len, buf);
        printf("\n");
        if (t == NC_STRING) nc_free_string(len, buf);
        free(buf);
    }
}

/* Print every value of a variable, read whole in its own type. */
static void describe_data(int ncid, int varid, nc_type t, int ndims, const int *dimids, size_t tsize)
{
    size_t n = 1, len;
    for (int d = 0; d < ndims; d++) {
        CHECK(nc_inq_dimlen(ncid, dimids[d], &len));
        n *= len;
    }
    void *buf = calloc(n + 1, tsize);
    int status = nc_get_var(ncid, varid, buf);
    if (status != NC_NOERR) {
        printf("    data error %d\n", status);
    } else {
        printf("    data ");
        print_values(t, n, buf);
        printf("\n");
        if (t == NC_STRING) nc_free_string(n, buf);
    }
    free(buf);
}

static void describe_group(int ncid)
{
    char name[NC_MAX_NAME + 1];
    size_t len;
    int ndims, nvars, natts, unlim, dimids[NC_MAX_DIMS], nunlim, unlimids[NC_MAX_DIMS];

    CHECK(nc_inq_grpname_full(ncid, &len, NULL));
    char *full = malloc(len + 1);
    CHECK(nc_inq_grpname_full(ncid, NULL, full));
    printf("group %s\n", full);
    free(full);

    CHECK(nc_inq(ncid, &ndims, &nvars, &natts, &unlim));
    CHECK(nc_inq_dimids(ncid, &ndims, dimids, 0));
    CHECK(nc_inq_unlimdims(ncid, &nunlim, unlimids));
    for (int d = 0; d < ndims; d++) {
        int is_unlim = 0;
        for (int u = 0; u < nunlim; u++) is_unlim |= unlimids[u] == dimids[d];
        CHECK(nc_inq_dim(ncid, dimids[d], name, &len));
        printf("  dim %s %zu%s\n", name, len, is_unlim ? " unlimited" : "");
    }
    describe_atts(ncid, NC_GLOBAL, natts, "  ");
    for (int v = 0; v < nvars; v++) {
        nc_type t;
        int vndims, vdims[NC_MAX_VAR_DIMS], vnatts, storage, nofill, endian;
        size_t chunks[NC_MAX_VAR_DIMS], tsize;
        CHECK(nc_inq_var(ncid, v, name, &t, &vndims, vdims, &vnatts));
        printf("  var %s %s (", name, type_name(t));
        for (int d = 0; d < vndims; d++) {
            char dname[NC_MAX_NAME + 1];
            CHECK(nc_inq_dimname(ncid, vdims[d], dname));
            printf("%s%s", d ? ", " : "", dname);
        }
        printf(")");
        CHECK(nc_inq_var_chunking(ncid, v, &storage, chunks));
        if (vndims > 0) {
            printf(" chunks=(");
            for (int d = 0; d < vndims; d++) printf("%s%zu", d ? ", " : "", chunks[d]);
            printf(")");
        }
        CHECK(nc_inq_type(ncid, t, NULL, &tsize));
        void *fill = calloc(1, tsize + 8);
        CHECK(nc_inq_var_fill(ncid, v, &nofill, fill));
        printf(" nofill=%d fill=", nofill);
        print_values(t, 1, fill);
        if (t == NC_STRING) nc_free_string(1, fill);
        free(fill);
        if (t != NC_CHAR && t != NC_STRING && t != NC_BYTE && t != NC_UBYTE) {
            CHECK(nc_inq_var_endian(ncid, v, &endian));
            printf(" endian=%s", endian == NC_ENDIAN_BIG ? "big" : "little");
        }
        printf("\n");
        describe_atts(ncid, v, vnatts, "    ");
        describe_data(ncid, v, t, vndims, vdims, tsize);
    }
    int ngrps;
    CHECK(nc_inq_grps(ncid, &ngrps, NULL));
    int *grps = malloc(sizeof(int) * (ngrps + 1));
    CHECK(nc_inq_grps(ncid, NULL, grps));
    for (int g = 0; g < ngrps; g++) describe_group(grps[g]);
    free(grps);
}

int main(int argc, char **argv)
{
    int ncid;
    int writable = argc == 3 && strcmp(argv[1], "-w") == 0;
    if (argc != 2 && !writable) { fprintf(stderr, "usage: describe [-w] URL\n"); return 2; }
    CHECK(nc_open(argv[argc - 1], writable ? NC_WRITE : NC_NOWRITE, &ncid));
    if (writable) printf("redef %d\n", nc_redef(ncid));
    describe_group(ncid);
    CHECK(nc_close(ncid));
    return 0;
}
