/* The oracle shim: lets Debian's netcdf-bin 4.9.0 tools (ncdump, ncgen,
 * nccopy, built against libnetcdf.so.19) run over netcdf-c 4.10.1, the
 * library bundled in the netCDF4 wheel, so their output is the reference
 * the tool tests compare ours with.
 *
 * Built as libnetcdf.so.19 with a DT_NEEDED entry (and an rpath) for the
 * wheel's library, so every symbol the tools import resolves there, except
 * - the three 4.9.0 names 4.10.1 no longer exports, defined here in terms
 *   of their 4.10.1 replacements, and
 * - cdRel2Iso, whose 4.10.1 signature has an extra buffer-size parameter:
 *   ncdump 4.9.0 calls it without one, so under the raw 4.10.1 library
 *   `ncdump -t` prints truncated garbage.
 * Nothing else belongs in this file: a symbol defined here hides the real
 * library's, for the tools and for the library's own calls alike.
 *
 * The other changes between the 4.9.0 and 4.10.1 interfaces these tools
 * use (checked against both releases' headers) are renamed parameters,
 * except two this shim cannot repair, both in code compiled into ncdump:
 * NClist's fields were reordered (ncdump's inlined nclistlength() reads
 * the wrong one; it is used only when a variable's dimension lives in a
 * group that is not an ancestor of the variable's), and nclog's level
 * numbers changed (seen only with logging turned on). The tests avoid both. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

/* 4.10.1 names (libdispatch/dutil.c, dstring.c, nclog.c). */
extern int NC__testurl(const char *path, char **basenamep, int *isfilep);
extern size_t nc_strlcat(char *dst, const char *src, size_t dsize);
extern int ncsetloglevel(int level);

/* 4.9.0: 1 if path parses as a URL (and then, when basenamep is not NULL,
 * a malloc'ed copy of the last segment of its path minus any extension),
 * else 0. 4.10.1 renamed it and added an "is it file:" out-parameter. */
int nc__testurl(const char *path, char **basenamep)
{
    return NC__testurl(path, basenamep, NULL);
}

/* 4.9.0 exported its private copy of BSD strlcat under the libc name;
 * 4.10.1 prefixes it. ncgen imports it. */
size_t strlcat(char *dst, const char *src, size_t dsize)
{
    return nc_strlcat(dst, src, dsize);
}

/* 4.9.0: turn logging on or off; 4.10.1 has levels only. */
int ncsetlogging(int tf)
{
    return ncsetloglevel(tf ? 1 : 0);
}

/* nctime.h: cdCalenType is an enum, passed as an int. */
typedef void cdrel2iso_4_10_1(int timetype, char *relunits, int separator,
                              double reltime, char *chartime, size_t chartime_size);

/* ncdump 4.9.0's only call (dumplib.c, nctime_val_tostring) writes into
 * &sout[1] of a char sout[PRIM_LEN] (PRIM_LEN = 100); ncdump 4.10.1 passes
 * the same buffer with size sizeof(sout) - 1, and so does this. */
#define NCDUMP_CHARTIME_SIZE 99

void cdRel2Iso(int timetype, char *relunits, int separator, double reltime, char *chartime)
{
    static cdrel2iso_4_10_1 *next;
    if (next == NULL) {
        next = (cdrel2iso_4_10_1 *)dlsym(RTLD_NEXT, "cdRel2Iso");
        if (next == NULL) {
            fprintf(stderr, "oracle shim: no cdRel2Iso after the shim: %s\n", dlerror());
            abort();
        }
    }
    next(timetype, relunits, separator, reltime, chartime, NCDUMP_CHARTIME_SIZE);
}
