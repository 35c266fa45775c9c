/* User-defined types: NCZarr has none, so every call answers as netcdf-c's
 * NCZarr dispatch does (NC_ENOTNC4 for defining or dissecting a type,
 * NC_EBADTYPE for inquiries by type id, NC_EBADID first for a bad ncid);
 * atomic types are found by name and compared; typed memory is copied and
 * reclaimed. */
#include "testutil.h"
#include <errno.h>
#include <netcdf_aux.h>

int main(void)
{
    int ncid, t = -1, eq = -1;
    OK(nc_create(test_url("udt"), NC_CLOBBER, &ncid));

    /* Defining and dissecting: NC_ENOTNC4 on a good id, NC_EBADID on a bad one. */
    ERR(NC_ENOTNC4, nc_def_compound(ncid, 8, "c", &t));
    ERR(NC_ENOTNC4, nc_insert_compound(ncid, 32, "f", 0, NC_INT));
    int dims[1] = {2};
    ERR(NC_ENOTNC4, nc_insert_array_compound(ncid, 32, "f", 0, NC_INT, 1, dims));
    ERR(NC_ENOTNC4, nc_def_vlen(ncid, "v", NC_INT, &t));
    ERR(NC_ENOTNC4, nc_def_enum(ncid, NC_INT, "e", &t));
    int one = 1;
    ERR(NC_ENOTNC4, nc_insert_enum(ncid, 32, "a", &one));
    ERR(NC_ENOTNC4, nc_def_opaque(ncid, 4, "o", &t));
    char name[NC_MAX_NAME + 1];
    size_t off;
    nc_type ft;
    int nd, fid;
    ERR(NC_ENOTNC4, nc_inq_compound_field(ncid, 32, 0, name, &off, &ft, &nd, dims));
    ERR(NC_ENOTNC4, nc_inq_compound_fieldname(ncid, 32, 0, name));
    ERR(NC_ENOTNC4, nc_inq_compound_fieldoffset(ncid, 32, 0, &off));
    ERR(NC_ENOTNC4, nc_inq_compound_fieldtype(ncid, 32, 0, &ft));
    ERR(NC_ENOTNC4, nc_inq_compound_fieldndims(ncid, 32, 0, &nd));
    ERR(NC_ENOTNC4, nc_inq_compound_fielddim_sizes(ncid, 32, 0, dims));
    ERR(NC_ENOTNC4, nc_inq_compound_fieldindex(ncid, 32, "f", &fid));
    ERR(NC_ENOTNC4, nc_inq_enum_member(ncid, 32, 0, name, &one));
    ERR(NC_ENOTNC4, nc_inq_enum_ident(ncid, 32, 1, name));
    nc_vlen_t vl = {0, NULL};
    ERR(NC_ENOTNC4, nc_put_vlen_element(ncid, 32, &vl, 0, NULL));
    ERR(NC_ENOTNC4, nc_get_vlen_element(ncid, 32, &vl, &off, NULL));
    ERR(NC_EBADID, nc_def_compound(ncid + 0x10000, 8, "c", &t));
    ERR(NC_EBADID, nc_inq_compound_field(-1, 32, 0, name, &off, &ft, &nd, dims));
    EQ_INT(t, -1);

    /* Inquiries by type id: no such type, atomic ids included. */
    size_t size, nfields;
    nc_type base;
    int klass;
    ERR(NC_EBADTYPE, nc_inq_user_type(ncid, 32, name, &size, &base, &nfields, &klass));
    ERR(NC_EBADTYPE, nc_inq_user_type(ncid, NC_INT, name, &size, &base, &nfields, &klass));
    ERR(NC_EBADTYPE, nc_inq_compound(ncid, 32, name, &size, &nfields));
    ERR(NC_EBADTYPE, nc_inq_compound_name(ncid, 32, name));
    ERR(NC_EBADTYPE, nc_inq_compound_size(ncid, 32, &size));
    ERR(NC_EBADTYPE, nc_inq_compound_nfields(ncid, 32, &nfields));
    ERR(NC_EBADTYPE, nc_inq_vlen(ncid, 32, name, &size, &base));
    ERR(NC_EBADTYPE, nc_inq_enum(ncid, 32, name, &base, &size, &nfields));
    ERR(NC_EBADTYPE, nc_inq_opaque(ncid, 32, name, &size));
    ERR(NC_EBADID, nc_inq_user_type(ncid + 0x10000, 32, name, &size, &base, &nfields, &klass));

    /* Atomic types by name ("none" is NC_NAT, as in netcdf-c). */
    static const char *names[] = {"none", "byte", "char", "short", "int", "float", "double",
                                  "ubyte", "ushort", "uint", "int64", "uint64", "string"};
    for (int i = 0; i < 13; i++) {
        OK(nc_inq_typeid(ncid, names[i], &t));
        EQ_INT(t, i);
    }
    ERR(NC_EBADTYPE, nc_inq_typeid(ncid, "Int", &t));
    ERR(NC_EBADTYPE, nc_inq_typeid(ncid, "/g/mytype", &t));
    ERR(NC_EINVAL, nc_inq_typeid(ncid, "g/mytype", &t));
    ERR(NC_EBADID, nc_inq_typeid(ncid + 0x10000, "int", &t));

    /* Type equality. */
    OK(nc_inq_type_equal(ncid, NC_INT, ncid, NC_INT, &eq));
    EQ_INT(eq, 1);
    OK(nc_inq_type_equal(ncid, NC_INT, ncid, NC_FLOAT, &eq));
    EQ_INT(eq, 0);
    OK(nc_inq_type_equal(ncid, NC_STRING, ncid, 40, &eq));
    EQ_INT(eq, 0);
    ERR(NC_EINVAL, nc_inq_type_equal(ncid, NC_NAT, ncid, NC_INT, &eq));
    ERR(NC_EBADTYPE, nc_inq_type_equal(ncid, 40, ncid, 41, &eq));
    OK(nc_inq_type_equal(ncid, 40, ncid, 41, NULL));

    /* Copying and reclaiming typed memory. */
    int ints[3] = {1, 2, 3}, ints_copy[3] = {0, 0, 0};
    OK(nc_copy_data(ncid, NC_INT, ints, 3, ints_copy));
    EQ_INT(ints_copy[2], 3);
    char *strs[3] = {"alpha", NULL, "gamma"};
    char *strs_copy[3];
    OK(nc_copy_data(ncid, NC_STRING, strs, 3, strs_copy));
    TRUE_OR_FAIL(strs_copy[0] != strs[0]);
    EQ_STR(strs_copy[0], "alpha");
    TRUE_OR_FAIL(strs_copy[1] == NULL);
    EQ_STR(strs_copy[2], "gamma");
    OK(nc_reclaim_data(ncid, NC_STRING, strs_copy, 3));
    void *all = NULL;
    OK(nc_copy_data_all(ncid, NC_STRING, strs, 3, &all));
    EQ_STR(((char **)all)[2], "gamma");
    OK(nc_reclaim_data_all(ncid, NC_STRING, all, 3));
    OK(nc_copy_data_all(ncid, NC_DOUBLE, NULL, 0, &all));
    TRUE_OR_FAIL(all == NULL);
    OK(nc_reclaim_data(ncid, NC_INT, ints, 3)); /* fixed-size: nothing to free */
    ERR(NC_EINVAL, nc_reclaim_data(-1, NC_INT, ints, 3));
    ERR(NC_EINVAL, nc_reclaim_data(ncid, NC_INT, NULL, 3));
    ERR(NC_EINVAL, nc_copy_data(ncid, NC_INT, ints, 3, NULL));
    ERR(NC_EBADTYPE, nc_copy_data(ncid, 40, ints, 3, ints_copy));
    ERR(NC_EBADID, nc_reclaim_data(ncid + 0x10000, 40, ints, 3));

    /* vlens handed out by a caller's own code are freed like netcdf-c's. */
    nc_vlen_t vls[2];
    vls[0].len = 2; vls[0].p = malloc(8);
    vls[1].len = 0; vls[1].p = NULL;
    OK(nc_free_vlens(2, vls));
    vl.p = malloc(4);
    OK(nc_free_vlen(&vl));

    /* netcdf_aux.h: the compound builder ends in nc_def_compound's answer. */
    void *tag = NULL;
    OK(ncaux_begin_compound(ncid, "c", NCAUX_ALIGN_C, &tag));
    TRUE_OR_FAIL(tag != NULL);
    OK(ncaux_add_field(tag, "f", NC_INT, 0, NULL));
    int bad_dims[1] = {0};
    ERR(NC_EINVAL, ncaux_add_field(tag, "g", NC_INT, 1, bad_dims));
    ERR(NC_ENOTNC4, ncaux_end_compound(tag, &t));
    OK(ncaux_abort_compound(tag));
    size_t align = 0;
    OK(ncaux_type_alignment(NC_DOUBLE, ncid, &align));
    EQ_INT(align, _Alignof(double));
    ERR(NC_EBADTYPE, ncaux_type_alignment(40, ncid, &align));
    OK(ncaux_writefile("aux.txt", 5, "hello"));
    size_t fsize = 0;
    void *content = NULL;
    OK(ncaux_readfile("aux.txt", &fsize, &content));
    EQ_INT(fsize, 5);
    TRUE_OR_FAIL(memcmp(content, "hello", 5) == 0);
    free(content);
    ERR(ENOENT, ncaux_readfile("no-such-file", &fsize, &content));
    char *owned[1] = {strdup("x")};
    OK(ncaux_reclaim_data(ncid, NC_STRING, owned, 1));

    OK(nc_inq_typeids(ncid, &nd, NULL));
    EQ_INT(nd, 0);
    OK(nc_close(ncid));
    PASS();
}
