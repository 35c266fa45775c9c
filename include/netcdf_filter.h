/*
 * netcdf_filter.h -- the netCDF filter API as implemented by nczarr-rs.
 *
 * Filters are identified by their HDF5 filter id and a vector of unsigned
 * parameters, exactly as in netcdf-c.  Include netcdf.h first.
 */
#ifndef NETCDF_FILTER_H
#define NETCDF_FILTER_H 1

/* Standard HDF5 filter ids and szip masks */
#ifndef H5Z_FILTER_DEFLATE
#define H5Z_FILTER_DEFLATE    1
#define H5Z_FILTER_SHUFFLE    2
#define H5Z_FILTER_FLETCHER32 3
#define H5Z_FILTER_SZIP       4
#endif
#define H5_SZIP_ALLOW_K13_OPTION_MASK 1
#define H5_SZIP_CHIP_OPTION_MASK      2
#define H5_SZIP_EC_OPTION_MASK        4
#define H5_SZIP_LSB_OPTION_MASK       8
#define H5_SZIP_MSB_OPTION_MASK       16
#define H5_SZIP_NN_OPTION_MASK        32
#define H5_SZIP_MAX_PIXELS_PER_BLOCK  32
#define H5_SZIP_RAW_OPTION_MASK       128
#define H5_SZIP_ALL_MASKS (H5_SZIP_CHIP_OPTION_MASK|H5_SZIP_EC_OPTION_MASK|H5_SZIP_NN_OPTION_MASK)
#ifndef NC_SZIP_EC
#define NC_SZIP_EC 4
#define NC_SZIP_NN 32
#endif
#define NC_MAX_PIXELS_PER_BLOCK 32

#define H5Z_FILTER_ZSTD  32015
#define H5Z_FILTER_BZIP2 307
#define H5Z_FILTER_BLOSC 32001

#ifndef BLOSC_SHUFFLE
enum BLOSC_SHUFFLE { BLOSC_NOSHUFFLE = 0, BLOSC_SHUFFLE = 1, BLOSC_BITSHUFFLE = 2 };
#endif
#ifndef BLOSC_BLOSCLZ
enum BLOSC_SUBCOMPRESSORS {
    BLOSC_LZ = 0, BLOSC_LZ4 = 1, BLOSC_LZ4HC = 2, BLOSC_SNAPPY = 3, BLOSC_ZLIB = 4, BLOSC_ZSTD = 5
};
#endif

/* A list of plugin directories (nc_plugin_path_get/set). */
typedef struct NCPluginList {
    size_t ndirs;
    char **dirs;
} NCPluginList;

#if defined(__cplusplus)
extern "C" {
#endif

EXTERNL int nc_def_var_filter(int ncid, int varid, unsigned int id, size_t nparams, const unsigned int* parms);
EXTERNL int nc_inq_var_filter(int ncid, int varid, unsigned int* idp, size_t* nparams, unsigned int* params);
EXTERNL int nc_inq_var_filter_ids(int ncid, int varid, size_t* nfilters, unsigned int* filterids);
EXTERNL int nc_inq_var_filter_info(int ncid, int varid, unsigned int id, size_t* nparams, unsigned int* params);
EXTERNL int nc_inq_filter_avail(int ncid, unsigned id);

EXTERNL int nc_def_var_bzip2(int ncid, int varid, int level);
EXTERNL int nc_inq_var_bzip2(int ncid, int varid, int* hasfilterp, int *levelp);
EXTERNL int nc_def_var_zstandard(int ncid, int varid, int level);
EXTERNL int nc_inq_var_zstandard(int ncid, int varid, int* hasfilterp, int *levelp);
EXTERNL int nc_def_var_blosc(int ncid, int varid, unsigned subcompressor, unsigned level, unsigned blocksize, unsigned addshuffle);
EXTERNL int nc_inq_var_blosc(int ncid, int varid, int* hasfilterp, unsigned* subcompressorp, unsigned* levelp, unsigned* blocksizep, unsigned* addshufflep);
EXTERNL int nc_filter_path_query(int id);

EXTERNL int nc_plugin_path_ndirs(size_t* ndirsp);
EXTERNL int nc_plugin_path_get(NCPluginList* dirs);
EXTERNL int nc_plugin_path_set(NCPluginList* dirs);

#if defined(__cplusplus)
}
#endif

#endif /* NETCDF_FILTER_H */
