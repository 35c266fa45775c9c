#!/usr/bin/env bash
# Fortran programs over our library: compile nf90_roundtrip.f90 (module
# netcdf) and nf77_roundtrip.f (netcdf.inc) with gfortran against Debian's
# netcdf-fortran (libnetcdff.so.7, which links libnetcdf.so.19), run them
# with our library first in LD_LIBRARY_PATH, each in a scratch directory,
# and check that:
#   - ldd, under the same environment, resolves libnetcdf.so.19 to ours;
#   - each program passes its checks and reports a library version naming
#     nczarr-rs (so the running code is ours, not the system netcdf-c);
#   - the NCZarr store nf90_roundtrip wrote reads back identically through
#     netcdf-c 4.10.1 (netCDF4-python, check_store.py).
# Then the same programs run over netcdf-c 4.10.1 itself (the wheel's
# library standing in for libnetcdf.so.19): their expectations are
# netcdf-c's, so they must pass there too.
#
# Usage: tests/fortran/run.sh [LIBDIR [PYTHON]]
#   LIBDIR  our libnetcdf.so.19 (default target/release)
#   PYTHON  the test venv's python, with netCDF4 (default .venv/bin/python)
#
# With NCZARR_RS_CTEST_SANITIZE=valgrind the runs over our library are under
# valgrind memcheck (ctests/sanitize/env.sh; make memcheck-test does this).
# Other modes change nothing here: the programs are not rebuilt.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
libdir=$(cd "${1:-$root/target/release}" && pwd) || exit 1
python=${2:-$root/.venv/bin/python}
. "$root/ctests/sanitize/env.sh"
build=$(dirname "$libdir")/fortran$san_dir
mkdir -p "$build"

failed=0
fail() { echo "FAIL $*"; failed=$((failed + 1)); }

for tool in gfortran nf-config ldd cc; do
    command -v "$tool" >/dev/null || { echo "FAIL: $tool not found (tools/install-test-deps.sh installs it)"; exit 1; }
done
[ -e "$libdir/libnetcdf.so.19" ] || { echo "FAIL: no $libdir/libnetcdf.so.19 (make build)"; exit 1; }

# Debian's module files and netcdf.inc are where nf-config says.
fflags=$(nf-config --fflags)
for prog in nf90_roundtrip:f90 nf77_roundtrip:f; do
    name=${prog%%:*}
    # shellcheck disable=SC2086
    if ! gfortran -Wall -Werror -fcheck=all -g $fflags "$here/$name.${prog##*:}" -lnetcdff \
            -J "$build" -o "$build/$name" > "$build/$name.cc.log" 2>&1; then
        echo "FAIL $name (does not compile)"; cat "$build/$name.cc.log"; exit 1
    fi
done

# Run a program in a fresh scratch directory with LD_LIBRARY_PATH=$1;
# its output goes to $build/<name>.<label>.log. Prints the scratch path.
run() {
    local ldpath=$1 label=$2 name=$3 dataset=$4 scratch wrap=()
    [[ $label != ours* ]] || wrap=(${san_run[@]+"${san_run[@]}"})
    scratch=$(mktemp -d "$build/$name.$label.XXXXXX")
    (cd "$scratch" && env LD_LIBRARY_PATH="$ldpath" ${preload:+LD_PRELOAD=$preload} \
        ${wrap[@]+"${wrap[@]}"} "$build/$name" "$dataset") > "$build/$name.$label.log" 2>&1
    local rc=$?
    echo "$scratch"
    return $rc
}

# ---- over our library ----
for name in nf90_roundtrip nf77_roundtrip; do
    resolved=$(LD_LIBRARY_PATH=$libdir ldd "$build/$name" | awk '$1 == "libnetcdf.so.19" { print $3 }')
    if [ "$(readlink -f "$resolved")" != "$(readlink -f "$libdir/libnetcdf.so.19")" ]; then
        fail "$name: ldd resolves libnetcdf.so.19 to '$resolved', not $libdir"
        LD_LIBRARY_PATH=$libdir ldd "$build/$name" | sed 's/^/     /'
        continue
    fi
    store=$name.zarr
    if ! scratch=$(preload='' run "$libdir" ours $name "file://$store#mode=nczarr,file"); then
        fail "$name over nczarr-rs"; sed 's/^/     /' "$build/$name.ours.log"; continue
    fi
    log=$build/$name.ours.log
    if ! grep -q '^library: .*nczarr-rs' "$log" || [ "$(tail -n 1 "$log")" != PASS ]; then
        fail "$name over nczarr-rs: no 'library: ... nczarr-rs' line or no closing PASS"
        sed 's/^/     /' "$log"; continue
    fi
    echo "ok   $name over nczarr-rs ($(grep '^library: ' "$log" | sed 's/^library: //; s/ *$//'))"
    if [ $name = nf90_roundtrip ]; then
        if "$python" "$here/check_store.py" "$scratch/$store" > "$build/check_store.log" 2>&1; then
            echo "ok   netcdf-c 4.10.1 (netCDF4-python) reads the store $name wrote over nczarr-rs"
        else
            fail "netcdf-c 4.10.1 (netCDF4-python) reading the store $name wrote over nczarr-rs"
            sed 's/^/     /' "$build/check_store.log"; continue
        fi
    fi
    rm -rf "$scratch"
done

# ---- on a netCDF-4 file, served by the netcdf-c beside us ----
# (src/delegate: Debian's libnetcdf.so.19.) Every check must come out as
# over Debian's library itself, which serves the file there: the programs'
# expectations are netcdf-c 4.10.1's, and 4.9.0 differs in a few answers.
for name in nf90_roundtrip nf77_roundtrip; do
    scratch=$(preload='' run "$libdir" ours-nc $name "$name.nc")
    scratch2=$(preload='' run "" debian-nc $name "$name.nc")
    strip() { grep -v '^library: ' "$1"; }
    if ! grep -q '^library: .*nczarr-rs' "$build/$name.ours-nc.log"; then
        fail "$name on a .nc file: not run over nczarr-rs"; sed 's/^/     /' "$build/$name.ours-nc.log"
    elif ! diff <(strip "$build/$name.debian-nc.log") <(strip "$build/$name.ours-nc.log") > "$build/$name.nc.diff"; then
        fail "$name on a .nc file: over nczarr-rs it says otherwise than over Debian's netcdf-c"
        sed 's/^/     /' "$build/$name.nc.diff"
    elif ! cmp -s "$scratch/$name.nc" "$scratch2/$name.nc" && \
        ! diff <(ncdump "$scratch/$name.nc" | tail -n +2) <(ncdump "$scratch2/$name.nc" | tail -n +2) > /dev/null; then
        fail "$name on a .nc file: the files differ"
    else
        echo "ok   $name on a .nc file over nczarr-rs, as over Debian's netcdf-c ($(tail -n 1 "$build/$name.ours-nc.log"))"
        rm -rf "$scratch" "$scratch2"
    fi
done

# ---- the same programs over netcdf-c 4.10.1 ----
# The wheel's libnetcdf under the name libnetcdf.so.19; libnetcdff imports
# nc_set_log_level, which that build (no logging) lacks, so a stub is
# preloaded. The wheel's filter plugins do deflate and shuffle.
wheel=$("$python" -c 'import netCDF4, pathlib; print(pathlib.Path(netCDF4.__file__).resolve().parent)') \
    || { echo "FAIL: $python has no netCDF4"; exit 1; }
wheel_lib=$(ls "$wheel"/../netcdf4.libs/libnetcdf-*.so* 2>/dev/null | head -n 1)
[ -n "$wheel_lib" ] || { echo "FAIL: no libnetcdf in $wheel/../netcdf4.libs"; exit 1; }
ref=$build/netcdf-c-4.10.1
mkdir -p "$ref"
ln -sf "$wheel_lib" "$ref/libnetcdf.so.19"
printf 'int nc_set_log_level(int level) { (void)level; return 0; }\n' > "$ref/stub.c"
cc -shared -fPIC "$ref/stub.c" -o "$ref/libstub.so" || { echo "FAIL: building the stub"; exit 1; }
export HDF5_PLUGIN_PATH=$wheel/plugins
for name in nf90_roundtrip nf77_roundtrip; do
    if scratch=$(preload=$ref/libstub.so run "$ref:$(dirname "$wheel_lib")" netcdf-c $name \
            "file://$name.zarr#mode=nczarr,file") \
            && grep -q '^library: 4\.10\.1 ' "$build/$name.netcdf-c.log" \
            && [ "$(tail -n 1 "$build/$name.netcdf-c.log")" = PASS ]; then
        echo "ok   $name over netcdf-c 4.10.1"
        rm -rf "$scratch"
    else
        fail "$name over netcdf-c 4.10.1"; sed 's/^/     /' "$build/$name.netcdf-c.log"
    fi
done

echo "fortran tests: $failed failed"
[ "$failed" -eq 0 ]
