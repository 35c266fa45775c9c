/* xor_filter.c -- a test filter plugin with both halves (HDF5 filter and
 * NCZarr codec) for an unregistered filter id. It XORs every byte with a
 * key, and its working parameters add the variable's type size and the
 * length of its last dimension, learned by calling back into the netCDF
 * API as netcdf-c's own plugins do (its szip plugin asks nc_inq_dimlen).
 * It also asks something the library cannot answer while it sets the
 * variable up: the answer does not matter, only that the call returns
 * (it once waited forever for a lock its own thread held). */
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <netcdf.h>
#include <netcdf_filter_build.h>

#define XOR_ID 40001

static size_t xor_filter(unsigned flags, size_t n, const unsigned params[], size_t nbytes, size_t *buf_size, void **buf)
{
    (void)flags;
    /* working params: key, type size, last dimension's length */
    if (n != 3 || params[1] == 0 || params[2] == 0) return 0;
    /* Hand back a new malloc'ed buffer, as the contract allows. */
    unsigned char *out = malloc(nbytes ? nbytes : 1);
    if (!out) return 0;
    const unsigned char *in = *buf;
    for (size_t i = 0; i < nbytes; i++) out[i] = in[i] ^ (unsigned char)params[0];
    free(*buf);
    *buf = out;
    *buf_size = nbytes ? nbytes : 1;
    return nbytes;
}

static const H5Z_class2_t xor_class = {H5Z_CLASS_T_VERS, XOR_ID, 1, 1, "xor", NULL, NULL, xor_filter};

H5PL_type_t H5PLget_plugin_type(void) { return H5PL_TYPE_FILTER; }
const void *H5PLget_plugin_info(void) { return &xor_class; }

static int to_hdf5(const char *codec, size_t *nparamsp, unsigned **paramsp)
{
    const char *k = strstr(codec, "\"key\":");
    if (!k) return NC_EFILTER;
    unsigned *p = malloc(sizeof(unsigned));
    p[0] = (unsigned)atoi(k + 6);
    *nparamsp = 1;
    *paramsp = p;
    return NC_NOERR;
}

static int to_codec(size_t nparams, const unsigned *params, char **codecp)
{
    if (nparams != 1) return NC_EFILTER;
    char *s = malloc(64);
    snprintf(s, 64, "{\"id\":\"nczarr_rs_test_xor\",\"key\":%u}", params[0]);
    *codecp = s;
    return NC_NOERR;
}

static int modify(int ncid, int varid, size_t *vn, unsigned **vp, size_t *wn, unsigned **wp)
{
    nc_type type;
    size_t size;
    int stat;
    int ndims, dimids[NC_MAX_VAR_DIMS], other;
    size_t last = 1;
    if ((stat = nc_inq_vartype(ncid, varid, &type))) return stat;
    if ((stat = nc_inq_type(ncid, type, NULL, &size))) return stat;
    if ((stat = nc_inq_var(ncid, varid, NULL, NULL, &ndims, dimids, NULL))) return stat;
    if (ndims > 0 && (stat = nc_inq_dimlen(ncid, dimids[ndims - 1], &last))) return stat;
    (void)nc_inq_varid(ncid, "no_such_variable", &other);
    if (*vn != 1) return NC_EFILTER;
    unsigned *w = malloc(3 * sizeof(unsigned));
    w[0] = (*vp)[0];
    w[1] = (unsigned)size;
    w[2] = (unsigned)last;
    *wn = 3;
    *wp = w;
    return NC_NOERR;
}

static int initialized = 0;
static void init(void) { initialized = 1; }

static const NCZ_codec_t xor_codec = {NCZ_CODEC_CLASS_VER, NCZ_CODEC_HDF5, "nczarr_rs_test_xor", XOR_ID,
                                      init, NULL, to_hdf5, to_codec, modify};
const void *NCZ_get_codec_info(void) { return &xor_codec; }
