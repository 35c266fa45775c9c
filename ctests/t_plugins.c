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

    /* A filter with no parameters: the plugin gets a count of 0 and a NULL
     * pointer, as netcdf-c gives it (its H5Zunknown plugin refuses anything
     * else with NC_EINVAL), when the codec JSON is made and when it runs. */
    {
        int nc2, u;
        unsigned char bytes[10], got[10], raw[10];
        for (int i = 0; i < 10; i++) bytes[i] = (unsigned char)(i * 25);
        OK(nc_create(test_url("plugins_noparam"), NC_CLOBBER, &nc2));
        OK(nc_def_dim(nc2, "n", 10, &x));
        OK(nc_def_var(nc2, "u", NC_UBYTE, 1, &x, &u));
        OK(nc_def_var_filter(nc2, u, 40003, 0, NULL));
        OK(nc_put_var_uchar(nc2, u, bytes));
        OK(nc_close(nc2));
        FILE *f = fopen("plugins_noparam.zarr/u/0", "rb");
        TRUE_OR_FAIL(f && fread(raw, 1, 10, f) == 10);
        fclose(f);
        for (int i = 0; i < 10; i++) EQ_INT(raw[i], (unsigned char)(bytes[i] + 1));
        OK(nc_open(test_url("plugins_noparam"), NC_NOWRITE, &nc2));
        OK(nc_get_var_uchar(nc2, u, got));
        TRUE_OR_FAIL(memcmp(bytes, got, sizeof got) == 0);
        size_t n = 99;
        unsigned id = 0;
        OK(nc_inq_var_filter(nc2, u, &id, &n, NULL));
        EQ_INT(id, 40003); EQ_INT(n, 0);
        OK(nc_close(nc2));
    }

    /* The plugin path (4.9.3 API): what HDF5_PLUGIN_PATH names (the runner
     * sets one directory); replacing it takes effect at the next filter
     * question. */
    {
        size_t ndirs = 0;
        OK(nc_plugin_path_ndirs(&ndirs));
        EQ_INT(ndirs, 1);
        NCPluginList got = {0, NULL};
        OK(nc_plugin_path_get(&got));
        EQ_INT(got.ndirs, 1);
        EQ_STR(got.dirs[0], getenv("HDF5_PLUGIN_PATH"));
        char *saved = got.dirs[0];
        free(got.dirs);

        NCPluginList none = {0, NULL};
        OK(nc_plugin_path_set(&none));
        OK(nc_plugin_path_ndirs(&ndirs));
        EQ_INT(ndirs, 0);
        ERR(NC_ENOFILTER, nc_inq_filter_avail(ncid, 40001));
        ERR(NC_EINVAL, nc_plugin_path_set(NULL));

        char *dirs[2] = {"/nonexistent/dir", saved};
        NCPluginList two = {2, dirs};
        OK(nc_plugin_path_set(&two));
        OK(nc_inq_filter_avail(ncid, 40001));
        OK(nc_get_var_short(ncid, v, back));
        TRUE_OR_FAIL(memcmp(data, back, sizeof data) == 0);
        char *room[2] = {NULL, NULL};
        NCPluginList into = {0, room};
        OK(nc_plugin_path_get(&into));
        EQ_INT(into.ndirs, 2);
        EQ_STR(room[0], "/nonexistent/dir");
        free(room[0]);
        free(room[1]);
        free(saved);
    }
    OK(nc_close(ncid));
    PASS();
}
