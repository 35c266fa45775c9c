/*
 * netcdf_meta.h -- version and feature macros of nczarr-rs.
 *
 * The NC_VERSION_* macros give the netcdf-c API version this library is
 * compatible with.  NC_HAS_* say which features a program may rely on:
 * this library implements only the NCZarr/Zarr formats, so the HDF5,
 * classic and DAP back ends are reported as absent.
 */
#ifndef NETCDF_META_H
#define NETCDF_META_H

#define NC_VERSION_MAJOR 4
#define NC_VERSION_MINOR 9
#define NC_VERSION_PATCH 3
#define NC_VERSION_NOTE  ""
#define NC_VERSION       "4.9.3"

#define NCZARR_RS_VERSION "0.1.0" /* this implementation's own version */

#define NC_HAS_NC2           1
#define NC_HAS_NC4           1
#define NC_HAS_HDF4          0
#define NC_HAS_HDF5          0
#define NC_HAS_SZIP          0
#define NC_HAS_SZIP_WRITE    0
#define NC_HAS_DAP2          0
#define NC_HAS_DAP4          0
#define NC_HAS_BYTERANGE     0
#define NC_HAS_DISKLESS      0
#define NC_HAS_MMAP          0
#define NC_HAS_JNA           0
#define NC_HAS_PNETCDF       0
#define NC_HAS_PARALLEL4     0
#define NC_HAS_PARALLEL      0
#define NC_HAS_CDF5          0
#define NC_HAS_ERANGE_FILL   0
#define NC_RELAX_COORD_BOUND 1
#define NC_DISPATCH_VERSION  5
#define NC_HAS_PAR_FILTERS   0
#define NC_HAS_LOGGING       0
#define NC_HAS_QUANTIZE      1
#define NC_HAS_ZSTD          1
#define NC_HAS_BENCHMARKS    0
#define NC_HAS_BLOSC         1
#define NC_HAS_BZ2           1
#define NC_HAS_S3            1
#define NC_HAS_S3_AWS        0
#define NC_HAS_S3_INTERNAL   1
#define NC_HAS_HDF5_ROS3     0
#define NC_HAS_NCZARR        1
#define NC_HAS_MULTIFILTERS  1

#endif /* NETCDF_META_H */
