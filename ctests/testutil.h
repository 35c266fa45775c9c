/* testutil.h -- tiny assertion helpers for the C tests.
 *
 * Every check prints the failing expression with file and line and exits
 * non-zero at the first failure, so the runner reports the test as failed.
 */
#ifndef NCZARR_RS_TESTUTIL_H
#define NCZARR_RS_TESTUTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <netcdf.h>

#define FAIL(...) do { fprintf(stderr, "%s:%d: ", __FILE__, __LINE__); \
    fprintf(stderr, __VA_ARGS__); fprintf(stderr, "\n"); exit(1); } while (0)

/* A call that must succeed. */
#define OK(call) do { int _s = (call); if (_s != NC_NOERR) \
    FAIL("%s returned %d (%s)", #call, _s, nc_strerror(_s)); } while (0)

/* A call that must fail with exactly `code`. */
#define ERR(code, call) do { int _s = (call); if (_s != (code)) \
    FAIL("%s returned %d (%s), expected %d (%s)", #call, _s, nc_strerror(_s), \
         (int)(code), nc_strerror(code)); } while (0)

#define EQ_INT(a, b) do { long long _a = (long long)(a), _b = (long long)(b); \
    if (_a != _b) FAIL("%s == %lld, expected %s == %lld", #a, _a, #b, _b); } while (0)

#define EQ_DBL(a, b) do { double _a = (a), _b = (b); \
    if (!(_a == _b)) FAIL("%s == %.17g, expected %.17g", #a, _a, _b); } while (0)

#define EQ_STR(a, b) do { const char *_a = (a), *_b = (b); \
    if (strcmp(_a, _b) != 0) FAIL("%s == \"%s\", expected \"%s\"", #a, _a, _b); } while (0)

#define TRUE_OR_FAIL(cond) do { if (!(cond)) FAIL("expected %s", #cond); } while (0)

/* A dataset URL in the working directory (the runner gives each test its
 * own scratch directory): a directory store, or a zip archive when
 * NCZARR_RS_CTEST_STORAGE=zip (ctests/run.sh runs the tests that only
 * use the API both ways). */
static inline const char *test_url(const char *name)
{
    static char buf[4][512];
    static int next = 0;
    char *b = buf[next++ % 4];
    const char *storage = getenv("NCZARR_RS_CTEST_STORAGE");
    if (storage && strcmp(storage, "zip") == 0)
        snprintf(b, sizeof buf[0], "file://%s.zip#mode=nczarr,zip", name);
    else
        snprintf(b, sizeof buf[0], "file://%s.zarr#mode=nczarr,file", name);
    return b;
}

/* Create `url` holding one deflated int variable "v" along dimension "x"
 * of length n, in chunks of `chunk`, with the values first, first+1, ... */
static inline void write_ramp(const char *url, size_t n, size_t chunk, int first)
{
    int ncid, x, v;
    int *data = malloc(n * sizeof *data);
    if (!data) FAIL("out of memory");
    for (size_t i = 0; i < n; i++) data[i] = first + (int)i;
    OK(nc_create(url, NC_CLOBBER, &ncid));
    OK(nc_def_dim(ncid, "x", n, &x));
    OK(nc_def_var(ncid, "v", NC_INT, 1, &x, &v));
    OK(nc_def_var_chunking(ncid, v, NC_CHUNKED, &chunk));
    OK(nc_def_var_deflate(ncid, v, 1, 1, 1));
    OK(nc_put_var_int(ncid, v, data));
    OK(nc_close(ncid));
    free(data);
}

#define PASS() do { printf("PASS %s\n", __FILE__); return 0; } while (0)

#endif
