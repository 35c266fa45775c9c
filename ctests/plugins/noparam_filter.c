/* noparam_filter.c -- a test filter plugin that takes no parameters and,
 * like netcdf-c's own H5Zunknown test plugin, insists on being handed
 * them as netcdf-c hands them: a count of 0 and a NULL pointer. Its codec
 * JSON is {"id":"nczarr_rs_test_noparam"}; the filter adds 1 to every byte
 * (so a test can see it ran) and subtracts it again when decoding. */
#include <stdlib.h>
#include <string.h>
#include <netcdf.h>
#include <netcdf_filter_build.h>

#define NOPARAM_ID 40003

static size_t noparam_filter(unsigned flags, size_t n, const unsigned params[], size_t nbytes, size_t *buf_size,
                             void **buf)
{
    (void)buf_size;
    if (n != 0 || params != NULL) return 0;
    unsigned char *b = *buf;
    int step = (flags & H5Z_FLAG_REVERSE) ? -1 : 1;
    for (size_t i = 0; i < nbytes; i++) b[i] = (unsigned char)(b[i] + step);
    return nbytes;
}

static const H5Z_class2_t noparam_class = {H5Z_CLASS_T_VERS, NOPARAM_ID, 1, 1, "noparam", NULL, NULL, noparam_filter};

H5PL_type_t H5PLget_plugin_type(void) { return H5PL_TYPE_FILTER; }
const void *H5PLget_plugin_info(void) { return &noparam_class; }

static int to_hdf5(const char *codec, size_t *nparamsp, unsigned **paramsp)
{
    if (strstr(codec, "\"nczarr_rs_test_noparam\"") == NULL) return NC_EFILTER;
    *nparamsp = 0;
    *paramsp = NULL;
    return NC_NOERR;
}

static int to_codec(size_t nparams, const unsigned *params, char **codecp)
{
    if (nparams != 0 || params != NULL) return NC_EINVAL;
    static const char json[] = "{\"id\":\"nczarr_rs_test_noparam\"}";
    if ((*codecp = malloc(sizeof json)) == NULL) return NC_ENOMEM;
    memcpy(*codecp, json, sizeof json);
    return NC_NOERR;
}

static const NCZ_codec_t noparam_codec = {NCZ_CODEC_CLASS_VER, NCZ_CODEC_HDF5, "nczarr_rs_test_noparam", NOPARAM_ID,
                                          NULL, NULL, to_hdf5, to_codec, NULL};
const void *NCZ_get_codec_info(void) { return &noparam_codec; }
