/* crash.c -- SIGKILL a writer at random moments, then check the store.
 *
 *   crash loop             the kill loop (our library): see below
 *   crash check URL K C P  check one store as the loop does (built against
 *                          netcdf-c too, to read the killed stores with it)
 *
 * The writer (a forked child) creates crash.zarr, defines variables on an
 * unlimited dimension, writes one record per step with nc_sync after each,
 * changes attributes, redefines (a new group, a new dimension, a new
 * variable), renames a variable, a group and a dimension, deletes an
 * attribute, and closes; one writer in four does not consolidate
 * metadata. After each sync it records in shared memory how far it got.
 * The parent kills it with SIGKILL after a random delay (seeded; up to
 * 1.2 times the median of three full runs) or, one time in three (and the
 * first two times), aimed: once a commit after a random sync point shows
 * on disk (the writer's pending .zmetadata), within a millisecond. Then it
 * opens the store and checks: it opens; every value is the fill value or
 * the value the writer wrote at that position; everything synced before
 * the kill is there. Every 4th store (and the first interrupted commit)
 * is then opened for writing and closed (which must remove the dead
 * writer's temporary files and complete an interrupted commit) and
 * checked again; every 8th (and the first two interrupted commits) is
 * copied to samples/ for netcdf-c.
 *
 * A kill landed inside a commit when, after it, the store (created by
 * that writer) holds a .zmetadata with the pending marker. The loop fails
 * unless that happened to a consolidated writer and to one without
 * .zmetadata, and a writable open completed such a commit: otherwise the
 * case the test exists for went untested.
 *
 * Environment: CRASH_SEED (default 20240601), CRASH_SECONDS (time budget,
 * default 40), CRASH_ITERS (most iterations, default 600).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <netcdf.h>

#define NX 8
#define NY 5
#define NZ 3
#define NSTEPS 10
#define FILLV (-1)
/* The marker of a commit under way in .zmetadata (src/format/nczarr.rs:
 * a commit publishes the new metadata there with it before rewriting the
 * objects, and removes it after; writers without consolidated metadata
 * too, deleting .zmetadata at the end). */
#define PENDING "nczarr_rs_pending"

/* Sync points: 1 after the definitions, s + 2 after step s, NSTEPS + 2
 * after nc_close. */
struct progress {
    volatile int created;
    volatile int synced;
};

static int value(int code, int t, int j) { return code * 1000 + t * 10 + j + 1; }

#define W(call) do { int _s = (call); if (_s) { \
    fprintf(stderr, "writer: %s: %s (%d)\n", #call, nc_strerror(_s), _s); _exit(2); } } while (0)

static void writer(const char *url, struct progress *p)
{
    int nc, g, g2, time_d, x_d, y_d, z_d, temp, fixed, w, late, fill = FILLV;
    short sfill = FILLV;
    float ffill = FILLV;
    double dfill = FILLV;
    W(nc_create(url, NC_CLOBBER | NC_NETCDF4, &nc));
    p->created = 1;
    W(nc_def_dim(nc, "time", NC_UNLIMITED, &time_d));
    W(nc_def_dim(nc, "x", NX, &x_d));
    W(nc_def_grp(nc, "g", &g));
    W(nc_def_dim(g, "y", NY, &y_d));
    int d2[2] = {time_d, x_d};
    W(nc_def_var(nc, "temp", NC_FLOAT, 2, d2, &temp));
    size_t c2[2] = {2, 4};
    W(nc_def_var_chunking(nc, temp, NC_CHUNKED, c2));
    W(nc_put_att_float(nc, temp, "_FillValue", NC_FLOAT, 1, &ffill));
    W(nc_def_var(nc, "fixed", NC_INT, 1, &x_d, &fixed));
    W(nc_put_att_int(nc, fixed, "_FillValue", NC_INT, 1, &fill));
    int dw[2] = {time_d, y_d};
    W(nc_def_var(g, "w", NC_SHORT, 2, dw, &w));
    size_t cw[2] = {3, NY};
    W(nc_def_var_chunking(g, w, NC_CHUNKED, cw));
    W(nc_put_att_short(g, w, "_FillValue", NC_SHORT, 1, &sfill));
    W(nc_put_att_text(nc, NC_GLOBAL, "title", 5, "crash"));
    W(nc_enddef(nc));
    W(nc_sync(nc));
    p->synced = 1;
    int fx[NX];
    for (int j = 0; j < NX; j++) fx[j] = value(2, 0, j);
    W(nc_put_var_int(nc, fixed, fx));
    for (int s = 0; s < NSTEPS; s++) {
        float row[NX];
        short wrow[NY];
        for (int j = 0; j < NX; j++) row[j] = (float)value(1, s, j);
        for (int j = 0; j < NY; j++) wrow[j] = (short)value(3, s, j);
        size_t start[2] = {(size_t)s, 0}, cnt[2] = {1, NX}, cntw[2] = {1, NY};
        W(nc_put_vara_float(nc, temp, start, cnt, row));
        W(nc_put_vara_short(g, w, start, cntw, wrow));
        if (s % 2 == 0) W(nc_put_att_int(nc, temp, "step", NC_INT, 1, &s));
        if (s == 3) {
            W(nc_redef(nc));
            W(nc_def_dim(nc, "z", NZ, &z_d));
            W(nc_def_grp(nc, "g2", &g2));
            W(nc_def_var(g2, "late", NC_DOUBLE, 1, &z_d, &late));
            W(nc_put_att_double(g2, late, "_FillValue", NC_DOUBLE, 1, &dfill));
            W(nc_enddef(nc));
            double lv[NZ];
            for (int j = 0; j < NZ; j++) lv[j] = value(4, 0, j);
            W(nc_put_var_double(g2, late, lv));
        }
        if (s == 5) {
            W(nc_rename_var(nc, temp, "temperature"));
            W(nc_rename_grp(g, "grp"));
        }
        if (s == 7) {
            W(nc_del_att(nc, NC_GLOBAL, "title"));
            W(nc_put_att_text(nc, NC_GLOBAL, "history", 1, "h"));
        }
        if (s == 8) W(nc_rename_dim(nc, x_d, "xx"));
        W(nc_sync(nc));
        p->synced = s + 2;
    }
    W(nc_close(nc));
    p->synced = NSTEPS + 2;
    _exit(0);
}

/* ---------------------------------------------------------------- */
/* The checker (also built against netcdf-c). */

static char why[512];
#define C(cond, ...) do { if (!(cond)) { snprintf(why, sizeof why, __VA_ARGS__); return 1; } } while (0)
#define CNC(call) do { int _s = (call); C(_s == NC_NOERR, "%s: %s (%d)", #call, nc_strerror(_s), _s); } while (0)

/* The id of whichever of two names exists (exactly one may). */
static int one_of(int ncid, const char *a, const char *b, int *id, const char **name, int var)
{
    int ia, ib;
    int ha = (var ? nc_inq_varid(ncid, a, &ia) : nc_inq_grp_ncid(ncid, a, &ia)) == NC_NOERR;
    int hb = (var ? nc_inq_varid(ncid, b, &ib) : nc_inq_grp_ncid(ncid, b, &ib)) == NC_NOERR;
    C(!(ha && hb), "both %s and %s exist", a, b);
    if (!ha && !hb) return -1;
    *id = ha ? ia : ib;
    *name = ha ? a : b;
    return 0;
}

/* A record variable: shape (T, n); rows below `synced_rows` must hold the
 * written values, every other value fill or written. */
static int check_records(int ncid, int varid, int code, size_t n, size_t synced_rows, size_t *rows)
{
    int dimids[2], ndims;
    size_t len[2];
    CNC(nc_inq_varndims(ncid, varid, &ndims));
    C(ndims == 2, "code %d: %d dims", code, ndims);
    CNC(nc_inq_vardimid(ncid, varid, dimids));
    CNC(nc_inq_dimlen(ncid, dimids[0], &len[0]));
    CNC(nc_inq_dimlen(ncid, dimids[1], &len[1]));
    C(len[1] == n, "code %d: second dim %zu", code, len[1]);
    C(len[0] >= synced_rows, "code %d: %zu records, %zu synced", code, len[0], synced_rows);
    C(len[0] <= NSTEPS, "code %d: %zu records", code, len[0]);
    *rows = len[0];
    if (len[0] == 0) return 0;
    int *v = malloc(len[0] * n * sizeof *v);
    CNC(nc_get_var_int(ncid, varid, v));
    for (size_t t = 0; t < len[0]; t++)
        for (size_t j = 0; j < n; j++) {
            int got = v[t * n + j], want = value(code, (int)t, (int)j);
            if (got != want && (got != FILLV || t < synced_rows)) {
                snprintf(why, sizeof why, "code %d [%zu][%zu] = %d, want %d%s", code, t, j, got, want,
                         t < synced_rows ? " (synced)" : " or fill");
                free(v);
                return 1;
            }
        }
    free(v);
    return 0;
}

static int check_text_att(int ncid, const char *name, const char *want, int *present)
{
    size_t len;
    char buf[64];
    *present = nc_inq_attlen(ncid, NC_GLOBAL, name, &len) == NC_NOERR;
    if (!*present) return 0;
    C(len < sizeof buf, "%s: length %zu", name, len);
    CNC(nc_get_att_text(ncid, NC_GLOBAL, name, buf));
    buf[len] = 0;
    C(strcmp(buf, want) == 0, "%s = \"%s\"", name, buf);
    return 0;
}

/* k: sync points passed; created: nc_create returned; preexisted: a store
 * was at the path before. */
static int check(const char *url, int k, int created, int preexisted)
{
    int nc, s = nc_open(url, NC_NOWRITE, &nc);
    why[0] = 0;
    if (!created && !preexisted && s != NC_NOERR) return 0; /* nothing there yet */
    C(s == NC_NOERR, "nc_open: %s (%d)", nc_strerror(s), s);
    int rc = 1;
    do {
        int temp, g, w, fixed;
        const char *tname = NULL, *gname = NULL;
        int r = one_of(nc, "temp", "temperature", &temp, &tname, 1);
        if (r > 0) break;
        if (r < 0) {
            /* Nothing defined yet: only before the first sync point. */
            if (k >= 1) { snprintf(why, sizeof why, "no temp variable after sync %d", k); break; }
            int nvars, ngrps;
            if (nc_inq_nvars(nc, &nvars) || nc_inq_grps(nc, &ngrps, NULL)) break;
            if (nvars != 0 || ngrps != 0) {
                /* A definition commit under way shows all or nothing. */
                snprintf(why, sizeof why, "%d vars, %d groups but no temp", nvars, ngrps);
                break;
            }
            rc = 0;
            break;
        }
        if (k >= 7 && strcmp(tname, "temperature") != 0) { snprintf(why, sizeof why, "rename lost"); break; }
        r = one_of(nc, "g", "grp", &g, &gname, 0);
        if (r != 0) { if (r < 0) snprintf(why, sizeof why, "group g missing"); break; }
        if (k >= 7 && strcmp(gname, "grp") != 0) { snprintf(why, sizeof why, "group rename lost"); break; }
        if (nc_inq_varid(nc, "fixed", &fixed) || nc_inq_varid(g, "w", &w)) {
            snprintf(why, sizeof why, "fixed or w missing");
            break;
        }
        size_t synced_rows = k >= 2 ? (size_t)(k - 1 > NSTEPS ? NSTEPS : k - 1) : 0, rows_t, rows_w;
        if (check_records(nc, temp, 1, NX, synced_rows, &rows_t)) break;
        if (check_records(g, w, 3, NY, synced_rows, &rows_w)) break;
        int fx[NX];
        if (nc_get_var_int(nc, fixed, fx)) { snprintf(why, sizeof why, "reading fixed"); break; }
        int bad = 0;
        for (int j = 0; j < NX; j++)
            if (fx[j] != value(2, 0, j) && (fx[j] != FILLV || k >= 2)) bad = 1;
        if (bad) { snprintf(why, sizeof why, "fixed[] wrong"); break; }
        /* Dimension x, renamed xx at step 8. */
        int xid;
        int hx = nc_inq_dimid(nc, "x", &xid) == NC_NOERR, hxx = nc_inq_dimid(nc, "xx", &xid) == NC_NOERR;
        if (hx == hxx || (k >= 10 && !hxx)) { snprintf(why, sizeof why, "dims x %d xx %d", hx, hxx); break; }
        /* The late group and variable (step 3). */
        int g2, late;
        if (nc_inq_grp_ncid(nc, "g2", &g2) == NC_NOERR) {
            double lv[NZ];
            int zid;
            size_t zlen;
            if (nc_inq_varid(g2, "late", &late) || nc_inq_dimid(nc, "z", &zid) || nc_inq_dimlen(nc, zid, &zlen) ||
                zlen != NZ || nc_get_var_double(g2, late, lv)) {
                snprintf(why, sizeof why, "g2/late incomplete");
                break;
            }
            for (int j = 0; j < NZ; j++)
                if (lv[j] != value(4, 0, j) && (lv[j] != FILLV || k >= 5)) bad = 1;
            if (bad) { snprintf(why, sizeof why, "late[] wrong"); break; }
        } else if (k >= 5) {
            snprintf(why, sizeof why, "g2 lost");
            break;
        }
        /* Attributes. */
        int has_title, has_history;
        if (check_text_att(nc, "title", "crash", &has_title)) break;
        if (check_text_att(nc, "history", "h", &has_history)) break;
        /* Deleted and added in one step: a state has exactly one. */
        if (has_title == has_history) { snprintf(why, sizeof why, "title %d history %d", has_title, has_history); break; }
        if (k >= 9 && (has_title || !has_history)) { snprintf(why, sizeof why, "title/history not updated"); break; }
        int step = -1;
        size_t alen;
        if (nc_inq_attlen(nc, temp, "step", &alen) == NC_NOERR) {
            if (alen != 1 || nc_get_att_int(nc, temp, "step", &step) || step % 2 || step >= NSTEPS) {
                snprintf(why, sizeof why, "step attribute wrong");
                break;
            }
        }
        int min_step = k >= 2 ? ((k - 2) / 2) * 2 : -1;
        if (min_step > NSTEPS - 2) min_step = NSTEPS - 2;
        if (step < min_step) { snprintf(why, sizeof why, "step %d after sync %d", step, k); break; }
        if (k == NSTEPS + 2 && (rows_t != NSTEPS || rows_w != NSTEPS)) { snprintf(why, sizeof why, "closed short"); break; }
        rc = 0;
    } while (0);
    int cs = nc_close(nc);
    if (rc == 0 && cs != NC_NOERR) { snprintf(why, sizeof why, "nc_close: %d", cs); rc = 1; }
    return rc;
}

/* ---------------------------------------------------------------- */
/* The loop (our library only). */

static uint64_t rng;
static uint64_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Count entries of `dir` whose name starts with `prefix`. */
static int count_prefixed(const char *dir, const char *prefix)
{
    DIR *d = opendir(dir);
    if (!d) return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strncmp(e->d_name, prefix, strlen(prefix)) == 0) n++;
    closedir(d);
    return n;
}

static int file_contains(const char *path, const char *needle)
{
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    static char buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    return strstr(buf, needle) != NULL;
}

static int env_int(const char *name, int dflt)
{
    const char *v = getenv(name);
    return v && *v ? atoi(v) : dflt;
}

static int loop(void)
{
    char cwd[4096];
    if (!getcwd(cwd, sizeof cwd)) return 1;
    char url[4200], url_nocons[4200];
    snprintf(url, sizeof url, "file://%s/crash.zarr#mode=nczarr,file", cwd);
    snprintf(url_nocons, sizeof url_nocons, "file://%s/crash.zarr#mode=nczarr,file,noconsolidated", cwd);
    unsigned seed = (unsigned)env_int("CRASH_SEED", 20240601);
    double budget = env_int("CRASH_SECONDS", 40);
    int max_iters = env_int("CRASH_ITERS", 600);
    rng = 0x9E3779B97F4A7C15ull ^ seed;
    mkdir("samples", 0755);
    FILE *list = fopen("samples/list", "w");
    if (!list) return 1;
    struct progress *p = mmap(NULL, sizeof *p, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return 1;

    /* Calibration: three full runs, not killed; kills are spread over
     * 1.2 times the median. */
    double runs[3];
    int status;
    pid_t pid;
    for (int i = 0; i < 3; i++) {
        double t0 = now();
        p->created = p->synced = 0;
        pid = fork();
        if (pid == 0) writer(url, p);
        waitpid(pid, &status, 0);
        runs[i] = now() - t0;
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) { fprintf(stderr, "calibration run failed\n"); return 1; }
        if (check(url, NSTEPS + 2, 1, i > 0)) { fprintf(stderr, "complete store: %s\n", why); return 1; }
    }
    double lo = runs[0] < runs[1] ? runs[0] : runs[1], hi = runs[0] < runs[1] ? runs[1] : runs[0];
    double full = runs[2] < lo ? lo : runs[2] > hi ? hi : runs[2];
    printf("seed %u; a full writer run takes %.0f ms (median of 3)\n", seed, full * 1000);

    int iters = 0, completed = 0, before_create = 0, strays = 0, siblings = 0, reopened = 0, samples = 0;
    /* Kills that landed inside a commit, by consolidation (0: writers
     * with .zmetadata, 1: without) and kind (0: random delay, 1: aimed);
     * tries of each kind; interrupted commits a writable open completed;
     * samples of interrupted commits. */
    int in_commit[2][2] = {{0}}, tries[2] = {0}, completed_commits = 0, commit_samples = 0;
    int at_sync[NSTEPS + 3] = {0};
    double start = now();
    /* The first two (aimed) iterations whatever the budget. */
    while (iters < max_iters && (iters < 2 || now() - start < budget)) {
        iters++;
        int fresh = next_rand() % 5 == 0;
        if (fresh) system("rm -rf crash.zarr");
        struct stat st;
        int preexisted = stat("crash.zarr", &st) == 0;
        useconds_t delay = (useconds_t)(next_rand() % (uint64_t)(full * 1.2e6 + 1));
        /* One writer in four does not consolidate metadata. */
        int nocons = next_rand() % 4 == 0;
        /* Aimed kills (the first two, one of each kind of writer, then one
         * in three): wait for a commit after a random sync point to show
         * on disk, then kill within a millisecond. Random delays alone
         * may all miss the commits when timings shift. */
        int aimed = iters <= 2 || next_rand() % 3 == 0;
        if (iters <= 2) nocons = iters == 2;
        int target = (int)(next_rand() % (NSTEPS + 1));
        useconds_t after = (useconds_t)(next_rand() % 1000);
        tries[aimed]++;
        p->created = p->synced = 0;
        pid = fork();
        if (pid < 0) { perror("fork"); return 1; }
        if (pid == 0) writer(nocons ? url_nocons : url, p);
        if (aimed) {
            /* Until the commit shows, the writer ends, or 1.5 full runs. */
            double limit = now() + full * 1.5;
            while (now() < limit && p->synced < NSTEPS + 2 &&
                   !(p->created && p->synced >= target && file_contains("crash.zarr/.zmetadata", PENDING)))
                usleep(50);
            usleep(after);
        } else {
            usleep(delay);
        }
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
            fprintf(stderr, "iteration %d: writer failed (exit %d)\n", iters, WEXITSTATUS(status));
            return 1;
        }
        int k = p->synced, created = p->created;
        if (WIFEXITED(status)) completed++;
        if (!created) before_create++;
        at_sync[k]++;
        /* The kill landed inside a commit of this writer: its pending
         * .zmetadata (published before the objects are rewritten, removed
         * or rewritten without the marker after them) is on disk. Only
         * this writer's: nc_create (NC_CLOBBER) replaces the store whole,
         * so once it returned, no older writer's marker is left. */
        int interrupted = created && file_contains("crash.zarr/.zmetadata", PENDING);
        in_commit[nocons][aimed] += interrupted;
        strays += count_prefixed("crash.zarr", ".nczarr-rs-tmp.");
        siblings += count_prefixed(".", ".crash.zarr.nczarr-rs-tmp.");
        if (check(url, k, created, preexisted)) {
            fprintf(stderr, "iteration %d (%s %u us, synced %d, created %d, preexisted %d, in a commit %d): %s\n",
                    iters, aimed ? "aimed, then" : "delay", (unsigned)(aimed ? after : delay), k, created,
                    preexisted, interrupted, why);
            char cmd[256];
            snprintf(cmd, sizeof cmd, "cp -a crash.zarr failed-%d.zarr", iters);
            system(cmd);
            return 1;
        }
        /* Every 8th store, and the first two interrupted commits, for
         * netcdf-c. */
        if ((iters % 8 == 0 || (interrupted && commit_samples < 2)) && stat("crash.zarr", &st) == 0) {
            char cmd[256];
            snprintf(cmd, sizeof cmd, "cp -a crash.zarr samples/%d.zarr", iters);
            if (system(cmd) == 0) {
                fprintf(list, "%d %d %d %d\n", iters, k, created, preexisted);
                samples++;
                commit_samples += interrupted;
            }
        }
        /* Every 4th store, and the first interrupted commit. */
        if ((iters % 4 == 0 || (interrupted && !completed_commits)) && stat("crash.zarr", &st) == 0) {
            /* A writer's open cleans up after the dead one and completes
             * an interrupted commit. */
            int nc, s = nc_open(url, NC_WRITE, &nc);
            if (s == NC_NOERR) s = nc_close(nc);
            if (s != NC_NOERR) { fprintf(stderr, "iteration %d: reopen for writing: %d\n", iters, s); return 1; }
            reopened++;
            if (count_prefixed("crash.zarr", ".nczarr-rs-tmp.") || count_prefixed(".", ".crash.zarr.nczarr-rs-tmp.")) {
                fprintf(stderr, "iteration %d: temporary files left after a writable open\n", iters);
                return 1;
            }
            if (file_contains("crash.zarr/.zmetadata", PENDING)) {
                fprintf(stderr, "iteration %d: commit not completed by a writable open\n", iters);
                return 1;
            }
            if (check(url, k, 1, 1)) { fprintf(stderr, "iteration %d, after reopen: %s\n", iters, why); return 1; }
            completed_commits += interrupted;
        }
    }
    fclose(list);
    int cons_hits = in_commit[0][0] + in_commit[0][1], nocons_hits = in_commit[1][0] + in_commit[1][1];
    printf("%d iterations in %.1f s: %d killed before nc_create returned, %d ran to the end, "
           "%d stray temporary files and %d stray sibling directories seen (all removed by %d writable opens), "
           "%d samples (%d of interrupted commits)\n",
           iters, now() - start, before_create, completed, strays, siblings, reopened, samples, commit_samples);
    printf("killed inside a commit (the writer's pending .zmetadata on disk): %d of %d random kills, "
           "%d of %d aimed ones; %d consolidated writers, %d not; %d completed by a writable open\n",
           in_commit[0][0] + in_commit[1][0], tries[0], in_commit[0][1] + in_commit[1][1], tries[1], cons_hits,
           nocons_hits, completed_commits);
    printf("sync points reached:");
    for (int i = 0; i <= NSTEPS + 2; i++) printf(" %d:%d", i, at_sync[i]);
    printf("\n");
    /* What this test exists for: stores killed in the middle of a commit.
     * Should no kill land in one (timings shifted, or commits no longer
     * publish a pending .zmetadata), it has tested nothing of it. */
    if (!cons_hits || !nocons_hits || !completed_commits) {
        fprintf(stderr, "no kill landed inside a commit of a %s (or no interrupted commit was completed by a "
                "writable open): the case this test exists for went untested\n",
                !cons_hits ? "consolidated writer" : !nocons_hits ? "writer without .zmetadata" : "writer");
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "loop") == 0) return loop();
    if (argc == 6 && strcmp(argv[1], "check") == 0) {
        int rc = check(argv[2], atoi(argv[3]), atoi(argv[4]), atoi(argv[5]));
        if (rc) printf("%s\n", why);
        return rc;
    }
    fprintf(stderr, "usage: crash loop | crash check URL SYNCED CREATED PREEXISTED\n");
    return 2;
}
