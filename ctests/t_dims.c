/* Dimensions: define, inquire, rename, scope across groups, unlimited. */
#include "testutil.h"

int main(void)
{
    int ncid, grp, sub, x, y, t, t2, z, id, n, ids[8], unlim, nunlim;
    char name[NC_MAX_NAME + 1];
    size_t len;
    const char *url = test_url("dims");
    char long_name[NC_MAX_NAME + 2];

    OK(nc_create(url, NC_CLOBBER, &ncid));
    OK(nc_def_dim(ncid, "x", 10, &x));
    OK(nc_def_dim(ncid, "time", NC_UNLIMITED, &t));
    OK(nc_def_dim(ncid, "y", 20, &y));
    OK(nc_def_dim(ncid, "time2", NC_UNLIMITED, &t2));
    EQ_INT(x, 0); EQ_INT(t, 1); EQ_INT(y, 2); EQ_INT(t2, 3);
    OK(nc_def_grp(ncid, "g", &grp));
    OK(nc_def_grp(grp, "sub", &sub));
    OK(nc_def_dim(grp, "z", 5, &z));
    EQ_INT(z, 4); /* dimension ids are unique across the dataset */

    /* Errors. */
    ERR(NC_ENAMEINUSE, nc_def_dim(ncid, "x", 1, &id));
    ERR(NC_EBADNAME, nc_def_dim(ncid, "a/b", 1, &id));
    ERR(NC_EBADNAME, nc_def_dim(ncid, "", 1, &id));
    ERR(NC_EBADNAME, nc_def_dim(ncid, " lead", 1, &id));
    ERR(NC_EBADNAME, nc_def_dim(ncid, "trail ", 1, &id));
    ERR(NC_EINVAL, nc_def_dim(ncid, NULL, 1, &id));
    memset(long_name, 'a', sizeof long_name - 1);
    long_name[NC_MAX_NAME + 1] = 0;
    ERR(NC_EMAXNAME, nc_def_dim(ncid, long_name, 1, &id));
    long_name[NC_MAX_NAME] = 0;
    OK(nc_def_dim(ncid, long_name, 1, &id));
    ERR(NC_EBADID, nc_def_dim(ncid + 77, "q", 1, &id));
    ERR(NC_EBADDIM, nc_inq_dim(ncid, 99, name, &len));
    ERR(NC_EBADDIM, nc_inq_dim(ncid, -1, name, &len));
    ERR(NC_EBADDIM, nc_inq_dimid(ncid, "nope", &id));
    /* The same name may be defined in another group. */
    OK(nc_def_dim(grp, "x", 3, &id));

    /* Lookups search the group, then its ancestors; full names work. */
    OK(nc_inq_dimid(sub, "z", &id)); EQ_INT(id, z);
    OK(nc_inq_dimid(sub, "y", &id)); EQ_INT(id, y);
    OK(nc_inq_dimid(grp, "x", &id)); TRUE_OR_FAIL(id != x);
    OK(nc_inq_dimid(sub, "/x", &id)); EQ_INT(id, x);
    OK(nc_inq_dimid(ncid, "/g/z", &id)); EQ_INT(id, z);
    ERR(NC_EBADDIM, nc_inq_dimid(ncid, "z", &id));

    OK(nc_inq_dim(ncid, y, name, &len)); EQ_STR(name, "y"); EQ_INT(len, 20);
    OK(nc_inq_dimname(ncid, t, name)); EQ_STR(name, "time");
    OK(nc_inq_dimlen(ncid, t, &len)); EQ_INT(len, 0);
    OK(nc_inq_dimlen(sub, z, &len)); EQ_INT(len, 5);

    OK(nc_inq_ndims(ncid, &n)); EQ_INT(n, 5);
    OK(nc_inq_ndims(grp, &n)); EQ_INT(n, 2);
    OK(nc_inq_ndims(sub, &n)); EQ_INT(n, 0);
    OK(nc_inq_dimids(ncid, &n, ids, 0)); EQ_INT(n, 5);
    EQ_INT(ids[0], 0); EQ_INT(ids[3], 3);
    OK(nc_inq_dimids(sub, &n, NULL, 0)); EQ_INT(n, 0);
    OK(nc_inq_dimids(sub, &n, ids, 1)); EQ_INT(n, 7);
    EQ_INT(ids[0], 0); EQ_INT(ids[6], 6);

    OK(nc_inq_unlimdim(ncid, &unlim)); EQ_INT(unlim, t);
    OK(nc_inq_unlimdim(grp, &unlim)); EQ_INT(unlim, -1);
    OK(nc_inq_unlimdims(ncid, &nunlim, ids)); EQ_INT(nunlim, 2);
    EQ_INT(ids[0], t); EQ_INT(ids[1], t2);
    OK(nc_inq_unlimdims(grp, &nunlim, NULL)); EQ_INT(nunlim, 0);

    /* Rename. */
    OK(nc_rename_dim(ncid, y, "lat"));
    OK(nc_inq_dimname(ncid, y, name)); EQ_STR(name, "lat");
    ERR(NC_ENAMEINUSE, nc_rename_dim(ncid, y, "x"));
    ERR(NC_EBADNAME, nc_rename_dim(ncid, y, "bad/name"));
    ERR(NC_EINVAL, nc_rename_dim(ncid, y, NULL));
    ERR(NC_EBADDIM, nc_rename_dim(ncid, 99, "w"));
    OK(nc_close(ncid));

    /* Everything survives a reopen. Ids of the root's dimensions are kept;
     * ids are assigned group by group on open, so a dimension defined in a
     * subgroup before a later root dimension may get a new id. */
    OK(nc_open(url, NC_WRITE, &ncid));
    OK(nc_inq_ndims(ncid, &n)); EQ_INT(n, 5);
    OK(nc_inq_dim(ncid, y, name, &len)); EQ_STR(name, "lat"); EQ_INT(len, 20);
    OK(nc_inq_dim(ncid, t2, name, &len)); EQ_STR(name, "time2"); EQ_INT(len, 0);
    OK(nc_inq_unlimdims(ncid, &nunlim, ids)); EQ_INT(nunlim, 2);
    OK(nc_inq_grp_ncid(ncid, "g", &grp));
    OK(nc_inq_dimid(grp, "z", &id));
    OK(nc_inq_dimlen(grp, id, &len)); EQ_INT(len, 5);
    OK(nc_inq_dimid(ncid, long_name, &id)); EQ_INT(id, 4);
    /* Renaming in data mode is allowed for netCDF-4 and is persisted. */
    OK(nc_rename_dim(ncid, x, "lon"));
    OK(nc_close(ncid));
    OK(nc_open(url, NC_NOWRITE, &ncid));
    OK(nc_inq_dimname(ncid, x, name)); EQ_STR(name, "lon");
    ERR(NC_EPERM, nc_rename_dim(ncid, x, "x"));
    OK(nc_close(ncid));
    PASS();
}
