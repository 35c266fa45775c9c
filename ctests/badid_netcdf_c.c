/* badid_netcdf_c.c -- the calls of badid_all.inc (t_badid), each run in
 * its own forked child so that a call which crashes a library is seen as
 * a crash and not the end of the run, printing what every call gave next
 * to what badid_all.inc expects. ctests/t_badid_netcdf_c.sh builds it
 * against our library, Debian's netcdf-c 4.9.0 and netcdf-c 4.10.1 (the
 * netCDF4 wheel's) and compares (ctests/badid_compare.py).
 *
 * It includes a copy of badid_all.inc in which every "(void)call;" line
 * is "VOID(MODE, "mode:name", call);" (the harness's sed), so those run
 * in a child too. Functions a library does not export are not called
 * ("absent"): the program is linked with unresolved symbols allowed and
 * asks the dynamic linker for each name first.
 *
 * Output, one line per call:
 *   <ids>\t<mode:name>\t<kind>\t<expected>\t<got>
 * <ids> names the ids bad_ids was given (t_badid's main, in order) or
 * "null"; <kind> is rc (an int result), ptr (a pointer: 0 = NULL, 1 = not)
 * or void; <expected> is badid_all.inc's value ("returns" for void
 * functions, "?" when not known); <got>
 * is a number, "returns", "crash:<signal>", "exit:<status>",
 * "timeout" or "absent". */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <netcdf.h>
#include <netcdf_filter.h>
#include <netcdf_mem.h>
#include <netcdf_aux.h>
#include <netcdf_f.h>
#include "abi/tools_abi.h"
/* "#pragma weak" for every function badid_all.inc calls (the harness
 * writes it): those a library lacks link as NULL, and are not called. */
#include "badid_weak.h"

#define NONNULL 1
#define RETURNS 424242
#define PLACEHOLDER (-12345) /* null_args' ncid in the parent */

/* Shared with the children: what the call gave, and ncerr after it. */
static struct shared {
    int result;
    int ncerr;
    long long expect;
} *shared;
static int last_ncerr; /* the previous child's ncerr */
static const char *ids = "null";
static const char *kind; /* "rc", "ptr" or "void": what the call returns */
static int ncid; /* bad_ids' calls name it; null_args has its own */

/* Is the function `what` ("mode:name[:ncerr]") exported by some loaded
 * library? */
static int present(const char *what)
{
    char name[256];
    const char *start = strchr(what, ':') + 1;
    size_t n = strcspn(start, ":");
    snprintf(name, sizeof name, "%.*s", (int)n, start);
    return dlsym(RTLD_DEFAULT, name) != NULL;
}

/* A dataset in define mode, as t_badid's fresh(): dimension x (2), int
 * variable v(x) with attribute b, global attribute a, group g. Made in
 * the child, so our library sees a dataset of its own process (datasets
 * inherited over fork are read-only there). */
static int really_fresh(void)
{
    int id, x, v, g, i = 7;
    if (nc_create("file://nullargs.zarr#mode=nczarr,file", NC_CLOBBER, &id) || nc_def_dim(id, "x", 2, &x) || nc_def_var(id, "v", NC_INT, 1, &x, &v) ||
        nc_put_att_int(id, NC_GLOBAL, "a", NC_INT, 1, &i) || nc_put_att_int(id, v, "b", NC_INT, 1, &i) ||
        nc_def_grp(id, "g", &g)) {
        fprintf(stderr, "fresh dataset: failed\n");
        _exit(100);
    }
    return id;
}

/* In the parent, the .inc's fresh() and done() do nothing. */
static int fresh(void)
{
    return PLACEHOLDER;
}
static void done(int id) { (void)id; }

/* One line of output (the expected value as the child computed it: it
 * may name the child's dataset; RETURNS + 3 when not known). */
static void print_line(const char *what, long long want, const char *got)
{
    if (want == RETURNS) printf("%s\t%s\t%s\treturns\t%s\n", ids, what, kind, got);
    else if (want == RETURNS + 3) printf("%s\t%s\t%s\t?\t%s\n", ids, what, kind, got);
    else printf("%s\t%s\t%s\t%lld\t%s\n", ids, what, kind, want, got);
}

/* A "mode:name:ncerr" line: ncerr as the child of the call before left
 * it ("absent" when that call was not made, "none" when it died). */
static void report_ncerr(const char *what, long long want)
{
    char got[64];
    if (last_ncerr == RETURNS + 1) snprintf(got, sizeof got, "absent");
    else if (last_ncerr == RETURNS + 2) snprintf(got, sizeof got, "none");
    else snprintf(got, sizeof got, "%d", last_ncerr);
    print_line(what, want, got);
}

/* Run `call` in a child (which first makes its dataset, for null_args)
 * and print what it gave; `store` keeps the result in `shared`. */
#define RUN(mode, what, call, want, store)                                              \
    do {                                                                                \
        if (!present(what)) {                                                           \
            last_ncerr = RETURNS + 1;                                                   \
            long long _w = (want);                                                      \
            print_line(what, _w == PLACEHOLDER ? RETURNS + 3 : _w, "absent");           \
            break;                                                                      \
        }                                                                               \
        shared->result = RETURNS + 3;                                                   \
        shared->ncerr = RETURNS + 2;                                                    \
        shared->expect = RETURNS + 3;                                                   \
        fflush(stdout);                                                                 \
        pid_t _pid = fork();                                                            \
        if (_pid == 0) {                                                                \
            alarm(20);                                                                  \
            if ((mode)[0] == 'n') ncid = really_fresh();                                \
            shared->expect = (want);                                                    \
            store;                                                                      \
            shared->ncerr = ncerr;                                                      \
            if ((mode)[0] == 'n') (void)nc_close(ncid);                                 \
            _exit(0);                                                                   \
        }                                                                               \
        int _st;                                                                        \
        waitpid(_pid, &_st, 0);                                                         \
        char _got[64];                                                                  \
        if (WIFSIGNALED(_st) && WTERMSIG(_st) == SIGALRM)                               \
            snprintf(_got, sizeof _got, "timeout");                                     \
        else if (WIFSIGNALED(_st))                                                      \
            snprintf(_got, sizeof _got, "crash:%s", sigabbrev_np(WTERMSIG(_st)));       \
        else if (WEXITSTATUS(_st) != 0)                                                 \
            snprintf(_got, sizeof _got, "exit:%d", WEXITSTATUS(_st));                   \
        else if (shared->result == RETURNS)                                             \
            snprintf(_got, sizeof _got, "returns");                                     \
        else                                                                            \
            snprintf(_got, sizeof _got, "%d", shared->result);                          \
        last_ncerr = WIFEXITED(_st) && WEXITSTATUS(_st) == 0 ? shared->ncerr : RETURNS + 2; \
        print_line(what, shared->expect, _got);                                         \
    } while (0)

/* badid_all.inc's three forms (and VOID, the harness's for "(void)call;"). */
#define RC(mode, what, call, want)                                                      \
    do {                                                                                \
        kind = "rc";                                                                    \
        if (strlen(what) > 6 && strcmp((what) + strlen(what) - 6, ":ncerr") == 0)      \
            report_ncerr(what, want);                                                   \
        else                                                                            \
            RUN(mode, what, call, want, shared->result = (int)(call));                  \
    } while (0)
#define PTR(mode, what, call, want)                                                     \
    do {                                                                                \
        kind = "ptr";                                                                   \
        RUN(mode, what, call, want, shared->result = (call) != NULL);                   \
    } while (0)
#define VOID(mode, what, call)                                                          \
    do {                                                                                \
        kind = "void";                                                                  \
        RUN(mode, what, call, RETURNS, ((call), shared->result = RETURNS));             \
    } while (0)

#include "badid_forked.inc"

int main(void)
{
    int id, grp, x;
    shared = mmap(NULL, sizeof *shared, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (shared == MAP_FAILED) return 2;
    setvbuf(stdout, NULL, _IOLBF, 0);
    ncopts = 0;
    /* t_badid's main, in the same order: a dataset with a group, closed. */
    if (nc_create("file://badid.zarr#mode=nczarr,file", NC_CLOBBER, &id) || nc_def_dim(id, "x", 2, &x) ||
        nc_def_grp(id, "g", NULL) || nc_inq_ncid(id, "g", &grp) || nc_close(id)) {
        fprintf(stderr, "setup failed\n");
        return 2;
    }
    ids = "closed"; bad_ids(id);
    ids = "closed-group"; bad_ids(grp);
    ids = "-1"; bad_ids(-1);
    ids = "0"; bad_ids(0);
    ids = "0x7fffffff"; bad_ids(0x7fffffff);
    ids = "0x80000000"; bad_ids((int)0x80000000);
    ids = "garbage"; bad_ids(0x10000 * 4000 + 17);
    if (nc_create("file://badid2.zarr#mode=nczarr,file", NC_CLOBBER, &id)) return 2;
    ids = "open+5"; bad_ids(id + 5);
    if (nc_close(id)) return 2;
    ids = "null";
    null_args();
    return 0;
}
