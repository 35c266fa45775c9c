/* s3fork.c -- fork() with an S3 dataset open, then while threads are
 * inside S3 requests. The dataset (written by `s3probe writebig ... 0`)
 * holds v[i] = i. Every child must read the right values again through
 * S3 and exit 0 within its deadline (an HTTP connection pool, a runtime or
 * a lock copied half-held into the child would hang or break it).
 *
 * Usage: s3fork URL          exit 0 when every child passed
 */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <netcdf.h>

#define FAIL(...) do { fprintf(stderr, "%s:%d: ", __FILE__, __LINE__); \
    fprintf(stderr, __VA_ARGS__); fprintf(stderr, "\n"); exit(1); } while (0)
#define OK(call) do { int _s = (call); if (_s != NC_NOERR) \
    FAIL("%s returned %d (%s)", #call, _s, nc_strerror(_s)); } while (0)

#define THREADS 4
#define FORKS 6
#define CHILD_DEADLINE_S 60

static const char *url;
static atomic_int stop;
static atomic_long reads_done;

/* 0 when v of ncid holds i everywhere. */
static int check_values(int ncid)
{
    int v, x;
    size_t n;
    if (nc_inq_varid(ncid, "v", &v) || nc_inq_dimid(ncid, "x", &x) || nc_inq_dimlen(ncid, x, &n)) return 1;
    int *data = malloc(sizeof(int) * n);
    int bad = nc_get_var_int(ncid, v, data) != NC_NOERR;
    for (size_t i = 0; !bad && i < n; i++) bad = data[i] != (int)i;
    free(data);
    return bad;
}

/* In a child: the inherited dataset and a fresh open both read right. */
static int child(int ncid)
{
    alarm(CHILD_DEADLINE_S);
    if (check_values(ncid)) { fprintf(stderr, "child: inherited dataset read wrong\n"); return 3; }
    int ncid2;
    int s = nc_open(url, NC_NOWRITE, &ncid2);
    if (s) { fprintf(stderr, "child: nc_open %d\n", s); return 4; }
    if (check_values(ncid2)) { fprintf(stderr, "child: fresh dataset read wrong\n"); return 5; }
    if (nc_close(ncid2)) return 6;
    if (nc_close(ncid)) return 7;
    return 0;
}

static void wait_child(pid_t pid, const char *what)
{
    int status;
    if (waitpid(pid, &status, 0) != pid) FAIL("waitpid");
    if (WIFSIGNALED(status)) FAIL("%s: child killed by signal %d%s", what, WTERMSIG(status),
                                  WTERMSIG(status) == SIGALRM ? " (deadline: it hung)" : "");
    if (WEXITSTATUS(status) != 0) FAIL("%s: child exited %d", what, WEXITSTATUS(status));
}

static void *reader(void *arg)
{
    int ncid = *(int *)arg;
    while (!stop) {
        if (check_values(ncid)) FAIL("parent thread read wrong values");
        reads_done++;
        int other;
        if (nc_open(url, NC_NOWRITE, &other) == NC_NOERR) nc_close(other);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 2) return 2;
    url = argv[1];
    int ncid;
    OK(nc_open(url, NC_NOWRITE, &ncid));
    if (check_values(ncid)) FAIL("parent read wrong values");

    /* 1. A plain fork after a read. */
    pid_t pid = fork();
    if (pid == 0) _exit(child(ncid));
    wait_child(pid, "plain fork");
    if (check_values(ncid)) FAIL("parent read wrong values after the fork");

    /* 2. Forks while threads are reading (and opening) in a loop. */
    pthread_t th[THREADS];
    for (int t = 0; t < THREADS; t++) pthread_create(&th[t], NULL, reader, &ncid);
    for (int k = 0; k < FORKS; k++) {
        long before = reads_done;
        struct timespec ts = {0, 20000000L * (k + 1)};
        nanosleep(&ts, NULL);
        (void)before;
        pid = fork();
        if (pid == 0) _exit(child(ncid));
        wait_child(pid, "fork beside reading threads");
    }
    stop = 1;
    for (int t = 0; t < THREADS; t++) pthread_join(th[t], NULL);
    if (reads_done == 0) FAIL("the threads read nothing");
    OK(nc_close(ncid));
    printf("PASS forks=%d reads=%ld\n", 1 + FORKS, (long)reads_done);
    return 0;
}
