/* Every function taking an ncid answers NC_EBADID for a closed dataset
 * and for a group id that does not exist, and never crashes on NULL
 * out-pointers. */
#include "testutil.h"

static void all_fail_with(int ncid, int code)
{
    int i;
    size_t len;
    char name[NC_MAX_NAME + 1];
    nc_type type;
    ERR(code, nc_redef(ncid));
    ERR(code, nc_enddef(ncid));
    ERR(code, nc__enddef(ncid, 0, 0, 0, 0));
    ERR(code, nc_sync(ncid));
    ERR(code, nc_set_fill(ncid, NC_FILL, &i));
    ERR(code, nc_inq(ncid, &i, &i, &i, &i));
    ERR(code, nc_inq_ndims(ncid, &i));
    ERR(code, nc_inq_nvars(ncid, &i));
    ERR(code, nc_inq_natts(ncid, &i));
    ERR(code, nc_inq_unlimdim(ncid, &i));
    ERR(code, nc_inq_unlimdims(ncid, &i, NULL));
    ERR(code, nc_inq_format(ncid, &i));
    ERR(code, nc_inq_format_extended(ncid, &i, &i));
    ERR(code, nc_inq_path(ncid, &len, NULL));
    ERR(code, nc_def_dim(ncid, "d", 1, &i));
    ERR(code, nc_inq_dimid(ncid, "d", &i));
    ERR(code, nc_inq_dim(ncid, 0, name, &len));
    ERR(code, nc_inq_dimname(ncid, 0, name));
    ERR(code, nc_inq_dimlen(ncid, 0, &len));
    ERR(code, nc_rename_dim(ncid, 0, "e"));
    ERR(code, nc_inq_dimids(ncid, &i, NULL, 1));
    ERR(code, nc_def_var(ncid, "v", NC_INT, 0, NULL, &i));
    ERR(code, nc_inq_varid(ncid, "v", &i));
    ERR(code, nc_inq_var(ncid, 0, name, &type, &i, NULL, &i));
    ERR(code, nc_inq_varname(ncid, 0, name));
    ERR(code, nc_inq_vartype(ncid, 0, &type));
    ERR(code, nc_inq_varndims(ncid, 0, &i));
    ERR(code, nc_inq_vardimid(ncid, 0, &i));
    ERR(code, nc_inq_varnatts(ncid, 0, &i));
    ERR(code, nc_inq_varids(ncid, &i, NULL));
    ERR(code, nc_rename_var(ncid, 0, "w"));
    ERR(code, nc_def_var_chunking(ncid, 0, NC_CHUNKED, NULL));
    ERR(code, nc_inq_var_chunking(ncid, 0, &i, NULL));
    ERR(code, nc_def_var_fill(ncid, 0, 0, NULL));
    ERR(code, nc_inq_var_fill(ncid, 0, &i, NULL));
    ERR(code, nc_def_var_endian(ncid, 0, NC_ENDIAN_BIG));
    ERR(code, nc_inq_var_endian(ncid, 0, &i));
    ERR(code, nc_put_att_int(ncid, NC_GLOBAL, "a", NC_INT, 1, &i));
    ERR(code, nc_put_att_text(ncid, NC_GLOBAL, "a", 1, "x"));
    ERR(code, nc_get_att_int(ncid, NC_GLOBAL, "a", &i));
    ERR(code, nc_get_att(ncid, NC_GLOBAL, "a", &i));
    ERR(code, nc_inq_att(ncid, NC_GLOBAL, "a", &type, &len));
    ERR(code, nc_inq_attid(ncid, NC_GLOBAL, "a", &i));
    ERR(code, nc_inq_attname(ncid, NC_GLOBAL, 0, name));
    ERR(code, nc_del_att(ncid, NC_GLOBAL, "a"));
    ERR(code, nc_rename_att(ncid, NC_GLOBAL, "a", "b"));
    ERR(code, nc_copy_att(ncid, NC_GLOBAL, "a", ncid, NC_GLOBAL));
    ERR(code, nc_def_grp(ncid, "g", &i));
    ERR(code, nc_rename_grp(ncid, "g"));
    ERR(code, nc_inq_grps(ncid, &i, NULL));
    ERR(code, nc_inq_grpname(ncid, name));
    ERR(code, nc_inq_grpname_full(ncid, &len, NULL));
    ERR(code, nc_inq_grpname_len(ncid, &len));
    ERR(code, nc_inq_grp_parent(ncid, &i));
    ERR(code, nc_inq_ncid(ncid, "g", &i));
    ERR(code, nc_inq_grp_ncid(ncid, "g", &i));
    ERR(code, nc_inq_grp_full_ncid(ncid, "/g", &i));
    ERR(code, nc_inq_typeids(ncid, &i, NULL));
    ERR(code, nc_abort(ncid));
    ERR(code, nc_close(ncid));
}

int main(void)
{
    int ncid, grp, v, x;
    OK(nc_create(test_url("badid"), NC_CLOBBER, &ncid));
    /* A group id past the last group of an open dataset. */
    all_fail_with(ncid + 5, NC_EBADID);
    /* Ids never issued, and negative ones. */
    all_fail_with(0, NC_EBADID);
    all_fail_with(-1, NC_EBADID);

    /* NULL out-pointers are allowed wherever netCDF allows them. */
    OK(nc_def_dim(ncid, "x", 2, NULL));
    OK(nc_def_grp(ncid, "g", NULL));
    OK(nc_inq_ncid(ncid, "g", &grp));
    OK(nc_inq_dimid(ncid, "x", &x));
    OK(nc_def_var(ncid, "v", NC_INT, 1, &x, NULL));
    OK(nc_inq_varid(ncid, "v", &v));
    OK(nc_inq(ncid, NULL, NULL, NULL, NULL));
    OK(nc_inq_var(ncid, v, NULL, NULL, NULL, NULL, NULL));
    OK(nc_inq_dim(ncid, x, NULL, NULL));
    OK(nc_inq_var_chunking(ncid, v, NULL, NULL));
    OK(nc_inq_var_fill(ncid, v, NULL, NULL));
    OK(nc_inq_var_endian(ncid, v, NULL));
    OK(nc_put_att_int(ncid, v, "a", NC_INT, 1, &x));
    OK(nc_get_att_int(ncid, v, "a", NULL));
    OK(nc_inq_att(ncid, v, "a", NULL, NULL));
    OK(nc_inq_grps(ncid, NULL, NULL));
    OK(nc_inq_grpname_full(grp, NULL, NULL));
    OK(nc_inq_format_extended(ncid, NULL, NULL));
    OK(nc_set_fill(ncid, NC_FILL, NULL));
    OK(nc_inq_type(ncid, NC_INT, NULL, NULL));

    OK(nc_close(ncid));
    /* Every call on a closed dataset. */
    all_fail_with(ncid, NC_EBADID);
    all_fail_with(grp, NC_EBADID);
    PASS();
}
