/* half_filter.c -- a plugin library with only the HDF5 half of a filter:
 * incomplete, so unusable (NC_ENOFILTER), as in netcdf-c. */
#include <stddef.h>
#include <netcdf_filter_build.h>

static size_t identity(unsigned f, size_t n, const unsigned p[], size_t nbytes, size_t *s, void **b)
{
    (void)f; (void)n; (void)p; (void)s; (void)b;
    return nbytes;
}

static const H5Z_class2_t half_class = {H5Z_CLASS_T_VERS, 40002, 1, 1, "half", NULL, NULL, identity};

H5PL_type_t H5PLget_plugin_type(void) { return H5PL_TYPE_FILTER; }
const void *H5PLget_plugin_info(void) { return &half_class; }
