/* Datasets that are not Zarr, served by the netcdf-c beside us (the
 * delegate, src/delegate), in one id space with our NCZarr datasets:
 * create and read classic and netCDF-4 files, settings that reach both
 * libraries (made before and after the delegate is loaded), groups,
 * strings, vlens and compounds with strings freed every way a program may,
 * copies between a `.nc` file and a Zarr store in both directions, from
 * several threads, in-memory datasets, and a fork while a call into the
 * delegate is in progress.
 *
 * valgrind: forks beside threads (a child checks memory errors, not leaks).
 * Under AddressSanitizer no delegate can be loaded (ASan refuses the
 * RTLD_DEEPBIND it is loaded with): there the test checks that `.nc` files
 * are NC_ENOTBUILT, and valgrind checks the rest. */
#include <errno.h>
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>
#include "testutil.h"
#include <netcdf_mem.h>

#define N 1000

int H5get_libversion(unsigned *, unsigned *, unsigned *);

static void check_format(int ncid, int format, int extended)
{
    int f = -1, ext = -1, mode = -1;
    OK(nc_inq_format(ncid, &f));
    EQ_INT(f, format);
    OK(nc_inq_format_extended(ncid, &ext, &mode));
    EQ_INT(ext, extended);
}

/* A netCDF-4 file with a group, strings, a vlen and a compound holding a
 * string, written through the delegate. */
static void write_rich(const char *path)
{
    int ncid, grp, x, t, v, s, vl_t, cmp_t, w, c;
    OK(nc_create(path, NC_CLOBBER | NC_NETCDF4, &ncid));
    check_format(ncid, NC_FORMAT_NETCDF4, NC_FORMATX_NC4);
    OK(nc_def_dim(ncid, "x", 3, &x));
    OK(nc_def_dim(ncid, "t", NC_UNLIMITED, &t));
    int dims[2] = {t, x};
    OK(nc_def_var(ncid, "v", NC_FLOAT, 2, dims, &v));
    OK(nc_def_var_deflate(ncid, v, 1, 1, 4));
    OK(nc_put_att_text(ncid, v, "units", 1, "m"));
    OK(nc_def_var(ncid, "s", NC_STRING, 1, &x, &s));
    OK(nc_def_vlen(ncid, "ints", NC_INT, &vl_t));
    OK(nc_def_var(ncid, "w", vl_t, 1, &x, &w));
    struct rec { int i; char *name; };
    OK(nc_def_compound(ncid, sizeof(struct rec), "rec", &cmp_t));
    OK(nc_insert_compound(ncid, cmp_t, "i", offsetof(struct rec, i), NC_INT));
    OK(nc_insert_compound(ncid, cmp_t, "name", offsetof(struct rec, name), NC_STRING));
    OK(nc_def_var(ncid, "c", cmp_t, 1, &x, &c));
    const char *title[1] = {"strings everywhere"};
    OK(nc_put_att_string(ncid, NC_GLOBAL, "title", 1, title));
    OK(nc_def_grp(ncid, "g", &grp));
    int k;
    OK(nc_def_var(grp, "k", NC_INT, 0, NULL, &k));
    OK(nc_enddef(ncid));
    float vals[6] = {1, 2, 3, 4, 5, 6};
    size_t start[2] = {0, 0}, count[2] = {2, 3};
    OK(nc_put_vara_float(ncid, v, start, count, vals));
    const char *strs[3] = {"a", "bb", "ccc"};
    OK(nc_put_var_string(ncid, s, strs));
    int e0[1] = {1}, e1[2] = {2, 3}, e2[3] = {4, 5, 6};
    nc_vlen_t vl[3] = {{1, e0}, {2, e1}, {3, e2}};
    OK(nc_put_var(ncid, w, vl));
    struct rec recs[3] = {{1, "one"}, {2, "two"}, {3, "three"}};
    OK(nc_put_var(ncid, c, recs));
    int seven = 7;
    OK(nc_put_var_int(grp, k, &seven));
    OK(nc_close(ncid));
}

/* Read it back, freeing what the delegate allocated every way netCDF
 * lets a program free it. */
static void read_rich(const char *path)
{
    int ncid, v, s, w, c, ngrps, grps[4], parent, g2, g3, k, nt;
    OK(nc_open(path, NC_NOWRITE, &ncid));
    OK(nc_inq_varid(ncid, "v", &v));
    float vals[6];
    OK(nc_get_var_float(ncid, v, vals));
    for (int i = 0; i < 6; i++) EQ_DBL(vals[i], i + 1);
    /* Strings: nc_free_string, and plain free(). */
    OK(nc_inq_varid(ncid, "s", &s));
    char *strs[3];
    OK(nc_get_var_string(ncid, s, strs));
    EQ_STR(strs[0], "a");
    EQ_STR(strs[2], "ccc");
    OK(nc_free_string(3, strs));
    OK(nc_get_var_string(ncid, s, strs));
    for (int i = 0; i < 3; i++) free(strs[i]);
    char *title[1];
    OK(nc_get_att_string(ncid, NC_GLOBAL, "title", title));
    EQ_STR(title[0], "strings everywhere");
    free(title[0]);
    /* Vlens: nc_free_vlens, nc_free_vlen, nc_reclaim_data. */
    OK(nc_inq_varid(ncid, "w", &w));
    nc_vlen_t vl[3];
    OK(nc_get_var(ncid, w, vl));
    EQ_INT(vl[2].len, 3);
    EQ_INT(((int *)vl[2].p)[2], 6);
    OK(nc_free_vlens(3, vl));
    OK(nc_get_var(ncid, w, vl));
    for (int i = 0; i < 3; i++) OK(nc_free_vlen(&vl[i]));
    nc_type wt;
    OK(nc_inq_vartype(ncid, w, &wt));
    OK(nc_get_var(ncid, w, vl));
    OK(nc_reclaim_data(ncid, wt, vl, 3));
    /* Compounds with a string: nc_reclaim_data, or free() field by field. */
    struct rec { int i; char *name; } recs[3];
    nc_type ct;
    OK(nc_inq_varid(ncid, "c", &c));
    OK(nc_inq_vartype(ncid, c, &ct));
    OK(nc_get_var(ncid, c, recs));
    EQ_INT(recs[2].i, 3);
    EQ_STR(recs[2].name, "three");
    OK(nc_reclaim_data(ncid, ct, recs, 3));
    OK(nc_get_var(ncid, c, recs));
    for (int i = 0; i < 3; i++) free(recs[i].name);
    /* User-defined types are the file's: found and compared. */
    OK(nc_inq_typeids(ncid, &nt, NULL));
    EQ_INT(nt, 2);
    int eq = -1;
    OK(nc_inq_type_equal(ncid, ct, ncid, ct, &eq));
    EQ_INT(eq, 1);
    /* Groups: the ids that come back are ours, usable, and name the
     * same dataset. */
    OK(nc_inq_grps(ncid, &ngrps, grps));
    EQ_INT(ngrps, 1);
    EQ_INT(grps[0] & ~0xFFFF, ncid & ~0xFFFF);
    OK(nc_inq_grps(ncid, NULL, grps));
    OK(nc_inq_grp_parent(grps[0], &parent));
    EQ_INT(parent, ncid);
    OK(nc_inq_ncid(ncid, "g", &g2));
    EQ_INT(g2, grps[0]);
    OK(nc_inq_grp_full_ncid(ncid, "/g", &g3));
    EQ_INT(g3, grps[0]);
    int seven = 0;
    OK(nc_inq_varid(g2, "k", &k));
    OK(nc_get_var_int(g2, k, &seven));
    EQ_INT(seven, 7);
    char gpath[64];
    OK(nc_inq_grpname_full(g3, NULL, gpath));
    EQ_STR(gpath, "/g");
    /* The path and format are what netcdf-c says for the file. */
    char p[512];
    size_t plen;
    OK(nc_inq_path(ncid, &plen, p));
    EQ_STR(p, path);
    check_format(ncid, NC_FORMAT_NETCDF4, NC_FORMATX_NC4);
    OK(nc_close(ncid));
    ERR(NC_EBADID, nc_inq_varid(ncid, "v", &v));
}

/* A Zarr store with one double variable of N values i * 0.5. */
static void write_zarr(const char *url)
{
    int ncid, x, v;
    double d[N];
    for (int i = 0; i < N; i++) d[i] = i * 0.5;
    OK(nc_create(url, NC_CLOBBER, &ncid));
    OK(nc_def_dim(ncid, "x", N, &x));
    OK(nc_def_var(ncid, "d", NC_DOUBLE, 1, &x, &v));
    OK(nc_put_att_text(ncid, v, "long_name", 4, "half"));
    OK(nc_enddef(ncid));
    OK(nc_put_var_double(ncid, v, d));
    OK(nc_close(ncid));
}

/* Copy variable d from `from` to `to` (dimension x defined in `to`
 * first, as nc_copy_var requires), then check every value and the
 * attribute on the far side. */
static void copy_between(const char *from, const char *to, int to_mode)
{
    int in, out, x, vin, vout;
    OK(nc_open(from, NC_NOWRITE, &in));
    OK(nc_create(to, NC_CLOBBER | to_mode, &out));
    OK(nc_def_dim(out, "x", N, &x));
    OK(nc_inq_varid(in, "d", &vin));
    /* Before the variable: nc_copy_var leaves define mode, as in netcdf-c. */
    OK(nc_copy_att(in, vin, "long_name", out, NC_GLOBAL));
    OK(nc_copy_var(in, vin, out));
    OK(nc_close(in));
    OK(nc_close(out));
    OK(nc_open(to, NC_NOWRITE, &out));
    OK(nc_inq_varid(out, "d", &vout));
    double d[N];
    OK(nc_get_var_double(out, vout, d));
    for (int i = 0; i < N; i++) EQ_DBL(d[i], i * 0.5);
    char text[8] = {0};
    OK(nc_get_att_text(out, NC_GLOBAL, "long_name", text));
    EQ_STR(text, "half");
    OK(nc_get_att_text(out, vout, "long_name", text));
    EQ_STR(text, "half");
    OK(nc_close(out));
}

static void *copy_thread(void *arg)
{
    long i = (long)arg;
    char zarr[64], nc[64], back[64];
    snprintf(zarr, sizeof zarr, "file://th%ld.zarr#mode=nczarr,file", i);
    snprintf(nc, sizeof nc, "th%ld.nc", i);
    snprintf(back, sizeof back, "file://th%ld_back.zarr#mode=nczarr,file", i);
    for (int round = 0; round < 3; round++) {
        write_zarr(zarr);
        copy_between(zarr, nc, i % 2 ? NC_NETCDF4 : 0);
        copy_between(nc, back, 0);
    }
    return NULL;
}

/* Calls into the delegate, in a loop, while the main thread forks. */
static volatile int stop_reading;
static void *read_loop(void *arg)
{
    const char *path = arg;
    while (!stop_reading) read_rich(path);
    return NULL;
}

static void in_memory(void)
{
    /* A classic file created in memory, its image taken at close and
     * freed by the program; then opened from that image. */
    int ncid, x, v;
    OK(nc_create_mem("mem.nc", NC_CLOBBER, 1024, &ncid));
    OK(nc_def_dim(ncid, "x", 4, &x));
    OK(nc_def_var(ncid, "v", NC_SHORT, 1, &x, &v));
    OK(nc_enddef(ncid));
    short in[4] = {1, -2, 3, -4}, got[4];
    OK(nc_put_var_short(ncid, v, in));
    NC_memio image = {0, NULL, 0};
    OK(nc_close_memio(ncid, &image));
    TRUE_OR_FAIL(image.size > 0 && memcmp(image.memory, "CDF\001", 4) == 0);
    OK(nc_open_mem("mem.nc", NC_NOWRITE, image.size, image.memory, &ncid));
    check_format(ncid, NC_FORMAT_CLASSIC, NC_FORMATX_NC3);
    OK(nc_get_var_short(ncid, v, got));
    for (int i = 0; i < 4; i++) EQ_INT(got[i], in[i]);
    OK(nc_close(ncid));
    free(image.memory);
    /* Diskless: in memory, never on disk unless asked. */
    OK(nc_create("diskless.nc", NC_CLOBBER | NC_DISKLESS, &ncid));
    OK(nc_close(ncid));
    TRUE_OR_FAIL(access("diskless.nc", F_OK) != 0);
}

int main(void)
{
    int ncid, x, v, old;
    char cwd[400], rich[512];
#ifdef __SANITIZE_ADDRESS__
    /* See the comment at the top. */
    {
        FILE *f = fopen("classic.nc", "w");
        fwrite("CDF\001\0\0\0\0\0\0\0\0", 1, 12, f);
        fclose(f);
        ERR(NC_ENOTBUILT, nc_open("classic.nc", NC_NOWRITE, &ncid));
        ERR(NC_ENOTBUILT, nc_create("x.nc", NC_CLOBBER, &ncid));
        PASS();
    }
#endif
    /* Settings made before the delegate is loaded reach it when it is:
     * the default format makes a plain nc_create netCDF-4. */
    OK(nc_set_default_format(NC_FORMAT_NETCDF4, &old));
    OK(nc_create("default4.nc", NC_CLOBBER, &ncid));
    check_format(ncid, NC_FORMAT_NETCDF4, NC_FORMATX_NC4);
    OK(nc_close(ncid));
    /* ... and those made after, at once. */
    OK(nc_set_default_format(NC_FORMAT_CLASSIC, &old));
    EQ_INT(old, NC_FORMAT_NETCDF4);
    OK(nc_create("classic.nc", NC_CLOBBER, &ncid));
    check_format(ncid, NC_FORMAT_CLASSIC, NC_FORMATX_NC3);
    OK(nc_def_dim(ncid, "x", 2, &x));
    OK(nc_def_var(ncid, "v", NC_INT, 1, &x, &v));
    OK(nc_enddef(ncid));
    int ints[2] = {5, 6}, back[2];
    OK(nc_put_var_int(ncid, v, ints));
    OK(nc_close(ncid));
    /* Each netcdf-c format, and its conversion checks (NC_ERANGE). */
    int formats[3] = {NC_64BIT_OFFSET, NC_64BIT_DATA, NC_NETCDF4 | NC_CLASSIC_MODEL};
    int expect[3] = {NC_FORMAT_64BIT_OFFSET, NC_FORMAT_CDF5, NC_FORMAT_NETCDF4_CLASSIC};
    for (int i = 0; i < 3; i++) {
        OK(nc_create("fmt.nc", NC_CLOBBER | formats[i], &ncid));
        OK(nc_def_dim(ncid, "x", 2, &x));
        OK(nc_def_var(ncid, "b", NC_BYTE, 1, &x, &v));
        OK(nc_enddef(ncid));
        int big[2] = {1, 300};
        ERR(NC_ERANGE, nc_put_var_int(ncid, v, big));
        OK(nc_close(ncid));
        OK(nc_open("fmt.nc", NC_NOWRITE, &ncid));
        int f;
        OK(nc_inq_format(ncid, &f));
        EQ_INT(f, expect[i]);
        OK(nc_close(ncid));
    }
    /* One id space: a .nc file and a Zarr store open at once. */
    write_zarr("file://a.zarr#mode=nczarr,file");
    int nc_id, zarr_id, zv;
    OK(nc_open("classic.nc", NC_NOWRITE, &nc_id));
    OK(nc_open("file://a.zarr#mode=nczarr,file", NC_NOWRITE, &zarr_id));
    TRUE_OR_FAIL(nc_id != zarr_id);
    OK(nc_get_var_int(nc_id, v, back));
    EQ_INT(back[1], 6);
    OK(nc_inq_varid(zarr_id, "d", &zv));
    check_format(zarr_id, NC_FORMAT_NETCDF4, NC_FORMATX_NCZARR);
    check_format(nc_id, NC_FORMAT_CLASSIC, NC_FORMATX_NC3);
    int eq = -1;
    OK(nc_inq_type_equal(nc_id, NC_INT, zarr_id, NC_INT, &eq));
    EQ_INT(eq, 1);
    OK(nc_inq_type_equal(zarr_id, NC_INT, nc_id, NC_FLOAT, &eq));
    EQ_INT(eq, 0);
    OK(nc_close(nc_id));
    OK(nc_close(zarr_id));

    if (!getcwd(cwd, sizeof cwd)) FAIL("getcwd");
    snprintf(rich, sizeof rich, "%s/rich.nc", cwd);
    write_rich(rich);
    read_rich(rich);

    /* Copies both ways: Zarr -> classic and netCDF-4 files -> Zarr. */
    copy_between("file://a.zarr#mode=nczarr,file", "copy3.nc", 0);
    copy_between("copy3.nc", "file://b.zarr#mode=nczarr,file", 0);
    copy_between("file://b.zarr#mode=nczarr,file", "copy4.nc", NC_NETCDF4);
    copy_between("copy4.nc", "file://c.zip#mode=nczarr,zip", 0);

    /* The same from four threads at once (calls into netcdf-c are
     * serialised; ours run beside them). */
    pthread_t th[4];
    for (long i = 0; i < 4; i++) pthread_create(&th[i], NULL, copy_thread, (void *)i);
    for (int i = 0; i < 4; i++) pthread_join(th[i], NULL);

    in_memory();

    /* Fork while another thread is inside the delegate: the child can use
     * both libraries. */
    pthread_t reader;
    stop_reading = 0;
    pthread_create(&reader, NULL, read_loop, rich);
    for (int i = 0; i < 5; i++) {
        usleep(2000);
        pid_t pid = fork();
        if (pid == 0) {
            read_rich(rich);
            copy_between("file://a.zarr#mode=nczarr,file", "child.nc", NC_NETCDF4);
            _exit(0);
        }
        int status;
        waitpid(pid, &status, 0);
        TRUE_OR_FAIL(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    stop_reading = 1;
    pthread_join(reader, NULL);

    /* HDF5 as the delegate has it (python3-netcdf4 asks at import). */
    unsigned maj = 0, min = 0, rel = 0;
    EQ_INT(H5get_libversion(&maj, &min, &rel), 0);
    TRUE_OR_FAIL(maj == 1 && min >= 8);

    /* nc_delete removes a .nc file. */
    OK(nc_delete("copy3.nc"));
    TRUE_OR_FAIL(access("copy3.nc", F_OK) != 0);
    PASS();
}
