/* Eight threads at once, in the patterns the README promises are safe:
 * each on its own dataset; readers sharing one ncid; one writer and seven
 * readers on one ncid; inquiries and attribute changes beside reads.
 * Every value read is checked. */
#include "testutil.h"
#include <pthread.h>
#include <stdatomic.h>

#define THREADS 8
#define N (64 * 1024)
#define CHUNK 4096
#define ROUND_SCALE 1000000 /* value = round * ROUND_SCALE + index */
#define ROUNDS 60

static atomic_int failures;
static atomic_int writer_done;

#define CHECK(cond, ...) do { if (!(cond)) { fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); \
    atomic_fetch_add(&failures, 1); return NULL; } } while (0)

static void create_dataset(const char *url, int round)
{
    write_ramp(url, N, CHUNK, round * ROUND_SCALE);
}

/* Pattern 1: each thread creates, writes, reopens and reads its own. */
static void *own_dataset(void *arg)
{
    long t = (long)arg;
    char url[64];
    snprintf(url, sizeof url, "file://own%ld.zarr#mode=nczarr,file", t);
    int ncid, x, v;
    static _Thread_local int data[N];
    CHECK(nc_create(url, NC_CLOBBER, &ncid) == NC_NOERR, "create %ld", t);
    CHECK(nc_def_dim(ncid, "x", N, &x) == NC_NOERR && nc_def_var(ncid, "v", NC_INT, 1, &x, &v) == NC_NOERR, "def");
    for (int i = 0; i < N; i++) data[i] = (int)t * ROUND_SCALE + i;
    CHECK(nc_put_var_int(ncid, v, data) == NC_NOERR && nc_close(ncid) == NC_NOERR, "write %ld", t);
    memset(data, 0, sizeof data);
    CHECK(nc_open(url, NC_NOWRITE, &ncid) == NC_NOERR && nc_get_var_int(ncid, 0, data) == NC_NOERR, "read %ld", t);
    for (int i = 0; i < N; i++) CHECK(data[i] == (int)t * ROUND_SCALE + i, "thread %ld value %d", t, i);
    CHECK(nc_close(ncid) == NC_NOERR, "close");
    return NULL;
}

/* Pattern 2: readers sharing one ncid, whole and partial reads. */
static int shared_ncid;
static void *shared_reader(void *arg)
{
    long t = (long)arg;
    static _Thread_local int data[N];
    for (int rep = 0; rep < 10; rep++) {
        CHECK(nc_get_var_int(shared_ncid, 0, data) == NC_NOERR, "get");
        for (int i = 0; i < N; i++) CHECK(data[i] == i, "reader %ld value %d = %d", t, i, data[i]);
        size_t start = (size_t)(t * 977 + rep * 131) % (N - 500), count = 500;
        ptrdiff_t stride = 1;
        CHECK(nc_get_vars_int(shared_ncid, 0, &start, &count, &stride, data) == NC_NOERR, "get_vars");
        for (size_t i = 0; i < count; i++) CHECK(data[i] == (int)(start + i), "slab value");
    }
    return NULL;
}

/* Pattern 3: one writer, seven readers, one ncid. Values are never torn,
 * always of some round already begun, and never go back in time. */
static int writer_ncid;
static void *writer(void *arg)
{
    (void)arg;
    static int data[N];
    for (int round = 1; round <= ROUNDS; round++) {
        for (int i = 0; i < N; i++) data[i] = round * ROUND_SCALE + i;
        /* Chunk by chunk, so readers see rounds mixed across chunks. */
        for (size_t s = 0; s < N; s += CHUNK) {
            size_t count = CHUNK;
            CHECK(nc_put_vara_int(writer_ncid, 0, &s, &count, data + s) == NC_NOERR, "put");
        }
        if (round % 4 == 0) CHECK(nc_sync(writer_ncid) == NC_NOERR, "sync");
    }
    atomic_store(&writer_done, 1);
    return NULL;
}

static void *racing_reader(void *arg)
{
    long t = (long)arg;
    static _Thread_local int data[N], seen[N];
    memset(seen, 0, sizeof seen);
    while (!atomic_load(&writer_done)) {
        CHECK(nc_get_var_int(writer_ncid, 0, data) == NC_NOERR, "get");
        for (int i = 0; i < N; i++) {
            int round = data[i] / ROUND_SCALE;
            CHECK(data[i] % ROUND_SCALE == i, "reader %ld: torn value %d at %d", t, data[i], i);
            CHECK(round >= seen[i] && round <= ROUNDS, "reader %ld: round %d after %d at %d", t, round, seen[i], i);
            seen[i] = round;
        }
    }
    return NULL;
}

/* Pattern 4: inquiries and attribute changes beside reads. */
static void *inquirer(void *arg)
{
    long t = (long)arg;
    char name[NC_MAX_NAME + 1];
    for (int rep = 0; rep < 200; rep++) {
        int nvars, x;
        size_t len;
        CHECK(nc_inq_nvars(shared_ncid, &nvars) == NC_NOERR && nvars == 1, "nvars");
        CHECK(nc_inq_dimid(shared_ncid, "x", &x) == NC_NOERR && nc_inq_dimlen(shared_ncid, x, &len) == NC_NOERR &&
              len == N, "dimlen");
        CHECK(nc_inq_varname(shared_ncid, 0, name) == NC_NOERR && strcmp(name, "v") == 0, "varname");
        snprintf(name, sizeof name, "att%ld", t);
        int value = rep, back = -1;
        CHECK(nc_put_att_int(writer_ncid, NC_GLOBAL, name, NC_INT, 1, &value) == NC_NOERR, "put_att");
        CHECK(nc_get_att_int(writer_ncid, NC_GLOBAL, name, &back) == NC_NOERR && back == rep, "get_att");
    }
    return NULL;
}

static void run(void *(*body)(void *), void *(*first)(void *))
{
    pthread_t threads[THREADS];
    for (long t = 0; t < THREADS; t++)
        TRUE_OR_FAIL(pthread_create(&threads[t], NULL, t == 0 && first ? first : body, (void *)t) == 0);
    for (int t = 0; t < THREADS; t++) pthread_join(threads[t], NULL);
    EQ_INT(atomic_load(&failures), 0);
}

int main(void)
{
    run(own_dataset, NULL);

    create_dataset(test_url("shared"), 0);
    OK(nc_open(test_url("shared"), NC_NOWRITE, &shared_ncid));
    run(shared_reader, NULL);

    create_dataset(test_url("raced"), 0);
    OK(nc_open(test_url("raced"), NC_WRITE, &writer_ncid));
    run(racing_reader, writer);
    OK(nc_close(writer_ncid));
    {   /* Everything the writer wrote is there. */
        int ncid;
        static int data[N];
        OK(nc_open(test_url("raced"), NC_NOWRITE, &ncid));
        OK(nc_get_var_int(ncid, 0, data));
        for (int i = 0; i < N; i++) EQ_INT(data[i], ROUNDS * ROUND_SCALE + i);
        OK(nc_close(ncid));
    }

    OK(nc_open(test_url("raced"), NC_WRITE, &writer_ncid));
    run(inquirer, NULL);
    run(shared_reader, NULL);
    OK(nc_close(writer_ncid));
    OK(nc_close(shared_ncid));
    PASS();
}
