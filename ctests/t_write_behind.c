/* Write-behind (src/io/write_behind.rs): chunks a write completes after
 * assembling them over several calls (one time step per call) are stored
 * on a library thread while the program goes on. None of it may show:
 *
 * - each band of steps reads back right after the step that completes
 *   it, on the same handle (the read waits for the chunks in flight),
 *   with inquiries between steps; the dataset holds every value once
 *   closed and reopened;
 * - a write over chunks in flight (a step rewritten at once after its
 *   band completed) lands after them, and a read between sees it;
 * - two variables written in turn, each completing bands;
 * - a fork just after a band is handed on: the child reads every value
 *   its parent wrote, the chunks in flight included, cannot write, and
 *   closes without writing; the parent's dataset is whole after its
 *   close.
 *
 * Edge chunks on two dimensions (40 = 16+16+8, 48 = 32+16). A failing
 * store of chunks in flight is in t_write_errors (EFBIG). */
#include "testutil.h"
#include <sys/wait.h>
#include <unistd.h>

#define NT 32
#define NY 40
#define NX 48

static int value(int var, int t, int y, int x) { return var * 1000000 + t * 10000 + y * 100 + x; }

static void make_step(int *b, int var, int t, int bump)
{
    for (int y = 0; y < NY; y++)
        for (int x = 0; x < NX; x++) b[y * NX + x] = value(var, t, y, x) + bump;
}

/* Steps [0, upto) of variable `v` (number `var`) hold their values;
 * step `bumped` (or -1) holds them plus 7. Returns how many differ. */
static int check_steps(int ncid, int v, int var, int upto, int bumped)
{
    static int got[NT * NY * NX];
    size_t start[3] = {0, 0, 0}, count[3] = {(size_t)upto, NY, NX};
    if (upto == 0) return 0;
    OK(nc_get_vara_int(ncid, v, start, count, got));
    int bad = 0;
    for (int t = 0; t < upto; t++)
        for (int y = 0; y < NY; y++)
            for (int x = 0; x < NX; x++) {
                int want = value(var, t, y, x) + (t == bumped ? 7 : 0);
                if (got[(t * NY + y) * NX + x] != want && bad++ < 5)
                    fprintf(stderr, "var %d [%d][%d][%d] = %d, expected %d\n", var, t, y, x,
                            got[(t * NY + y) * NX + x], want);
            }
    return bad;
}

static int create(const char *url, int nvars, int *vids)
{
    int ncid, d[3];
    size_t chunks[3] = {8, 16, 32};
    OK(nc_create(url, NC_CLOBBER | NC_NETCDF4, &ncid));
    OK(nc_def_dim(ncid, "t", NT, &d[0]));
    OK(nc_def_dim(ncid, "y", NY, &d[1]));
    OK(nc_def_dim(ncid, "x", NX, &d[2]));
    for (int k = 0; k < nvars; k++) {
        char name[16];
        snprintf(name, sizeof name, "v%d", k);
        OK(nc_def_var(ncid, name, NC_INT, 3, d, &vids[k]));
        OK(nc_def_var_chunking(ncid, vids[k], NC_CHUNKED, chunks));
    }
    OK(nc_enddef(ncid));
    return ncid;
}

static void put_step(int ncid, int v, int var, int t, int bump)
{
    static int b[NY * NX];
    size_t start[3] = {(size_t)t, 0, 0}, count[3] = {1, NY, NX};
    make_step(b, var, t, bump);
    OK(nc_put_vara_int(ncid, v, start, count, b));
}

/* Each band read back as soon as it is complete (a read of a band still
 * being assembled would make its chunks whole early: they would then be
 * stored when evicted, not handed on); a step rewritten just after its
 * band completed. */
static void read_back_at_once(void)
{
    const char *url = test_url("at_once");
    int v, ncid = create(url, 1, &v), nvars;
    for (int t = 0; t < NT; t++) {
        put_step(ncid, v, 0, t, 0);
        OK(nc_inq_nvars(ncid, &nvars));
        EQ_INT(nvars, 1);
        if (t % 8 == 7) EQ_INT(check_steps(ncid, v, 0, t + 1, -1), 0);
    }
    OK(nc_close(ncid));
    OK(nc_open(url, NC_WRITE, &ncid));
    EQ_INT(check_steps(ncid, v, 0, NT, -1), 0);
    OK(nc_close(ncid));

    /* Rewrite: step 7 completes the first band; step 5 is rewritten by
     * the very next call, over the chunks in flight. */
    ncid = create(url, 1, &v);
    for (int t = 0; t < 8; t++) put_step(ncid, v, 0, t, 0);
    put_step(ncid, v, 0, 5, 7);
    for (int t = 8; t < NT; t++) put_step(ncid, v, 0, t, 0);
    EQ_INT(check_steps(ncid, v, 0, NT, 5), 0);
    OK(nc_close(ncid));
    OK(nc_open(url, NC_NOWRITE, &ncid));
    EQ_INT(check_steps(ncid, v, 0, NT, 5), 0);
    OK(nc_close(ncid));
}

/* Two variables in turn: each hand-off waits for the other's. */
static void two_variables(void)
{
    const char *url = test_url("two_vars");
    int v[2], ncid = create(url, 2, v);
    for (int t = 0; t < NT; t++)
        for (int k = 0; k < 2; k++) put_step(ncid, v[k], k, t, 0);
    OK(nc_close(ncid));
    OK(nc_open(url, NC_NOWRITE, &ncid));
    for (int k = 0; k < 2; k++) EQ_INT(check_steps(ncid, v[k], k, NT, -1), 0);
    OK(nc_close(ncid));
}

/* fork with a band in flight. */
static void fork_in_flight(void)
{
    const char *url = test_url("forked");
    int v, ncid = create(url, 1, &v);
    for (int t = 0; t < 16; t++) put_step(ncid, v, 0, t, 0); /* step 15 hands the second band on */
    fflush(NULL);
    pid_t pid = fork();
    TRUE_OR_FAIL(pid >= 0);
    if (pid == 0) {
        int bad = check_steps(ncid, v, 0, 16, -1), one = 1;
        size_t at[3] = {0, 0, 0};
        if (nc_put_var1_int(ncid, v, at, &one) != NC_EPERM) bad++;
        if (nc_close(ncid) != NC_NOERR) bad++;
        _exit(bad ? 1 : 0);
    }
    int status;
    TRUE_OR_FAIL(waitpid(pid, &status, 0) == pid);
    TRUE_OR_FAIL(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    for (int t = 16; t < NT; t++) put_step(ncid, v, 0, t, 0);
    OK(nc_close(ncid));
    OK(nc_open(url, NC_NOWRITE, &ncid));
    EQ_INT(check_steps(ncid, v, 0, NT, -1), 0);
    OK(nc_close(ncid));
}

int main(void)
{
    read_back_at_once();
    two_variables();
    fork_in_flight();
    PASS();
}
