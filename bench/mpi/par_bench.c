/* par_bench: parallel write and read of one float field through
 * netcdf_par.h, by every rank of MPI_COMM_WORLD (bench/mpi/run runs it).
 *
 *   par_bench PATH write|read none|zlib [key=value ...]
 *   par_bench - codec [key=value ...]      (one core's shuffle+zlib rate)
 *     keys (defaults): nz[256] ny[1024] nx[1024]   the field (1 GiB)
 *                      cz[4] cy[256] cx[1024]      its chunks (4 MiB)
 *                      slab[8]                     planes per put/get call
 *                      access[coll]                coll | indep
 *
 * One source, two libraries: linked to nczarr-rs's parallel build, PATH is
 * a URL (file://DIR#mode=nczarr,file or an S3 one); linked to Debian's
 * libnetcdf_mpi (netcdf-c 4.9.0 over parallel HDF5), a file path, created
 * NC_NETCDF4 | NC_MPIIO. Both are given the same chunks, the same codec
 * (zlib: nc_def_var_deflate shuffle on, level 1) and NC_NOFILL (every value
 * is written, so the fill values HDF5 would otherwise write when it
 * allocates the chunks are pure overhead, and would be compressed too).
 *
 * Rank r owns planes [r*nz/np, (r+1)*nz/np) of dimension 0 and moves them
 * in calls of `slab` planes (chunk aligned when nz/np and slab are
 * multiples of cz); every rank makes the same number of calls (a rank
 * with nothing left makes empty ones), as collective access requires.
 * access=coll (the default) sets NC_COLLECTIVE: HDF5 requires it for
 * filtered writes, so both libraries get it in every cell.
 *
 * Timed from a barrier before nc_create_par / nc_open_par to the end of
 * nc_close on every rank (MPI_Wtime; the maximum over ranks). The values
 * are made before the timing (ncz_bench.c's field: a smooth surface plus
 * 8 bits of noise, which shuffle+zlib compresses about 2x, so the encoder
 * does real work). A read is then checked, not timed: every value read
 * against the field, and the variable's chunks and filter against what
 * the write asked for (a library that ignored the codec fails).
 *
 * Rank 0 prints one JSON line: seconds (the max over ranks) to the end
 * of create/open+define, of the last put/get, of close; MB/s of the
 * field's bytes; cpu_s, the CPU seconds of all ranks in the timed part
 * (cpu_s / s = cores kept busy); machine_busy, the cores kept busy
 * machine-wide meanwhile (rank 0's view of /proc/stat: the ranks, an S3
 * server, writeback, anyone else); threads_max, the most threads any rank
 * had at once beyond those it had before the timing (its main thread,
 * MPI's, the sampler): the library's workers (sampled every 2 ms); cpus_min/cpus_max, the CPUs each
 * rank may run on (its affinity: OpenMPI binds ranks unless
 * oversubscribed, and nczarr-rs sizes its encoding threads by it);
 * nivcsw, involuntary context switches of all ranks (cores taken away:
 * oversubscription); verify_errors. Exit status: 0; 2 on a netCDF
 * error (MPI_Abort); 3 when a value, the chunks or the filter is wrong. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>
#include <netcdf.h>
#include <netcdf_par.h>
#include <zlib.h>

static int rank, nprocs;

#define CHK(e) do { int _s = (e); if (_s != NC_NOERR) { \
    fprintf(stderr, "rank %d: %s:%d %s -> %s\n", rank, __FILE__, __LINE__, #e, nc_strerror(_s)); \
    fflush(stderr); MPI_Abort(MPI_COMM_WORLD, 2); } } while (0)

static const char *arg(const char *k, const char *dflt, int argc, char **argv) {
    size_t n = strlen(k);
    for (int i = 4; i < argc; i++)
        if (!strncmp(argv[i], k, n) && argv[i][n] == '=') return argv[i] + n + 1;
    return dflt;
}

static size_t num(const char *k, size_t dflt, int argc, char **argv) {
    const char *v = arg(k, NULL, argc, argv);
    return v ? (size_t)strtoull(v, NULL, 10) : dflt;
}

/* ncz_bench.c's analytic field. */
#include "../field.h"

static void fill_planes(float *b, size_t z0, size_t nz, size_t ny, size_t nx) {
    size_t i = 0;
    for (size_t z = z0; z < z0 + nz; z++)
        for (size_t y = 0; y < ny; y++)
            for (size_t x = 0; x < nx; x++) b[i++] = field((uint32_t)z, (uint32_t)y, (uint32_t)x);
}

/* ---- what the ranks did while timed: threads, CPU, affinity */

static volatile int sampling;
static volatile int threads_max;
static int threads_before; /* MPI's own threads (OpenMPI starts two), the sampler's */

static int threads_now(void) {
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    int n = 0;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "Threads:", 8)) { n = atoi(line + 8); break; }
    if (f) fclose(f);
    return n;
}

/* Counts the library's workers: they live only inside a call, so the
 * count at the end says nothing. Counted beyond the threads there were
 * before the timing (main's, MPI's, the sampler's). */
static void *sampler(void *unused) {
    (void)unused;
    while (sampling) {
        int n = threads_now() - threads_before;
        if (n > threads_max) threads_max = n;
        usleep(2000);
    }
    return NULL;
}

static double cpu_seconds(void) {
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return u.ru_utime.tv_sec + u.ru_stime.tv_sec + 1e-6 * (u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

static long involuntary_switches(void) {
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return u.ru_nivcsw;
}

/* The whole machine's CPU time so far (/proc/stat, in clock ticks): busy
 * and in all. Beside the ranks' own CPU it shows what else ran while they
 * were timed: the S3 server, the kernel's writeback, anyone else's work
 * (the machine is shared). */
static void machine_ticks(double *busy, double *all) {
    unsigned long long v[10] = {0};
    FILE *f = fopen("/proc/stat", "r");
    if (!f || fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
                     &v[6], &v[7]) != 8)
        v[3] = 1;
    if (f) fclose(f);
    /* user nice system idle iowait irq softirq steal: idle and iowait are
     * not busy; steal is time the hypervisor gave to others. */
    *all = (double)(v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7]);
    *busy = (double)(v[0] + v[1] + v[2] + v[5] + v[6]);
}

static int affinity_cpus(void) {
    cpu_set_t set;
    return sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : -1;
}

/* ---- one core's shuffle + zlib level 1 (system zlib, as HDF5's filter) */

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* The encode rate of one core on chunks of this field: HDF5's shuffle
 * (bytes of each float's position gathered) then compress2 at level 1,
 * over 8 chunks taken across the field; best of 3 runs of >= 0.5 s. */
static int codec_rate(size_t nz, size_t ny, size_t nx, size_t cz, size_t cy, size_t cx) {
    enum { NCHUNK = 8 };
    size_t n = cz * cy * cx, bytes = n * 4;
    float *chunk[NCHUNK];
    unsigned char *shuf = malloc(bytes);
    uLongf cap = compressBound(bytes);
    unsigned char *out = malloc(cap);
    size_t packed = 0;
    for (int c = 0; c < NCHUNK; c++) {
        size_t z0 = (c & 1) * (nz / 2), y0 = ((c >> 1) & 1) * (ny / 2), x0 = ((c >> 2) & 1) * (nx / 2);
        chunk[c] = malloc(bytes);
        size_t i = 0;
        for (size_t z = 0; z < cz; z++)
            for (size_t y = 0; y < cy; y++)
                for (size_t x = 0; x < cx; x++)
                    chunk[c][i++] = field((uint32_t)(z0 + z), (uint32_t)(y0 + y), (uint32_t)(x0 + x));
    }
    double best = 0;
    for (int run = 0; run < 3; run++) {
        double t0 = now(), sec;
        size_t done = 0;
        do {
            for (int c = 0; c < NCHUNK; c++) {
                const unsigned char *src = (const unsigned char *)chunk[c];
                for (size_t i = 0; i < n; i++)
                    for (int b = 0; b < 4; b++) shuf[b * n + i] = src[i * 4 + b];
                uLongf len = cap;
                if (compress2(out, &len, shuf, bytes, 1) != Z_OK) { fprintf(stderr, "compress2 failed\n"); return 1; }
                if (run == 0 && done < NCHUNK) packed += len;
                done++;
            }
            sec = now() - t0;
        } while (sec < 0.5);
        if (done * bytes / sec > best) best = done * bytes / sec;
    }
    printf("zlib_shuffle_encode_1core %.3f GB/s ratio %.2f (chunk %zux%zux%zu, zlib %s)\n", best / 1e9,
           (double)NCHUNK * bytes / packed, cz, cy, cx, zlibVersion());
    for (int c = 0; c < NCHUNK; c++) free(chunk[c]);
    free(shuf);
    free(out);
    return 0;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (argc < 3) {
        if (rank == 0) fprintf(stderr, "usage: par_bench PATH write|read none|zlib [key=value ...] | par_bench - codec\n");
        MPI_Finalize();
        return 2;
    }
    const char *path = argv[1], *op = argv[2], *codec = argc > 3 ? argv[3] : "none";
    size_t nz = num("nz", 256, argc, argv), ny = num("ny", 1024, argc, argv), nx = num("nx", 1024, argc, argv);
    size_t cz = num("cz", 4, argc, argv), cy = num("cy", 256, argc, argv), cx = num("cx", 1024, argc, argv);
    size_t slab = num("slab", 8, argc, argv);
    const char *access = arg("access", "coll", argc, argv);
    if (!strcmp(op, "codec")) {
        int rc = rank == 0 ? codec_rate(nz, ny, nx, cz, cy, cx) : 0;
        MPI_Finalize();
        return rc;
    }
    int writing = !strcmp(op, "write"), zlib = !strcmp(codec, "zlib");
    int collective = strcmp(access, "indep") != 0;
    if ((!writing && strcmp(op, "read")) || (!zlib && strcmp(codec, "none")) || !nz || !ny || !nx || !cz || !cy ||
        !cx || !slab || cz > nz || cy > ny || cx > nx) {
        if (rank == 0) fprintf(stderr, "par_bench: bad arguments\n");
        MPI_Finalize();
        return 2;
    }
    /* Which library this binary runs: the same source is linked to both. */
    int ours = strstr(nc_inq_libvers(), "nczarr-rs") != NULL;

    size_t lo = (size_t)rank * nz / nprocs, hi = (size_t)(rank + 1) * nz / nprocs, plane = ny * nx;
    size_t most = 0; /* the most planes any rank has: its calls are everyone's */
    for (int r = 0; r < nprocs; r++) {
        size_t p = (size_t)(r + 1) * nz / nprocs - (size_t)r * nz / nprocs;
        if (p > most) most = p;
    }
    size_t ncalls = (most + slab - 1) / slab;
    float *buf = malloc((hi - lo) * plane * sizeof *buf + 1);
    if (!buf) { fprintf(stderr, "rank %d: out of memory\n", rank); MPI_Abort(MPI_COMM_WORLD, 2); }
    /* Made (write) or touched (read) before the timing: page faults of
     * the caller's buffer are no library's cost. */
    if (writing) fill_planes(buf, lo, hi - lo, ny, nx);
    else memset(buf, 0, (hi - lo) * plane * sizeof *buf);

    pthread_t th;
    sampling = 1;
    threads_before = threads_now() + 1;
    pthread_create(&th, NULL, sampler, NULL);
    MPI_Barrier(MPI_COMM_WORLD);
    double cpu0 = cpu_seconds(), t0 = MPI_Wtime(), busy0, all0;
    machine_ticks(&busy0, &all0);
    long sw0 = involuntary_switches();
    int ncid, varid;
    if (writing) {
        int dims[3];
        size_t chunks[3] = {cz, cy, cx};
        int cmode = NC_CLOBBER | NC_NETCDF4 | (ours ? 0 : NC_MPIIO);
        CHK(nc_create_par(path, cmode, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid));
        CHK(nc_def_dim(ncid, "z", nz, &dims[0]));
        CHK(nc_def_dim(ncid, "y", ny, &dims[1]));
        CHK(nc_def_dim(ncid, "x", nx, &dims[2]));
        CHK(nc_def_var(ncid, "field", NC_FLOAT, 3, dims, &varid));
        CHK(nc_def_var_chunking(ncid, varid, NC_CHUNKED, chunks));
        CHK(nc_def_var_fill(ncid, varid, 1, NULL));
        if (zlib) CHK(nc_def_var_deflate(ncid, varid, 1, 1, 1));
        CHK(nc_enddef(ncid));
    } else {
        CHK(nc_open_par(path, NC_NOWRITE | (ours ? 0 : NC_MPIIO), MPI_COMM_WORLD, MPI_INFO_NULL, &ncid));
        CHK(nc_inq_varid(ncid, "field", &varid));
    }
    CHK(nc_var_par_access(ncid, varid, collective ? NC_COLLECTIVE : NC_INDEPENDENT));
    double t_def = MPI_Wtime();
    for (size_t c = 0; c < ncalls; c++) {
        size_t z = lo + c * slab, n = z < hi ? (hi - z < slab ? hi - z : slab) : 0;
        size_t start[3] = {n ? z : 0, 0, 0}, count[3] = {n, ny, nx};
        float *at = buf + (n ? (z - lo) * plane : 0);
        if (writing) CHK(nc_put_vara_float(ncid, varid, start, count, at));
        else CHK(nc_get_vara_float(ncid, varid, start, count, at));
    }
    double t_io = MPI_Wtime();
    CHK(nc_close(ncid));
    double t_end = MPI_Wtime(), cpu = cpu_seconds() - cpu0, busy1, all1;
    machine_ticks(&busy1, &all1);
    /* Rank 0's view of the cores kept busy machine-wide in its timed part. */
    double machine_busy = all1 > all0 ? (busy1 - busy0) / (all1 - all0) * sysconf(_SC_NPROCESSORS_ONLN) : 0;
    long sw = involuntary_switches() - sw0;
    sampling = 0;
    pthread_join(th, NULL);

    /* Not timed: the values, the chunks and the filter. */
    long long errors = 0;
    if (!writing) {
        size_t i = 0;
        for (size_t z = lo; z < hi; z++)
            for (size_t y = 0; y < ny; y++)
                for (size_t x = 0; x < nx; x++, i++)
                    if (buf[i] != field((uint32_t)z, (uint32_t)y, (uint32_t)x)) {
                        if (errors < 3)
                            fprintf(stderr, "rank %d: field[%zu][%zu][%zu] = %.9g, expected %.9g\n", rank, z, y, x,
                                    buf[i], field((uint32_t)z, (uint32_t)y, (uint32_t)x));
                        errors++;
                    }
        int shuffle, deflate, level, storage;
        size_t got[3];
        CHK(nc_open_par(path, NC_NOWRITE | (ours ? 0 : NC_MPIIO), MPI_COMM_WORLD, MPI_INFO_NULL, &ncid));
        CHK(nc_inq_varid(ncid, "field", &varid));
        CHK(nc_inq_var_deflate(ncid, varid, &shuffle, &deflate, &level));
        CHK(nc_inq_var_chunking(ncid, varid, &storage, got));
        CHK(nc_close(ncid));
        if (deflate != zlib || (zlib && (shuffle != 1 || level != 1))) {
            fprintf(stderr, "rank %d: stored filter shuffle=%d deflate=%d level=%d, expected codec %s\n", rank,
                    shuffle, deflate, level, codec);
            errors++;
        }
        if (storage != NC_CHUNKED || got[0] != cz || got[1] != cy || got[2] != cx) {
            fprintf(stderr, "rank %d: stored chunks %zux%zux%zu, expected %zux%zux%zu\n", rank, got[0], got[1],
                    got[2], cz, cy, cx);
            errors++;
        }
    }
    double mine[3] = {t_def - t0, t_io - t0, t_end - t0}, most_t[3];
    MPI_Reduce(mine, most_t, 3, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    double cpu_all;
    MPI_Reduce(&cpu, &cpu_all, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    long sw_all;
    MPI_Reduce(&sw, &sw_all, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    long long errors_all;
    MPI_Reduce(&errors, &errors_all, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    int stats[3] = {threads_max, affinity_cpus(), -affinity_cpus()}, stats_max[3];
    MPI_Reduce(stats, stats_max, 3, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        double bytes = (double)nz * plane * sizeof(float);
        printf("{\"lib\": \"%s\", \"op\": \"%s\", \"codec\": \"%s\", \"np\": %d, \"access\": \"%s\", "
               "\"shape\": [%zu, %zu, %zu], \"chunks\": [%zu, %zu, %zu], \"slab\": %zu, \"bytes\": %.0f, "
               "\"def_s\": %.4f, \"io_s\": %.4f, \"s\": %.4f, \"mbps\": %.1f, \"cpu_s\": %.3f, "
               "\"machine_busy\": %.2f, \"threads_max\": %d, \"cpus_min\": %d, \"cpus_max\": %d, \"nivcsw\": %ld, "
               "\"verify_errors\": %lld}\n",
               ours ? "ours" : "netcdf-c", op, codec, nprocs, collective ? "coll" : "indep", nz, ny, nx, cz, cy, cx,
               slab, bytes, most_t[0], most_t[1], most_t[2], bytes / most_t[2] / 1e6, cpu_all, machine_busy, stats_max[0],
               -stats_max[2], stats_max[1], sw_all, errors_all);
        fflush(stdout);
    }
    free(buf);
    MPI_Finalize();
    return errors_all && rank == 0 ? 3 : 0;
}
