/* impostor.c -- a stand-in for another libnetcdf.so.19 (Debian's netcdf-c
 * has that SONAME too): every function app.c calls, answering like a
 * netcdf-c 4.9.0 build. tests/package/run.sh runs app against it to prove
 * app notices when the loader picked the wrong library.
 */
#include <netcdf.h>
#include <netcdf_filter.h>

const char *nc_inq_libvers(void) { return "4.9.0 of Jan  1 2023 12:00:00 $"; }
const char *nc_strerror(int ncerr) { (void)ncerr; return "impostor"; }
int nc_create(const char *path, int cmode, int *ncidp) { (void)path; (void)cmode; (void)ncidp; return NC_EINVAL; }
int nc_open(const char *path, int mode, int *ncidp) { (void)path; (void)mode; (void)ncidp; return NC_EINVAL; }
int nc_close(int ncid) { (void)ncid; return NC_EBADID; }
int nc_def_dim(int ncid, const char *name, size_t len, int *idp) { (void)ncid; (void)name; (void)len; (void)idp; return NC_EBADID; }
int nc_def_var(int ncid, const char *name, nc_type xtype, int ndims, const int *dimidsp, int *varidp)
{ (void)ncid; (void)name; (void)xtype; (void)ndims; (void)dimidsp; (void)varidp; return NC_EBADID; }
int nc_def_var_zstandard(int ncid, int varid, int level) { (void)ncid; (void)varid; (void)level; return NC_EBADID; }
int nc_inq_var_zstandard(int ncid, int varid, int *hasfilterp, int *levelp)
{ (void)ncid; (void)varid; (void)hasfilterp; (void)levelp; return NC_EBADID; }
int nc_put_att_text(int ncid, int varid, const char *name, size_t len, const char *op)
{ (void)ncid; (void)varid; (void)name; (void)len; (void)op; return NC_EBADID; }
int nc_get_att_text(int ncid, int varid, const char *name, char *ip) { (void)ncid; (void)varid; (void)name; (void)ip; return NC_EBADID; }
int nc_inq_attlen(int ncid, int varid, const char *name, size_t *lenp) { (void)ncid; (void)varid; (void)name; (void)lenp; return NC_EBADID; }
int nc_inq_varid(int ncid, const char *name, int *varidp) { (void)ncid; (void)name; (void)varidp; return NC_EBADID; }
int nc_put_var_float(int ncid, int varid, const float *op) { (void)ncid; (void)varid; (void)op; return NC_EBADID; }
int nc_get_var_float(int ncid, int varid, float *ip) { (void)ncid; (void)varid; (void)ip; return NC_EBADID; }
