/* Write failures are errors: nc_sync and nc_close report them (the
 * system's errno as a positive code, as netcdf-c does; EACCES/EPERM as
 * NC_EAUTH and ENOENT as NC_ENOOBJECT, netcdf-c's file driver mapping), a
 * dataset whose close failed stays open so the caller can retry or abort,
 * and meanwhile the store reads as its previous complete state or the new
 * one, never a half-written object.
 *
 * Each case runs in its own child process:
 * - a file size limit (setrlimit RLIMIT_FSIZE, SIGXFSZ ignored): EFBIG,
 *   for data and for metadata, and for chunks a write handed on to be
 *   stored behind it (src/io/write_behind.rs): that write returns, the
 *   failure comes from nc_sync and nc_close, and the retry stores them;
 * - a read-only directory (as root, the child drops to nobody, since root
 *   ignores permissions): NC_EAUTH, a commit failing half-way;
 * - the store deleted underneath: NC_ENOOBJECT, and it is not recreated;
 * - a full file system (a 256 KiB tmpfs in a private mount namespace):
 *   ENOSPC; skipped where mounting is not allowed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "testutil.h"

#define N 4096
#define SKIP 77

static char url_buf[1024];
static const char *url_of(const char *path)
{
    snprintf(url_buf, sizeof url_buf, "file://%s#mode=nczarr,file", path);
    return url_buf;
}

static void fill_ints(int *v, int base)
{
    for (int i = 0; i < N; i++) v[i] = base + i;
}

/* Every value of an int variable is base0+i for all i, or base1+i for all
 * i (one chunk: old or new, never a mix). Returns which (0 or 1). */
static int whole_chunk(int ncid, int varid, int base0, int base1)
{
    static int v[N];
    OK(nc_get_var_int(ncid, varid, v));
    int which = v[0] == base1 + 0;
    for (int i = 0; i < N; i++)
        if (v[i] != (which ? base1 : base0) + i) FAIL("value %d is %d: a mix of old (%d) and new (%d)", i, v[i], base0, base1);
    return which;
}

/* ---- EFBIG ---------------------------------------------------------- */
static void set_fsize(rlim_t soft)
{
    struct rlimit rl;
    TRUE_OR_FAIL(getrlimit(RLIMIT_FSIZE, &rl) == 0);
    rl.rlim_cur = soft == RLIM_INFINITY ? rl.rlim_max : soft;
    TRUE_OR_FAIL(setrlimit(RLIMIT_FSIZE, &rl) == 0);
}

static int efbig(void)
{
    signal(SIGXFSZ, SIG_IGN);
    char path[512];
    TRUE_OR_FAIL(getcwd(path, 400) != NULL);
    strcat(path, "/efbig.zarr");
    const char *url = url_of(path);
    int nc, x, small, big, nvars;
    static int v[N];
    static double d[N];
    size_t chunk = N;
    OK(nc_create(url, NC_CLOBBER, &nc));
    OK(nc_def_dim(nc, "x", N, &x));
    OK(nc_def_var(nc, "small", NC_INT, 1, &x, &small)); /* one 16 KiB chunk */
    OK(nc_def_var_chunking(nc, small, NC_CHUNKED, &chunk));
    OK(nc_def_var(nc, "big", NC_DOUBLE, 1, &x, &big)); /* one 32 KiB chunk */
    OK(nc_def_var_chunking(nc, big, NC_CHUNKED, &chunk));
    fill_ints(v, 100000);
    OK(nc_put_var_int(nc, small, v));
    OK(nc_close(nc));

    /* Data: the 32 KiB chunk cannot be written under a 20000-byte limit. */
    OK(nc_open(url, NC_WRITE, &nc));
    for (int i = 0; i < N; i++) d[i] = i + 0.5;
    OK(nc_put_var_double(nc, big, d));
    fill_ints(v, 200000);
    OK(nc_put_var_int(nc, small, v));
    set_fsize(20000);
    ERR(EFBIG, nc_sync(nc));
    ERR(EFBIG, nc_close(nc));
    OK(nc_inq_nvars(nc, &nvars)); /* still open */
    EQ_INT(nvars, 2);
    int rd;
    OK(nc_open(url, NC_NOWRITE, &rd));
    whole_chunk(rd, small, 100000, 200000);
    OK(nc_get_var_double(rd, big, d));
    for (int i = 0; i < N; i++) EQ_DBL(d[i], NC_FILL_DOUBLE); /* never half a chunk */
    OK(nc_close(rd));
    set_fsize(RLIM_INFINITY);
    OK(nc_close(nc)); /* the retry writes everything */
    OK(nc_open(url, NC_NOWRITE, &rd));
    EQ_INT(whole_chunk(rd, small, 100000, 200000), 1);
    OK(nc_get_var_double(rd, big, d));
    for (int i = 0; i < N; i++) EQ_DBL(d[i], i + 0.5);
    OK(nc_close(rd));

    /* Metadata: an attribute too big for the limit. */
    static char text[30000];
    memset(text, 'a', sizeof text);
    OK(nc_open(url, NC_WRITE, &nc));
    OK(nc_redef(nc));
    OK(nc_put_att_text(nc, NC_GLOBAL, "long", sizeof text, text));
    int extra;
    OK(nc_def_var(nc, "extra", NC_INT, 1, &x, &extra));
    set_fsize(20000);
    ERR(EFBIG, nc_enddef(nc));
    ERR(EFBIG, nc_close(nc));
    OK(nc_open(url, NC_NOWRITE, &rd));
    size_t len;
    ERR(NC_ENOTATT, nc_inq_attlen(rd, NC_GLOBAL, "long", &len));
    ERR(NC_ENOTVAR, nc_inq_varid(rd, "extra", &extra));
    OK(nc_close(rd));
    set_fsize(RLIM_INFINITY);
    OK(nc_close(nc));
    OK(nc_open(url, NC_NOWRITE, &rd));
    OK(nc_inq_attlen(rd, NC_GLOBAL, "long", &len));
    EQ_INT(len, sizeof text);
    OK(nc_inq_varid(rd, "extra", &extra));
    OK(nc_close(rd));
    return 0;
}

/* Does the file `name` in directory `dir` contain `needle`? */
static int file_has(const char *dir, const char *name, const char *needle)
{
    char p[1024];
    static char buf[1 << 20];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "r");
    if (!f) return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    return strstr(buf, needle) != NULL;
}

/* EFBIG for chunks stored behind the write that completed them: each of
 * the 8 steps sets one row of 4 KiB in each of the two 32 KiB chunks of
 * [8][2][1024] ints, which the eighth step completes and hands on. */
static int efbig_behind(void)
{
    signal(SIGXFSZ, SIG_IGN);
    char path[512];
    TRUE_OR_FAIL(getcwd(path, 400) != NULL);
    strcat(path, "/behind.zarr");
    const char *url = url_of(path);
    int nc, rd, d[3], v, nvars;
    static int step[2 * 1024], all[8 * 2 * 1024];
    size_t chunks[3] = {8, 1, 1024};
    OK(nc_create(url, NC_CLOBBER, &nc));
    OK(nc_def_dim(nc, "t", 8, &d[0]));
    OK(nc_def_dim(nc, "y", 2, &d[1]));
    OK(nc_def_dim(nc, "x", 1024, &d[2]));
    OK(nc_def_var(nc, "v", NC_INT, 3, d, &v));
    OK(nc_def_var_chunking(nc, v, NC_CHUNKED, chunks));
    OK(nc_enddef(nc));
    set_fsize(20000);
    for (int t = 0; t < 8; t++) {
        for (int i = 0; i < 2 * 1024; i++) step[i] = t * 100000 + i;
        size_t start[3] = {(size_t)t, 0, 0}, count[3] = {1, 2, 1024};
        OK(nc_put_vara_int(nc, v, start, count, step)); /* the last one too: it hands on */
    }
    OK(nc_inq_nvars(nc, &nvars)); /* waits for the storer, whose stores failed */
    EQ_INT(nvars, 1);
    ERR(EFBIG, nc_sync(nc));
    ERR(EFBIG, nc_close(nc));
    OK(nc_open(url, NC_NOWRITE, &rd));
    OK(nc_get_var_int(rd, v, all));
    for (int i = 0; i < 8 * 2 * 1024; i++) EQ_INT(all[i], NC_FILL_INT);
    OK(nc_close(rd));
    set_fsize(RLIM_INFINITY);
    OK(nc_close(nc)); /* the retry stores them */
    OK(nc_open(url, NC_NOWRITE, &rd));
    OK(nc_get_var_int(rd, v, all));
    for (int t = 0; t < 8; t++)
        for (int y = 0; y < 2; y++)
            for (int x = 0; x < 1024; x++) EQ_INT(all[(t * 2 + y) * 1024 + x], t * 100000 + y * 1024 + x);
    OK(nc_close(rd));
    return 0;
}

/* ---- read-only directory ------------------------------------------- */
static int readonly(void)
{
    char dir[512];
    if (geteuid() == 0) {
        /* Root ignores permissions: work as nobody in a directory of its own. */
        strcpy(dir, "/tmp/nczarr-rs-ro-XXXXXX");
        TRUE_OR_FAIL(mkdtemp(dir) != NULL);
        TRUE_OR_FAIL(chmod(dir, 0755) == 0 && chown(dir, 65534, 65534) == 0);
        TRUE_OR_FAIL(setgroups(0, NULL) == 0 && setgid(65534) == 0 && setuid(65534) == 0);
    } else {
        TRUE_OR_FAIL(getcwd(dir, 400) != NULL);
    }
    char path[600], gpath[650];
    snprintf(path, sizeof path, "%s/ro.zarr", dir);
    snprintf(gpath, sizeof gpath, "%s/g", path);
    const char *url = url_of(path);
    int nc, g, x, r, gv, rd, rg;
    static int v[N];
    size_t chunk = N;
    OK(nc_create(url, NC_CLOBBER, &nc));
    OK(nc_def_dim(nc, "x", N, &x));
    OK(nc_def_grp(nc, "g", &g));
    OK(nc_def_var(nc, "r", NC_INT, 1, &x, &r));
    OK(nc_def_var_chunking(nc, r, NC_CHUNKED, &chunk));
    OK(nc_def_var(g, "v", NC_INT, 1, &x, &gv));
    OK(nc_def_var_chunking(g, gv, NC_CHUNKED, &chunk));
    fill_ints(v, 1000);
    OK(nc_put_var_int(nc, r, v));
    OK(nc_put_var_int(g, gv, v));
    OK(nc_close(nc));

    /* The group's directory read-only: the commit fails half-way. */
    OK(nc_open(url, NC_WRITE, &nc));
    OK(nc_inq_grp_ncid(nc, "g", &g));
    fill_ints(v, 5000);
    OK(nc_put_var_int(nc, r, v));
    OK(nc_put_var_int(g, gv, v));
    OK(nc_put_att_text(g, NC_GLOBAL, "added", 1, "y"));
    TRUE_OR_FAIL(chmod(gpath, 0555) == 0);
    ERR(NC_EAUTH, nc_close(nc));
    OK(nc_inq_varid(nc, "r", &r)); /* still open */
    TRUE_OR_FAIL(file_has(path, ".zmetadata", "nczarr_rs_pending")); /* stopped mid-commit */
    OK(nc_open(url, NC_NOWRITE, &rd));
    OK(nc_inq_grp_ncid(rd, "g", &rg));
    whole_chunk(rd, r, 1000, 5000);
    whole_chunk(rg, gv, 1000, 5000);
    OK(nc_close(rd));
    TRUE_OR_FAIL(chmod(gpath, 0755) == 0);
    OK(nc_close(nc));
    OK(nc_open(url, NC_NOWRITE, &rd));
    OK(nc_inq_grp_ncid(rd, "g", &rg));
    EQ_INT(whole_chunk(rd, r, 1000, 5000), 1);
    EQ_INT(whole_chunk(rg, gv, 1000, 5000), 1);
    size_t len;
    OK(nc_inq_attlen(rg, NC_GLOBAL, "added", &len));
    OK(nc_close(rd));

    /* The whole store read-only: nothing can be written; abort keeps the
     * last state. */
    OK(nc_open(url, NC_WRITE, &nc));
    fill_ints(v, 9000);
    OK(nc_put_var_int(nc, r, v));
    OK(nc_rename_var(nc, r, "r2"));
    TRUE_OR_FAIL(chmod(path, 0555) == 0);
    ERR(NC_EAUTH, nc_close(nc));
    OK(nc_open(url, NC_NOWRITE, &rd));
    OK(nc_inq_varid(rd, "r2", &r)); /* the rename was published */
    EQ_INT(whole_chunk(rd, r, 5000, 9000), 0);
    OK(nc_close(rd));
    TRUE_OR_FAIL(chmod(path, 0755) == 0);
    OK(nc_abort(nc));
    OK(nc_open(url, NC_NOWRITE, &rd));
    OK(nc_inq_varid(rd, "r", &r)); /* abort took the rename back */
    EQ_INT(whole_chunk(rd, r, 5000, 9000), 0);
    OK(nc_close(rd));
    if (geteuid() != 0 && strncmp(dir, "/tmp/", 5) == 0) {
        char cmd[600];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        TRUE_OR_FAIL(system(cmd) == 0);
    }
    return 0;
}

/* ---- deleted underneath -------------------------------------------- */
static int deleted(void)
{
    char path[512], cmd[600];
    TRUE_OR_FAIL(getcwd(path, 400) != NULL);
    strcat(path, "/gone.zarr");
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
    const char *url = url_of(path);
    int nc, x, var, nvars;
    static int v[N];
    OK(nc_create(url, NC_CLOBBER, &nc));
    OK(nc_def_dim(nc, "x", N, &x));
    OK(nc_def_var(nc, "v", NC_INT, 1, &x, &var));
    fill_ints(v, 1);
    OK(nc_put_var_int(nc, var, v));
    OK(nc_sync(nc));
    TRUE_OR_FAIL(system(cmd) == 0);
    fill_ints(v, 2);
    OK(nc_put_var_int(nc, var, v));
    ERR(NC_ENOOBJECT, nc_sync(nc));
    ERR(NC_ENOOBJECT, nc_close(nc));
    OK(nc_inq_nvars(nc, &nvars));
    TRUE_OR_FAIL(access(path, F_OK) != 0); /* not recreated */
    OK(nc_abort(nc));

    /* An opened dataset, deleted before its close. */
    OK(nc_create(url, NC_CLOBBER, &nc));
    OK(nc_def_dim(nc, "x", N, &x));
    OK(nc_def_var(nc, "v", NC_INT, 1, &x, &var));
    OK(nc_close(nc));
    OK(nc_open(url, NC_WRITE, &nc));
    OK(nc_redef(nc));
    OK(nc_put_att_int(nc, NC_GLOBAL, "a", NC_INT, 1, &nvars));
    TRUE_OR_FAIL(system(cmd) == 0);
    ERR(NC_ENOOBJECT, nc_close(nc));
    TRUE_OR_FAIL(access(path, F_OK) != 0);
    OK(nc_abort(nc));
    return 0;
}

/* ---- full file system ------------------------------------------------ */
static int enospc(void)
{
    char dir[512];
    TRUE_OR_FAIL(getcwd(dir, 400) != NULL);
    strcat(dir, "/small");
    TRUE_OR_FAIL(mkdir(dir, 0755) == 0);
    if (unshare(CLONE_NEWNS) != 0 && unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) return SKIP;
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) return SKIP;
    if (mount("tmpfs", dir, "tmpfs", 0, "size=256k") != 0) return SKIP;
    char path[600];
    snprintf(path, sizeof path, "%s/full.zarr", dir);
    const char *url = url_of(path);
    int nc, x, var, rd, nvars;
    static int v[N];
    size_t chunk = N;
    OK(nc_create(url, NC_CLOBBER, &nc));
    OK(nc_def_dim(nc, "x", 32 * N, &x)); /* 512 KiB of data, twice the room */
    OK(nc_def_var(nc, "v", NC_INT, 1, &x, &var));
    OK(nc_def_var_chunking(nc, var, NC_CHUNKED, &chunk));
    fill_ints(v, 7);
    size_t start = 0, count = N;
    OK(nc_put_vara_int(nc, var, &start, &count, v));
    OK(nc_close(nc));
    OK(nc_open(url, NC_WRITE, &nc));
    for (int c = 0; c < 32; c++) {
        start = (size_t)c * N;
        fill_ints(v, 100 * c);
        OK(nc_put_vara_int(nc, var, &start, &count, v));
    }
    ERR(ENOSPC, nc_close(nc));
    OK(nc_inq_nvars(nc, &nvars)); /* still open */
    OK(nc_open(url, NC_NOWRITE, &rd)); /* whole chunks, old or new */
    static int all[32 * N];
    OK(nc_get_var_int(rd, var, all));
    for (int c = 0; c < 32; c++) {
        int old = c == 0 ? 7 : NC_FILL_INT;
        int is_new = all[c * N] == 100 * c;
        for (int i = 0; i < N; i++) {
            int want = is_new ? 100 * c + i : (old == NC_FILL_INT ? old : old + i);
            if (all[c * N + i] != want) FAIL("chunk %d value %d: %d", c, i, all[c * N + i]);
        }
    }
    OK(nc_close(rd));
    OK(nc_abort(nc));
    return 0;
}

static int run(const char *name, int (*f)(void))
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) _exit(f());
    int status;
    waitpid(pid, &status, 0);
    if (WIFEXITED(status) && WEXITSTATUS(status) == SKIP) {
        printf("skipped %s (not allowed here)\n", name);
        return 0;
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        printf("FAILED %s\n", name);
        return 1;
    }
    printf("ok %s\n", name);
    return 0;
}

int main(void)
{
    int failed = run("EFBIG (file size limit)", efbig);
    failed += run("EFBIG behind a write", efbig_behind);
    failed += run("read-only directory", readonly);
    failed += run("store deleted underneath", deleted);
    failed += run("ENOSPC (full tmpfs)", enospc);
    if (failed) return 1;
    PASS();
}
