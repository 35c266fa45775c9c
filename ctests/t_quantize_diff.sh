#!/usr/bin/env bash
# Quantization, differentially: ctests/quantize_diff.c is built against
# netcdf-c (Debian's 4.9.0, and 4.10.1 from the test venv's netCDF4 wheel
# when there is one) and against this library; each writes the same cases
# into an NCZarr directory store. No filters, so chunk files are the raw
# little-endian values: they must be byte-for-byte identical, as must the
# _Quantize* attribute in .zattrs and every library's nc_inq_var_quantize
# answers on every store.
#
# Known divergences (checked to be exactly these):
# * 1-d "special" variables hold, by index: 0 1.5, 1-2 NaN, 3-4 -0,
#   5 +0, 6-7 +inf, 8-9 -inf, 10-11 fill, 12-13 subnormals, 14-15 plain.
#   netcdf-c 4.9.0 quantizes NaN and -0 (fixed in 4.9.3): its BitGroom
#   sets low bits of NaN and -0 at odd positions (1, 3) and its Granular
#   BitRound turns NaN into -0 (1, 2). We follow 4.9.3+ and leave them.
#   Granular BitRound on +-inf converts an infinite double to int in C
#   (undefined; on x86 every netcdf-c release stores -0 for +inf and +0
#   for -inf): we keep infinities (6-9, against 4.9.0 and 4.10.1 alike).
# * A float at 7 significant digits (BitGroom, Granular BitRound): 4.9.0
#   accepts it and BitGroom then destroys the values (negative shift);
#   4.10.1 and we refuse it with NC_EINVAL.
#
# Usage: ctests/t_quantize_diff.sh (run by ctests/run.sh in a scratch
# directory; NCZARR_RS_LIBDIR is our library's directory).
set -u
shopt -s nullglob
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
libdir=${NCZARR_RS_LIBDIR:-$root/target/release}
debian=${NETCDF_C_LIB:-/usr/lib/x86_64-linux-gnu/libnetcdf.so.19}
unset LD_LIBRARY_PATH LD_PRELOAD
fail() { echo "FAIL: $*"; exit 1; }
# Under NCZARR_RS_CTEST_SANITIZE the program built against our library is
# memory-checked (san_cflags, san_run); the references are not.
. "$here/sanitize/env.sh"

# The references are what this test is about: a missing one fails it
# (tools/install-test-deps.sh installs Debian's).
[ -e "$debian" ] || fail "no netcdf-c library at $debian (Debian package libnetcdf19; run make deps)"
cflags="-std=c99 -Wall -Wextra -Werror -O2"
src=$here/quantize_diff.c
# netcdf-c's own header when installed (libnetcdf-dev), else ours: the
# writer uses nothing on which they differ.
hdr=$root/include
[ -e /usr/include/netcdf.h ] && hdr=/usr/include
cc $cflags ${san_cflags[@]+"${san_cflags[@]}"} -I"$root/include" "$src" -L"$libdir" -lnetcdf -Wl,-rpath,"$libdir" -lm \
    -o ours || fail "build (ours)"
cc $cflags -I"$hdr" "$src" "$debian" -lm -o c490 || fail "build (netcdf-c 4.9.0)"
refs=(c490)
wheel=$(ls "$root"/.venv/lib/python3*/site-packages/netcdf4.libs/libnetcdf-*.so* 2>/dev/null | head -1)
[ -n "$wheel" ] || fail "no netCDF4 wheel (netcdf-c 4.10.1) in $root/.venv; run make deps"
cc $cflags -I"$hdr" "$src" "$wheel" -Wl,-rpath,"$(dirname "$wheel")" -lm -o c4101 || fail "build (netcdf-c 4.10.1)"
refs+=(c4101)

url() { echo "file://$PWD/$1.zarr#mode=nczarr,file$2"; }
# Run a program: ./ours under the memory checker, if any.
prog() {
    local p=$1; shift
    if [ "$p" = ours ]; then ${san_run[@]+"${san_run[@]}"} ./ours "$@"; else "./$p" "$@"; fi
}
prog ours write "$(url ours "")" > ours.out || fail "ours: write"
prog ours write "$(url ours490 "&nczarr_layout=4.9.0")" > /dev/null || fail "ours: write (4.9.0 layout)"
for r in "${refs[@]}"; do
    ./$r write "$(url $r "")" > $r.out || fail "$r: write"
done

# nsd 7 on a float: accepted by 4.9.0 only.
grep -qx "float nsd 7: bitgroom -36 granularbr -36" ours.out || fail "ours: $(cat ours.out)"
grep -qx "float nsd 7: bitgroom 0 granularbr 0" c490.out || fail "4.9.0: $(cat c490.out)"
[ ! -e c4101.out ] || grep -qx "float nsd 7: bitgroom -36 granularbr -36" c4101.out || fail "4.10.1: $(cat c4101.out)"

# Elements (by index) that differ between two chunk files.
differing() {
    local es=4
    case $3 in *_d) es=8 ;; esac
    cmp -l "$1" "$2" | awk -v es=$es '{print int(($1 - 1) / es)}' | uniq | tr '\n' ' '
}
# Expected differences in special variables, against each reference.
expected() {
    case $1:$2 in
        c490:sp_bg_f | c490:sp_bg_d) echo "1 3 " ;;
        c490:sp_gbr_f | c490:sp_gbr_d) echo "1 2 6 7 8 9 " ;;
        c4101:sp_gbr_f | c4101:sp_gbr_d) echo "6 7 8 9 " ;;
        *) echo "" ;;
    esac
}
quantize_att() { grep -o '"_Quantize[A-Za-z]*": *-\?[0-9]*' "$1" 2>/dev/null | tr -d ' '; }

nvars=0 nchunks=0
for r in "${refs[@]}"; do
    for dir in "$r".zarr/*/; do
        v=$(basename "$dir")
        nvars=$((nvars + 1))
        for o in ours ours490; do
            [ "$(cd "$dir" && ls)" = "$(cd "$o.zarr/$v" && ls)" ] || fail "$v: chunk files differ from $r ($o)"
            [ "$(quantize_att "$dir/.zattrs")" = "$(quantize_att "$o.zarr/$v/.zattrs")" ] ||
                fail "$v: quantize attribute differs from $r ($o)"
        done
        for chunk in "$dir"*; do
            c=$(basename "$chunk")
            nchunks=$((nchunks + 1))
            cmp -s "ours.zarr/$v/$c" "ours490.zarr/$v/$c" || fail "$v/$c: layouts store different chunks"
            got=$(differing "$chunk" "ours.zarr/$v/$c" "$v")
            [ "$got" = "$(expected "$r" "$v")" ] || fail "$v/$c against $r: elements '$got' differ"
        done
    done
done
[ $nvars -gt 40 ] || fail "only $nvars variables compared"

# Every library reads the setting of every store alike.
prog ours inq "$(url ours "")" | sort > expected.inq || fail "ours: inq"
grep -qx "bg_f3_varm_t 1 3" expected.inq || fail "inq: $(head -3 expected.inq)"
for r in ours "${refs[@]}"; do
    for store in ours ours490 "${refs[@]}"; do
        prog $r inq "$(url $store "")" | sort | cmp -s - expected.inq || fail "$r reading $store: inq differs"
    done
done
echo "PASS quantize: $nvars variables, $nchunks chunk files against ${refs[*]}"
