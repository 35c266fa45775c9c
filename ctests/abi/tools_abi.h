/* netcdf-c internals that Debian's netcdf-bin tools (ncdump, ncgen,
 * nccopy) and netcdf-fortran import from libnetcdf.so.19, declared with
 * their netcdf-c 4.9.0 signatures. netcdf-c installs no header for them,
 * and neither do we: this one exists only so ctests/abi/check.sh can
 * check that we export them with these signatures. */
#ifndef NCZRS_TOOLS_ABI_H
#define NCZRS_TOOLS_ABI_H

#include <stddef.h>

/* nclog.h */
#define NCLOGNOTE 0
#define NCLOGWARN 1
#define NCLOGERR 2
#define NCLOGDBG 3
EXTERNL void nclog(int tag, const char *fmt, ...);

/* netcdf_par.h (installed by netcdf-c only when built for parallel I/O;
 * netcdf-fortran imports it regardless) */
EXTERNL int nc_var_par_access(int ncid, int varid, int par_access);

#endif
