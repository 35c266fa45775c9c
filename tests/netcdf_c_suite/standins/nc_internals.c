/* The three netcdf-c internals that nczarr_test/tst_utils.c (the option
 * parser of tst_chunkcases and tst_fillonlyz) and tst_chunkcases.c use, for
 * linking those test programs against a libnetcdf that does not export them.
 *
 * - nclistfreeall: frees the list tst_utils.c collects printed strings in
 *   (nclistnew, nclistremove and nclistfree are exported, by netcdf-c and by
 *   us, and the NClist layout is netcdf-c's include/nclist.h);
 * - nctracelevel: only for the -T option, which no test passes;
 * - zutest: libnczarr's unit-test hook (zdebug.h). tst_chunkcases points it
 *   at a counter for its whole-chunk tests. build.sh exports it from the
 *   program (--export-dynamic-symbol), so that netcdf-c's libnetcdf, which
 *   has its own zutest, binds to this one and calls the counter as in
 *   netcdf-c's own build. Nothing but netcdf-c's libnczarr calls it.
 */
#include <stdlib.h>
#include "nclist.h"

struct ZUTEST;
struct ZUTEST* zutest = NULL;

int
nclistfreeall(NClist* l)
{
    if(l == NULL) return 1;
    while(nclistlength(l) > 0) free(nclistremove(l, nclistlength(l) - 1));
    return nclistfree(l);
}

int
nctracelevel(int level)
{
    (void)level;
    return 0;
}
