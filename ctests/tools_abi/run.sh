#!/usr/bin/env bash
# Differential test of the netcdf-c internals Debian's utilities import:
# ctests/tools_abi/diff_driver.c is built against Debian's netcdf-c 4.9.0
# (libnetcdf.so.19 from libnetcdf19) and against ours, both are run, and
# their outputs (stdout and stderr) must be identical apart from the
# documented divergences ("~" lines), which are shown side by side.
#
# Usage: ctests/tools_abi/run.sh [LIBDIR]   (default target/release)
#
# With NCZARR_RS_CTEST_SANITIZE=asan or =valgrind the driver built against
# our library is memory-checked (ctests/sanitize/env.sh); Debian's is not.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
libdir=$(cd "${1:-$root/target/release}" && pwd)
debian=${NCZARR_RS_DEBIAN_LIBDIR:-/usr/lib/x86_64-linux-gnu}
. "$root/ctests/sanitize/env.sh"
build=$root/target/ctests$san_dir/tools_abi
mkdir -p "$build"

if [ ! -e "$debian/libnetcdf.so.19" ]; then
    echo "FAIL tools_abi: no Debian libnetcdf.so.19 in $debian (run make deps)"
    exit 1
fi
cflags=(-std=c99 -D_DEFAULT_SOURCE -Wall -Wextra -Werror -O1 -I"$root/include" -I"$root/ctests/abi")
# Debian's library, by full file name so ours cannot stand in for it.
cc "${cflags[@]}" "$here/diff_driver.c" "$debian/libnetcdf.so.19" -Wl,-rpath,"$debian" -lm -o "$build/driver_debian" || exit 1
cc "${cflags[@]}" ${san_cflags[@]+"${san_cflags[@]}"} "$here/diff_driver.c" -L"$libdir" -lnetcdf -Wl,-rpath,"$libdir" \
    -lm -o "$build/driver_ours" || exit 1
# No LD_LIBRARY_PATH: each driver must load the library it was built for.
unset LD_LIBRARY_PATH LD_PRELOAD
deb_lib=$(ldd "$build/driver_debian" | awk '/libnetcdf/ {print $3}')
our_lib=$(ldd "$build/driver_ours" | awk '/libnetcdf/ {print $3}')
echo "driver_debian uses $deb_lib; driver_ours uses $our_lib"
if [ "$(readlink -f "$deb_lib")" = "$(readlink -f "$our_lib")" ]; then
    echo "FAIL tools_abi: both drivers load the same library (is $libdir/libnetcdf.so.19 there? make build links it)"
    exit 1
fi

run() { env -u NCLOGGING -u NCTRACING "$@" 2>&1; }
run "$build/driver_debian" > "$build/debian.out"
status=0
if ! run ${san_run[@]+"${san_run[@]}"} "$build/driver_ours" > "$build/ours.out" && [ -n "$san_dir" ]; then
    echo "FAIL tools_abi ($NCZARR_RS_CTEST_SANITIZE): driver_ours failed the memory check:"
    grep -E '^==[0-9]+==|^ *#[0-9]+ |runtime error|Sanitizer' "$build/ours.out" | head -60
    exit 1
fi
if ! diff <(grep -v '^~' "$build/debian.out") <(grep -v '^~' "$build/ours.out") > "$build/diff.txt"; then
    echo "FAIL tools_abi: outputs differ (< Debian 4.9.0, > ours):"
    head -60 "$build/diff.txt"
    status=1
fi
# The divergences, one block per input, each starting "~ (reason)".
diverging=$(grep -c '^~ (' "$build/ours.out")
echo "documented divergences: $diverging inputs; Debian 4.9.0 gives:"
grep '^~' "$build/debian.out" | sed 's/^~/  |/'
echo "where we give:"
grep '^~' "$build/ours.out" | sed 's/^~/  |/'
total=$(grep -c '^\[' "$build/ours.out")
if [ $status -eq 0 ]; then
    echo "ok   tools_abi${NCZARR_RS_CTEST_SANITIZE:+ (${NCZARR_RS_CTEST_SANITIZE})}: $total cases identical to Debian's netcdf-c 4.9.0 ($(wc -l < "$build/ours.out") output lines); $diverging documented divergences"
fi
exit $status
