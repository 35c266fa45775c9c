#!/usr/bin/env bash
# Differential check of the netCDF-2 API against Debian's netcdf-c 4.9.0:
# ctests/v2_diff.c is built once against each library and run on
#   1. an NCZarr dataset, without records (4.9.0's NCZarr has no unlimited
#      dimensions), under both libraries;
#   2. with records: a classic file under netcdf-c, NCZarr under ours.
# The outputs (return values, ncerr, data, NC_VERBOSE messages, NC_FATAL
# exit statuses) must be identical. Needs Debian's libnetcdf-dev, which
# tools/install-test-deps.sh installs (a missing one fails the test).
#
# Usage: ctests/t_v2_diff.sh [LIBDIR]   (LIBDIR: ours, target/release)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
libdir=$(cd "${1:-${NCZARR_RS_LIBDIR:-$root/target/release}}" && pwd)
debian_lib=/usr/lib/x86_64-linux-gnu/libnetcdf.so.19
if [ ! -e "$debian_lib" ] || [ ! -e /usr/include/netcdf.h ]; then
    echo "FAIL: Debian's libnetcdf19 and libnetcdf-dev are not installed (run make deps)"; exit 1
fi
# Under NCZARR_RS_CTEST_SANITIZE the program built against our library is
# memory-checked (san_cflags, san_run); Debian's is not.
. "$here/sanitize/env.sh"
work=$root/target/v2diff$san_dir
rm -rf "$work" && mkdir -p "$work/debian" "$work/ours"
cflags="-std=c99 -D_DEFAULT_SOURCE -Wall -Wextra -Werror"
cc $cflags -I/usr/include "$here/v2_diff.c" "$debian_lib" -o "$work/debian/prog"
cc $cflags ${san_cflags[@]+"${san_cflags[@]}"} -I"$root/include" "$here/v2_diff.c" -L"$libdir" -lnetcdf \
    -Wl,-rpath,"$libdir" -o "$work/ours/prog"

zarr='file://v2.zarr#mode=nczarr,file'
status=0
compare() { # name debian-dataset ours-dataset records|norecords
    (cd "$work/debian" && ./prog "$2" "$4" > "../$1.debian.txt")
    (cd "$work/ours" && ${san_run[@]+"${san_run[@]}"} ./prog "$3" "$4" > "../$1.ours.txt")
    if diff -u "$work/$1.debian.txt" "$work/$1.ours.txt" > "$work/$1.diff"; then
        echo "ok   $1 ($(wc -l < "$work/$1.ours.txt") lines identical)"
    else
        echo "DIFF $1:"; cat "$work/$1.diff"; status=1
    fi
}
compare nczarr "$zarr" "$zarr" norecords
compare records v2.nc "$zarr" records
exit $status
