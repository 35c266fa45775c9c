/* Filter plugins from HDF5_PLUGIN_PATH (the runner points it at the test
 * plugins it builds): a complete plugin for an unregistered id works end to
 * end; an incomplete one is NC_ENOFILTER. */
#include "testutil.h"
#include <netcdf_filter.h>

int main(void)
{
    int ncid, x, v, h;
    unsigned key = 0x5a;
    short data[100], back[100];
    for (int i = 0; i < 100; i++) data[i] = (short)(i * 300 - 7000);

    OK(nc_create(test_url("plugins"), NC_CLOBBER, &ncid));
    OK(nc_inq_filter_avail(ncid, 40001));
    ERR(NC_ENOFILTER, nc_inq_filter_avail(ncid, 40002));
    OK(nc_def_dim(ncid, "x", 100, &x));
    OK(nc_def_var(ncid, "v", NC_SHORT, 1, &x, &v));
    OK(nc_def_var_filter(ncid, v, 40001, 1, &key));
    OK(nc_def_var(ncid, "h", NC_SHORT, 1, &x, &h));
    ERR(NC_ENOFILTER, nc_def_var_filter(ncid, h, 40002, 0, NULL));
    {
        size_t n;
        unsigned ids[2], params[2];
        OK(nc_inq_var_filter_ids(ncid, v, &n, ids));
        EQ_INT(n, 1); EQ_INT(ids[0], 40001);
        OK(nc_inq_var_filter_info(ncid, v, 40001, &n, params));
        EQ_INT(n, 1); EQ_INT(params[0], 0x5a);
    }
    OK(nc_put_var_short(ncid, v, data));
    OK(nc_close(ncid));

    /* The stored chunk is XORed (so the filter ran), the codec JSON is the
     * plugin's. */
    {
        FILE *f = fopen("plugins.zarr/v/0", "rb");
        unsigned char raw[4];
        TRUE_OR_FAIL(f && fread(raw, 1, 4, f) == 4);
        fclose(f);
        short first = data[0];
        unsigned char plain[2];
        memcpy(plain, &first, 2);
        EQ_INT(raw[0], plain[0] ^ 0x5a);
        f = fopen("plugins.zarr/v/.zarray", "r");
        char json[512] = {0};
        TRUE_OR_FAIL(f && fread(json, 1, sizeof json - 1, f) > 0);
        fclose(f);
        TRUE_OR_FAIL(strstr(json, "\"id\":\"nczarr_rs_test_xor\"") != NULL);
    }

    OK(nc_open(test_url("plugins"), NC_NOWRITE, &ncid));
    OK(nc_get_var_short(ncid, v, back));
    TRUE_OR_FAIL(memcmp(data, back, sizeof data) == 0);
    {
        unsigned id, param;
        size_t n;
        OK(nc_inq_var_filter(ncid, v, &id, &n, &param));
        EQ_INT(id, 40001); EQ_INT(param, 0x5a);
    }
    OK(nc_close(ncid));
    PASS();
}
