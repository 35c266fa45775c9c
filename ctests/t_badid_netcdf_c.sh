#!/usr/bin/env bash
# badid_all.inc (t_badid's expectations: our own outputs, reviewed by
# hand) checked against real netcdf-c: ctests/badid_netcdf_c.c makes the
# same calls, each in a forked child so a crash is a result, and is built
# against our library, Debian's netcdf-c 4.9.0 (libnetcdf.so.19, as
# ctests/tools_abi/run.sh uses it) and netcdf-c 4.10.1 (the netCDF4
# wheel's libnetcdf, run with the wheel's filter plugins);
# ctests/badid_compare.py requires ours to give what badid_all.inc says
# and every difference from netcdf-c to be one it allows, with a reason.
#
# Usage: ctests/t_badid_netcdf_c.sh (run by ctests/run.sh in a scratch
# directory; NCZARR_RS_LIBDIR is our library's directory).
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
libdir=${NCZARR_RS_LIBDIR:-$root/target/release}
debian=${NCZARR_RS_DEBIAN_LIBDIR:-/usr/lib/x86_64-linux-gnu}
unset LD_LIBRARY_PATH LD_PRELOAD
fail() { echo "FAIL: $*"; exit 1; }

[ -e "$debian/libnetcdf.so.19" ] || fail "no Debian libnetcdf.so.19 in $debian (run make deps)"
wheel=$(ls "$root"/.venv/lib/python3*/site-packages/netcdf4.libs/libnetcdf-*.so* 2>/dev/null | head -1)
[ -n "$wheel" ] || fail "no netCDF4 wheel (netcdf-c 4.10.1) in $root/.venv; run make deps"
plugins=$(ls -d "$root"/.venv/lib/python3*/site-packages/netCDF4/plugins 2>/dev/null | head -1)
[ -n "$plugins" ] || fail "no filter plugins in the netCDF4 wheel"

# Every "(void)call;" runs in a child too; every function called is weak,
# so a library that lacks one still links (and the call is skipped).
sed -E 's/^    \(void\)([A-Za-z_][A-Za-z0-9_]*)\((.*)\);$/    VOID(MODE, MODE ":\1", \1(\2));/' \
    "$here/badid_all.inc" > badid_forked.inc
! grep -q '^    (void)' badid_forked.inc || fail "a (void) call of badid_all.inc not rewritten"
grep -o '^ *[A-Z]*(MODE, [^"]*"[a-z]*:[A-Za-z_][A-Za-z0-9_]*' badid_forked.inc |
    sed -E 's/.*:([A-Za-z0-9_]*)$/#pragma weak \1/' | sort -u > badid_weak.h

cflags=(-std=c99 -D_DEFAULT_SOURCE -Wall -Wextra -Werror -O1 -I"$root/include" -I"$here" -I.)
cc "${cflags[@]}" "$here/badid_netcdf_c.c" -L"$libdir" -lnetcdf -Wl,-rpath,"$libdir" -o driver_ours ||
    fail "build (ours)"
cc "${cflags[@]}" "$here/badid_netcdf_c.c" "$debian/libnetcdf.so.19" -Wl,-rpath,"$debian" -o driver_debian ||
    fail "build (Debian's netcdf-c 4.9.0)"
cc "${cflags[@]}" "$here/badid_netcdf_c.c" "$wheel" -Wl,-rpath,"$(dirname "$wheel")" -o driver_wheel ||
    fail "build (netcdf-c 4.10.1)"
for d in ours debian wheel; do
    echo "driver_$d uses $(ldd driver_$d | awk '/libnetcdf/ {print $3}')"
done
[ "$(ldd driver_ours | awk '/libnetcdf/ {print $3}' | xargs readlink -f)" = "$(readlink -f "$libdir/libnetcdf.so")" ] ||
    fail "driver_ours does not load $libdir/libnetcdf.so"

# Each in its own directory (the calls create datasets). Ours keeps
# run.sh's plugin path, as t_badid has it; Debian's netcdf-c finds no
# plugins (Debian ships none for NCZarr); 4.10.1 gets the wheel's.
mkdir -p run_ours run_debian run_wheel
(cd run_ours && ../driver_ours > ../ours.txt 2> ../ours.err) || { cat ours.err; fail "driver over ours"; }
(cd run_debian && env -u HDF5_PLUGIN_PATH ../driver_debian > ../debian.txt 2> ../debian.err) ||
    { tail debian.err; fail "driver over Debian's netcdf-c"; }
(cd run_wheel && HDF5_PLUGIN_PATH=$plugins ../driver_wheel > ../wheel.txt 2> ../wheel.err) ||
    { tail wheel.err; fail "driver over netcdf-c 4.10.1"; }
python3 "$here/badid_compare.py" ours.txt debian.txt wheel.txt
