/*
 * netcdf_filter_hdf5_build.h -- the HDF5 filter plugin interface (H5Z),
 * restated so that filter plugins can be built without HDF5. The layout
 * matches HDF5 >= 1.8.11; the library calls `filter` with flags 0 to
 * encode and H5Z_FLAG_REVERSE to decode, on buffers from C malloc.
 */
#ifndef NETCDF_FILTER_HDF5_BUILD_H
#define NETCDF_FILTER_HDF5_BUILD_H 1

#include <stddef.h>

#ifndef H5_VERS_MAJOR /* only when HDF5's own headers are not in use */

typedef long long hid_t;
typedef int herr_t;
typedef int htri_t;
typedef int H5Z_filter_t;

#define H5Z_FILTER_RESERVED 256
#define H5Z_FILTER_MAX      65535
#define H5Z_FLAG_MANDATORY  0x0000
#define H5Z_FLAG_OPTIONAL   0x0001
#define H5Z_FLAG_REVERSE    0x0100
#define H5Z_FLAG_SKIP_EDC   0x0200
#define H5Z_CLASS_T_VERS    1

/* Encode or decode `nbytes` of `*buf` (allocated `*buf_size`); may replace
 * `*buf` with a new malloc'ed buffer. Returns the new length, 0 on error. */
typedef size_t (*H5Z_func_t)(unsigned int flags, size_t cd_nelmts, const unsigned int cd_values[],
                             size_t nbytes, size_t *buf_size, void **buf);
typedef htri_t (*H5Z_can_apply_func_t)(hid_t dcpl_id, hid_t type_id, hid_t space_id);
typedef herr_t (*H5Z_set_local_func_t)(hid_t dcpl_id, hid_t type_id, hid_t space_id);

typedef struct H5Z_class2_t {
    int version;                     /* H5Z_CLASS_T_VERS */
    H5Z_filter_t id;                 /* the HDF5 filter id */
    unsigned encoder_present;
    unsigned decoder_present;
    const char *name;
    H5Z_can_apply_func_t can_apply;  /* must be NULL for NCZarr */
    H5Z_set_local_func_t set_local;  /* must be NULL for NCZarr */
    H5Z_func_t filter;
} H5Z_class2_t;

typedef enum H5PL_type_t { H5PL_TYPE_ERROR = -1, H5PL_TYPE_FILTER = 0, H5PL_TYPE_NONE = 1 } H5PL_type_t;

#endif /* H5_VERS_MAJOR */

/* What a filter plugin library exports for HDF5-style discovery. */
typedef H5PL_type_t (*H5PL_get_plugin_type_proto)(void);
typedef const void *(*H5PL_get_plugin_info_proto)(void);

#endif /* NETCDF_FILTER_HDF5_BUILD_H */
