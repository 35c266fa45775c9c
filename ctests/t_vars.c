/* Variables: every type, inquiry, rename, chunking, fill, endianness,
 * scalars, dimension scope, and the values surviving a reopen. */
#include "testutil.h"

static const nc_type all_types[] = {NC_BYTE, NC_CHAR, NC_SHORT, NC_INT, NC_FLOAT, NC_DOUBLE,
                                    NC_UBYTE, NC_USHORT, NC_UINT, NC_INT64, NC_UINT64, NC_STRING};
#define NTYPES 12

int main(void)
{
    int ncid, grp, other, x, y, t, gz, v, id, n, ndims, natts, dims[4], ids[32], storage, nofill, endian;
    char name[NC_MAX_NAME + 1];
    nc_type type;
    size_t chunks[4];
    const char *url = test_url("vars");

    OK(nc_create(url, NC_CLOBBER, &ncid));
    OK(nc_def_dim(ncid, "x", 10, &x));
    OK(nc_def_dim(ncid, "y", 6, &y));
    OK(nc_def_dim(ncid, "t", NC_UNLIMITED, &t));
    OK(nc_def_grp(ncid, "g", &grp));
    OK(nc_def_grp(ncid, "other", &other));
    OK(nc_def_dim(grp, "z", 4, &gz));

    /* One variable of every atomic type. */
    for (int i = 0; i < NTYPES; i++) {
        char vname[16];
        snprintf(vname, sizeof vname, "v%d", all_types[i]);
        dims[0] = x;
        OK(nc_def_var(ncid, vname, all_types[i], 1, dims, &v));
        EQ_INT(v, i);
    }
    OK(nc_inq_nvars(ncid, &n)); EQ_INT(n, NTYPES);
    OK(nc_inq_varids(ncid, &n, ids)); EQ_INT(n, NTYPES); EQ_INT(ids[11], 11);

    /* A 2-D variable, a scalar, a record variable, a subgroup variable
     * using dimensions of the group and of the root. */
    dims[0] = y; dims[1] = x;
    OK(nc_def_var(ncid, "grid", NC_FLOAT, 2, dims, &v));
    OK(nc_inq_var(ncid, v, name, &type, &ndims, dims, &natts));
    EQ_STR(name, "grid"); EQ_INT(type, NC_FLOAT); EQ_INT(ndims, 2);
    EQ_INT(dims[0], y); EQ_INT(dims[1], x); EQ_INT(natts, 0);
    OK(nc_def_var(ncid, "scalar", NC_DOUBLE, 0, NULL, &v));
    OK(nc_inq_varndims(ncid, v, &ndims)); EQ_INT(ndims, 0);
    dims[0] = t; dims[1] = x;
    OK(nc_def_var(ncid, "rec", NC_INT, 2, dims, &v));
    dims[0] = gz; dims[1] = x;
    OK(nc_def_var(grp, "inner", NC_SHORT, 2, dims, &v));
    EQ_INT(v, 0);

    /* Errors. */
    ERR(NC_ENAMEINUSE, nc_def_var(ncid, "grid", NC_INT, 0, NULL, &v));
    ERR(NC_ENAMEINUSE, nc_def_var(ncid, "g", NC_INT, 0, NULL, &v)); /* a group's name */
    ERR(NC_EBADTYPE, nc_def_var(ncid, "bad", NC_NAT, 0, NULL, &v));
    ERR(NC_EBADTYPE, nc_def_var(ncid, "bad", 13, 0, NULL, &v));
    ERR(NC_EBADTYPE, nc_def_var(ncid, "bad", 99, 0, NULL, &v));
    ERR(NC_EINVAL, nc_def_var(ncid, "bad", NC_INT, -1, NULL, &v));
    ERR(NC_EINVAL, nc_def_var(ncid, "bad", NC_INT, 1, NULL, &v));
    {
        /* netcdf-c accepts this and then fails at enddef; we refuse it here. */
        static int many[NC_MAX_VAR_DIMS + 1];
        for (int i = 0; i <= NC_MAX_VAR_DIMS; i++) many[i] = x;
        ERR(NC_EMAXDIMS, nc_def_var(ncid, "bad", NC_INT, NC_MAX_VAR_DIMS + 1, many, &v));
    }
    dims[0] = 99;
    ERR(NC_EBADDIM, nc_def_var(ncid, "bad", NC_INT, 1, dims, &v));
    dims[0] = gz; /* a dimension of a sibling group is not visible */
    ERR(NC_EBADDIM, nc_def_var(other, "bad", NC_INT, 1, dims, &v));
    ERR(NC_EBADDIM, nc_def_var(ncid, "bad", NC_INT, 1, dims, &v));
    ERR(NC_EBADNAME, nc_def_var(ncid, "bad name ", NC_INT, 0, NULL, &v));
    /* A backslash would be a path separator in the store on Windows and in
     * zip tools: refused for variables and groups (netcdf-c allows it). */
    ERR(NC_EBADNAME, nc_def_var(ncid, "back\\slash", NC_INT, 0, NULL, &v));
    ERR(NC_EBADNAME, nc_def_grp(ncid, "back\\slash", &v));
    ERR(NC_ENOTVAR, nc_inq_var(ncid, 999, name, &type, &ndims, dims, &natts));
    ERR(NC_ENOTVAR, nc_inq_varid(ncid, "nope", &v));
    ERR(NC_ENOTVAR, nc_inq_vartype(ncid, -2, &type));

    OK(nc_inq_varid(ncid, "grid", &v));
    OK(nc_inq_vartype(ncid, v, &type)); EQ_INT(type, NC_FLOAT);
    OK(nc_inq_varname(ncid, v, name)); EQ_STR(name, "grid");
    OK(nc_inq_vardimid(ncid, v, dims)); EQ_INT(dims[0], y);
    OK(nc_inq_varnatts(ncid, v, &natts)); EQ_INT(natts, 0);

    /* Rename, before and after enddef. */
    OK(nc_rename_var(ncid, v, "field"));
    ERR(NC_ENAMEINUSE, nc_rename_var(ncid, v, "scalar"));
    ERR(NC_ENOTVAR, nc_rename_var(ncid, 999, "zzz"));
    OK(nc_inq_varid(ncid, "field", &id)); EQ_INT(id, v);

    /* Chunking: default, explicit, contiguous as one chunk, and errors. */
    OK(nc_inq_var_chunking(ncid, v, &storage, chunks));
    EQ_INT(storage, NC_CHUNKED); EQ_INT(chunks[0], 6); EQ_INT(chunks[1], 10);
    chunks[0] = 3; chunks[1] = 5;
    OK(nc_def_var_chunking(ncid, v, NC_CHUNKED, chunks));
    chunks[0] = chunks[1] = 0;
    OK(nc_inq_var_chunking(ncid, v, &storage, chunks));
    EQ_INT(chunks[0], 3); EQ_INT(chunks[1], 5);
    chunks[0] = 7; chunks[1] = 5;
    ERR(NC_EBADCHUNK, nc_def_var_chunking(ncid, v, NC_CHUNKED, chunks));
    chunks[0] = 2; chunks[1] = 5;
    OK(nc_def_var_chunking(ncid, v, NC_CHUNKED, chunks));
    OK(nc_inq_varid(ncid, "rec", &id));
    OK(nc_inq_var_chunking(ncid, id, &storage, chunks));
    EQ_INT(chunks[0], 1); EQ_INT(chunks[1], 10);
    ERR(NC_EINVAL, nc_def_var_chunking(ncid, id, NC_CONTIGUOUS, NULL));
    chunks[0] = 100; chunks[1] = 10; /* an unlimited dimension takes any chunk length */
    OK(nc_def_var_chunking(ncid, id, NC_CHUNKED, chunks));
    OK(nc_inq_varid(ncid, "v4", &id));
    OK(nc_def_var_chunking(ncid, id, NC_CONTIGUOUS, NULL));
    OK(nc_inq_var_chunking(ncid, id, &storage, chunks));
    EQ_INT(storage, NC_CHUNKED); EQ_INT(chunks[0], 10);
    ERR(NC_EINVAL, nc_def_var_chunking(ncid, id, 42, NULL));
    OK(nc_inq_varid(ncid, "scalar", &id));
    ERR(NC_EINVAL, nc_def_var_chunking(ncid, id, NC_CHUNKED, chunks));

    /* Fill values. */
    OK(nc_inq_varid(ncid, "v4", &id));
    {
        int fill = 0;
        OK(nc_inq_var_fill(ncid, id, &nofill, &fill));
        EQ_INT(nofill, 0); EQ_INT(fill, NC_FILL_INT);
        fill = -99;
        OK(nc_def_var_fill(ncid, id, 0, &fill));
        fill = 0;
        OK(nc_inq_var_fill(ncid, id, &nofill, &fill));
        EQ_INT(fill, -99);
        OK(nc_get_att_int(ncid, id, "_FillValue", &fill));
        EQ_INT(fill, -99);
        /* _FillValue as an attribute of another type converts. */
        double dfill = 7.0;
        OK(nc_put_att_double(ncid, id, "_FillValue", NC_INT, 1, &dfill));
        OK(nc_inq_var_fill(ncid, id, &nofill, &fill));
        EQ_INT(fill, 7);
    }
    OK(nc_inq_varid(ncid, "v6", &id));
    {
        double dfill;
        OK(nc_def_var_fill(ncid, id, 1, NULL));
        OK(nc_inq_var_fill(ncid, id, &nofill, &dfill));
        EQ_INT(nofill, 1); EQ_DBL(dfill, NC_FILL_DOUBLE);
        OK(nc_def_var_fill(ncid, id, 0, NULL));
        OK(nc_inq_var_fill(ncid, id, &nofill, NULL));
        EQ_INT(nofill, 0);
    }
    OK(nc_inq_varid(ncid, "v12", &id));
    {
        char *sfill = NULL;
        const char *mine = "missing";
        ERR(NC_EINVAL, nc_def_var_fill(ncid, id, 1, NULL)); /* strings cannot be NOFILL */
        OK(nc_inq_var_fill(ncid, id, &nofill, &sfill));
        EQ_STR(sfill, "");
        OK(nc_free_string(1, &sfill));
        OK(nc_def_var_fill(ncid, id, 0, &mine));
        OK(nc_inq_var_fill(ncid, id, &nofill, &sfill));
        EQ_STR(sfill, "missing");
        OK(nc_free_string(1, &sfill));
    }
    /* NC_NOFILL set on the dataset applies to variables defined later. */
    {
        int old;
        OK(nc_set_fill(ncid, NC_NOFILL, &old));
        dims[0] = x;
        OK(nc_def_var(ncid, "nofilled", NC_INT, 1, dims, &id));
        OK(nc_inq_var_fill(ncid, id, &nofill, NULL));
        EQ_INT(nofill, 1);
        /* Strings too, as in netcdf-c (nccopy relies on it), though
         * nc_def_var_fill cannot turn a string's fill off. */
        OK(nc_def_var(ncid, "nofilled_s", NC_STRING, 1, dims, &id));
        OK(nc_inq_var_fill(ncid, id, &nofill, NULL));
        EQ_INT(nofill, 1);
        OK(nc_set_fill(ncid, NC_FILL, &old));
    }

    /* Endianness. */
    OK(nc_inq_varid(ncid, "v5", &id));
    /* A new variable is this machine's order, not native, as in netcdf-c
     * 4.10.1 (read back, chars and strings are native). */
    OK(nc_inq_var_endian(ncid, id, &endian)); EQ_INT(endian, NC_ENDIAN_LITTLE);
    OK(nc_def_var_endian(ncid, id, NC_ENDIAN_BIG));
    OK(nc_inq_var_endian(ncid, id, &endian)); EQ_INT(endian, NC_ENDIAN_BIG);
    ERR(NC_EINVAL, nc_def_var_endian(ncid, id, 9));
    OK(nc_inq_varid(ncid, "v2", &id));
    ERR(NC_EINVAL, nc_def_var_endian(ncid, id, NC_ENDIAN_BIG));
    OK(nc_inq_varid(ncid, "v3", &id));
    OK(nc_def_var_endian(ncid, id, NC_ENDIAN_LITTLE));

    OK(nc_enddef(ncid));
    /* Storage settings are fixed once defined. */
    OK(nc_inq_varid(ncid, "v5", &id));
    ERR(NC_ELATEDEF, nc_def_var_endian(ncid, id, NC_ENDIAN_LITTLE));
    ERR(NC_ELATEDEF, nc_def_var_chunking(ncid, id, NC_CHUNKED, chunks));
    ERR(NC_ELATEDEF, nc_def_var_fill(ncid, id, 1, NULL));
    /* A new variable defined after enddef is still open for settings. */
    dims[0] = x;
    OK(nc_def_var(ncid, "late", NC_INT, 1, dims, &id));
    OK(nc_def_var_endian(ncid, id, NC_ENDIAN_BIG));
    OK(nc_close(ncid));

    /* Reopen: every property read back. */
    OK(nc_open(url, NC_NOWRITE, &ncid));
    OK(nc_inq_nvars(ncid, &n)); EQ_INT(n, NTYPES + 6);
    for (int i = 0; i < NTYPES; i++) {
        OK(nc_inq_var(ncid, i, name, &type, &ndims, dims, &natts));
        EQ_INT(type, all_types[i]); EQ_INT(ndims, 1); EQ_INT(dims[0], x);
    }
    OK(nc_inq_varid(ncid, "field", &id));
    OK(nc_inq_var_chunking(ncid, id, &storage, chunks));
    EQ_INT(storage, NC_CHUNKED); EQ_INT(chunks[0], 2); EQ_INT(chunks[1], 5);
    OK(nc_inq_varid(ncid, "rec", &id));
    OK(nc_inq_var_chunking(ncid, id, &storage, chunks));
    EQ_INT(chunks[0], 100);
    OK(nc_inq_varid(ncid, "scalar", &id));
    OK(nc_inq_var(ncid, id, name, &type, &ndims, dims, &natts));
    EQ_INT(type, NC_DOUBLE); EQ_INT(ndims, 0);
    OK(nc_inq_varid(ncid, "v4", &id));
    {
        int fill;
        OK(nc_inq_var_fill(ncid, id, &nofill, &fill));
        EQ_INT(nofill, 0); EQ_INT(fill, 7);
    }
    OK(nc_inq_varid(ncid, "v6", &id));
    OK(nc_inq_var_fill(ncid, id, &nofill, NULL)); EQ_INT(nofill, 0);
    OK(nc_inq_varid(ncid, "nofilled", &id));
    OK(nc_inq_var_fill(ncid, id, &nofill, NULL)); EQ_INT(nofill, 1);
    OK(nc_inq_varid(ncid, "v12", &id));
    {
        char *sfill = NULL;
        OK(nc_inq_var_fill(ncid, id, &nofill, &sfill));
        EQ_STR(sfill, "missing");
        OK(nc_free_string(1, &sfill));
    }
    OK(nc_inq_varid(ncid, "v5", &id));
    OK(nc_inq_var_endian(ncid, id, &endian)); EQ_INT(endian, NC_ENDIAN_BIG);
    OK(nc_inq_varid(ncid, "v3", &id));
    OK(nc_inq_var_endian(ncid, id, &endian)); EQ_INT(endian, NC_ENDIAN_LITTLE);
    /* Characters (stored as ">S1") and strings have no byte order. */
    OK(nc_inq_varid(ncid, "v2", &id));
    OK(nc_inq_var_endian(ncid, id, &endian)); EQ_INT(endian, NC_ENDIAN_NATIVE);
    OK(nc_inq_varid(ncid, "nofilled_s", &id));
    OK(nc_inq_var_fill(ncid, id, &nofill, NULL)); EQ_INT(nofill, 1);
    OK(nc_inq_varid(ncid, "late", &id));
    OK(nc_inq_var_endian(ncid, id, &endian)); EQ_INT(endian, NC_ENDIAN_BIG);
    OK(nc_inq_grp_ncid(ncid, "g", &grp));
    OK(nc_inq_varid(grp, "inner", &id));
    OK(nc_inq_vardimid(grp, id, dims));
    OK(nc_inq_dimname(grp, dims[0], name)); EQ_STR(name, "z");
    OK(nc_inq_dimname(grp, dims[1], name)); EQ_STR(name, "x");
    ERR(NC_EPERM, nc_rename_var(ncid, id, "nope"));
    OK(nc_close(ncid));

    /* Renaming a variable in an existing dataset moves it. */
    OK(nc_open(url, NC_WRITE, &ncid));
    OK(nc_inq_varid(ncid, "field", &id));
    OK(nc_rename_var(ncid, id, "renamed"));
    OK(nc_close(ncid));
    OK(nc_open(url, NC_NOWRITE, &ncid));
    OK(nc_inq_varid(ncid, "renamed", &id));
    ERR(NC_ENOTVAR, nc_inq_varid(ncid, "field", &v));
    OK(nc_inq_var_chunking(ncid, id, &storage, chunks));
    EQ_INT(chunks[0], 2);
    OK(nc_close(ncid));
    {
        FILE *f = fopen("vars.zarr/field/.zarray", "r");
        TRUE_OR_FAIL(f == NULL);
        f = fopen("vars.zarr/renamed/.zarray", "r");
        TRUE_OR_FAIL(f != NULL);
        fclose(f);
    }
    PASS();
}
