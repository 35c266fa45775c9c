/* Quantization: nc_def_var_quantize's checks and error codes, the values
 * stored by each algorithm (the bit patterns netcdf-c 4.10.1 stores for
 * the same writes), the attribute that records the setting and the
 * setting read back after reopening. ctests/t_quantize_diff.sh compares
 * with netcdf-c itself. */
#include "testutil.h"
#include <stdint.h>

static uint32_t fbits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static uint64_t dbits(double d) { uint64_t u; memcpy(&u, &d, 8); return u; }

#define EQ_BITS(a, b) EQ_INT(a, b)

static const float in_f[8] = {1.2345678f, 3.3f, -7.77f, 1e-3f, 0.0f, -0.0f, NAN, 5.0f};
/* BitGroom, 3 digits: even positions cleared, odd ones set; zeros and
 * NaN untouched. */
static const uint32_t bg3_f[8] = {0x3f9e0000, 0x40533fff, 0xc0f8a000, 0x3a831fff, 0, 0x80000000, 0x7fc00000, 0x40a00fff};
/* BitRound, 10 bits. */
static const uint64_t br10_d[3] = {0x4009200000000000ull, 0xc005c00000000000ull, 0x0000140000000000ull};

static void check_f(int ncid, int v)
{
    float back[8];
    double wide[8];
    OK(nc_get_var_float(ncid, v, back));
    for (int i = 0; i < 8; i++) EQ_BITS(fbits(back[i]), bg3_f[i]);
    /* Read as double: the stored floats widened, not quantized again
     * (netcdf-c quantizes again at double precision when it converts). */
    OK(nc_get_var_double(ncid, v, wide));
    for (int i = 0; i < 8; i++)
        if (i != 6) EQ_BITS(dbits(wide[i]), dbits((double)back[i]));
    TRUE_OR_FAIL(isnan(wide[6]));
}

static void check_d(int ncid, int v)
{
    double back[3];
    OK(nc_get_var_double(ncid, v, back));
    for (int i = 0; i < 3; i++) EQ_BITS(dbits(back[i]), br10_d[i]);
}

int main(void)
{
    int ncid, x, y, f, d, i, s, u, w, mode, nsd, natts;
    nc_type t;
    size_t len;
    const char *url = test_url("quantize");

    OK(nc_create(url, NC_CLOBBER, &ncid));
    OK(nc_def_dim(ncid, "x", 8, &x));
    OK(nc_def_dim(ncid, "y", 3, &y));
    OK(nc_def_var(ncid, "f", NC_FLOAT, 1, &x, &f));
    OK(nc_def_var(ncid, "d", NC_DOUBLE, 1, &y, &d));
    OK(nc_def_var(ncid, "i", NC_INT, 1, &x, &i));
    OK(nc_def_var(ncid, "s", NC_FLOAT, 0, NULL, &s));
    OK(nc_def_var(ncid, "u", NC_FLOAT, 1, &x, &u));
    OK(nc_def_var(ncid, "w", NC_FLOAT, 1, &x, &w));

    /* Nothing set: off. */
    mode = nsd = -1;
    OK(nc_inq_var_quantize(ncid, f, &mode, &nsd));
    EQ_INT(mode, NC_NOQUANTIZE);
    EQ_INT(nsd, 0);

    /* Errors. */
    ERR(NC_EGLOBAL, nc_def_var_quantize(ncid, NC_GLOBAL, NC_QUANTIZE_BITGROOM, 3));
    ERR(NC_EGLOBAL, nc_inq_var_quantize(ncid, NC_GLOBAL, &mode, &nsd));
    ERR(NC_ENOTVAR, nc_def_var_quantize(ncid, 99, NC_QUANTIZE_BITGROOM, 3));
    ERR(NC_ENOTVAR, nc_inq_var_quantize(ncid, 99, &mode, &nsd));
    ERR(NC_EBADID, nc_def_var_quantize(ncid + 0x10000, f, NC_QUANTIZE_BITGROOM, 3));
    ERR(NC_EINVAL, nc_def_var_quantize(ncid, f, 4, 3));
    ERR(NC_EINVAL, nc_def_var_quantize(ncid, f, -1, 3));
    ERR(NC_EINVAL, nc_def_var_quantize(ncid, i, NC_QUANTIZE_BITGROOM, 3));
    ERR(NC_EINVAL, nc_def_var_quantize(ncid, i, NC_QUANTIZE_BITROUND, 3));
    for (int m = NC_QUANTIZE_BITGROOM; m <= NC_QUANTIZE_BITROUND; m++) {
        ERR(NC_EINVAL, nc_def_var_quantize(ncid, f, m, 0));
        ERR(NC_EINVAL, nc_def_var_quantize(ncid, f, m, -3));
    }
    /* Float: 6 decimal digits at most (7 in netcdf-c 4.9.x, where
     * BitGroom then destroys the values), 23 bits; double: 15 and 52. */
    ERR(NC_EINVAL, nc_def_var_quantize(ncid, f, NC_QUANTIZE_BITGROOM, 7));
    ERR(NC_EINVAL, nc_def_var_quantize(ncid, f, NC_QUANTIZE_GRANULARBR, 7));
    ERR(NC_EINVAL, nc_def_var_quantize(ncid, f, NC_QUANTIZE_BITROUND, 24));
    ERR(NC_EINVAL, nc_def_var_quantize(ncid, d, NC_QUANTIZE_BITGROOM, 16));
    ERR(NC_EINVAL, nc_def_var_quantize(ncid, d, NC_QUANTIZE_GRANULARBR, 16));
    ERR(NC_EINVAL, nc_def_var_quantize(ncid, d, NC_QUANTIZE_BITROUND, 53));
    OK(nc_def_var_quantize(ncid, f, NC_QUANTIZE_BITGROOM, NC_QUANTIZE_MAX_FLOAT_NSD));
    OK(nc_def_var_quantize(ncid, f, NC_QUANTIZE_BITROUND, NC_QUANTIZE_MAX_FLOAT_NSB));
    OK(nc_def_var_quantize(ncid, d, NC_QUANTIZE_GRANULARBR, NC_QUANTIZE_MAX_DOUBLE_NSD));
    OK(nc_def_var_quantize(ncid, d, NC_QUANTIZE_BITROUND, NC_QUANTIZE_MAX_DOUBLE_NSB));
    /* Off: any type, any nsd, which reads back as 0. */
    OK(nc_def_var_quantize(ncid, i, NC_NOQUANTIZE, 12345));
    OK(nc_def_var_quantize(ncid, f, NC_NOQUANTIZE, -5));
    OK(nc_inq_var_quantize(ncid, f, &mode, &nsd));
    EQ_INT(mode, NC_NOQUANTIZE);
    EQ_INT(nsd, 0);

    OK(nc_def_var_quantize(ncid, f, NC_QUANTIZE_BITGROOM, 3));
    OK(nc_def_var_quantize(ncid, d, NC_QUANTIZE_BITROUND, 10));
    OK(nc_def_var_quantize(ncid, s, NC_QUANTIZE_GRANULARBR, 3));
    OK(nc_def_var_quantize(ncid, w, NC_QUANTIZE_BITGROOM, 2));
    OK(nc_inq_var_quantize(ncid, f, NULL, NULL));
    OK(nc_inq_var_quantize(ncid, d, &mode, &nsd));
    EQ_INT(mode, NC_QUANTIZE_BITROUND);
    EQ_INT(nsd, 10);
    /* The attribute is written with the metadata, not listed now. */
    ERR(NC_ENOTATT, nc_inq_att(ncid, f, NC_QUANTIZE_BITGROOM_ATT_NAME, &t, &len));
    OK(nc_inq_varnatts(ncid, f, &natts));
    EQ_INT(natts, 0);
    /* The names are not reserved. An attribute alone sets nothing in this
     * session ("u"); a setting's value wins over an attribute ("w"). */
    int four = 4, five = 5;
    OK(nc_put_att_int(ncid, u, NC_QUANTIZE_BITROUND_ATT_NAME, NC_INT, 1, &five));
    OK(nc_put_att_int(ncid, w, NC_QUANTIZE_BITGROOM_ATT_NAME, NC_INT, 1, &four));
    OK(nc_inq_var_quantize(ncid, u, &mode, &nsd));
    EQ_INT(mode, NC_NOQUANTIZE);
    OK(nc_enddef(ncid));

    /* Too late now, even to turn it off or to pass bad arguments. */
    ERR(NC_ELATEDEF, nc_def_var_quantize(ncid, f, NC_QUANTIZE_BITROUND, 5));
    ERR(NC_ELATEDEF, nc_def_var_quantize(ncid, f, NC_NOQUANTIZE, 0));
    ERR(NC_ELATEDEF, nc_def_var_quantize(ncid, f, 99, 0));

    /* Written in another memory type: converted, then quantized. */
    double in_fd[8];
    for (int k = 0; k < 8; k++) in_fd[k] = in_f[k];
    OK(nc_put_var_double(ncid, f, in_fd));
    check_f(ncid, f);
    OK(nc_put_var_double(ncid, d, (double[]){3.141592653589793, -2.718281828459045, 1e-310}));
    check_d(ncid, d);
    float big = 1234.5678f, back;
    OK(nc_put_var_float(ncid, s, &big));
    OK(nc_get_var_float(ncid, s, &back));
    EQ_BITS(fbits(back), 0x449a0000);
    /* Not quantized: "u" has only an attribute, as far as this session
     * knows. */
    OK(nc_put_var_float(ncid, u, in_f));
    float raw[8];
    OK(nc_get_var_float(ncid, u, raw));
    EQ_BITS(fbits(raw[1]), fbits(3.3f));
    /* Fill values are left alone. */
    float fills[8] = {NC_FILL_FLOAT, NC_FILL_FLOAT, 1.1f, 1.1f, NC_FILL_FLOAT, NC_FILL_FLOAT, 1.1f, 1.1f};
    OK(nc_put_var_float(ncid, w, fills));
    OK(nc_get_var_float(ncid, w, raw));
    EQ_BITS(fbits(raw[0]), fbits(NC_FILL_FLOAT));
    EQ_BITS(fbits(raw[1]), fbits(NC_FILL_FLOAT));
    EQ_BITS(fbits(raw[2]), 0x3f8c8000);
    EQ_BITS(fbits(raw[3]), 0x3f8cffff);
    OK(nc_close(ncid));

    /* Reopened: the setting comes back from the attribute, now listed as
     * an ordinary int attribute, and stored values are read as they are. */
    OK(nc_open(url, NC_NOWRITE, &ncid));
    OK(nc_inq_var_quantize(ncid, f, &mode, &nsd));
    EQ_INT(mode, NC_QUANTIZE_BITGROOM);
    EQ_INT(nsd, 3);
    OK(nc_inq_var_quantize(ncid, d, &mode, &nsd));
    EQ_INT(mode, NC_QUANTIZE_BITROUND);
    EQ_INT(nsd, 10);
    OK(nc_inq_var_quantize(ncid, s, &mode, &nsd));
    EQ_INT(mode, NC_QUANTIZE_GRANULARBR);
    EQ_INT(nsd, 3);
    OK(nc_inq_var_quantize(ncid, i, &mode, &nsd));
    EQ_INT(mode, NC_NOQUANTIZE);
    OK(nc_inq_var_quantize(ncid, u, &mode, &nsd));
    EQ_INT(mode, NC_QUANTIZE_BITROUND);
    EQ_INT(nsd, 5);
    OK(nc_inq_var_quantize(ncid, w, &mode, &nsd));
    EQ_INT(mode, NC_QUANTIZE_BITGROOM);
    EQ_INT(nsd, 2);
    OK(nc_inq_att(ncid, f, NC_QUANTIZE_BITGROOM_ATT_NAME, &t, &len));
    EQ_INT(t, NC_INT);
    EQ_INT(len, 1);
    int n = 0;
    OK(nc_get_att_int(ncid, d, NC_QUANTIZE_BITROUND_ATT_NAME, &n));
    EQ_INT(n, 10);
    OK(nc_get_att_int(ncid, w, NC_QUANTIZE_BITGROOM_ATT_NAME, &n));
    EQ_INT(n, 2);
    OK(nc_inq_varnatts(ncid, f, &natts));
    EQ_INT(natts, 1);
    ERR(NC_ENOTATT, nc_inq_att(ncid, i, NC_QUANTIZE_BITGROOM_ATT_NAME, &t, &len));
    ERR(NC_EPERM, nc_def_var_quantize(ncid, f, NC_QUANTIZE_BITGROOM, 3));
    check_f(ncid, f);
    check_d(ncid, d);
    OK(nc_close(ncid));

    /* Writing after reopening quantizes with the stored setting; a single
     * element is a write of its own, so BitGroom clears its bits. (netcdf-c
     * reads the setting lazily and skips quantizing writes in the
     * variable's own type until something asked for it.) */
    OK(nc_open(url, NC_WRITE, &ncid));
    ERR(NC_ELATEDEF, nc_def_var_quantize(ncid, f, NC_QUANTIZE_BITGROOM, 3));
    size_t one = 1;
    float v = 3.3f;
    OK(nc_put_var1_float(ncid, f, &one, &v));
    OK(nc_get_var1_float(ncid, f, &one, &back));
    EQ_BITS(fbits(back), 0x40533000);
    /* Users may delete the attribute; the variable is then not quantized. */
    OK(nc_del_att(ncid, u, NC_QUANTIZE_BITROUND_ATT_NAME));
    OK(nc_inq_var_quantize(ncid, u, &mode, &nsd));
    EQ_INT(mode, NC_NOQUANTIZE);
    OK(nc_put_var1_float(ncid, u, &one, &v));
    OK(nc_get_var1_float(ncid, u, &one, &back));
    EQ_BITS(fbits(back), fbits(3.3f));
    OK(nc_close(ncid));

    OK(nc_open(url, NC_NOWRITE, &ncid));
    OK(nc_inq_varnatts(ncid, f, &natts));
    EQ_INT(natts, 1);
    OK(nc_inq_var_quantize(ncid, f, &mode, &nsd));
    EQ_INT(nsd, 3);
    OK(nc_inq_var_quantize(ncid, u, &mode, &nsd));
    EQ_INT(mode, NC_NOQUANTIZE);
    OK(nc_close(ncid));
    PASS();
}
