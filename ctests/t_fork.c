/* fork() while other threads are inside the library: opening, reading,
 * writing, inquiring and running the first plugin scan. Every child must
 * finish (a lock or a lazy initialisation copied half-held into the child
 * would hang it forever), read the right values, see its parent's open
 * datasets as read-only and close them without writing.
 *
 * Rounds: main forks a fresh "round parent" (so the plugin scan has not
 * happened yet), which starts the busy threads and forks children while
 * they run; a child that does not finish within its deadline fails the
 * test.
 *
 * valgrind: forks beside threads (see ctests/run.sh) */
#include "testutil.h"
#include <netcdf_filter.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define N 2048
/* Fewer under a memory checker (valgrind is ~50x slower): the point
 * there is memory errors, not the odds of catching a race. */
#define ROUNDS (getenv("NCZARR_RS_CTEST_SANITIZE") ? 2 : 12)
#define CHILDREN_PER_ROUND (getenv("NCZARR_RS_CTEST_SANITIZE") ? 8 : 25)
#define CHILD_DEADLINE_MS 10000
#define XOR_FILTER_ID 40001 /* ctests/plugins/xor_filter.c */

static const char *url_a, *url_b;
static atomic_int stop;

static void sleep_ms(int ms)
{
    struct timespec t = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

static void make_dataset(const char *url, int offset)
{
    write_ramp(url, N, 128, offset);
}

/* 0 when variable v of ncid holds i + offset everywhere. */
static int check_values(int ncid, int offset)
{
    static _Thread_local int data[N];
    int v;
    if (nc_inq_varid(ncid, "v", &v) || nc_get_var_int(ncid, v, data)) return 1;
    for (int i = 0; i < N; i++)
        if (data[i] != i + offset) return 1;
    return 0;
}

static void *opener(void *arg)
{
    (void)arg;
    while (!stop) {
        int ncid;
        if (nc_open(url_a, NC_NOWRITE, &ncid) == NC_NOERR) nc_close(ncid);
    }
    return NULL;
}

static void *reader(void *arg)
{
    int ncid = *(int *)arg;
    while (!stop) check_values(ncid, 0);
    return NULL;
}

static void *writer(void *arg)
{
    int ncid = *(int *)arg, v, round = 0;
    static int data[N];
    nc_inq_varid(ncid, "v", &v);
    while (!stop) {
        for (int i = 0; i < N; i++) data[i] = i + round;
        nc_put_var_int(ncid, v, data);
        nc_sync(ncid);
        round++;
    }
    return NULL;
}

static void *inquirer(void *arg)
{
    int ncid = *(int *)arg;
    while (!stop) {
        int v, x;
        size_t len;
        nc_inq_varid(ncid, "v", &v);
        nc_inq_dimid(ncid, "x", &x);
        nc_inq_dimlen(ncid, x, &len);
    }
    return NULL;
}

static void *scanner(void *arg)
{
    int ncid = *(int *)arg;
    /* The first filter question of this process scans the plugin
     * directory (slowed down by lib__nczrs_slow_scan.so). */
    nc_inq_filter_avail(ncid, XOR_FILTER_ID);
    return NULL;
}

/* What a child does: everything must work, and quickly. */
static int child_work(int inherited_a, int inherited_b)
{
    int ncid, bad = 0;
    if (nc_open(url_a, NC_NOWRITE, &ncid)) return 10;
    bad |= check_values(ncid, 0) ? 11 : 0;
    bad |= nc_inq_filter_avail(ncid, XOR_FILTER_ID) == NC_NOERR ? 0 : 12;
    bad |= nc_close(ncid) ? 13 : 0;
    /* The parent's datasets: readable, not writable, closed without
     * writing anything. */
    bad |= check_values(inherited_a, 0) ? 14 : 0;
    int v, one = 1;
    size_t start = 0;
    if (nc_inq_varid(inherited_b, "v", &v) || nc_put_var1_int(inherited_b, v, &start, &one) != NC_EPERM) bad |= 15;
    bad |= nc_close(inherited_a) ? 16 : 0;
    bad |= nc_close(inherited_b) ? 17 : 0;
    return bad;
}

/* Wait for a child until the deadline; a child still running then hung. */
static int wait_child(pid_t pid)
{
    for (int waited = 0; waited < CHILD_DEADLINE_MS; waited++) {
        int status;
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid) return WIFEXITED(status) ? WEXITSTATUS(status) : 100 + WTERMSIG(status);
        sleep_ms(1);
    }
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    return 99;
}

static int round_parent(int round)
{
    int a, b;
    if (nc_open(url_a, NC_NOWRITE, &a) || nc_open(url_b, NC_WRITE, &b)) return 20;
    pthread_t threads[5];
    void *(*bodies[5])(void *) = {scanner, opener, reader, writer, inquirer};
    int *args[5] = {&a, &a, &a, &b, &a};
    for (int t = 0; t < 5; t++)
        if (pthread_create(&threads[t], NULL, bodies[t], args[t])) return 21;
    int failures = 0;
    for (int k = 0; k < CHILDREN_PER_ROUND; k++) {
        /* Fork densely at first, while the plugin scan is running. */
        sleep_ms(k < 10 ? 2 : 1 + (k * 7 + round) % 5);
        pid_t pid = fork();
        if (pid < 0) return 22;
        if (pid == 0) _exit(child_work(a, b));
        int status = wait_child(pid);
        if (status) {
            fprintf(stderr, "round %d child %d: %s %d\n", round, k, status == 99 ? "hung" : "failed with", status);
            failures++;
        }
    }
    stop = 1;
    for (int t = 0; t < 5; t++) pthread_join(threads[t], NULL);
    if (nc_close(a) || nc_close(b)) return 23;
    return failures ? 24 : 0;
}

int main(void)
{
    url_a = test_url("fork_a");
    url_b = test_url("fork_b");
    make_dataset(url_a, 0);
    make_dataset(url_b, 0);
    /* main itself never asks about filters: each round parent scans. */
    for (int round = 0; round < ROUNDS; round++) {
        pid_t pid = fork();
        TRUE_OR_FAIL(pid >= 0);
        if (pid == 0) _exit(round_parent(round));
        int status;
        TRUE_OR_FAIL(waitpid(pid, &status, 0) == pid);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
            FAIL("round %d: round parent ended with status %d", round, status);
    }
    printf("%d forks under load, every child finished\n", ROUNDS * CHILDREN_PER_ROUND);
    PASS();
}
