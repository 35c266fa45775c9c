#!/usr/bin/env bash
# netcdf-c 4.9.0's own parallel test programs (nc_test4, from Debian's
# source package: tests/netcdf_c_suite/fetch.sh) over the parallel build,
# on NCZarr stores instead of netCDF-4 files.
#
#   ctests/mpi/netcdf_c_tests.sh MPI_LIBDIR SERIAL_LIBDIR WORKDIR
#
# Each program names its file in the source ("tst_parallel.nc", sometimes
# behind TEMP_LARGE/): a copy of the source gets the store's URL instead
# (file://NAME.zarr#mode=nczarr,file, relative to the scratch directory).
# They are built against netcdf-c's configure result (the netcdf-c suite's
# config.h, with USE_PARALLEL on and szip off: szip is HDF5's, and
# nc_def_var_szip answers NC_EFILTER here) and run under mpirun on the
# number of ranks netcdf-c's run_par_test.sh gives them, or 4 where it
# gives more than this 2-core machine runs in time. Prints PASS/FAIL per
# program; exits 1 if any failed.
#
# Two expectations of HDF5's limits are changed to this library's
# behaviour (sed, below), the rest of those programs running as written:
# - tst_parallel3: an independent write that extends an unlimited
#   dimension is NC_ECANTEXTEND in HDF5; here it succeeds (the ranks agree
#   on the length at the next commit);
# - tst_parallel_compress: independent access to a compressed variable is
#   NC_EINVAL in HDF5; here it is allowed (chunks shared by ranks are
#   assembled by one rank whatever the access).
#
# Not run, with the reason:
# - tst_parallel5: reads HDF5's chunk cache (nc4_hdf5_get_chunk_cache, an
#   HDF5 dispatch internal) in most of its cases;
# - tst_nc4perf: a timing program for HDF5's chunk cache settings
#   (nc_set_var_chunk_cache on each of its files).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
# Absolute, so the programs' rpath finds the parallel build from their
# scratch directories (a relative one would load the system's libnetcdf).
mpi_libdir=$(cd "$1" && pwd)
serial_libdir=$(cd "$2" && pwd)
mkdir -p "$3"
work=$(cd "$3" && pwd)
. "$root/tests/netcdf_c_suite/suite.sh"

if [ ! -f "$CFG/config.h" ] || [ ! -f "$SRC/nc_test4/tst_parallel.c" ]; then
    # The netcdf-c suite's build runs the configure (and fetches the source).
    "$root/tests/netcdf_c_suite/build.sh" "$serial_libdir" >/dev/null || { echo "FAIL: netcdf-c's configure"; exit 1; }
fi

mkdir -p "$work/cfg" "$work/src" "$work/bin" "$work/run"
sed -e 's|^#define HAVE_H5Z_SZIP 1|/* szip: HDF5 only */|' \
    -e 's|^/\* #undef USE_PARALLEL \*/|#define USE_PARALLEL 1|' \
    -e 's|^/\* #undef USE_PARALLEL4 \*/|#define USE_PARALLEL4 1|' "$CFG/config.h" > "$work/cfg/config.h"

# name:ranks (run_par_test.sh's, at most 4)
tests=(tst_mpi_parallel:4 tst_parallel:4 tst_parallel3:4 tst_parallel4:1 tst_parallel4:2 tst_parallel4:4
    tst_simplerw_coll_r:1 tst_simplerw_coll_r:2 tst_simplerw_coll_r:4 tst_parallel_zlib:4
    tst_parallel_compress:1 tst_parallel_compress:4 tst_parallel6:4 tst_quantize_par:4)

failed=0
built=" "
for entry in "${tests[@]}"; do
    t=${entry%%:*}
    np=${entry#*:}
    if [[ $built != *" $t "* ]]; then
        # The file name, whatever the program calls it, becomes a store.
        sed -E -e 's|"([A-Za-z0-9_%]+)\.nc"|"file://\1.zarr#mode=nczarr,file"|g' \
            -e 's|sprintf\(file_name, "%s/%s", TEMP_LARGE, |sprintf(file_name, "%s", |' \
            -e 's|if\(res != NC_ECANTEXTEND\) ERR;|if(res != NC_NOERR) ERR;|' \
            -e 's|if \(nc_var_par_access\(ncid, v1id, NC_INDEPENDENT\) != NC_EINVAL\) ERR;|if (nc_var_par_access(ncid, v1id, NC_INDEPENDENT)) ERR;|' \
            "$SRC/nc_test4/$t.c" > "$work/src/$t.c"
        if ! mpicc -std=gnu99 -w -O1 -I"$work/cfg" -I"$root/include" -I"$SRC/include" -I"$SRC/nc_test4" \
            "$work/src/$t.c" -L"$mpi_libdir" -lnetcdf -Wl,-rpath,"$mpi_libdir" -lm -o "$work/bin/$t" 2> "$work/$t.build.log"; then
            echo "FAIL netcdf-c $t (build: $(head -c 400 "$work/$t.build.log"))"
            failed=$((failed + 1))
            continue
        fi
        built="$built$t "
    fi
    rm -rf "$work/run/$t.$np" && mkdir -p "$work/run/$t.$np"
    if (cd "$work/run/$t.$np" && timeout 300 mpirun -np "$np" --oversubscribe "$work/bin/$t" > out.log 2>&1); then
        echo "PASS netcdf-c $t on $np ranks"
    else
        echo "FAIL netcdf-c $t on $np ranks: $(grep -v '^$' "$work/run/$t.$np/out.log" | tail -4 | cut -c1-200 | paste -sd'|' -)"
        failed=$((failed + 1))
    fi
done
[ "$failed" = 0 ]
