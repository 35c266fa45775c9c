/* A netCDF-2 API walk-through that prints every return value, ncerr, the
 * data read back and the NC_VERBOSE messages, for comparing this library
 * with Debian's netcdf-c 4.9.0 (ctests/v2_debian_diff.sh builds it
 * against each and diffs the output).
 *
 * Usage: v2_debian_diff DATASET records|norecords
 * netcdf-c 4.9.0's NCZarr has no unlimited dimensions, so against it the
 * record part runs on a classic file, or is left out ("norecords").
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <netcdf.h>

#define BAD 12345

/* Print a call, what it returned and ncerr (reset first). */
#define SHOW(call) do { ncerr = 0; long _r = (long)(call); \
    printf("%-60s -> %ld ncerr %d\n", #call, _r, ncerr); } while (0)

static void show_ints(const char *what, const int *v, int n)
{
    printf("%s:", what);
    for (int i = 0; i < n; i++) printf(" %d", v[i]);
    printf("\n");
}

static void show_longs(const char *what, const long *v, int n)
{
    printf("%s:", what);
    for (int i = 0; i < n; i++) printf(" %ld", v[i]);
    printf("\n");
}

/* The exit status of a child that fails a call under `opts`. */
static void show_fatal(int opts)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        ncopts = opts;
        ncclose(BAD);
        _exit(99);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    printf("ncopts %d: child exit %d\n", opts, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

static void types(void)
{
    for (int t = 0; t <= 13; t++) printf("nctypelen(%d) = %d\n", t, nctypelen(t));
}

static void bad_ids(void)
{
    long l[2] = {0, 0}, map[2] = {4, 4};
    int i;
    char name[NC_MAX_NAME + 1];
    nc_type type;
    SHOW(ncredef(BAD));
    SHOW(ncendef(BAD));
    SHOW(ncclose(BAD));
    SHOW(ncsync(BAD));
    SHOW(ncabort(BAD));
    SHOW(ncsetfill(BAD, NC_FILL));
    SHOW(ncinquire(BAD, &i, &i, &i, &i));
    SHOW(ncdimdef(BAD, "d", 1));
    SHOW(ncdimid(BAD, "d"));
    SHOW(ncdiminq(BAD, 0, name, l));
    SHOW(ncdimrename(BAD, 0, "e"));
    SHOW(ncvardef(BAD, "v", NC_INT, 0, NULL));
    SHOW(ncvarid(BAD, "v"));
    SHOW(ncvarinq(BAD, 0, name, &type, &i, NULL, &i));
    SHOW(ncvarrename(BAD, 0, "w"));
    SHOW(ncvarput1(BAD, 0, l, &i));
    SHOW(ncvarget1(BAD, 0, l, &i));
    SHOW(ncvarput(BAD, 0, l, l, &i));
    SHOW(ncvarget(BAD, 0, l, l, &i));
    SHOW(ncvarputs(BAD, 0, l, l, l, &i));
    SHOW(ncvargets(BAD, 0, l, l, l, &i));
    SHOW(ncvarputs(BAD, 0, l, l, NULL, &i));
    SHOW(ncvargets(BAD, 0, l, l, NULL, &i));
    SHOW(ncvarputg(BAD, 0, l, l, NULL, map, &i));
    SHOW(ncvargetg(BAD, 0, l, l, NULL, map, &i));
    SHOW(ncvarputg(BAD, 0, l, l, NULL, NULL, &i));
    SHOW(ncvargetg(BAD, 0, l, l, NULL, NULL, &i));
    SHOW(ncattput(BAD, NC_GLOBAL, "a", NC_INT, 1, &i));
    SHOW(ncattinq(BAD, NC_GLOBAL, "a", &type, &i));
    SHOW(ncattget(BAD, NC_GLOBAL, "a", &i));
    SHOW(ncattcopy(BAD, NC_GLOBAL, "a", BAD, NC_GLOBAL));
    SHOW(ncattname(BAD, NC_GLOBAL, 0, name));
    SHOW(ncattrename(BAD, NC_GLOBAL, "a", "b"));
    SHOW(ncattdel(BAD, NC_GLOBAL, "a"));
    SHOW(ncrecinq(BAD, &i, NULL, NULL));
    SHOW(ncrecput(BAD, 0, NULL));
    SHOW(ncrecget(BAD, 0, NULL));
}

static void advise(void)
{
    nc_advise("advise", NC_EINVAL, "int %d string %s", 5, "five");
    printf("ncerr %d\n", ncerr);
    nc_advise("advise", NC_NOERR, "no error");
    printf("ncerr %d\n", ncerr);
    nc_advise("advise", ENOENT, "errno %d", ENOENT);
    printf("ncerr %d\n", ncerr);
    nc_advise("advise", -1000, "unknown");
    printf("ncerr %d\n", ncerr);
    const char *no_format = NULL;
    nc_advise(NULL, NC_EBADID, "no routine");
    nc_advise("advise", NC_EBADID, no_format);
    nc_advise("advise", EIO, "%s", "errno EIO");
    printf("ncerr %d\n", ncerr);
}

/* Counts and the record dimension. (Asked in define mode or after a
 * reopen: netcdf-c 4.9.0's NCZarr lists _NCProperties among the global
 * attributes of a dataset it just created, from its first enddef on.) */
static void show_inquire(int ncid)
{
    int ndims = -1, nvars = -1, natts = -1, recdim = -2;
    int r = ncinquire(ncid, &ndims, &nvars, &natts, &recdim);
    printf("ncinquire returns ncid: %d; %d %d %d %d\n", r == ncid, ndims, nvars, natts, recdim);
}

static int define(const char *path, int records)
{
    int ncid = nccreate(path, NC_CLOBBER);
    printf("nccreate -> %s\n", ncid >= 0 ? "an ncid" : "-1");
    SHOW(ncsetfill(ncid, NC_NOFILL));
    SHOW(ncsetfill(ncid, NC_FILL));
    SHOW(ncdimdef(ncid, "y", 3));
    SHOW(ncdimdef(ncid, "x", 4));
    SHOW(ncdimdef(ncid, "neg", -5));
    SHOW(ncdimdef(ncid, "x", 2));
    if (records) SHOW(ncdimdef(ncid, "time", NC_UNLIMITED));
    int yx[2] = {0, 1}, tx[2] = {2, 1}, t[1] = {2};
    SHOW(ncvardef(ncid, "grid", NC_INT, 2, yx));
    SHOW(ncvardef(ncid, "d", NC_DOUBLE, 1, yx + 1));
    if (records) {
        SHOW(ncvardef(ncid, "temp", NC_FLOAT, 2, tx));
        SHOW(ncvardef(ncid, "flag", NC_SHORT, 1, t));
    }
    SHOW(ncvardef(ncid, "bad", 99, 0, NULL));
    SHOW(ncvardef(ncid, "grid", NC_INT, 0, NULL));

    double range[2] = {-1.5, 40.25};
    SHOW(ncattput(ncid, NC_GLOBAL, "title", NC_CHAR, 5, "hello"));
    SHOW(ncattput(ncid, 0, "valid_range", NC_DOUBLE, 2, range));
    SHOW(ncattput(ncid, 0, "units", NC_CHAR, 1, "K"));
    SHOW(ncattput(ncid, 0, "negative", NC_INT, -1, range));
    SHOW(ncattput(ncid, 9, "novar", NC_INT, 1, range));
    SHOW(ncattcopy(ncid, 0, "units", ncid, 1));
    SHOW(ncattcopy(ncid, 0, "nope", ncid, 1));
    SHOW(ncattrename(ncid, 1, "units", "unit"));
    SHOW(ncattdel(ncid, 1, "unit"));
    SHOW(ncattdel(ncid, 1, "unit"));
    SHOW(ncdimrename(ncid, 1, "lon"));
    SHOW(ncvarrename(ncid, 1, "dd"));
    SHOW(ncvarrename(ncid, 1, "grid"));
    show_inquire(ncid);
    SHOW(ncendef(ncid));
    SHOW(ncendef(ncid));
    return ncid;
}

static void inquire(int ncid)
{
    int ndims = -1, natts = -1, dimids[4] = {-1, -1, -1, -1};
    char name[NC_MAX_NAME + 1] = "";
    long len = -1;
    nc_type type = -1;
    int ilen = -1;
    SHOW(ncdimid(ncid, "lon"));
    SHOW(ncdimid(ncid, "x"));
    SHOW(ncdiminq(ncid, 1, name, &len));
    printf("  %s %ld\n", name, len);
    SHOW(ncdiminq(ncid, 7, name, &len));
    SHOW(ncvarid(ncid, "dd"));
    SHOW(ncvarinq(ncid, 0, name, &type, &ndims, dimids, &natts));
    printf("  %s %d %d [%d %d] %d\n", name, type, ndims, dimids[0], dimids[1], natts);
    SHOW(ncvarinq(ncid, 9, name, &type, &ndims, dimids, &natts));
    SHOW(ncattinq(ncid, 0, "valid_range", &type, &ilen));
    printf("  %d %d\n", type, ilen);
    SHOW(ncattinq(ncid, 0, "nope", &type, &ilen));
    SHOW(ncattname(ncid, 0, 1, name));
    printf("  %s\n", name);
    SHOW(ncattname(ncid, 0, 5, name));
    double range[2] = {0, 0};
    char title[8] = "";
    SHOW(ncattget(ncid, 0, "valid_range", range));
    printf("  %g %g\n", range[0], range[1]);
    SHOW(ncattget(ncid, NC_GLOBAL, "title", title));
    printf("  %s\n", title);
    SHOW(ncattget(ncid, NC_GLOBAL, "nope", title));
}

static void data(int ncid)
{
    int grid[12], got[12], one = -1;
    for (int i = 0; i < 12; i++) grid[i] = 10 * (i / 4) + i % 4;
    long start[2] = {0, 0}, count[2] = {3, 4}, index[2] = {2, 3};
    SHOW(ncvarput(ncid, 0, start, count, grid));
    SHOW(ncvarget1(ncid, 0, index, &one));
    printf("  %d\n", one);
    one = 99;
    index[0] = 1; index[1] = 1;
    SHOW(ncvarput1(ncid, 0, index, &one));
    index[0] = 3;
    SHOW(ncvarget1(ncid, 0, index, &one));
    index[0] = -1;
    SHOW(ncvarput1(ncid, 0, index, &one));
    SHOW(ncvarget1(ncid, 9, index, &one));
    SHOW(ncvarget(ncid, 0, start, count, got));
    show_ints("grid", got, 12);
    count[0] = 4;
    SHOW(ncvarget(ncid, 0, start, count, got));
    SHOW(ncvarget(ncid, 9, start, count, got));
    count[0] = 3;

    long sstart[2] = {0, 1}, scount[2] = {2, 2}, stride[2] = {2, 2};
    int four[4] = {-1, -3, -21, -23};
    SHOW(ncvargets(ncid, 0, sstart, scount, stride, got));
    show_ints("strided", got, 4);
    SHOW(ncvarputs(ncid, 0, sstart, scount, stride, four));
    stride[0] = 0;
    SHOW(ncvargets(ncid, 0, sstart, scount, stride, got));
    stride[0] = 2;

    long map[2] = {sizeof(int), 3 * sizeof(int)};
    SHOW(ncvargetg(ncid, 0, start, count, NULL, map, got));
    show_ints("transposed", got, 12);
    for (int i = 0; i < 12; i++) got[i] = 100 + i;
    SHOW(ncvarputg(ncid, 0, start, count, NULL, map, got));
    SHOW(ncvarget(ncid, 0, start, count, got));
    show_ints("after mapped put", got, 12);
    long smap[2] = {sizeof(int), 2 * sizeof(int)};
    SHOW(ncvargetg(ncid, 0, sstart, scount, stride, smap, got));
    show_ints("strided mapped", got, 4);
    SHOW(ncvargetg(ncid, 0, sstart, scount, stride, NULL, got));
    show_ints("strided unmapped", got, 4);
    SHOW(ncvargetg(ncid, 9, sstart, scount, stride, smap, got));

    double d[4] = {0.5, 1.5, 2.5, 3.5}, dback[4];
    long dstart[1] = {0}, dcount[1] = {4};
    SHOW(ncvarput(ncid, 1, dstart, dcount, d));
    SHOW(ncvarget(ncid, 1, dstart, dcount, dback));
    printf("  %g %g %g %g\n", dback[0], dback[1], dback[2], dback[3]);
}

static void records(int ncid, int with_records)
{
    int nrec = -1, ids[4] = {-1, -1, -1, -1};
    long sizes[4] = {-1, -1, -1, -1};
    SHOW(ncrecinq(ncid, &nrec, ids, sizes));
    printf("  %d\n", nrec);
    show_ints("  ids", ids, 4);
    show_longs("  sizes", sizes, 4);
    if (!with_records) {
        SHOW(ncrecput(ncid, 0, NULL));
        SHOW(ncrecget(ncid, 0, NULL));
        return;
    }
    float temp[4];
    short flag;
    void *rec[2] = {temp, &flag};
    for (int r = 0; r < 2; r++) {
        for (int x = 0; x < 4; x++) temp[x] = 0.5f * x + r;
        flag = (short)(7 + r);
        SHOW(ncrecput(ncid, r, rec));
    }
    flag = 9;
    void *flag_only[2] = {NULL, &flag};
    SHOW(ncrecput(ncid, 2, flag_only));
    long len = -1;
    SHOW(ncdiminq(ncid, 2, NULL, &len));
    printf("  %ld\n", len);
    float gt[4];
    short gf = 0;
    void *got[2] = {gt, &gf};
    for (int r = 0; r < 3; r++) {
        SHOW(ncrecget(ncid, r, got));
        printf("  %g %g %g %g / %d\n", gt[0], gt[1], gt[2], gt[3], gf);
    }
    /* (Not a record past the end: classic files and netCDF-4 answer
     * that with different status codes.) */
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s DATASET records|norecords\n", argv[0]);
        return 2;
    }
    const char *path = argv[1];
    int with_records = strcmp(argv[2], "records") == 0;
    /* One stream in call order: messages go to stderr, results to stdout. */
    setvbuf(stdout, NULL, _IONBF, 0);
    dup2(1, 2);

    printf("ncopts default %d\n", ncopts);
    ncopts = NC_VERBOSE;
    types();
    bad_ids();
    advise();
    int ncid = define(path, with_records);
    inquire(ncid);
    data(ncid);
    records(ncid, with_records);
    SHOW(ncsync(ncid));
    SHOW(ncclose(ncid));
    SHOW(ncclose(ncid));
    ncid = ncopen(path, NC_NOWRITE);
    printf("ncopen -> %s\n", ncid >= 0 ? "an ncid" : "-1");
    int one = -1;
    long index[2] = {2, 3};
    SHOW(ncvarget1(ncid, 0, index, &one));
    printf("  %d\n", one);
    show_inquire(ncid);
    /* (Not a write: netcdf-c 4.9.0's NCZarr allows it on a read-only
     * dataset.) */
    SHOW(ncredef(ncid));
    SHOW(ncabort(ncid));
    /* (An NCZarr URL: for a missing plain path netcdf-c answers ENOENT,
     * which this library, having no classic format, does not.) */
    SHOW(ncopen("file://v2-missing.zarr#mode=nczarr,file", NC_NOWRITE));
    show_fatal(NC_FATAL);
    show_fatal(NC_FATAL | NC_VERBOSE);
    show_fatal(NC_VERBOSE);
    return 0;
}
