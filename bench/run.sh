#!/usr/bin/env bash
# Run the shared netCDF benchmark (ncbench.c, from the team's shared/bench)
# against this library, Debian's netcdf-c 4.9.0 and netcdf-c 4.10.1 (the
# netCDF4==1.7.5.1.post1 wheel's library) in one run, and print each
# phase's time with netcdf-c's time divided by ours (>1: we are faster).
#
# The quick look; bench/run runs the whole matrix (every codec, the full
# suite, the Python peers) and records it in bench/RESULTS.md.
#
# Usage: bench/run.sh [T Y X CT CY CX]     (default: ncbench's 64 MiB cube)
# Needs: `make build`, Debian's libnetcdf-dev, and the test venv (.venv).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
shared=${NCZARR_RS_SHARED:-$root/../shared}
src=$shared/bench/ncbench.c
[ -f "$src" ] || { echo "ncbench.c not found at $src (set NCZARR_RS_SHARED)"; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/ncbench.XXXXXX")
trap 'rm -rf "$work"' EXIT

wheel_lib=$("$root/.venv/bin/python" -c 'import glob, os, netCDF4; print(sorted(glob.glob(os.path.join(os.path.dirname(netCDF4.__file__), "..", "netcdf4.libs", "libnetcdf-*.so*")))[0])')
debian_lib=$(ls /usr/lib/*/libnetcdf.so.19 2>/dev/null | head -1 || true)
[ -n "$debian_lib" ] || { echo "Debian's libnetcdf19 is missing: apt-get install libnetcdf-dev"; exit 1; }

cc -O2 -I"$root/include" "$src" -L"$root/target/release" -lnetcdf -Wl,-rpath,"$root/target/release" -lm -o "$work/ours"
cc -O2 -I/usr/include "$src" "$debian_lib" -lm -o "$work/c490"
cc -O2 -I"$root/include" "$src" "$wheel_lib" -Wl,-rpath,"$(dirname "$wheel_lib")" -lm -o "$work/c4101"

declare -A ms
sums=()
for lib in ours c490 c4101; do
    "$work/$lib" "file://$work/$lib" "$@" > "$work/$lib.out"
    while read -r _ phase t _; do ms[$lib.$phase]=$t; done < <(grep '^phase' "$work/$lib.out")
    sums[${#sums[@]}]=$(grep '^checksum' "$work/$lib.out")
done
printf '%-10s %12s %12s %12s %10s %10s\n' phase "ours ms" "4.9.0 ms" "4.10.1 ms" "vs 4.9.0" "vs 4.10.1"
for phase in write read_all series16 slab8 stride2; do
    o=${ms[ours.$phase]}; a=${ms[c490.$phase]}; b=${ms[c4101.$phase]}
    printf '%-10s %12s %12s %12s %9.2fx %9.2fx\n' "$phase" "$o" "$a" "$b" \
        "$(echo "$a / $o" | bc -l)" "$(echo "$b / $o" | bc -l)"
done
echo "checksums (must agree):"; printf '  %s\n' "${sums[@]}"
