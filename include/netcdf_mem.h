/*
 * netcdf_mem.h -- netCDF datasets held in memory, as netcdf-c declares
 * them. nczarr-rs reads and writes NCZarr/Zarr stores only: there is no
 * in-memory form of those, and the classic and HDF5 formats that
 * netcdf-c opens from memory are not built, so these calls answer
 * NC_EINVAL or NC_ENOTBUILT (see the README).
 */
#ifndef NETCDF_MEM_H
#define NETCDF_MEM_H 1

#include <netcdf.h>

typedef struct NC_memio {
    size_t size;
    void* memory;
#define NC_MEMIO_LOCKED 1 /* Do not try to realloc or free provided memory */
    int flags;
} NC_memio;

#if defined(__cplusplus)
extern "C" {
#endif

EXTERNL int nc_open_mem(const char* path, int mode, size_t size, void* memory, int* ncidp);
EXTERNL int nc_create_mem(const char* path, int mode, size_t initialsize, int* ncidp);
EXTERNL int nc_open_memio(const char* path, int mode, NC_memio* info, int* ncidp);
EXTERNL int nc_close_memio(int ncid, NC_memio* info);

#if defined(__cplusplus)
}
#endif

#endif /* NETCDF_MEM_H */
