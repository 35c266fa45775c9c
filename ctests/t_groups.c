/* Groups: define, navigate, name, rename, and the tree after a reopen. */
#include "testutil.h"

int main(void)
{
    int ncid, a, b, c, id, n, ids[8], v, d;
    char name[NC_MAX_NAME + 1];
    size_t len;
    const char *url = test_url("groups");

    OK(nc_create(url, NC_CLOBBER, &ncid));
    OK(nc_def_grp(ncid, "a", &a));
    OK(nc_def_grp(a, "b", &b));
    OK(nc_def_grp(ncid, "c", &c));
    EQ_INT(a >> 16, ncid >> 16);
    TRUE_OR_FAIL((a & 0xFFFF) != 0);
    ERR(NC_ENAMEINUSE, nc_def_grp(ncid, "a", &id));
    ERR(NC_EBADNAME, nc_def_grp(ncid, "x/y", &id));
    ERR(NC_EINVAL, nc_def_grp(ncid, NULL, &id));
    OK(nc_def_dim(b, "d", 2, &d));
    OK(nc_def_var(b, "v", NC_INT, 1, &d, &v));
    ERR(NC_ENAMEINUSE, nc_def_grp(b, "v", &id));

    OK(nc_inq_grps(ncid, &n, ids)); EQ_INT(n, 2);
    EQ_INT(ids[0], a); EQ_INT(ids[1], c);
    OK(nc_inq_grps(b, &n, NULL)); EQ_INT(n, 0);
    OK(nc_inq_grpname(ncid, name)); EQ_STR(name, "/");
    OK(nc_inq_grpname(b, name)); EQ_STR(name, "b");
    OK(nc_inq_grpname_full(b, &len, name)); EQ_STR(name, "/a/b"); EQ_INT(len, 4);
    OK(nc_inq_grpname_len(ncid, &len)); EQ_INT(len, 1);
    OK(nc_inq_grp_parent(b, &id)); EQ_INT(id, a);
    OK(nc_inq_grp_parent(a, &id)); EQ_INT(id, ncid);
    ERR(NC_ENOGRP, nc_inq_grp_parent(ncid, &id));
    OK(nc_inq_ncid(ncid, "a", &id)); EQ_INT(id, a);
    OK(nc_inq_grp_ncid(a, "b", &id)); EQ_INT(id, b);
    ERR(NC_ENOGRP, nc_inq_ncid(ncid, "b", &id));
    OK(nc_inq_ncid(b, NULL, &id)); EQ_INT(id, ncid); /* NULL: the root (ncdump asks so) */
    OK(nc_inq_grp_full_ncid(ncid, "/a/b", &id)); EQ_INT(id, b);
    OK(nc_inq_grp_full_ncid(c, "/a", &id)); EQ_INT(id, a);
    OK(nc_inq_grp_full_ncid(a, "b", &id)); EQ_INT(id, b);
    ERR(NC_ENOGRP, nc_inq_grp_full_ncid(ncid, "/a/zzz", &id));
    ERR(NC_EBADID, nc_inq_grpname(ncid + 100, name));

    /* Rename: not the root, not onto a sibling's or variable's name. */
    ERR(NC_EBADGRPID, nc_rename_grp(ncid, "root"));
    ERR(NC_ENAMEINUSE, nc_rename_grp(c, "a"));
    OK(nc_rename_grp(c, "see"));
    OK(nc_inq_grpname(c, name)); EQ_STR(name, "see");
    OK(nc_close(ncid));

    OK(nc_open(url, NC_WRITE, &ncid));
    OK(nc_inq_grps(ncid, &n, ids)); EQ_INT(n, 2);
    OK(nc_inq_grpname(ids[1], name)); EQ_STR(name, "see");
    OK(nc_inq_grp_full_ncid(ncid, "/a/b", &b));
    OK(nc_inq_varid(b, "v", &v));
    OK(nc_inq_dimid(b, "d", &d));
    /* Renaming a stored group moves what is inside it. */
    OK(nc_inq_ncid(ncid, "a", &a));
    OK(nc_rename_grp(a, "alpha"));
    OK(nc_close(ncid));

    OK(nc_open(url, NC_NOWRITE, &ncid));
    ERR(NC_ENOGRP, nc_inq_grp_full_ncid(ncid, "/a/b", &b));
    OK(nc_inq_grp_full_ncid(ncid, "/alpha/b", &b));
    OK(nc_inq_varid(b, "v", &v));
    OK(nc_inq_vardimid(b, v, &d));
    OK(nc_inq_dim(b, d, name, &len)); EQ_STR(name, "d"); EQ_INT(len, 2);
    ERR(NC_EPERM, nc_def_grp(ncid, "new", &id));
    ERR(NC_EPERM, nc_rename_grp(b, "bee"));
    OK(nc_close(ncid));
    {
        FILE *f = fopen("groups.zarr/a/.zgroup", "r");
        TRUE_OR_FAIL(f == NULL);
    }
    PASS();
}
