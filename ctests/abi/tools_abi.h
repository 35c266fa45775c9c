/* netcdf-c internals that Debian's netcdf-bin tools (ncdump, ncgen,
 * nccopy) and netcdf-fortran import from libnetcdf.so.19, declared with
 * their netcdf-c 4.9.0 signatures and the types they need (from 4.9.0's
 * private headers ncuri.h, nclist.h, nclog.h, nctime.h, ncpathmgr.h,
 * ncutf8.h), and one HDF5 function. netcdf-c installs no header for
 * them, and neither do we:
 * this one exists so ctests/abi/check.sh can check that we export them
 * with these signatures, and for the tests that call them.
 * Include netcdf.h first. */
#ifndef NCZRS_TOOLS_ABI_H
#define NCZRS_TOOLS_ABI_H

#include <stddef.h>

/* HDF5's H5public.h: programs that reach HDF5 through libnetcdf's own
 * dependency on it (Debian's python3-netcdf4) call this one; we answer
 * with the HDF5 of the netcdf-c serving other formats (src/capi/hdf5.rs). */
EXTERNL int H5get_libversion(unsigned *majnum, unsigned *minnum, unsigned *relnum);

/* nclog.h */
#define NCLOGNOTE 0
#define NCLOGWARN 1
#define NCLOGERR 2
#define NCLOGDBG 3
EXTERNL void nclog(int tag, const char *fmt, ...);
EXTERNL int ncsetlogging(int tf);

/* ncuri.h */
#define NCURIPATH 1
#define NCURIPWD 2
#define NCURIQUERY 4
#define NCURIFRAG 8
#define NCURIENCODEPATH 16
#define NCURIENCODEQUERY 32
#define NCURIENCODE (NCURIENCODEPATH|NCURIENCODEQUERY)
#define NCURIBASE (NCURIPWD|NCURIPATH)
#define NCURISVC (NCURIBASE|NCURIQUERY)
#define NCURIALL (NCURIBASE|NCURIQUERY|NCURIFRAG)

typedef struct NCURI {
    char *uri;        /* the text as given */
    char *protocol;
    char *user;       /* %-decoded */
    char *password;   /* %-decoded */
    char *host;
    char *port;
    char *path;
    char *query;
    char *fragment;
    char **fraglist;  /* NULL-terminated key, value, key, value, ... */
    char **querylist; /* the same for the query */
} NCURI;

EXTERNL int ncuriparse(const char *s, NCURI **ncuri);
EXTERNL void ncurifree(NCURI *ncuri);
EXTERNL char *ncuribuild(NCURI *duri, const char *prefix, const char *suffix, int flags);
EXTERNL int ncuriappendfragmentkey(NCURI *duri, const char *key, const char *value);

/* dinfermodel.c, ncpathmgr.h, dutil.c */
EXTERNL int nc__testurl(const char *path, char **basenamep);
EXTERNL int NCpathcanonical(const char *srcpath, char **canonp);
EXTERNL char *NC_shellUnescape(const char *esc);

/* nclist.h */
typedef struct NClist {
    size_t alloc;
    size_t length;
    void **content;
} NClist;

EXTERNL NClist *nclistnew(void);
EXTERNL int nclistfree(NClist *l);
EXTERNL int nclistpush(NClist *l, const void *elem);
EXTERNL void *nclistremove(NClist *l, size_t i);

/* dstring.c (4.9.3 renamed it nc_strlcat) */
EXTERNL size_t strlcat(char *dst, const char *src, size_t dsize);

/* ncutf8.h */
EXTERNL int nc_utf8_to_utf16(const unsigned char *s8, unsigned short **utf16p, size_t *lenp);

/* nctime.h */
#define CU_FATAL 1
#define CU_VERBOSE 2
#define CD_MAX_RELUNITS 64
#define CD_MAX_CHARTIME 48

typedef enum cdCalenType {
    cdStandard = 0x1111,
    cdJulian = 0x11111,
    cdNoLeap = 0x1011,
    cd360 = 0x0011,
    cd366 = 0x2011,
    cdClim = 0x1000,
    cdClimLeap = 0x1100,
    cdClim360 = 0x0000,
    cdMixed = 0x21111
} cdCalenType;

typedef enum cdUnitTime {
    cdBadUnit = 0,
    cdMinute = 1,
    cdHour = 2,
    cdDay = 3,
    cdWeek = 4,
    cdMonth = 5,
    cdSeason = 6,
    cdYear = 7,
    cdSecond = 8,
    cdFraction = 9
} cdUnitTime;

typedef enum CdTimeType {
    CdChron = 0x1111,
    CdJulianCal = 0x11111,
    CdChronNoLeap = 0x1011,
    CdChron360 = 0x0011,
    CdRel = 0x1101,
    CdRelNoLeap = 0x1001,
    CdClim = 0x1000,
    CdClimLeap = 0x1100,
    CdClim360 = 0x1000,
    CdChron366 = 0x2011
} CdTimeType;

/* netcdf-c's two structs are untagged; the tags added here change
 * nothing in the ABI and let the checker match cbindgen's output. */
typedef struct cdCompTime {
    long year;
    short month;
    short day;
    double hour;
} cdCompTime;

typedef struct CdTime {
    long year;
    short month;
    short day;
    double hour;
    long baseYear;
    CdTimeType timeType;
} CdTime;

EXTERNL int cdParseRelunits(cdCalenType timetype, char *relunits, cdUnitTime *unit, cdCompTime *base_comptime);
EXTERNL void cdRel2Iso(cdCalenType timetype, char *relunits, int separator, double reltime, char *chartime);
EXTERNL int cdSetErrOpts(int opts);
EXTERNL void cdChar2Comp(cdCalenType timetype, char *chartime, cdCompTime *comptime);
EXTERNL void Cdh2e(CdTime *htime, double *etime);
EXTERNL void Cde2h(double etime, CdTimeType timeType, long baseYear, CdTime *htime);

/* netcdf_par.h (installed by netcdf-c only when built for parallel I/O;
 * netcdf-fortran imports it regardless) */
EXTERNL int nc_var_par_access(int ncid, int varid, int par_access);

#endif
