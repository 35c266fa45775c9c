# Sourced by build.sh and run.sh: where things are, what is built, what runs.
# shellcheck shell=bash
#
# Test names are DIR/NAME for a C program and DIR/NAME.sh for a shell test,
# DIR being netcdf-c's source directory (nc_test, nc_test4, ncdump,
# nczarr_test). DIR/NAME.sh@VARIANT[@VARIANT...] runs the script changed as
# VARIANTS below describes (nczarr_test's zip stores, for one).

SUITE_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$SUITE_DIR/../.." && pwd)
TOOLS=${NCZARR_RS_TOOLS:-$HOME/.cache/nczarr-rs/tools}
CACHE=$TOOLS/netcdf-c-src
SRC=$CACHE/tree          # netcdf-c 4.9.0 source (fetch.sh)
CFG=$CACHE/cfg           # netcdf-c's configure run (config.h, libnetcdf.settings)
BUILD=$CACHE/build       # what build.sh makes: top_builddir of the tests
OURINC=${NCSUITE_INCLUDE:-$REPO/include}
DEFAULT_LIBDIR=$REPO/target/release
HDF5_INC=/usr/include/hdf5/serial
HDF5_LIB=/usr/lib/x86_64-linux-gnu/hdf5/serial
# Debian's tools (package netcdf-bin); they load libnetcdf.so.19 through
# LD_LIBRARY_PATH like the test programs.
DEB_NCDUMP=/usr/bin/ncdump
DEB_NCGEN=/usr/bin/ncgen
DEB_NCCOPY=/usr/bin/nccopy
DEB_NCGEN3=/usr/bin/ncgen3
DEB_LIBNETCDF=/usr/lib/x86_64-linux-gnu/libnetcdf.so.19

# ---------------------------------------------------------------------------
# Programs to build: DIR NAME [SOURCES...]   (default source: NAME.c;
# a source written @x.c is generated: by m4 from DIR/x.m4, or as GENERATED
# says; %x.c is tests/netcdf_c_suite/standins/x.c)
PROGRAMS=(
  # nc_test: the netCDF-3 API test nc_test and the small programs
  "nc_test nc_test nc_test.c error.c util.c @test_get.c @test_put.c @test_read.c @test_write.c"
  "nc_test t_nc" "nc_test tst_atts3" "nc_test tst_nofill" "nc_test tst_small"
  "nc_test tst_names" "nc_test tst_nofill2" "nc_test tst_nofill3" "nc_test tst_meta"
  "nc_test tst_inq_type" "nc_test tst_utf8_validate" "nc_test tst_utf8_phrases"
  "nc_test tst_global_fillval" "nc_test tst_max_var_dims" "nc_test tst_formats"
  "nc_test tst_def_var_fill" "nc_test tst_err_enddef" "nc_test tst_default_format"
  "nc_test tst_diskless6" "nc_test tst_misc" "nc_test tst_norm"
  "nc_test tst_diskless" "nc_test tst_diskless2" "nc_test tst_diskless3" "nc_test tst_diskless4"
  "nc_test tst_diskless5" "nc_test tst_inmemory" "nc_test tst_open_mem" "nc_test tst_open_cdf5"
  # nc_test4: netCDF-4 tests
  "nc_test4 tst_dims" "nc_test4 tst_dims2" "nc_test4 tst_dims3" "nc_test4 tst_files"
  "nc_test4 tst_files4" "nc_test4 tst_vars" "nc_test4 tst_varms" "nc_test4 tst_unlim_vars"
  "nc_test4 tst_converts" "nc_test4 tst_converts2" "nc_test4 tst_grps" "nc_test4 tst_grps2"
  "nc_test4 tst_compounds" "nc_test4 tst_compounds2" "nc_test4 tst_compounds3"
  "nc_test4 tst_opaques" "nc_test4 tst_strings" "nc_test4 tst_strings2" "nc_test4 tst_interops"
  "nc_test4 tst_interops4" "nc_test4 tst_interops5" "nc_test4 tst_interops6"
  "nc_test4 tst_interops_dims" "nc_test4 tst_enums" "nc_test4 tst_coords" "nc_test4 tst_coords2"
  "nc_test4 tst_coords3" "nc_test4 tst_vars3" "nc_test4 tst_vars4" "nc_test4 tst_chunks"
  "nc_test4 tst_chunks2" "nc_test4 tst_utf8" "nc_test4 tst_fills" "nc_test4 tst_fills2"
  "nc_test4 tst_fillbug" "nc_test4 tst_xplatform" "nc_test4 tst_xplatform2"
  "nc_test4 tst_endian_fill" "nc_test4 tst_atts" "nc_test4 t_type" "nc_test4 cdm_sea_soundings"
  "nc_test4 tst_camrun" "nc_test4 tst_vl" "nc_test4 tst_atts1" "nc_test4 tst_atts2"
  "nc_test4 tst_vars2" "nc_test4 tst_files5" "nc_test4 tst_files6" "nc_test4 tst_sync"
  "nc_test4 tst_h_scalar" "nc_test4 tst_rename" "nc_test4 tst_rename2" "nc_test4 tst_rename3"
  "nc_test4 tst_h5_endians" "nc_test4 tst_atts_string_rewrite" "nc_test4 tst_hdf5_file_compat"
  "nc_test4 tst_fill_attr_vanish" "nc_test4 tst_rehash" "nc_test4 tst_filterparser"
  "nc_test4 tst_bug324" "nc_test4 tst_types" "nc_test4 tst_atts3" "nc_test4 tst_put_vars"
  "nc_test4 tst_elatefill" "nc_test4 tst_udf" "nc_test4 tst_put_vars_two_unlim_dim"
  "nc_test4 tst_bug1442" "nc_test4 tst_quantize" "nc_test4 tst_alignment"
  "nc_test4 tst_h_strbug" "nc_test4 tst_h_refs" "nc_test4 tst_broken_files"
  "nc_test4 tst_virtual_datasets" "nc_test4 tst_v2"
  "nc_test4 tst_empty_vlen_unlim" "nc_test4 tst_charvlenbug" "nc_test4 tst_vlenstr"
  "nc_test4 renamegroup" "nc_test4 tst_fillonly" "nc_test4 test_szip" "nc_test4 h5testszip"
  # ncdump: helper programs of the shell tests (some also run as tests)
  "ncdump rewrite-scalar" "ncdump ref_ctest" "ncdump ref_ctest64" "ncdump tst_utf8"
  "ncdump bom" "ncdump tst_dimsizes" "ncdump nctrunc" "ncdump tst_rcmerge"
  "ncdump tst_fileinfo" "ncdump tst_create_files" "ncdump tst_h_rdc0" "ncdump tst_group_data"
  "ncdump tst_enum_data" "ncdump tst_opaque_data" "ncdump tst_string_data" "ncdump tst_vlen_data"
  "ncdump tst_comp" "ncdump tst_comp2" "ncdump tst_nans" "ncdump tst_special_atts"
  "ncdump tst_unicode" "ncdump tst_fillbug" "ncdump tst_compress" "ncdump tst_chunking"
  "ncdump tst_h_scalar" "ncdump tst_vlen_demo"
  "ncdump ncvalidator" "ncdump ncpathcvt" "ncdump ncfilteravail" "ncdump printfqn"
  "ncdump nchdf5version"
  # nczarr_test: the test programs its scripts run. tst_utils.c, their
  # shared option parser, calls three netcdf-c internals (nclistfreeall,
  # nctracelevel, zutest): standins/nc_internals.c has them.
  "nczarr_test tst_fillonlyz tst_fillonlyz.c tst_utils.c %nc_internals.c"
  "nczarr_test tst_chunkcases tst_chunkcases.c tst_utils.c %nc_internals.c"
  "nczarr_test test_quantize @test_quantize.c"
  "nczarr_test tst_nczfilter"
)

# Sources generated as netcdf-c's Makefile.am makes them:
# "DIR/NAME.c|FIRST LINE|SOURCE" is FIRST LINE followed by SOURCE.
GENERATED=(
  "nczarr_test/test_quantize.c|#define TESTNCZARR|nc_test4/tst_quantize.c"
)

# Helper programs of the scripts that use netcdf-c internals, replaced by
# our own stand-ins (tests/netcdf_c_suite/standins/NAME.py, run with
# Python), which build.sh installs into the build directory as DIR/NAME.
STANDINS=(
  "nczarr_test/zmapio"          # run_nczarr_fill.sh (zmapio -h): dumps a store's objects
  "nczarr_test/ncdumpchunks"    # run_chunkcases.sh: prints each chunk of a variable
)

# ---------------------------------------------------------------------------
# Tests to run, in the order of netcdf-c's Makefile.am TESTS (plus the
# programs its CMakeLists.txt also runs, as Debian's build does).
TESTS=(
  # nc_test
  nc_test/tst_names nc_test/tst_nofill2 nc_test/tst_nofill3 nc_test/tst_meta
  nc_test/tst_inq_type nc_test/tst_utf8_validate nc_test/tst_utf8_phrases
  nc_test/tst_global_fillval nc_test/tst_max_var_dims nc_test/tst_formats
  nc_test/tst_def_var_fill nc_test/tst_err_enddef nc_test/tst_default_format
  nc_test/tst_diskless6 nc_test/t_nc nc_test/tst_atts3 nc_test/tst_nofill
  nc_test/nc_test nc_test/tst_small nc_test/tst_misc nc_test/tst_norm
  nc_test/run_diskless.sh nc_test/run_diskless5.sh nc_test/run_inmemory.sh
  nc_test/run_mmap.sh nc_test/run_cdf5.sh
  # nc_test4
  nc_test4/tst_dims nc_test4/tst_dims2 nc_test4/tst_dims3 nc_test4/tst_files
  nc_test4/tst_files4 nc_test4/tst_vars nc_test4/tst_varms nc_test4/tst_unlim_vars
  nc_test4/tst_converts nc_test4/tst_converts2 nc_test4/tst_grps nc_test4/tst_grps2
  nc_test4/tst_compounds nc_test4/tst_compounds2 nc_test4/tst_compounds3
  nc_test4/tst_opaques nc_test4/tst_strings nc_test4/tst_strings2 nc_test4/tst_interops
  nc_test4/tst_interops4 nc_test4/tst_interops5 nc_test4/tst_interops6
  nc_test4/tst_interops_dims nc_test4/tst_enums nc_test4/tst_coords nc_test4/tst_coords2
  nc_test4/tst_coords3 nc_test4/tst_vars3 nc_test4/tst_vars4 nc_test4/tst_chunks
  nc_test4/tst_chunks2 nc_test4/tst_utf8 nc_test4/tst_fills nc_test4/tst_fills2
  nc_test4/tst_fillbug nc_test4/tst_xplatform nc_test4/tst_xplatform2
  nc_test4/tst_endian_fill nc_test4/tst_atts nc_test4/t_type nc_test4/cdm_sea_soundings
  nc_test4/tst_camrun nc_test4/tst_vl nc_test4/tst_atts1 nc_test4/tst_atts2
  nc_test4/tst_vars2 nc_test4/tst_files5 nc_test4/tst_files6 nc_test4/tst_sync
  nc_test4/tst_h_scalar nc_test4/tst_rename nc_test4/tst_rename2 nc_test4/tst_rename3
  nc_test4/tst_h5_endians nc_test4/tst_atts_string_rewrite nc_test4/tst_hdf5_file_compat
  nc_test4/tst_fill_attr_vanish nc_test4/tst_rehash nc_test4/tst_filterparser
  nc_test4/tst_bug324 nc_test4/tst_types nc_test4/tst_atts3 nc_test4/tst_put_vars
  nc_test4/tst_elatefill nc_test4/tst_udf nc_test4/tst_put_vars_two_unlim_dim
  nc_test4/tst_bug1442 nc_test4/tst_quantize nc_test4/tst_alignment
  nc_test4/tst_h_strbug nc_test4/tst_h_refs nc_test4/tst_broken_files
  nc_test4/tst_virtual_datasets nc_test4/tst_v2
  nc_test4/run_empty_vlen_test.sh nc_test4/run_grp_rename.sh nc_test4/tst_misc.sh
  nc_test4/test_fillonly.sh nc_test4/tst_szip.sh
  # ncdump: programs CMake runs as tests, then the shell tests
  ncdump/ref_ctest ncdump/ref_ctest64 ncdump/tst_create_files ncdump/tst_opaque_data
  ncdump/tst_string_data ncdump/tst_vlen_data ncdump/tst_comp2 ncdump/tst_nans
  ncdump/tst_h_scalar ncdump/tst_compress ncdump/tst_chunking ncdump/tst_group_data
  ncdump/tst_enum_data ncdump/tst_comp ncdump/tst_special_atts
  ncdump/tst_inttags.sh ncdump/run_tests.sh ncdump/tst_64bit.sh ncdump/tst_lengths.sh
  ncdump/tst_calendars.sh ncdump/run_utf8_tests.sh ncdump/tst_nccopy3_subset.sh
  ncdump/tst_charfill.sh ncdump/tst_iter.sh ncdump/tst_formatx3.sh ncdump/tst_bom.sh
  ncdump/tst_dimsizes.sh ncdump/run_ncgen_tests.sh ncdump/tst_ncgen4_classic.sh
  ncdump/test_radix.sh ncdump/test_rcmerge.sh ncdump/tst_null_byte_padding.sh
  ncdump/testpathcvt.sh ncdump/tst_fileinfo.sh ncdump/tst_hdf5_offset.sh
  ncdump/tst_inttags4.sh ncdump/tst_netcdf4.sh ncdump/tst_fillbug.sh ncdump/tst_grp_spec.sh
  ncdump/tst_mud.sh ncdump/tst_h_scalar.sh ncdump/tst_formatx4.sh
  ncdump/run_utf8_nc4_tests.sh ncdump/run_ncgen_nc4_tests.sh ncdump/tst_ncgen4.sh
  ncdump/test_scope.sh ncdump/tst_inmemory_nc3.sh ncdump/tst_nccopy_w3.sh
  ncdump/tst_inmemory_nc4.sh ncdump/tst_nccopy_w4.sh ncdump/tst_ctests.sh
  ncdump/test_keywords.sh ncdump/tst_output.sh ncdump/tst_nccopy3.sh
  ncdump/run_back_comp_tests.sh ncdump/tst_netcdf4_4.sh ncdump/tst_nccopy4.sh
  ncdump/tst_nccopy5.sh ncdump/test_unicode_directory.sh ncdump/test_unicode_path.sh
  # nczarr_test: each script as Debian's build runs it (file stores only),
  # then @zip: the same script with FEATURE_NCZARR_ZIP=yes (file, then zip)
  nczarr_test/run_ncgen4.sh nczarr_test/run_ncgen4.sh@zip
  nczarr_test/run_fillonlyz.sh nczarr_test/run_fillonlyz.sh@zip
  nczarr_test/run_chunkcases.sh nczarr_test/run_chunkcases.sh@nohook
  nczarr_test/run_chunkcases.sh@zip@nohook
  nczarr_test/run_quantize.sh nczarr_test/run_quantize.sh@zip
  nczarr_test/run_purezarr.sh nczarr_test/run_purezarr.sh@zip
  nczarr_test/run_purezarr.sh@anon nczarr_test/run_purezarr.sh@zip@anon
  nczarr_test/run_interop.sh nczarr_test/run_interop.sh@zip
  nczarr_test/run_misc.sh
  nczarr_test/run_nczarr_fill.sh nczarr_test/run_nczarr_fill.sh@zip
  nczarr_test/run_jsonconvention.sh nczarr_test/run_jsonconvention.sh@zip
  nczarr_test/run_newformat.sh@zip
  nczarr_test/run_nczfilter.sh
)

# Variants of a test: "NAME|sed script for the test's copy of
# test_common.sh|sed script for its copy of the test script" (either empty).
VARIANTS=(
  # what a build with ENABLE_NCZARR_ZIP runs: each case on a file store, then on a zip store
  "zip|s/^FEATURE_NCZARR_ZIP=.*/FEATURE_NCZARR_ZIP=yes/|"
  # run_chunkcases.sh without its one assertion on netcdf-c's internals: the
  # whole-chunk write (tst_chunkcases -OWw) fails unless libnczarr called the
  # zutest hook exactly once; -Ow writes the same values without that check
  'nohook||s/^\(\$TC .* -X w -O\)Ww \$F$/\1w $F/'
  # netcdf-c 4.9.3 renamed pure Zarr's anonymous dimensions _zdim_N to
  # _Anonymous_Dim_N (we follow it, as 4.10 does): the reference outputs
  # are edited so, and everything else in the script is still checked
  'anon||/test_nczarr\.sh"$/a sed -i -e "s/_zdim_/_Anonymous_Dim_/g" "$srcdir"/ref_*.cdl'
)

# Tests held against us whatever Debian's library does, because they need
# only what we claim and Debian's netcdf-c lacks: "GLOB|why".
REQUIRED=(
  "nczarr_test/*@zip*|NCZarr zip stores (Debian's netcdf-c 4.9.0 is built without libzip: ENABLE_NCZARR_ZIP off)"
)

# Tests that read what other tests wrote (Makefile.am's .log dependencies,
# CMake's DEPENDS): "TEST: PREREQUISITE...". The prerequisites run first
# (each in its own scratch directory, as tests of their own) and their
# scratch directories are copied into the dependent test's before it runs.
DEPS=(
  "ncdump/tst_nccopy3.sh: ncdump/tst_calendars.sh ncdump/run_utf8_tests.sh ncdump/tst_output.sh ncdump/tst_64bit.sh ncdump/run_tests.sh ncdump/tst_lengths.sh"
  "ncdump/tst_nccopy4.sh: ncdump/run_ncgen_tests.sh ncdump/tst_output.sh ncdump/tst_ncgen4.sh ncdump/tst_fillbug.sh ncdump/tst_netcdf4_4.sh ncdump/tst_h_scalar.sh ncdump/tst_netcdf4.sh ncdump/tst_comp ncdump/tst_comp2"
  "ncdump/tst_nccopy5.sh: ncdump/tst_nccopy4.sh"
)

# ---------------------------------------------------------------------------
# netcdf-c test programs and scripts neither built nor run, and why
# (those that do not link against the library under test are found by
# build.sh and listed in $BUILD/not_built.txt).
EXCLUDED=(
  "nc_test/quick_large_files|large-file test (LARGE_FILE_TESTS): writes multi-GiB files"
  "nc_test/large_files|large-file test (LARGE_FILE_TESTS): writes multi-GiB files"
  "nc_test/tst_big_var|large-file test (LARGE_FILE_TESTS)"
  "nc_test/tst_big_var2|large-file test (LARGE_FILE_TESTS)"
  "nc_test/tst_big_var6|large-file test (LARGE_FILE_TESTS)"
  "nc_test/tst_big_rvar|large-file test (LARGE_FILE_TESTS)"
  "nc_test/tst_large|large-file test (LARGE_FILE_TESTS)"
  "nc_test/tst_large_cdf5|large-file test (LARGE_FILE_TESTS)"
  "nc_test/tst_cdf5_begin|large-file test (LARGE_FILE_TESTS)"
  "nc_test/run_diskless2.sh|large-file test (LARGE_FILE_TESTS)"
  "nc_test/testnc3perf|benchmark (BUILD_BENCHMARKS)"
  "nc_test/tst_parallel2|needs MPI / PnetCDF"
  "nc_test/tst_pnetcdf|needs MPI / PnetCDF"
  "nc_test/tst_addvar|needs MPI / PnetCDF"
  "nc_test/tst_formatx_pnetcdf|needs MPI / PnetCDF"
  "nc_test/tst_default_format_pnetcdf|needs MPI / PnetCDF"
  "nc_test/tst_cdf5format|needs MPI / PnetCDF"
  "nc_test/run_pnetcdf_tests.sh|needs MPI / PnetCDF"
  "nc_test/tst_byterange|needs a network (HTTP byte-range / S3 server)"
  "nc_test/test_byterange.sh|needs a network (HTTP byte-range / S3 server)"
  "nc_test4/tst_large|large-file test (LARGE_FILE_TESTS)"
  "nc_test4/tst_large2|large-file test (LARGE_FILE_TESTS)"
  "nc_test4/bm_chunking|benchmark"
  "nc_test4/bm_radar|benchmark"
  "nc_test4/tst_varsperf|timing program, in no upstream test list"
  "nc_test4/tst_parallel|needs MPI (TEST_PARALLEL4)"
  "nc_test4/tst_parallel3|needs MPI (TEST_PARALLEL4)"
  "nc_test4/tst_parallel4|needs MPI (TEST_PARALLEL4)"
  "nc_test4/tst_parallel5|needs MPI (TEST_PARALLEL4)"
  "nc_test4/tst_parallel6|needs MPI (TEST_PARALLEL4)"
  "nc_test4/tst_parallel_zlib|needs MPI (TEST_PARALLEL4)"
  "nc_test4/tst_parallel_compress|needs MPI (TEST_PARALLEL4)"
  "nc_test4/tst_mpi_parallel|needs MPI (TEST_PARALLEL4)"
  "nc_test4/tst_nc4perf|needs MPI (TEST_PARALLEL4)"
  "nc_test4/tst_mode|needs MPI (TEST_PARALLEL4)"
  "nc_test4/tst_simplerw_coll_r|needs MPI (TEST_PARALLEL4)"
  "nc_test4/tst_quantize_par|needs MPI (TEST_PARALLEL4)"
  "nc_test4/run_par_test.sh|needs MPI (TEST_PARALLEL4)"
  "nc_test4/tst_filter.sh|needs netcdf-c's HDF5 filter plugins (Debian builds without plugins: ENABLE_PLUGINS=OFF)"
  "nc_test4/tst_unknown.sh|needs netcdf-c's HDF5 filter plugins (Debian builds without plugins)"
  "nc_test4/tst_specific_filters.sh|needs netcdf-c's HDF5 filter plugins (Debian builds without plugins)"
  "nc_test4/tst_filterinstall.sh|runs only after 'make install' with --with-plugin-dir"
  "nc_test4/test_filter|helper of tst_filter.sh (filter plugins)"
  "nc_test4/test_filter_misc|helper of tst_filter.sh (filter plugins)"
  "nc_test4/test_filter_order|helper of tst_filter.sh (filter plugins)"
  "nc_test4/test_filter_repeat|helper of tst_filter.sh (filter plugins)"
  "nc_test4/test_filter_vlen|helper of tst_filter.sh (filter plugins)"
  "nc_test4/test_filter_reg|needs client-side filter registration (ENABLE_CLIENTSIDE_FILTERS)"
  "nc_test4/tst_multifilter|helper of tst_filter.sh (filter plugins)"
  "nc_test4/tst_filter_avail|helper of tst_filter.sh (filter plugins)"
  "ncdump/tst_cygutf8|Cygwin only (run_cygutf8.sh)"
  "ncdump/run_cygutf8.sh|Cygwin only"
  "ncdump/ocprint|DAP (network) only"
  "ncdump/acpget|DAP (network) only"
  "ncdump/nc4print|metadata printer, in no test"
  "nczarr_test/run_ut_chunk.sh|unit test of netcdf-c internals (ut_projections: libnczarr's slice projections)"
  "nczarr_test/run_ut_map.sh|unit test of netcdf-c internals (ut_map: libnczarr's zmap layer)"
  "nczarr_test/run_ut_mapapi.sh|unit test of netcdf-c internals (ut_mapapi: libnczarr's zmap API)"
  "nczarr_test/run_ut_misc.sh|unit test of netcdf-c internals (ut_json: libdispatch's JSON parser)"
  "nczarr_test/ut_map|links netcdf-c internals (nczmap_*, NCJ*, ncuri*)"
  "nczarr_test/ut_mapapi|links netcdf-c internals (nczmap_*, ncbytes*, ncuri*)"
  "nczarr_test/ut_json|links netcdf-c internals (NCJ*, ncbytes*)"
  "nczarr_test/ut_projections|links netcdf-c internals (NCZ_compute_*projections)"
  "nczarr_test/ut_chunking|links netcdf-c internals; in no test"
  "nczarr_test/zmapio|links netcdf-c internals (nczmap_*): standins/zmapio.py stands in"
  "nczarr_test/ncdumpchunks|links netcdf-c internals (NCZ_read_chunk): standins/ncdumpchunks.py stands in"
  "nczarr_test/zhex|used by no test"
  "nczarr_test/zisjson|links netcdf-c internals (NCJparse); used by no test"
  "nczarr_test/zs3parse|links netcdf-c internals (ncuri*, nczm_*); used only for S3"
  "nczarr_test/s3util|links netcdf-c internals (NC_s3sdk*); used only for S3"
  "nczarr_test/tst_zchunks|built but run by no test (CMake BUILD_BIN_TEST only)"
  "nczarr_test/tst_zchunks2|built but run by no test (CMake BUILD_BIN_TEST only)"
  "nczarr_test/tst_zchunks3|helper of run_nccopyz.sh only"
  "nczarr_test/run_nccopyz.sh|commented out of both Makefile.am and CMakeLists.txt upstream"
  "nczarr_test/run_perf_chunks1.sh|benchmark (BUILD_BENCHMARKS, and AX_IGNORE)"
  "nczarr_test/bm_chunks3|benchmark (BUILD_BENCHMARKS)"
  "nczarr_test/run_it_chunks1.sh|in no test list (and a shell syntax error on its S3 line)"
  "nczarr_test/run_filter.sh|needs netcdf-c's test filter plugins (plugins/: h5misc, h5bzip2) and findplugin.sh, made only with ENABLE_PLUGINS, which Debian turns off"
  "nczarr_test/run_unknown.sh|needs netcdf-c's test filter plugins (plugins/h5unknown), as run_filter.sh"
  "nczarr_test/run_specific_filters.sh|needs netcdf-c's filter plugins (plugins/: szip, bzip2, blosc, zstd ... wrappers), as run_filter.sh"
  "nczarr_test/testfilter|helper of run_filter.sh (filter plugins)"
  "nczarr_test/testfilter_misc|helper of run_filter.sh (filter plugins)"
  "nczarr_test/testfilter_multi|helper of run_filter.sh (filter plugins)"
  "nczarr_test/testfilter_order|helper of run_filter.sh (filter plugins)"
  "nczarr_test/testfilter_repeat|helper of run_filter.sh (filter plugins)"
  "nczarr_test/test_filter_avail|helper of run_specific_filters.sh (filter plugins)"
  "nczarr_test/run_s3_cleanup.sh|S3 only (ENABLE_NCZARR_S3): see the S3 variants"
)

# Per-test timeout (seconds) and number of tests run at once.
TEST_TIMEOUT=${NCSUITE_TIMEOUT:-120}
JOBS=${NCSUITE_JOBS:-2}
