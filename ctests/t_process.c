/* The library inside other people's processes: a forked child (as Python
 * multiprocessing and Dask workers do) works after the parent used the
 * library, and threads may use different datasets at once. */
#include "testutil.h"
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

#define N 4096

static void write_dataset(const char *url, int offset)
{
    write_ramp(url, N, 256, offset);
}

/* Read a whole dataset (many chunks: fetched on several threads) and
 * check it. Returns 0 when every value is right. */
static int read_check(const char *url, int offset)
{
    int ncid, v, bad = 0;
    int *data = malloc(N * sizeof(int));
    if (nc_open(url, NC_NOWRITE, &ncid) || nc_inq_varid(ncid, "v", &v) || nc_get_var_int(ncid, v, data))
        bad = 1;
    for (int i = 0; !bad && i < N; i++) bad = data[i] != i + offset;
    nc_close(ncid);
    free(data);
    return bad;
}

struct job { const char *url; int offset; int result; };

static void *reader(void *arg)
{
    struct job *j = arg;
    j->result = 0;
    for (int round = 0; round < 20; round++) j->result |= read_check(j->url, j->offset);
    return NULL;
}

int main(void)
{
    const char *a = test_url("proc_a"), *b = test_url("proc_b");
    write_dataset(a, 0);
    write_dataset(b, 1000000);
    EQ_INT(read_check(a, 0), 0);

    /* Fork with a dataset open in the parent; the child uses the library. */
    int ncid;
    OK(nc_open(a, NC_NOWRITE, &ncid));
    pid_t pid = fork();
    TRUE_OR_FAIL(pid >= 0);
    if (pid == 0) {
        int ok = read_check(a, 0) == 0 && read_check(b, 1000000) == 0;
        write_dataset(test_url("proc_child"), 7);
        ok = ok && read_check(test_url("proc_child"), 7) == 0;
        _exit(ok ? 0 : 3);
    }
    int status;
    TRUE_OR_FAIL(waitpid(pid, &status, 0) == pid);
    TRUE_OR_FAIL(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    EQ_INT(read_check(test_url("proc_child"), 7), 0);
    OK(nc_close(ncid));

    /* Threads on different datasets at once. */
    pthread_t t1, t2;
    struct job j1 = {a, 0, -1}, j2 = {b, 1000000, -1};
    TRUE_OR_FAIL(pthread_create(&t1, NULL, reader, &j1) == 0);
    TRUE_OR_FAIL(pthread_create(&t2, NULL, reader, &j2) == 0);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    EQ_INT(j1.result, 0);
    EQ_INT(j2.result, 0);
    PASS();
}
