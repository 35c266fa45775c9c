/* s3_codec_shim.h: force-included (cc -include) into the shared ncz_bench.c
 * by bench/s3_suite.sh, so that the unchanged program can write the codecs
 * bench/run's stores use but its keys cannot name (it has deflate and
 * shuffle only). With S3BENCH_CODEC=zstd3 (or blosc_lz4), ncz_bench's one
 * nc_def_var_deflate call (made when deflate=1 is given) defines that codec
 * instead: zstd level 3, or blosc lz4 level 5 with byte shuffle, as
 * zarr_bench's stores of those names. Without it, nothing changes. */
#include <netcdf.h>
#include <netcdf_filter.h>
#include <stdlib.h>
#include <string.h>

static int s3bench_def_codec(int ncid, int varid, int shuffle, int deflate, int level)
{
    const char *codec = getenv("S3BENCH_CODEC");
    if (codec && !strcmp(codec, "zstd3"))
        return nc_def_var_zstandard(ncid, varid, 3);
    if (codec && !strcmp(codec, "blosc_lz4"))
        return nc_def_var_blosc(ncid, varid, 1 /* BLOSC_LZ4 */, 5, 0, 1 /* byte shuffle */);
    return nc_def_var_deflate(ncid, varid, shuffle, deflate, level);
}
#define nc_def_var_deflate s3bench_def_codec
