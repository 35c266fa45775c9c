/* Attributes: every typed put/get, conversion and NC_ERANGE, text and
 * strings, inquiry, delete/rename/copy, _FillValue, reserved and computed
 * attributes, and exact values after a reopen. */
#include "testutil.h"

int main(void)
{
    int ncid, ncid2, v, w, grp, x, attnum, n;
    nc_type type;
    size_t len;
    char name[NC_MAX_NAME + 1], text[64];
    const char *url = test_url("atts");

    OK(nc_create(url, NC_CLOBBER, &ncid));
    OK(nc_def_dim(ncid, "x", 3, &x));
    OK(nc_def_var(ncid, "v", NC_FLOAT, 1, &x, &v));
    OK(nc_def_var(ncid, "w", NC_SHORT, 1, &x, &w));
    OK(nc_def_grp(ncid, "g", &grp));

    /* One attribute per memory type, stored in its own type. */
    signed char sc[] = {-128, 0, 127};
    unsigned char uc[] = {0, 128, 255};
    short sh[] = {-32768, 32767};
    unsigned short us[] = {65535};
    int in[] = {-2147483647 - 1, 2147483647};
    unsigned int ui[] = {4294967295U};
    long lo[] = {-5, 6};
    long long ll[] = {-9223372036854775807LL - 1, 9223372036854775807LL};
    unsigned long long ull[] = {18446744073709551615ULL};
    float fl[] = {0.1f, 3.4028235e38f, 1e-45f};
    double db[] = {3.141592653589793, 1e308, -0.0};
    const char *strs[] = {"alpha", "", "a longer string with spaces"};

    OK(nc_put_att_schar(ncid, NC_GLOBAL, "a_schar", NC_BYTE, 3, sc));
    OK(nc_put_att_uchar(ncid, NC_GLOBAL, "a_uchar", NC_UBYTE, 3, uc));
    OK(nc_put_att_short(ncid, NC_GLOBAL, "a_short", NC_SHORT, 2, sh));
    OK(nc_put_att_ushort(ncid, NC_GLOBAL, "a_ushort", NC_USHORT, 1, us));
    OK(nc_put_att_int(ncid, NC_GLOBAL, "a_int", NC_INT, 2, in));
    OK(nc_put_att_uint(ncid, NC_GLOBAL, "a_uint", NC_UINT, 1, ui));
    OK(nc_put_att_long(ncid, NC_GLOBAL, "a_long", NC_INT, 2, lo));
    OK(nc_put_att_longlong(ncid, NC_GLOBAL, "a_int64", NC_INT64, 2, ll));
    OK(nc_put_att_ulonglong(ncid, NC_GLOBAL, "a_uint64", NC_UINT64, 1, ull));
    OK(nc_put_att_float(ncid, NC_GLOBAL, "a_float", NC_FLOAT, 3, fl));
    OK(nc_put_att_double(ncid, NC_GLOBAL, "a_double", NC_DOUBLE, 3, db));
    OK(nc_put_att_text(ncid, NC_GLOBAL, "a_text", 11, "hello world"));
    OK(nc_put_att_string(ncid, NC_GLOBAL, "a_string", 3, strs));
    OK(nc_put_att_text(ncid, NC_GLOBAL, "a_empty", 0, NULL));
    OK(nc_put_att_int(ncid, NC_GLOBAL, "a_none", NC_INT, 0, NULL));
    {
        unsigned short raw[] = {1, 2};
        OK(nc_put_att(ncid, NC_GLOBAL, "a_untyped", NC_USHORT, 2, raw));
    }
    OK(nc_put_att_text(ncid, v, "units", 1, "K"));
    OK(nc_put_att_text(grp, NC_GLOBAL, "in_group", 3, "yes"));

    /* Conversion on write: NC_ERANGE after storing every value. */
    {
        int big[] = {1, 300, -1};
        unsigned char got[3];
        ERR(NC_ERANGE, nc_put_att_int(ncid, NC_GLOBAL, "a_range", NC_UBYTE, 3, big));
        OK(nc_inq_att(ncid, NC_GLOBAL, "a_range", &type, &len));
        EQ_INT(type, NC_UBYTE); EQ_INT(len, 3);
        OK(nc_get_att_uchar(ncid, NC_GLOBAL, "a_range", got));
        EQ_INT(got[0], 1); EQ_INT(got[1], 44); EQ_INT(got[2], 255);
        double dbl[] = {1e40};
        ERR(NC_ERANGE, nc_put_att_double(ncid, NC_GLOBAL, "a_frange", NC_FLOAT, 1, dbl));
        double fine[] = {2.5, -7.9};
        int back[2];
        OK(nc_put_att_double(ncid, NC_GLOBAL, "a_toint", NC_INT, 2, fine));
        OK(nc_get_att_int(ncid, NC_GLOBAL, "a_toint", back));
        EQ_INT(back[0], 2); EQ_INT(back[1], -7);
    }
    /* Conversion on read. */
    {
        double d[3];
        signed char b[2];
        long long l[2];
        OK(nc_get_att_double(ncid, NC_GLOBAL, "a_schar", d));
        EQ_DBL(d[0], -128.0); EQ_DBL(d[2], 127.0);
        ERR(NC_ERANGE, nc_get_att_schar(ncid, NC_GLOBAL, "a_short", b));
        EQ_INT(b[0], 0); /* -32768 wraps to 0, as a C cast does */
        OK(nc_get_att_longlong(ncid, NC_GLOBAL, "a_int", l));
        EQ_INT(l[0], -2147483648LL);
        long lg[2];
        OK(nc_get_att_long(ncid, NC_GLOBAL, "a_long", lg));
        EQ_INT(lg[0], -5); EQ_INT(lg[1], 6);
        unsigned int u4[2];
        ERR(NC_ERANGE, nc_get_att_uint(ncid, NC_GLOBAL, "a_long", u4));
        EQ_INT(u4[1], 6);
        float f[3];
        ERR(NC_ERANGE, nc_get_att_float(ncid, NC_GLOBAL, "a_double", f)); /* 1e308 */
        EQ_DBL(f[0], (float)3.141592653589793);
        OK(nc_get_att_float(ncid, NC_GLOBAL, "a_ushort", f));
        EQ_DBL(f[0], 65535.0);
    }
    /* Text and numbers never convert. */
    {
        int i;
        ERR(NC_ECHAR, nc_put_att_int(ncid, NC_GLOBAL, "bad", NC_CHAR, 1, &i));
        ERR(NC_ECHAR, nc_put_att_schar(ncid, NC_GLOBAL, "bad", NC_STRING, 1, sc));
        ERR(NC_ECHAR, nc_get_att_int(ncid, NC_GLOBAL, "a_text", &i));
        ERR(NC_ECHAR, nc_get_att_text(ncid, NC_GLOBAL, "a_int", text));
        ERR(NC_EBADTYPE, nc_get_att_int(ncid, NC_GLOBAL, "a_string", &i));
        ERR(NC_EBADTYPE, nc_put_att_int(ncid, NC_GLOBAL, "bad", NC_NAT, 1, &i));
        ERR(NC_EBADTYPID, nc_put_att_int(ncid, NC_GLOBAL, "bad", 42, 1, &i));
        ERR(NC_EBADTYPID, nc_put_att_int(ncid, NC_GLOBAL, "bad", NC_VLEN, 1, &i));
        ERR(NC_EINVAL, nc_put_att_int(ncid, NC_GLOBAL, "bad", -5, 1, &i));
        ERR(NC_EBADTYPID, nc_put_att(ncid, NC_GLOBAL, "bad", 40, 1, &i));
        ERR(NC_EBADNAME, nc_get_att_int(ncid, NC_GLOBAL, NULL, &i));
        ERR(NC_EBADNAME, nc_inq_att(ncid, NC_GLOBAL, NULL, &type, &len));
        ERR(NC_EINVAL, nc_put_att_int(ncid, NC_GLOBAL, "bad", NC_INT, 2, NULL));
        ERR(NC_EINVAL, nc_put_att_int(ncid, NC_GLOBAL, "bad", NC_INT, (size_t)-1, &i)); /* no giant allocation */
        ERR(NC_EBADNAME, nc_put_att_int(ncid, NC_GLOBAL, NULL, NC_INT, 1, &i));
        ERR(NC_EBADNAME, nc_put_att_int(ncid, NC_GLOBAL, "bad/name", NC_INT, 1, &i));
        ERR(NC_ENOTVAR, nc_put_att_int(ncid, 42, "x", NC_INT, 1, &i));
        ERR(NC_ENOTATT, nc_get_att_int(ncid, NC_GLOBAL, "nope", &i));
        ERR(NC_ENOTATT, nc_inq_att(ncid, v, "nope", &type, &len));
    }

    /* _FillValue: one value, converted to the variable's type. */
    {
        float ff[2] = {1, 2}, got;
        int nofill;
        ERR(NC_EINVAL, nc_put_att_float(ncid, v, "_FillValue", NC_FLOAT, 2, ff));
        OK(nc_put_att_float(ncid, v, "_FillValue", NC_FLOAT, 1, ff));
        OK(nc_inq_var_fill(ncid, v, &nofill, &got));
        EQ_DBL(got, 1.0);
        OK(nc_del_att(ncid, v, "_FillValue"));
        OK(nc_inq_var_fill(ncid, v, &nofill, &got));
        EQ_DBL(got, NC_FILL_FLOAT);
        short s = -1;
        OK(nc_put_att_short(ncid, w, "_FillValue", NC_SHORT, 1, &s));
    }

    /* Reserved names. */
    {
        int i = 1;
        ERR(NC_ENAMEINUSE, nc_put_att_int(ncid, NC_GLOBAL, "_NCProperties", NC_INT, 1, &i));
        ERR(NC_ENAMEINUSE, nc_put_att_int(ncid, NC_GLOBAL, "_IsNetcdf4", NC_INT, 1, &i));
        ERR(NC_ENAMEINUSE, nc_put_att_int(ncid, v, "_ARRAY_DIMENSIONS", NC_INT, 1, &i));
        ERR(NC_ENAMEINUSE, nc_put_att_int(ncid, v, "_nczarr_array", NC_INT, 1, &i));
        ERR(NC_ENAMEINUSE, nc_put_att_int(grp, NC_GLOBAL, "_nczarr_group", NC_INT, 1, &i));
        ERR(NC_ENAMEINUSE, nc_put_att_int(ncid, v, "_Codecs", NC_INT, 1, &i));
    }

    /* Inquiry. */
    OK(nc_inq_natts(ncid, &n)); EQ_INT(n, 19);
    OK(nc_inq_attname(ncid, NC_GLOBAL, 0, name)); EQ_STR(name, "a_schar");
    OK(nc_inq_attname(ncid, NC_GLOBAL, 12, name)); EQ_STR(name, "a_string");
    ERR(NC_ENOTATT, nc_inq_attname(ncid, NC_GLOBAL, 99, name));
    ERR(NC_ENOTATT, nc_inq_attname(ncid, NC_GLOBAL, -1, name));
    OK(nc_inq_attid(ncid, NC_GLOBAL, "a_int", &attnum)); EQ_INT(attnum, 4);
    OK(nc_inq_atttype(ncid, NC_GLOBAL, "a_long", &type)); EQ_INT(type, NC_INT);
    OK(nc_inq_attlen(ncid, NC_GLOBAL, "a_text", &len)); EQ_INT(len, 11);
    OK(nc_inq_att(ncid, NC_GLOBAL, "a_string", &type, &len));
    EQ_INT(type, NC_STRING); EQ_INT(len, 3);
    OK(nc_inq_varnatts(ncid, v, &n)); EQ_INT(n, 1);
    { int ng = -1; OK(nc_inq_natts(ncid, &ng)); OK(nc_inq_varnatts(ncid, NC_GLOBAL, &n)); EQ_INT(n, ng); }

    /* Rename and delete keep the order of the others. */
    OK(nc_rename_att(ncid, NC_GLOBAL, "a_untyped", "a_ushorts"));
    ERR(NC_ENAMEINUSE, nc_rename_att(ncid, NC_GLOBAL, "a_ushorts", "a_int"));
    ERR(NC_ENOTATT, nc_rename_att(ncid, NC_GLOBAL, "nope", "nope2"));
    OK(nc_del_att(ncid, NC_GLOBAL, "a_frange"));
    ERR(NC_ENOTATT, nc_del_att(ncid, NC_GLOBAL, "a_frange"));
    OK(nc_inq_attid(ncid, NC_GLOBAL, "a_toint", &attnum)); EQ_INT(attnum, 17);

    /* Copy within a dataset and to another one. */
    OK(nc_copy_att(ncid, NC_GLOBAL, "a_double", ncid, v));
    OK(nc_copy_att(ncid, NC_GLOBAL, "a_string", grp, NC_GLOBAL));
    ERR(NC_ENOTATT, nc_copy_att(ncid, NC_GLOBAL, "nope", ncid, v));
    OK(nc_create(test_url("atts_copy"), NC_CLOBBER, &ncid2));
    OK(nc_copy_att(ncid, NC_GLOBAL, "a_uint64", ncid2, NC_GLOBAL));
    {
        unsigned long long got;
        OK(nc_get_att_ulonglong(ncid2, NC_GLOBAL, "a_uint64", &got));
        TRUE_OR_FAIL(got == 18446744073709551615ULL);
    }
    OK(nc_close(ncid2));

    /* Computed attributes: readable by name, never listed. */
    {
        int i;
        OK(nc_inq_att(ncid, NC_GLOBAL, "_NCProperties", &type, &len));
        EQ_INT(type, NC_CHAR);
        memset(text, 0, sizeof text);
        OK(nc_get_att_text(ncid, NC_GLOBAL, "_NCProperties", text));
        TRUE_OR_FAIL(strncmp(text, "version=2,netcdf=", 17) == 0);
        OK(nc_get_att_int(ncid, NC_GLOBAL, "_IsNetcdf4", &i)); EQ_INT(i, 1);
        OK(nc_get_att_int(ncid, NC_GLOBAL, "_SuperblockVersion", &i)); EQ_INT(i, 2);
        ERR(NC_EATTMETA, nc_inq_attid(ncid, NC_GLOBAL, "_NCProperties", &i));
        ERR(NC_ENOTATT, nc_get_att_text(ncid, v, "_Codecs", text));
    }
    OK(nc_close(ncid));

    /* Reopen: names, order, types and exact values. */
    OK(nc_open(url, NC_NOWRITE, &ncid));
    OK(nc_inq_natts(ncid, &n)); EQ_INT(n, 18);
    OK(nc_inq_attname(ncid, NC_GLOBAL, 15, name)); EQ_STR(name, "a_ushorts");
    {
        signed char sc2[3]; unsigned char uc2[3]; short sh2[2]; unsigned short us2[1];
        int in2[2]; unsigned int ui2[1]; long long ll2[2]; unsigned long long ull2[1];
        float fl2[3]; double db2[3]; char *strs2[3];
        OK(nc_get_att_schar(ncid, NC_GLOBAL, "a_schar", sc2));
        TRUE_OR_FAIL(memcmp(sc, sc2, sizeof sc) == 0);
        OK(nc_get_att_uchar(ncid, NC_GLOBAL, "a_uchar", uc2));
        TRUE_OR_FAIL(memcmp(uc, uc2, sizeof uc) == 0);
        OK(nc_get_att_short(ncid, NC_GLOBAL, "a_short", sh2));
        TRUE_OR_FAIL(memcmp(sh, sh2, sizeof sh) == 0);
        OK(nc_get_att_ushort(ncid, NC_GLOBAL, "a_ushort", us2)); EQ_INT(us2[0], 65535);
        OK(nc_get_att_int(ncid, NC_GLOBAL, "a_int", in2));
        TRUE_OR_FAIL(memcmp(in, in2, sizeof in) == 0);
        OK(nc_get_att_uint(ncid, NC_GLOBAL, "a_uint", ui2)); TRUE_OR_FAIL(ui2[0] == 4294967295U);
        OK(nc_get_att_longlong(ncid, NC_GLOBAL, "a_int64", ll2));
        TRUE_OR_FAIL(memcmp(ll, ll2, sizeof ll) == 0);
        OK(nc_get_att_ulonglong(ncid, NC_GLOBAL, "a_uint64", ull2));
        TRUE_OR_FAIL(ull2[0] == 18446744073709551615ULL);
        OK(nc_get_att_float(ncid, NC_GLOBAL, "a_float", fl2));
        TRUE_OR_FAIL(memcmp(fl, fl2, sizeof fl) == 0); /* bit-exact: full precision kept */
        OK(nc_get_att_double(ncid, NC_GLOBAL, "a_double", db2));
        TRUE_OR_FAIL(memcmp(db, db2, sizeof db) == 0);
        OK(nc_inq_att(ncid, NC_GLOBAL, "a_long", &type, &len)); EQ_INT(type, NC_INT); EQ_INT(len, 2);
        OK(nc_inq_att(ncid, NC_GLOBAL, "a_text", &type, &len)); EQ_INT(type, NC_CHAR); EQ_INT(len, 11);
        memset(text, 0, sizeof text);
        OK(nc_get_att_text(ncid, NC_GLOBAL, "a_text", text)); EQ_STR(text, "hello world");
        OK(nc_inq_att(ncid, NC_GLOBAL, "a_empty", &type, &len)); EQ_INT(type, NC_CHAR); EQ_INT(len, 0);
        OK(nc_inq_att(ncid, NC_GLOBAL, "a_none", &type, &len)); EQ_INT(type, NC_INT); EQ_INT(len, 0);
        OK(nc_inq_att(ncid, NC_GLOBAL, "a_string", &type, &len)); EQ_INT(type, NC_STRING); EQ_INT(len, 3);
        OK(nc_get_att_string(ncid, NC_GLOBAL, "a_string", strs2));
        for (int i = 0; i < 3; i++) EQ_STR(strs2[i], strs[i]);
        OK(nc_free_string(3, strs2));
        OK(nc_inq_att(ncid, NC_GLOBAL, "a_ushorts", &type, &len)); EQ_INT(type, NC_USHORT);
        OK(nc_inq_att(ncid, NC_GLOBAL, "a_range", &type, &len)); EQ_INT(type, NC_UBYTE);
        OK(nc_get_att(ncid, NC_GLOBAL, "a_int64", ll2));
        TRUE_OR_FAIL(ll2[1] == 9223372036854775807LL);
    }
    OK(nc_inq_varnatts(ncid, v, &n)); EQ_INT(n, 2);
    OK(nc_inq_attname(ncid, v, 1, name)); EQ_STR(name, "a_double");
    {
        short s; int nofill;
        OK(nc_inq_att(ncid, w, "_FillValue", &type, &len)); EQ_INT(type, NC_SHORT);
        OK(nc_get_att_short(ncid, w, "_FillValue", &s)); EQ_INT(s, -1);
        OK(nc_inq_var_fill(ncid, w, &nofill, &s)); EQ_INT(s, -1);
    }
    OK(nc_inq_grp_ncid(ncid, "g", &grp));
    OK(nc_inq_natts(grp, &n)); EQ_INT(n, 2);
    OK(nc_inq_att(grp, NC_GLOBAL, "a_string", &type, &len)); EQ_INT(type, NC_STRING); EQ_INT(len, 3);
    ERR(NC_EPERM, nc_del_att(ncid, NC_GLOBAL, "a_int"));
    ERR(NC_EPERM, nc_rename_att(ncid, NC_GLOBAL, "a_int", "b"));
    OK(nc_close(ncid));

    /* Changing attributes of an existing dataset. */
    OK(nc_open(url, NC_WRITE, &ncid));
    OK(nc_del_att(ncid, NC_GLOBAL, "a_schar"));
    {
        double pi = 3.0;
        OK(nc_put_att_double(ncid, NC_GLOBAL, "a_double", NC_DOUBLE, 1, &pi));
    }
    OK(nc_close(ncid));
    OK(nc_open(url, NC_NOWRITE, &ncid));
    ERR(NC_ENOTATT, nc_inq_att(ncid, NC_GLOBAL, "a_schar", &type, &len));
    OK(nc_inq_att(ncid, NC_GLOBAL, "a_double", &type, &len)); EQ_INT(len, 1);
    OK(nc_close(ncid));
    PASS();
}
