# Helpers shared by bench/run and bench/smoke.sh (sourced, not run).
#
# The benchmark programs come from the team's shared/bench (beside this
# clone, or $NCZARR_RS_SHARED/bench) and are used from there, unchanged.

# shared_bench_dir ROOT: where ncbench.c, ncz_bench.c and zarr_bench.py are:
# the team's shared/bench beside the clone (or $NCZARR_RS_SHARED), else the
# copy in bench/shared, so that a lone clone (CI) runs them too.
shared_bench_dir() {
    if [ -n "${NCZARR_RS_SHARED:-}" ]; then
        echo "$NCZARR_RS_SHARED/bench"
    elif [ -f "$1/../shared/bench/ncbench.c" ]; then
        echo "$1/../shared/bench"
    else
        echo "$1/bench/shared"
    fi
}

# compile_ours SRC OUT LIBDIR: SRC linked against our libnetcdf in LIBDIR,
# with an rpath so that it loads that one and not the system's.
compile_ours() {
    local src=$1 out=$2 libdir=$3
    cc -O2 -I"$root/include" "$src" -L"$libdir" -lnetcdf -Wl,-rpath,"$libdir" -lm -o "$out"
    check_loads "$out" "$libdir/libnetcdf.so.19"
}

# compile_debian SRC OUT LIB: against Debian's netcdf-c 4.9.0 (its headers).
compile_debian() {
    local src=$1 out=$2 lib=$3
    cc -O2 -I/usr/include "$src" "$lib" -lm -o "$out"
    check_loads "$out" "$lib"
}

# compile_wheel SRC OUT LIB: against the netCDF4 wheel's netcdf-c 4.10.1,
# which needs its sibling libraries (hdf5, blosc, zstd) from its directory.
compile_wheel() {
    local src=$1 out=$2 lib=$3
    cc -O2 -I"$root/include" "$src" "$lib" -Wl,-rpath,"$(dirname "$lib")" -lm -o "$out"
    check_loads "$out" "$lib"
}

# check_loads BIN LIB: BIN really loads LIB. Both ours and Debian's are
# libnetcdf.so.19, so a wrong rpath would quietly time the wrong library.
check_loads() {
    local bin=$1 want got
    want=$(readlink -f "$2")
    got=$(ldd "$bin" | awk '$1 ~ /^libnetcdf/ { print $3; exit }')
    if [ -z "$got" ] || [ "$(readlink -f "$got")" != "$want" ]; then
        echo "error: $bin loads ${got:-no libnetcdf}, not $want" >&2
        return 1
    fi
}

# wheel_netcdf VENV: the netcdf-c library inside the venv's netCDF4 wheel.
wheel_netcdf() {
    ls "$1"/lib/python3*/site-packages/netcdf4.libs/libnetcdf-*.so* 2>/dev/null | head -1
}

# wheel_plugins VENV: the wheel's HDF5 filter plugins (HDF5_PLUGIN_PATH).
wheel_plugins() {
    ls -d "$1"/lib/python3*/site-packages/netCDF4/plugins 2>/dev/null | head -1
}

# debian_netcdf: Debian's libnetcdf.so.19 (libnetcdf-dev), if installed.
debian_netcdf() {
    ls /usr/lib/*/libnetcdf.so.19 2>/dev/null | head -1
}

# json_lines_ok FILE N: FILE holds at least N JSON result lines, and every
# one of them read back exactly what was written (verify_errors 0).
json_lines_ok() {
    local file=$1 want=$2 lines bad
    lines=$(grep -c '^{' "$file" || true)
    bad=$(grep '^{' "$file" | grep -vc '"verify_errors": *0[,}]' || true)
    [ "$lines" -ge "$want" ] && [ "$bad" -eq 0 ]
}
