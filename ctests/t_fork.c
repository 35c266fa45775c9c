/* fork() while other threads are inside the library: opening, reading,
 * writing, inquiring and running the first plugin scan. Every child must
 * finish (a lock or a lazy initialisation copied half-held into the child
 * would hang it forever), read the right values, see its parent's open
 * datasets as read-only, as they were at the fork, and close them without
 * writing.
 *
 * Rounds: main forks a fresh "round parent" (so the plugin scan has not
 * happened yet), which starts the busy threads, waits until each is at
 * its first library call (so the first forks come while the scanner is
 * scanning) and forks children while they run; a child that does not
 * finish within its deadline fails the test (its threads' stacks are
 * printed first, when gdb can attach).
 *
 * The round parent's threads check everything they do: every call must
 * succeed, every read must return the values written, every inquiry the
 * dataset's shape, a write must read back after nc_sync; after the round
 * the written dataset must hold the last values written (the children's
 * closes wrote nothing).
 *
 * No fork comes while one of those threads is starting, and under
 * AddressSanitizer none while one is exiting: that is not the library's
 * business, and GCC 12's libasan (Debian 12's) takes none of its own
 * locks around fork (newer runtimes do, from a pthread_atfork handler).
 * A thread holding ASan's thread-registry or allocator lock at the fork
 * (starting, exiting, allocating outside the library) leaves it held for
 * ever in the child, which hangs at its first pthread_create or malloc
 * needing it. That hung a child once in CI: the scanner exited just after
 * its scan, as the first fork of the round, which had waited in the call
 * gate for that scan, went ahead. So under ASan the scanner stays until
 * the round ends; elsewhere it exits at once, and that fork also checks
 * that a thread leaving the library for good (its thread-locals'
 * destructors run outside the call gate) leaves nothing half-held.
 *
 * NCZARR_RS_TFORK_ROUNDS and NCZARR_RS_TFORK_CHILDREN override the number
 * of rounds and of children per round.
 *
 * valgrind: forks beside threads (see ctests/run.sh) */
#include "testutil.h"
#include <netcdf_filter.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif
#ifndef UNDER_ASAN
#define UNDER_ASAN 0
#endif

#define N 2048
/* Fewer under a memory checker (valgrind is ~50x slower): the point
 * there is memory errors, not the odds of catching a race. */
#define SANITIZED (getenv("NCZARR_RS_CTEST_SANITIZE") != NULL)
#define ROUNDS env_int("NCZARR_RS_TFORK_ROUNDS", SANITIZED ? 2 : 12)
#define CHILDREN_PER_ROUND env_int("NCZARR_RS_TFORK_CHILDREN", SANITIZED ? 8 : 25)
/* A child does a few milliseconds of work (under ASan or valgrind on a
 * loaded machine, up to about 1.5 s): one that takes this long hung. */
#define CHILD_DEADLINE_MS (SANITIZED ? 60000 : 10000)
#define XOR_FILTER_ID 40001 /* ctests/plugins/xor_filter.c */
#define THREADS 5
/* read_ramp's and expect_ramp's answer for values that are not i + the
 * offset (not a netCDF error code). */
#define NOT_A_RAMP (-1000)

static const char *url_a, *url_b;
/* The round parent's datasets: a read-only, b written by its writer. */
static int ds_a, ds_b;
/* Their ids, which every inquiry must return. */
static int var_a, dim_a, var_b, dim_b;
static atomic_int stop, started;
/* Failures of the round parent's threads. */
static atomic_int thread_failures;
/* The last round whose values the writer's nc_put_var_int returned for
 * (-1: none yet; b then holds i + 0, written before the round). */
static atomic_int written = -1;

static int env_int(const char *name, int otherwise)
{
    const char *v = getenv(name);
    return v && *v ? atoi(v) : otherwise;
}

static void sleep_ms(int ms)
{
    struct timespec t = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

static long long now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static void make_dataset(const char *url, int offset)
{
    write_ramp(url, N, 128, offset);
}

/* Read variable v of ncid: NC_NOERR, with *offset set, when it holds
 * i + offset everywhere for one offset; else the error, or NOT_A_RAMP. */
static int read_ramp(int ncid, int *offset)
{
    static _Thread_local int data[N];
    int v, status;
    if ((status = nc_inq_varid(ncid, "v", &v)) || (status = nc_get_var_int(ncid, v, data))) return status;
    for (int i = 0; i < N; i++)
        if (data[i] - i != data[0]) return NOT_A_RAMP;
    *offset = data[0];
    return NC_NOERR;
}

/* NC_NOERR when variable v of ncid holds i + offset everywhere. */
static int expect_ramp(int ncid, int offset)
{
    int got = 0, status = read_ramp(ncid, &got);
    return status ? status : got == offset ? NC_NOERR : NOT_A_RAMP;
}

static const char *why(int status)
{
    return status == NOT_A_RAMP ? "not the values expected" : nc_strerror(status);
}

/* A round parent's thread failed: report (the first few) and count. */
static void thread_failed(const char *fmt, ...)
{
    if (atomic_fetch_add(&thread_failures, 1) >= 10) return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "round parent thread: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
}

static void *opener(void *arg)
{
    (void)arg;
    atomic_fetch_add(&started, 1);
    while (!stop) {
        int ncid, status, x;
        size_t len;
        if ((status = nc_open(url_a, NC_NOWRITE, &ncid))) {
            thread_failed("opener: nc_open: %s", nc_strerror(status));
            break;
        }
        if ((status = nc_inq_dimid(ncid, "x", &x)) || (status = nc_inq_dimlen(ncid, x, &len)))
            thread_failed("opener: inquiring x: %s", nc_strerror(status));
        else if (len != N)
            thread_failed("opener: x has length %zu, not %d", len, N);
        if ((status = nc_close(ncid))) {
            thread_failed("opener: nc_close: %s", nc_strerror(status));
            break;
        }
    }
    return NULL;
}

static void *reader(void *arg)
{
    (void)arg;
    atomic_fetch_add(&started, 1);
    while (!stop) {
        int status = expect_ramp(ds_a, 0);
        if (status) {
            thread_failed("reader: %s", why(status));
            break;
        }
    }
    return NULL;
}

static void *writer(void *arg)
{
    (void)arg;
    static int data[N];
    atomic_fetch_add(&started, 1);
    for (int round = 0; !stop; round++) {
        int status;
        for (int i = 0; i < N; i++) data[i] = i + round;
        if ((status = nc_put_var_int(ds_b, var_b, data))) {
            thread_failed("writer: nc_put_var_int: %s", nc_strerror(status));
            break;
        }
        written = round;
        if ((status = nc_sync(ds_b))) {
            thread_failed("writer: nc_sync: %s", nc_strerror(status));
            break;
        }
        if ((status = expect_ramp(ds_b, round))) {
            thread_failed("writer: reading back round %d: %s", round, why(status));
            break;
        }
    }
    return NULL;
}

/* Inquire about ncid's variable v and dimension x, as made by write_ramp. */
static int inquire(int ncid, int expect_var, int expect_dim)
{
    int v, x, ndims, natts, dimids[NC_MAX_VAR_DIMS], status;
    nc_type type;
    size_t len;
    char name[NC_MAX_NAME + 1], dim_name[NC_MAX_NAME + 1];
    if ((status = nc_inq_varid(ncid, "v", &v)) || (status = nc_inq_dimid(ncid, "x", &x)) ||
        (status = nc_inq_dim(ncid, x, dim_name, &len)) ||
        (status = nc_inq_var(ncid, v, name, &type, &ndims, dimids, &natts))) {
        thread_failed("inquirer: %s", nc_strerror(status));
        return 1;
    }
    if (v != expect_var || x != expect_dim || len != N || strcmp(name, "v") || strcmp(dim_name, "x") ||
        type != NC_INT || ndims != 1 || dimids[0] != x) {
        thread_failed("inquirer: variable %d \"%s\" type %d rank %d, dimension %d \"%s\" of length %zu", v, name,
                      (int)type, ndims, x, dim_name, len);
        return 1;
    }
    return 0;
}

static void *inquirer(void *arg)
{
    (void)arg;
    atomic_fetch_add(&started, 1);
    while (!stop)
        if (inquire(ds_a, var_a, dim_a) || inquire(ds_b, var_b, dim_b)) break;
    return NULL;
}

static void *scanner(void *arg)
{
    (void)arg;
    atomic_fetch_add(&started, 1);
    /* The first filter question of this process scans the plugin
     * directory (slowed down by lib__nczrs_slow_scan.so). */
    int status = nc_inq_filter_avail(ds_a, XOR_FILTER_ID);
    if (status) thread_failed("scanner: nc_inq_filter_avail: %s", nc_strerror(status));
    /* Under ASan not exiting while forks come (see the top of this file). */
    while (UNDER_ASAN && !stop) sleep_ms(1);
    return NULL;
}

/* What a child does: everything must work, and quickly. Returns how many
 * checks failed, each reported on stderr. */
static int child_work(int round, int k)
{
    int bad = 0, ncid, status, offset = -1;
#define CHILD_CHECK(what, call)                                                                                    \
    do {                                                                                                          \
        if ((status = (call))) {                                                                                  \
            fprintf(stderr, "round %d child %d: %s: %s\n", round, k, what, why(status));                          \
            bad++;                                                                                                \
        }                                                                                                         \
    } while (0)
    /* Before anything else: b's values as the parent had them at the
     * fork (its unwritten ones included), one whole write, never part of
     * one (the fork waited for the write in flight): the last one the
     * writer counted, or the one it was about to count. */
    int last = written;
    CHILD_CHECK("reading the inherited b", read_ramp(ds_b, &offset));
    if (!status && offset != last && offset != last + 1) {
        fprintf(stderr, "round %d child %d: inherited b holds round %d; the writer was at %d\n", round, k, offset,
                last);
        bad++;
    }
    CHILD_CHECK("nc_open", nc_open(url_a, NC_NOWRITE, &ncid));
    if (!status) {
        CHILD_CHECK("reading its own a", expect_ramp(ncid, 0));
        CHILD_CHECK("nc_inq_filter_avail", nc_inq_filter_avail(ncid, XOR_FILTER_ID));
        CHILD_CHECK("nc_close", nc_close(ncid));
    }
    /* The parent's datasets: readable, not writable, closed without
     * writing anything. */
    CHILD_CHECK("reading the inherited a", expect_ramp(ds_a, 0));
    int v, one = 1;
    size_t start = 0;
    CHILD_CHECK("nc_inq_varid on the inherited b", nc_inq_varid(ds_b, "v", &v));
    if (!status && (status = nc_put_var1_int(ds_b, v, &start, &one)) != NC_EPERM) {
        fprintf(stderr, "round %d child %d: writing the inherited b: %s, not NC_EPERM\n", round, k, why(status));
        bad++;
    }
    CHILD_CHECK("nc_close of the inherited a", nc_close(ds_a));
    CHILD_CHECK("nc_close of the inherited b", nc_close(ds_b));
#undef CHILD_CHECK
    return bad > 99 ? 99 : bad;
}

/* Show where a hung child is stuck: its threads' stacks, when gdb is
 * installed and may attach (ptrace permitting), else their system calls. */
static void show_stacks(pid_t pid)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd,
             "if command -v gdb > /dev/null; then timeout 60 gdb -q -batch -p %d -ex 'thread apply all bt' 2>&1 |"
             " grep -v -e '^warning' -e '^\\[New LWP' -e '^$'; fi;"
             " for t in /proc/%d/task/*; do echo \"$t: syscall $(cat $t/syscall 2>/dev/null)\"; done",
             (int)pid, (int)pid);
    fflush(stderr);
    if (system(cmd) == -1) fprintf(stderr, "(could not run gdb)\n");
}

/* Wait for a child until the deadline; a child still running then hung.
 * Returns 0 when it finished and passed. */
static int wait_child(pid_t pid, int round, int k, long long *slowest)
{
    long long begun = now_ms();
    for (;;) {
        int status;
        pid_t r = waitpid(pid, &status, WNOHANG);
        long long took = now_ms() - begun;
        if (r == pid) {
            if (took > *slowest) *slowest = took;
            if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return 0;
            if (WIFEXITED(status))
                fprintf(stderr, "round %d child %d: %d checks failed\n", round, k, WEXITSTATUS(status));
            else
                fprintf(stderr, "round %d child %d: killed by signal %d\n", round, k, WTERMSIG(status));
            return 1;
        }
        if (r < 0) {
            perror("waitpid");
            return 1;
        }
        if (took >= CHILD_DEADLINE_MS) break;
        sleep_ms(1);
    }
    fprintf(stderr, "round %d child %d: hung (still running after %d ms); its stacks:\n", round, k,
            CHILD_DEADLINE_MS);
    show_stacks(pid);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    return 1;
}

/* The expected ids of ncid's v and x. */
static int ids(int ncid, int *var, int *dim)
{
    return nc_inq_varid(ncid, "v", var) || nc_inq_dimid(ncid, "x", dim);
}

static int round_parent(int round)
{
    if (nc_open(url_a, NC_NOWRITE, &ds_a) || nc_open(url_b, NC_WRITE, &ds_b)) return 20;
    if (ids(ds_a, &var_a, &dim_a) || ids(ds_b, &var_b, &dim_b)) return 20;
    pthread_t threads[THREADS];
    void *(*bodies[THREADS])(void *) = {scanner, opener, reader, writer, inquirer};
    for (int t = 0; t < THREADS; t++)
        if (pthread_create(&threads[t], NULL, bodies[t], NULL)) return 21;
    /* Every thread at its first call (the scanner about to scan) before
     * the first fork (see the top of this file). */
    for (long long begun = now_ms(); started < THREADS;) {
        if (now_ms() - begun > CHILD_DEADLINE_MS) {
            fprintf(stderr, "round %d: only %d of %d threads started\n", round, (int)started, THREADS);
            return 21;
        }
        sleep_ms(1);
    }
    int failures = 0;
    long long slowest = 0;
    for (int k = 0; k < CHILDREN_PER_ROUND; k++) {
        /* Fork densely at first, while the plugin scan is running. */
        sleep_ms(k < 10 ? 2 : 1 + (k * 7 + round) % 5);
        fflush(NULL);
        pid_t pid = fork();
        if (pid < 0) return 22;
        if (pid == 0) _exit(child_work(round, k));
        failures += wait_child(pid, round, k, &slowest);
    }
    stop = 1;
    for (int t = 0; t < THREADS; t++) pthread_join(threads[t], NULL);
    if (nc_close(ds_a) || nc_close(ds_b)) return 23;
    if (thread_failures) {
        fprintf(stderr, "round %d: %d failures in the parent's threads\n", round, (int)thread_failures);
        failures++;
    }
    /* b holds the last values written: the children's closes wrote
     * nothing, and the parent's writes all reached the store. */
    int ncid, offset = -1, status;
    if ((status = nc_open(url_b, NC_NOWRITE, &ncid)) || (status = read_ramp(ncid, &offset)) ||
        (status = nc_close(ncid)) || offset != (written < 0 ? 0 : written)) {
        fprintf(stderr, "round %d: b after the round: %s, round %d, expected %d\n", round, why(status), offset,
                (int)written);
        failures++;
    }
    if (written < 0) {
        fprintf(stderr, "round %d: the writer never wrote\n", round);
        failures++;
    }
    printf("round %d: slowest child %lld ms, %d writes\n", round, slowest, written + 1);
    return failures ? 24 : 0;
}

int main(void)
{
    url_a = test_url("fork_a");
    url_b = test_url("fork_b");
    make_dataset(url_a, 0);
    int rounds = ROUNDS;
    /* main itself never asks about filters: each round parent scans. */
    for (int round = 0; round < rounds; round++) {
        /* Each round starts from b holding i + 0. */
        make_dataset(url_b, 0);
        fflush(NULL);
        pid_t pid = fork();
        TRUE_OR_FAIL(pid >= 0);
        if (pid == 0) {
            int failed = round_parent(round);
            fflush(NULL);
            _exit(failed);
        }
        int status;
        TRUE_OR_FAIL(waitpid(pid, &status, 0) == pid);
        if (!WIFEXITED(status))
            FAIL("round %d: round parent killed by signal %d", round, WTERMSIG(status));
        if (WEXITSTATUS(status) != 0) FAIL("round %d: round parent failed (%d)", round, WEXITSTATUS(status));
    }
    /* a was never written: not by the children's closes either. */
    int ncid;
    OK(nc_open(url_a, NC_NOWRITE, &ncid));
    OK(expect_ramp(ncid, 0));
    OK(nc_close(ncid));
    printf("%d forks under load, every child finished\n", rounds * CHILDREN_PER_ROUND);
    PASS();
}
