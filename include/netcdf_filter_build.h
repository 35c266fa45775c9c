/*
 * netcdf_filter_build.h -- for authors of filter plugins that NCZarr
 * readers (netcdf-c and this library) load from HDF5_PLUGIN_PATH.
 *
 * A plugin library exports `H5PLget_plugin_type` and `H5PLget_plugin_info`
 * (the HDF5 half, see netcdf_filter_hdf5_build.h) and `NCZ_get_codec_info`
 * (the codec half: how the filter's HDF5 parameters map to numcodecs JSON),
 * or `NCZ_codec_info_defaults` (codec halves for several HDF5 filters found
 * in other libraries). The two halves are paired by HDF5 filter id.
 */
#ifndef NETCDF_FILTER_BUILD_H
#define NETCDF_FILTER_BUILD_H 1

#include "netcdf_filter_hdf5_build.h"

#define NCZ_CODEC_CLASS_VER 1   /* version of NCZ_codec_t */
#define NCZ_CODEC_HDF5      1   /* sort: HDF5 <-> codec converter */
#define NCZ_FILTER_DECODE   0x00000001

typedef struct NCZ_codec_t {
    int version;                 /* NCZ_CODEC_CLASS_VER */
    int sort;                    /* NCZ_CODEC_HDF5 */
    const char *codecid;         /* the numcodecs id, e.g. "zlib" */
    unsigned int hdf5id;         /* the HDF5 filter id */
    void (*NCZ_codec_initialize)(void);
    void (*NCZ_codec_finalize)(void);
    /* codec JSON -> HDF5 parameters (malloc'ed; the caller frees) */
    int (*NCZ_codec_to_hdf5)(const char *codec, size_t *nparamsp, unsigned **paramsp);
    /* HDF5 parameters -> codec JSON (malloc'ed; the caller frees) */
    int (*NCZ_hdf5_to_codec)(size_t nparams, const unsigned *params, char **codecp);
    /* visible parameters -> working parameters for one variable; may call
     * nc_inq_var, nc_inq_type and nc_inq_var_chunking on ncid/varid */
    int (*NCZ_modify_parameters)(int ncid, int varid, size_t *vnparamsp, unsigned **vparamsp,
                                 size_t *wnparamsp, unsigned **wparamsp);
} NCZ_codec_t;

typedef const void *(*NCZ_get_codec_info_proto)(void);
typedef const void *(*NCZ_codec_info_defaults_proto)(void);

#endif /* NETCDF_FILTER_BUILD_H */
