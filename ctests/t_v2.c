/* The netCDF-2 API: every v2 function on an NCZarr dataset, with the
 * values each returns on success, its data, and its error reporting
 * (ncerr, the NC_VERBOSE message on stderr, the NC_FATAL exit status). */
#include "testutil.h"
#include <errno.h>
#include <sys/wait.h>
#include <unistd.h>

#define NY 3
#define NX 4
#define BAD_NCID 12345

/* Variable ids, in definition order. */
enum { GRID, TEMP, FLAG, SCALAR };

/* A v2 call that must fail with -1 and leave `code` in ncerr. */
#define V2_ERR(code, call) do { ncerr = 0; EQ_INT((call), -1); EQ_INT(ncerr, (code)); } while (0)

/* ---- stderr capture ---------------------------------------------------- */

struct capture { int saved_fd; FILE *file; };

static struct capture capture_stderr(void)
{
    struct capture c;
    fflush(stderr);
    c.file = tmpfile();
    TRUE_OR_FAIL(c.file != NULL);
    c.saved_fd = dup(2);
    TRUE_OR_FAIL(dup2(fileno(c.file), 2) == 2);
    return c;
}

/* Restore stderr and return what was written to it (static buffer). */
static const char *end_capture(struct capture c)
{
    static char text[1024];
    fflush(stderr);
    dup2(c.saved_fd, 2);
    close(c.saved_fd);
    rewind(c.file);
    size_t n = fread(text, 1, sizeof text - 1, c.file);
    text[n] = '\0';
    fclose(c.file);
    return text;
}

/* ---- the dataset -------------------------------------------------------- */

/* Dimensions time (unlimited), y, x; variables grid[y][x] int,
 * temp[time][x] float, flag[time] short, scalar double; a global title. */
static int define_dataset(const char *url)
{
    int ncid = nccreate(url, NC_CLOBBER);
    TRUE_OR_FAIL(ncid >= 0);

    /* The fill mode starts as NC_FILL; ncsetfill returns the old mode. */
    EQ_INT(ncsetfill(ncid, NC_NOFILL), NC_FILL);
    EQ_INT(ncsetfill(ncid, NC_FILL), NC_NOFILL);

    EQ_INT(ncdimdef(ncid, "time", NC_UNLIMITED), 0);
    EQ_INT(ncdimdef(ncid, "y", NY), 1);
    EQ_INT(ncdimdef(ncid, "x", NX), 2);
    V2_ERR(NC_EDIMSIZE, ncdimdef(ncid, "neg", -1L));
    V2_ERR(NC_ENAMEINUSE, ncdimdef(ncid, "x", 2));

    int yx[2] = {1, 2}, tx[2] = {0, 2}, t[1] = {0};
    EQ_INT(ncvardef(ncid, "grid", NC_INT, 2, yx), GRID);
    EQ_INT(ncvardef(ncid, "temp", NC_FLOAT, 2, tx), TEMP);
    EQ_INT(ncvardef(ncid, "flag", NC_SHORT, 1, t), FLAG);
    EQ_INT(ncvardef(ncid, "scalar", NC_DOUBLE, 0, NULL), SCALAR);
    V2_ERR(NC_EBADTYPE, ncvardef(ncid, "bad", 99, 0, NULL));

    EQ_INT(ncattput(ncid, NC_GLOBAL, "title", NC_CHAR, 5, "hello"), 0);
    double range[2] = {-1.5, 40.25};
    EQ_INT(ncattput(ncid, TEMP, "valid_range", NC_DOUBLE, 2, range), 0);
    EQ_INT(ncattput(ncid, TEMP, "units", NC_CHAR, 1, "K"), 0);
    V2_ERR(NC_EINVAL, ncattput(ncid, TEMP, "negative", NC_INT, -1, range));

    EQ_INT(ncendef(ncid), 0);
    return ncid;
}

static void check_inquiries(int ncid)
{
    int ndims = -1, nvars = -1, natts = -1, recdim = -2;
    EQ_INT(ncinquire(ncid, &ndims, &nvars, &natts, &recdim), ncid);
    EQ_INT(ndims, 3);
    EQ_INT(nvars, 4);
    EQ_INT(natts, 1);
    EQ_INT(recdim, 0);
    EQ_INT(ncinquire(ncid, NULL, NULL, NULL, NULL), ncid);

    char name[NC_MAX_NAME + 1];
    long len = -1;
    EQ_INT(ncdimid(ncid, "x"), 2);
    EQ_INT(ncdiminq(ncid, 2, name, &len), 2);
    EQ_STR(name, "x");
    EQ_INT(len, NX);
    V2_ERR(NC_EBADDIM, ncdimid(ncid, "nope"));
    V2_ERR(NC_EBADDIM, ncdiminq(ncid, 9, name, &len));

    nc_type type = 0;
    int dimids[2] = {-1, -1};
    EQ_INT(ncvarid(ncid, "temp"), TEMP);
    EQ_INT(ncvarinq(ncid, TEMP, name, &type, &ndims, dimids, &natts), TEMP);
    EQ_STR(name, "temp");
    EQ_INT(type, NC_FLOAT);
    EQ_INT(ndims, 2);
    EQ_INT(dimids[0], 0);
    EQ_INT(dimids[1], 2);
    EQ_INT(natts, 2);
    V2_ERR(NC_ENOTVAR, ncvarid(ncid, "nope"));
    V2_ERR(NC_ENOTVAR, ncvarinq(ncid, 42, name, &type, &ndims, dimids, &natts));
}

/* ---- data --------------------------------------------------------------- */

static void check_grid(int ncid, const int expected[NY][NX])
{
    int got[NY][NX];
    long start[2] = {0, 0}, count[2] = {NY, NX};
    EQ_INT(ncvarget(ncid, GRID, start, count, got), 0);
    for (int y = 0; y < NY; y++)
        for (int x = 0; x < NX; x++)
            EQ_INT(got[y][x], expected[y][x]);
}

static void check_data(int ncid)
{
    int grid[NY][NX];
    for (int y = 0; y < NY; y++)
        for (int x = 0; x < NX; x++)
            grid[y][x] = 10 * y + x;
    long start[2] = {0, 0}, count[2] = {NY, NX};
    EQ_INT(ncvarput(ncid, GRID, start, count, grid), 0);
    check_grid(ncid, (const int (*)[NX])grid);

    /* One value. */
    long index[2] = {2, 3};
    int one = -1;
    EQ_INT(ncvarget1(ncid, GRID, index, &one), 0);
    EQ_INT(one, 23);
    one = 99;
    index[0] = 1; index[1] = 1;
    EQ_INT(ncvarput1(ncid, GRID, index, &one), 0);
    grid[1][1] = 99;
    check_grid(ncid, (const int (*)[NX])grid);
    index[0] = NY;
    V2_ERR(NC_EINVALCOORDS, ncvarget1(ncid, GRID, index, &one));
    index[0] = -1;
    V2_ERR(NC_EINVALCOORDS, ncvarput1(ncid, GRID, index, &one));

    /* Every other row and column. */
    long sstart[2] = {0, 1}, scount[2] = {2, 2}, stride[2] = {2, 2};
    int corners[2][2];
    EQ_INT(ncvargets(ncid, GRID, sstart, scount, stride, corners), 0);
    EQ_INT(corners[0][0], 1);
    EQ_INT(corners[0][1], 3);
    EQ_INT(corners[1][0], 21);
    EQ_INT(corners[1][1], 23);
    int negated[2][2] = {{-1, -3}, {-21, -23}};
    EQ_INT(ncvarputs(ncid, GRID, sstart, scount, stride, negated), 0);
    grid[0][1] = -1; grid[0][3] = -3; grid[2][1] = -21; grid[2][3] = -23;
    check_grid(ncid, (const int (*)[NX])grid);
    /* A NULL stride is the plain hyperslab. */
    int row[NX];
    long rstart[2] = {1, 0}, rcount[2] = {1, NX};
    EQ_INT(ncvargets(ncid, GRID, rstart, rcount, NULL, row), 0);
    EQ_INT(row[1], 99);
    stride[0] = 0;
    V2_ERR(NC_ESTRIDE, ncvargets(ncid, GRID, sstart, scount, stride, corners));

    /* A transposing map, in bytes: memory is [x][y]. */
    long map[2] = {sizeof(int), NY * sizeof(int)};
    int transposed[NX][NY];
    EQ_INT(ncvargetg(ncid, GRID, start, count, NULL, map, transposed), 0);
    for (int y = 0; y < NY; y++)
        for (int x = 0; x < NX; x++)
            EQ_INT(transposed[x][y], grid[y][x]);
    for (int x = 0; x < NX; x++)
        for (int y = 0; y < NY; y++)
            transposed[x][y] = 100 * x + y;
    EQ_INT(ncvarputg(ncid, GRID, start, count, NULL, map, transposed), 0);
    for (int y = 0; y < NY; y++)
        for (int x = 0; x < NX; x++)
            grid[y][x] = 100 * x + y;
    check_grid(ncid, (const int (*)[NX])grid);
    /* With a stride too, and without a map (the strided call). */
    stride[0] = 2; stride[1] = 2;
    int two_by_two[2][2];
    long mapped[2] = {sizeof(int), 2 * sizeof(int)};
    EQ_INT(ncvargetg(ncid, GRID, sstart, scount, stride, mapped, two_by_two), 0);
    EQ_INT(two_by_two[0][0], grid[0][1]);
    EQ_INT(two_by_two[1][0], grid[0][3]);
    EQ_INT(two_by_two[0][1], grid[2][1]);
    EQ_INT(two_by_two[1][1], grid[2][3]);
    EQ_INT(ncvargetg(ncid, GRID, sstart, scount, stride, NULL, two_by_two), 0);
    EQ_INT(two_by_two[0][1], grid[0][3]);
    EQ_INT(ncvarputg(ncid, GRID, sstart, scount, stride, NULL, negated), 0);
    EQ_INT(ncvarget1(ncid, GRID, (long[]){2, 3}, &one), 0);
    EQ_INT(one, -23);

    /* A scalar. */
    double d = 2.75, back = 0;
    long none[1] = {0};
    EQ_INT(ncvarput1(ncid, SCALAR, none, &d), 0);
    EQ_INT(ncvarget1(ncid, SCALAR, none, &back), 0);
    EQ_DBL(back, 2.75);
}

/* ---- records ------------------------------------------------------------ */

static void check_records(int ncid)
{
    int nrec = -1, ids[4] = {-1, -1, -1, -1};
    long sizes[4] = {-1, -1, -1, -1};
    EQ_INT(ncrecinq(ncid, &nrec, ids, sizes), 2);
    EQ_INT(nrec, 2);
    EQ_INT(ids[0], TEMP);
    EQ_INT(ids[1], FLAG);
    EQ_INT(sizes[0], NX * sizeof(float));
    EQ_INT(sizes[1], sizeof(short));
    EQ_INT(ncrecinq(ncid, NULL, NULL, NULL), 2);

    float temp[NX];
    short flag;
    void *rec[2] = {temp, &flag};
    for (int r = 0; r < 2; r++) {
        for (int x = 0; x < NX; x++) temp[x] = 0.5f * x + r;
        flag = (short)(7 + r);
        EQ_INT(ncrecput(ncid, r, rec), 0);
    }
    /* Only flag in record 2: temp there stays fill. */
    flag = 9;
    void *flag_only[2] = {NULL, &flag};
    EQ_INT(ncrecput(ncid, 2, flag_only), 0);

    long len = 0;
    EQ_INT(ncdiminq(ncid, 0, NULL, &len), 0);
    EQ_INT(len, 3);

    float got_temp[NX];
    short got_flag = 0;
    void *got[2] = {got_temp, &got_flag};
    EQ_INT(ncrecget(ncid, 1, got), 0);
    for (int x = 0; x < NX; x++) EQ_DBL(got_temp[x], 0.5f * x + 1);
    EQ_INT(got_flag, 8);
    EQ_INT(ncrecget(ncid, 2, got), 0);
    EQ_INT(got_flag, 9);
    for (int x = 0; x < NX; x++) EQ_DBL(got_temp[x], NC_FILL_FLOAT);
    got_flag = 0;
    void *flag_back[2] = {NULL, &got_flag};
    EQ_INT(ncrecget(ncid, 0, flag_back), 0);
    EQ_INT(got_flag, 7);
    /* The same data by hyperslab. */
    long start[2] = {0, 0}, count[2] = {1, NX};
    EQ_INT(ncvarget(ncid, TEMP, start, count, got_temp), 0);
    EQ_DBL(got_temp[3], 1.5);

    V2_ERR(NC_EINVALCOORDS, ncrecget(ncid, 10, got));
    V2_ERR(NC_EINVAL, ncrecget(ncid, 0, NULL));
}

/* ---- attributes and renames -------------------------------------------- */

static void check_attributes(int ncid)
{
    nc_type type = 0;
    int len = -1;
    char text[16] = {0};
    double range[2] = {0, 0};
    EQ_INT(ncattinq(ncid, TEMP, "valid_range", &type, &len), 1);
    EQ_INT(type, NC_DOUBLE);
    EQ_INT(len, 2);
    EQ_INT(ncattget(ncid, TEMP, "valid_range", range), 1);
    EQ_DBL(range[0], -1.5);
    EQ_DBL(range[1], 40.25);
    EQ_INT(ncattget(ncid, NC_GLOBAL, "title", text), 1);
    EQ_STR(text, "hello");

    char name[NC_MAX_NAME + 1];
    EQ_INT(ncattname(ncid, TEMP, 1, name), 1);
    EQ_STR(name, "units");
    V2_ERR(NC_ENOTATT, ncattname(ncid, TEMP, 5, name));

    EQ_INT(ncredef(ncid), 0);
    EQ_INT(ncattcopy(ncid, TEMP, "units", ncid, FLAG), 0);
    EQ_INT(ncattinq(ncid, FLAG, "units", &type, &len), 1);
    EQ_INT(type, NC_CHAR);
    EQ_INT(len, 1);
    V2_ERR(NC_ENOTATT, ncattcopy(ncid, TEMP, "missing", ncid, FLAG));
    EQ_INT(ncattrename(ncid, FLAG, "units", "unit"), 1);
    V2_ERR(NC_ENOTATT, ncattinq(ncid, FLAG, "units", &type, &len));
    EQ_INT(ncattinq(ncid, FLAG, "unit", NULL, NULL), 1);
    EQ_INT(ncattdel(ncid, FLAG, "unit"), 1);
    V2_ERR(NC_ENOTATT, ncattget(ncid, FLAG, "unit", text));
    V2_ERR(NC_ENOTATT, ncattdel(ncid, FLAG, "unit"));
    V2_ERR(NC_ENOTATT, ncattrename(ncid, FLAG, "unit", "u"));

    EQ_INT(ncdimrename(ncid, 2, "lon"), 2);
    EQ_INT(ncvarrename(ncid, GRID, "field"), GRID);
    V2_ERR(NC_ENAMEINUSE, ncvarrename(ncid, TEMP, "flag"));
    V2_ERR(NC_ENAMEINUSE, ncdimrename(ncid, 1, "time"));
    EQ_INT(ncendef(ncid), 0);
    EQ_INT(ncdimid(ncid, "lon"), 2);
    EQ_INT(ncvarid(ncid, "field"), GRID);
    V2_ERR(NC_ENOTVAR, ncvarid(ncid, "grid"));
}

/* ---- error reporting ---------------------------------------------------- */

/* In a child: set ncopts, fail a call, and report how the child ended and
 * what it wrote to stderr. */
static int child_failure(int opts, char *err_text, size_t n)
{
    int fds[2];
    TRUE_OR_FAIL(pipe(fds) == 0);
    fflush(NULL);
    pid_t pid = fork();
    TRUE_OR_FAIL(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        dup2(fds[1], 2);
        ncopts = opts;
        ncclose(BAD_NCID);
        _exit(99); /* reached only if the failure did not exit */
    }
    close(fds[1]);
    size_t got = 0;
    ssize_t r;
    while (got < n - 1 && (r = read(fds[0], err_text + got, n - 1 - got)) > 0) got += (size_t)r;
    err_text[got] = '\0';
    close(fds[0]);
    int status;
    TRUE_OR_FAIL(waitpid(pid, &status, 0) == pid);
    TRUE_OR_FAIL(WIFEXITED(status));
    return WEXITSTATUS(status);
}

/* A v2 call that must fail with -1, leave `code` in ncerr and write
 * exactly `text` to stderr (checked after stderr is restored, so a
 * failing check is seen). */
#define V2_ERR_SAYS(code, text, call) do { \
    struct capture _c = capture_stderr(); \
    ncerr = 0; \
    int _r = (call), _e = ncerr; \
    const char *_t = end_capture(_c); \
    EQ_INT(_r, -1); EQ_INT(_e, (code)); EQ_STR(_t, (text)); } while (0)

static void check_error_reporting(int ncid)
{
    /* Quiet: -1 and ncerr, nothing on stderr. */
    V2_ERR_SAYS(NC_EBADID, "", ncclose(BAD_NCID));
    V2_ERR_SAYS(NC_EBADID, "", ncredef(BAD_NCID));
    V2_ERR_SAYS(NC_EBADID, "", ncendef(BAD_NCID));
    V2_ERR_SAYS(NC_EBADID, "", ncsync(BAD_NCID));
    V2_ERR_SAYS(NC_EBADID, "", ncabort(BAD_NCID));
    V2_ERR_SAYS(NC_EBADID, "", ncsetfill(BAD_NCID, NC_FILL));
    V2_ERR_SAYS(NC_EBADID, "", ncinquire(BAD_NCID, NULL, NULL, NULL, NULL));
    V2_ERR_SAYS(NC_EBADID, "", ncrecinq(BAD_NCID, NULL, NULL, NULL));
    V2_ERR_SAYS(NC_EBADID, "", ncrecput(BAD_NCID, 0, NULL));
    V2_ERR_SAYS(NC_EBADID, "", ncvarget(BAD_NCID, 0, NULL, NULL, NULL));
    V2_ERR_SAYS(NC_EBADID, "", ncattget(BAD_NCID, 0, "a", NULL));

    /* As netcdf-c: with a map, a failed variable lookup is returned as
     * its status, unreported. */
    long map[2] = {4, 4}, start[2] = {0, 0};
    ncerr = 0;
    EQ_INT(ncvargetg(BAD_NCID, 0, start, start, NULL, map, NULL), NC_EBADID);
    EQ_INT(ncerr, 0);
    EQ_INT(ncvarputg(ncid, 77, start, start, NULL, map, NULL), NC_ENOTVAR);
    EQ_INT(ncerr, 0);

    /* Verbose: "routine: message: nc_strerror" on stderr. */
    ncopts = NC_VERBOSE;
    V2_ERR_SAYS(NC_EBADID, "ncclose: ncid 12345: NetCDF: Not a valid ID\n", ncclose(BAD_NCID));
    char expected[256];
    snprintf(expected, sizeof expected, "ncvarget: ncid %d; varid 42: NetCDF: Variable not found\n", ncid);
    V2_ERR_SAYS(NC_ENOTVAR, expected, ncvarget(ncid, 42, start, start, NULL));
    snprintf(expected, sizeof expected, "ncattinq: ncid %d; varid %d; attname \"nope\": NetCDF: Attribute not found\n",
             ncid, TEMP);
    V2_ERR_SAYS(NC_ENOTATT, expected, ncattinq(ncid, TEMP, "nope", NULL, NULL));
    /* netcdf-c reports ncvarget1 as "ncdimid". */
    snprintf(expected, sizeof expected, "ncdimid: ncid %d: NetCDF: Variable not found\n", ncid);
    V2_ERR_SAYS(NC_ENOTVAR, expected, ncvarget1(ncid, 42, start, NULL));
    V2_ERR_SAYS(NC_ENOTATT, "ncattcopy: nope: NetCDF: Attribute not found\n", ncattcopy(ncid, TEMP, "nope", ncid, FLAG));
    V2_ERR_SAYS(NC_EINVAL, "ncopen: filename \"(null)\": NetCDF: Invalid argument\n", ncopen(NULL, NC_NOWRITE));

    /* nc_advise itself: printf formatting; a positive status is a system
     * error (ncerr NC_SYSERR, the system's text); NC_NOERR prints the
     * message alone. */
    struct capture c = capture_stderr();
    nc_advise("myroutine", NC_EINVAL, "value %d of %s", 7, "seven");
    EQ_STR(end_capture(c), "myroutine: value 7 of seven: NetCDF: Invalid argument\n");
    EQ_INT(ncerr, NC_EINVAL);
    c = capture_stderr();
    nc_advise("sys", ENOENT, "path %s", "p");
    const char *text = end_capture(c);
    snprintf(expected, sizeof expected, "sys: path p: %s\n", strerror(ENOENT));
    EQ_STR(text, expected);
    EQ_INT(ncerr, NC_SYSERR);
    ncopts = NC_FATAL | NC_VERBOSE;
    c = capture_stderr();
    nc_advise("fine", NC_NOERR, "all %s", "good"); /* does not exit */
    EQ_STR(end_capture(c), "fine: all good\n");
    EQ_INT(ncerr, NC_NOERR);
    ncopts = 0;

    /* Fatal: exit(ncopts), with or without the message. */
    char child_err[256];
    EQ_INT(child_failure(NC_FATAL, child_err, sizeof child_err), NC_FATAL);
    EQ_STR(child_err, "");
    EQ_INT(child_failure(NC_FATAL | NC_VERBOSE, child_err, sizeof child_err), NC_FATAL | NC_VERBOSE);
    EQ_STR(child_err, "ncclose: ncid 12345: NetCDF: Not a valid ID\n");
    EQ_INT(child_failure(NC_VERBOSE, child_err, sizeof child_err), 99);
}

int main(void)
{
    EQ_INT(ncopts, NC_FATAL | NC_VERBOSE); /* netcdf-c's default */
    ncopts = 0;

    EQ_INT(nctypelen(NC_BYTE), 1);
    EQ_INT(nctypelen(NC_CHAR), 1);
    EQ_INT(nctypelen(NC_SHORT), 2);
    EQ_INT(nctypelen(NC_INT), 4);
    EQ_INT(nctypelen(NC_FLOAT), 4);
    EQ_INT(nctypelen(NC_DOUBLE), 8);
    EQ_INT(nctypelen(NC_UINT64), 8);
    EQ_INT(nctypelen(NC_STRING), sizeof(char *));
    EQ_INT(nctypelen(NC_NAT), -1);
    EQ_INT(nctypelen(1000), -1);

    const char *url = test_url("v2");
    int ncid = define_dataset(url);
    check_inquiries(ncid);
    check_data(ncid);
    check_records(ncid);
    check_attributes(ncid);
    check_error_reporting(ncid);
    EQ_INT(ncsync(ncid), 0);
    EQ_INT(ncclose(ncid), 0);
    V2_ERR(NC_EBADID, ncclose(ncid));

    /* Reopen: what was written is there. */
    ncid = ncopen(url, NC_NOWRITE);
    TRUE_OR_FAIL(ncid >= 0);
    EQ_INT(ncvarid(ncid, "field"), GRID);
    short flag = 0;
    EQ_INT(ncvarget1(ncid, FLAG, (long[]){2}, &flag), 0);
    EQ_INT(flag, 9);
    long len = 0;
    char title[8] = {0};
    EQ_INT(ncattget(ncid, NC_GLOBAL, "title", title), 1);
    EQ_STR(title, "hello");
    EQ_INT(ncdiminq(ncid, 0, NULL, &len), 0);
    EQ_INT(len, 3);
    V2_ERR(NC_EPERM, ncvarput1(ncid, FLAG, (long[]){0}, &flag));
    EQ_INT(ncabort(ncid), 0);

    TRUE_OR_FAIL(ncopen("file://missing.zarr#mode=nczarr,file", NC_NOWRITE) == -1);
    TRUE_OR_FAIL(ncerr != NC_NOERR);

    /* Without an unlimited dimension there are no record variables. */
    ncid = nccreate(test_url("v2_norec"), NC_CLOBBER);
    int x = ncdimdef(ncid, "x", 2);
    EQ_INT(ncvardef(ncid, "v", NC_INT, 1, &x), 0);
    EQ_INT(ncendef(ncid), 0);
    int nrec = -1, ids[1] = {-1};
    EQ_INT(ncrecinq(ncid, &nrec, ids, NULL), 0);
    EQ_INT(nrec, 0);
    EQ_INT(ids[0], -1);
    EQ_INT(ncrecput(ncid, 0, NULL), 0);
    EQ_INT(ncrecget(ncid, 0, NULL), 0);
    EQ_INT(ncclose(ncid), 0);
    PASS();
}
