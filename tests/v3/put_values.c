/* put_values.c -- write values into one variable of an existing dataset
 * through our library (nc_put_vara_<type>), for tests/v3/test_write_v3.py
 * to check what another writer's array (zarr-python's float16, nested
 * shards) holds afterwards.
 *
 * Usage: put_values URL VAR START COUNT TYPE VALUE...
 *   VAR    the variable's full name (/g/v)
 *   START, COUNT  comma-separated, one number per dimension ("-" for a
 *          scalar)
 *   TYPE   double, float or int: the memory type of the call
 *   VALUE  as many as COUNT's product (strtod; "nan", "inf" accepted)
 * Prints the put call's status (0, or a netCDF error such as NC_ERANGE,
 * which still writes the other values) on stdout. Exits 2 if the dataset
 * cannot be opened, the variable found or the dataset closed. */
#include <netcdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(call) do { int _s = (call); if (_s != NC_NOERR) { \
    fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, nc_strerror(_s)); exit(2); } } while (0)

/* Parse "a,b,c" into at most NC_MAX_VAR_DIMS numbers; returns how many. */
static int parse_list(const char *text, size_t *out)
{
    if (strcmp(text, "-") == 0) return 0;
    int n = 0;
    char *end;
    const char *p = text;
    while (n < NC_MAX_VAR_DIMS) {
        out[n++] = (size_t)strtoull(p, &end, 10);
        if (*end != ',') break;
        p = end + 1;
    }
    return n;
}

int main(int argc, char **argv)
{
    if (argc < 6) {
        fprintf(stderr, "usage: put_values URL VAR START COUNT TYPE VALUE...\n");
        return 2;
    }
    size_t start[NC_MAX_VAR_DIMS], count[NC_MAX_VAR_DIMS];
    int rank = parse_list(argv[3], start);
    if (parse_list(argv[4], count) != rank) return 2;
    size_t n = 1;
    for (int d = 0; d < rank; d++) n *= count[d];
    if ((size_t)(argc - 6) != n) {
        fprintf(stderr, "%zu values expected\n", n);
        return 2;
    }
    double *values = malloc((n ? n : 1) * sizeof(double));
    if (values == NULL) return 2;
    for (size_t k = 0; k < n; k++) values[k] = strtod(argv[6 + k], NULL);

    int ncid, grp, varid;
    CHECK(nc_open(argv[1], NC_WRITE, &ncid));
    /* Split /g/v into the group's full name and the variable's name. */
    char *var = argv[2];
    char *slash = strrchr(var, '/');
    if (slash == NULL) return 2;
    if (slash == var) {
        grp = ncid;
    } else {
        *slash = '\0';
        CHECK(nc_inq_grp_full_ncid(ncid, var, &grp));
    }
    CHECK(nc_inq_varid(grp, slash + 1, &varid));

    int status;
    if (strcmp(argv[5], "double") == 0) {
        status = nc_put_vara_double(grp, varid, start, count, values);
    } else if (strcmp(argv[5], "float") == 0) {
        float *f = malloc((n ? n : 1) * sizeof(float));
        if (f == NULL) return 2;
        for (size_t k = 0; k < n; k++) f[k] = (float)values[k];
        status = nc_put_vara_float(grp, varid, start, count, f);
        free(f);
    } else if (strcmp(argv[5], "int") == 0) {
        int *v = malloc((n ? n : 1) * sizeof(int));
        if (v == NULL) return 2;
        for (size_t k = 0; k < n; k++) v[k] = (int)values[k];
        status = nc_put_vara_int(grp, varid, start, count, v);
        free(v);
    } else {
        return 2;
    }
    printf("%d\n", status);
    CHECK(nc_close(ncid));
    free(values);
    return 0;
}
