/* The int forms netcdf_f.h declares for the Fortran bindings, and the
 * dataset-wide default string width. */
#include "testutil.h"
#include <netcdf_f.h>

int main(void)
{
    int ncid, x, y, v, s, size, nelems, pre, storage, chunks[2], dims[2];
    OK(nc_create(test_url("ints"), NC_CLOBBER, &ncid));
    OK(nc_def_dim(ncid, "y", 6, &y));
    OK(nc_def_dim(ncid, "x", 8, &x));
    dims[0] = y; dims[1] = x;
    OK(nc_def_var(ncid, "v", NC_INT, 2, dims, &v));
    chunks[0] = 2; chunks[1] = 4;
    OK(nc_def_var_chunking_ints(ncid, v, NC_CHUNKED, chunks));
    chunks[0] = chunks[1] = 0;
    OK(nc_inq_var_chunking_ints(ncid, v, &storage, chunks));
    EQ_INT(storage, NC_CHUNKED); EQ_INT(chunks[0], 2); EQ_INT(chunks[1], 4);
    chunks[0] = -1;
    ERR(NC_EINVAL, nc_def_var_chunking_ints(ncid, v, NC_CHUNKED, chunks));

    /* Library-wide: bytes and percent. */
    OK(nc_get_chunk_cache_ints(&size, &nelems, &pre));
    EQ_INT(size, 64 << 20); EQ_INT(nelems, 1000); EQ_INT(pre, 75);
    ERR(NC_EINVAL, nc_set_chunk_cache_ints(0, 10, 50));
    ERR(NC_EINVAL, nc_set_chunk_cache_ints(1000, 10, 101));
    OK(nc_set_chunk_cache_ints(1 << 20, 7, 50));
    OK(nc_get_chunk_cache_ints(&size, &nelems, &pre));
    EQ_INT(size, 1 << 20); EQ_INT(nelems, 7); EQ_INT(pre, 50);
    OK(nc_set_chunk_cache_ints(64 << 20, 1000, 75));
    /* Per variable: MiB and percent. */
    OK(nc_set_var_chunk_cache_ints(ncid, v, 3, 5, 20));
    OK(nc_get_var_chunk_cache_ints(ncid, v, &size, &nelems, &pre));
    EQ_INT(size, 3); EQ_INT(nelems, 5); EQ_INT(pre, 20);
    {
        size_t bytes, n;
        float p;
        OK(nc_get_var_chunk_cache(ncid, v, &bytes, &n, &p));
        EQ_INT(bytes, 3 << 20);
    }
    ERR(NC_ENOTVAR, nc_set_var_chunk_cache_ints(ncid, 99, 1, 1, 1));

    /* _nczarr_default_maxstrlen sets the width of string variables that
     * have no _nczarr_maxstrlen of their own. */
    int eight = 8;
    OK(nc_put_att_int(ncid, NC_GLOBAL, "_nczarr_default_maxstrlen", NC_INT, 1, &eight));
    OK(nc_def_var(ncid, "s", NC_STRING, 1, &y, &s));
    const char *ok[6] = {"12345678", "", "a", "b", "c", "d"};
    const char *longer[6] = {"123456789", "", "a", "b", "c", "d"};
    OK(nc_put_var_string(ncid, s, ok));
    /* Longer than the width: cut to it, as netcdf-c does. */
    OK(nc_put_var_string(ncid, s, longer));
    {
        char *first = NULL;
        size_t at[1] = {0};
        OK(nc_get_var1_string(ncid, s, at, &first));
        EQ_STR(first, "12345678");
        OK(nc_free_string(1, &first));
    }
    OK(nc_close(ncid));
    FILE *f = fopen("ints.zarr/s/.zarray", "r");
    char json[512] = {0};
    TRUE_OR_FAIL(f && fread(json, 1, sizeof json - 1, f) > 0);
    fclose(f);
    TRUE_OR_FAIL(strstr(json, "\"|S8\"") != NULL);
    PASS();
}
