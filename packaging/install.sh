#!/usr/bin/env bash
# Install or uninstall nczarr-rs as netcdf-c installs itself: the shared
# library with its SONAME links, the public headers, netcdf.pc, nc-config
# and the CMake package netCDF. Run by `make install` / `make uninstall`.
#
#   packaging/install.sh install   LIB=<built libnetcdf.so>
#   packaging/install.sh uninstall
#
# Settings come from the environment (the Makefile passes them):
#   PREFIX      installation prefix (default /usr/local)
#   bindir, libdir, includedir   (default $PREFIX/bin, /lib, /include)
#   DESTDIR     staging root prepended to every path written
#   FORCE=1     replace files that a previous install of ours did not write
#   PARALLEL=1  LIB is the parallel build (make MPI=1): netcdf_par.h is
#               installed, and netcdf_meta.h, nc-config and the CMake
#               package say parallel I/O is there
#
# Every path written, and every directory created, is listed in the
# manifest $PREFIX/share/nczarr-rs/install_manifest.txt; uninstall removes
# exactly those (directories only when empty), so it works from any clone.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")

die() { echo "install.sh: $*" >&2; exit 1; }

action=${1:-}
PREFIX=${PREFIX:-/usr/local}
bindir=${bindir:-$PREFIX/bin}
libdir=${libdir:-$PREFIX/lib}
includedir=${includedir:-$PREFIX/include}
DESTDIR=${DESTDIR:-}
FORCE=${FORCE:-}
PARALLEL=${PARALLEL:-}
for v in PREFIX bindir libdir includedir; do
    case ${!v} in /*) ;; *) die "$v must be an absolute path, not '${!v}'" ;; esac
done
# Canonical spellings: no trailing or doubled slashes.
canon() { local p; p=$(printf '%s' "$1" | tr -s /); [ "$p" = / ] || p=${p%/}; printf '%s' "$p"; }
PREFIX=$(canon "$PREFIX"); bindir=$(canon "$bindir")
libdir=$(canon "$libdir"); includedir=$(canon "$includedir")
[ -z "$DESTDIR" ] || DESTDIR=$(canon "$DESTDIR")

manifest=$PREFIX/share/nczarr-rs/install_manifest.txt

# The library file, its SONAME link, and the development link.
SONAME=libnetcdf.so.19
# The real file is named as netcdf-c 4.9.0's libtool names it (SONAME 19).
REALNAME=libnetcdf.so.19.1.0

# The headers a netcdf-c install provides; those of them in include/ are
# installed (netcdf_f.h is netcdf-c's private Fortran header, not installed;
# netcdf_par.h only with the parallel build, and netcdf_meta.h as generated
# below).
NETCDF_C_HEADERS="netcdf.h netcdf_mem.h netcdf_aux.h netcdf_filter.h
    netcdf_filter_build.h netcdf_filter_hdf5_build.h netcdf_dispatch.h
    netcdf_json.h netcdf_proplist.h"

# Refresh the dynamic linker's cache when installing into, or removing
# from, a directory it scans (only as root, never for a staged install).
refresh_ldconfig() {
    [ -z "$DESTDIR" ] && [ "$(id -u)" = 0 ] && command -v ldconfig >/dev/null || return 0
    local real scanned
    real=$(realpath -m "$libdir")
    while IFS= read -r scanned; do
        if [ "$(realpath -m "$scanned")" = "$real" ]; then
            echo "running ldconfig ($libdir is on the loader's search path)"
            ldconfig
            if [ "$1" = install ]; then
                echo "note: programs that load libnetcdf.so.19 without an rpath (a system netcdf-c's ncdump," \
                    "say) now load nczarr-rs, which reads only NCZarr and Zarr datasets"
            fi
            return 0
        fi
    done < <(ldconfig -v -N 2>/dev/null | sed -n 's/^\(\/[^:]*\):.*/\1/p')
}

do_uninstall() {
    local m=$DESTDIR$manifest
    [ -f "$m" ] || die "no manifest at $m: nothing was installed with PREFIX=$PREFIX${DESTDIR:+ DESTDIR=$DESTDIR}"
    local entries kind path
    mapfile -t entries < "$m"
    # Files and links first, then directories deepest first.
    for e in "${entries[@]}"; do
        kind=${e%% *}; path=$DESTDIR${e#* }
        case $kind in
            f|l) if [ -L "$path" ] || [ -f "$path" ]; then rm -f "$path" && echo "removed $path"; fi ;;
            d) ;;
            *) die "bad manifest line: $e" ;;
        esac
    done
    for e in "${entries[@]}"; do
        if [ "${e%% *}" = d ]; then echo "${e#* }"; fi
    done | sort -r | while IFS= read -r dir; do
        if [ -d "$DESTDIR$dir" ] && rmdir "$DESTDIR$dir" 2>/dev/null; then echo "removed $DESTDIR$dir/"; fi
    done
    refresh_ldconfig uninstall
}

# A netcdf_meta.h macro as yes/no.
meta() {
    local v
    v=$(sed -n "s/^#define[[:space:]]\{1,\}$1[[:space:]]\{1,\}\([0-9]\{1,\}\).*/\1/p" "$root/include/netcdf_meta.h")
    [ -n "$v" ] || die "include/netcdf_meta.h does not define $1"
    if [ "$v" = 0 ]; then echo no; else echo yes; fi
}

# The path of $2 relative to directory $1 when $2 is $1 or below it.
below() {
    case $2 in
        "$1") echo . ;;
        "$1"/*) echo "${2#"$1"/}" ;;
        *) return 1 ;;
    esac
}

do_install() {
    local lib=${LIB:-$root/target/release/libnetcdf.so}
    [ -f "$lib" ] || die "$lib is not built: run 'make build' first"
    local newer
    newer=$(find "$root/src" "$root/csrc" "$root/include" "$root/build.rs" "$root/Cargo.toml" \
        -newer "$lib" -type f -print -quit)
    [ -z "$newer" ] || echo "install.sh: warning: $newer is newer than $lib; run 'make build' to install current sources" >&2

    # Versions: the netCDF API version, checked against netcdf_meta.h, and ours.
    local nc_version crate_version meta_version
    nc_version=$(sed -n 's/^pub const NC_API_VERSION: &str = "\(.*\)";/\1/p' "$root/src/lib.rs")
    meta_version=$(sed -n 's/^#define[[:space:]]\{1,\}NC_VERSION[[:space:]]\{1,\}"\(.*\)".*/\1/p' "$root/include/netcdf_meta.h")
    crate_version=$(sed -n '/^\[package\]/,/^\[/s/^version[[:space:]]*=[[:space:]]*"\(.*\)"/\1/p' "$root/Cargo.toml")
    [ -n "$nc_version" ] || die "cannot read NC_API_VERSION from src/lib.rs"
    [ -n "$crate_version" ] || die "cannot read the package version from Cargo.toml"
    [ "$nc_version" = "$meta_version" ] ||
        die "src/lib.rs says netCDF $nc_version, include/netcdf_meta.h says $meta_version"

    # Features, as netcdf_meta.h declares them.
    declare -A has
    local f
    for f in NC2 NC4 HDF4 HDF5 PNETCDF PARALLEL PARALLEL4 DAP2 DAP4 CDF5 DISKLESS MMAP JNA \
        LOGGING NCZARR S3 SZIP ZSTD BLOSC BZ2 QUANTIZE MULTIFILTERS BENCHMARKS; do
        has[$f]=$(meta "NC_HAS_$f")
    done
    # The parallel build: what it says must be what the library is (a
    # parallel netcdf_par.h over a serial library would link but fail).
    local exports_par=unknown
    if command -v nm >/dev/null; then
        if nm -D --defined-only "$lib" | awk '{sub(/@.*/, "", $3)} $3 == "nc_create_par" {f = 1} END {exit !f}'; then
            exports_par=1
        else
            exports_par=0
        fi
    fi
    if [ "$PARALLEL" = 1 ]; then
        [ "$exports_par" != 0 ] || die "PARALLEL=1 but $lib is not the parallel build (make MPI=1 build)"
        has[PARALLEL]=yes
        has[PARALLEL4]=yes
    else
        [ "$exports_par" != 1 ] || die "$lib is the parallel build: install it with make MPI=1 install (PARALLEL=1)"
    fi
    local std_filters=""
    [ "${has[BZ2]}" = yes ] && std_filters="bz2"
    std_filters="$std_filters deflate"
    [ "${has[SZIP]}" = yes ] && std_filters="$std_filters szip"
    [ "${has[BLOSC]}" = yes ] && std_filters="$std_filters blosc"
    [ "${has[ZSTD]}" = yes ] && std_filters="$std_filters zstd"
    std_filters=${std_filters# }

    # The library's pointer size, from its ELF class (1: 32-bit, 2: 64-bit).
    local elfclass sizeof_void_p
    elfclass=$(od -An -tu1 -j4 -N1 "$lib" | tr -d ' ')
    case $elfclass in 1) sizeof_void_p=4 ;; 2) sizeof_void_p=8 ;; *) die "$lib is not an ELF library" ;; esac

    local cc
    if [ "$PARALLEL" = 1 ]; then
        # Programs using netcdf_par.h need mpi.h, as with a parallel netcdf-c.
        cc=$(command -v "${MPICC:-mpicc}" 2>/dev/null || echo "${MPICC:-mpicc}")
    else
        cc=$(command -v "${CC:-cc}" 2>/dev/null || echo "${CC:-cc}")
    fi

    # pkg-config paths relative to ${prefix} where possible, as netcdf-c's.
    local rel pc_libdir pc_includedir
    if rel=$(below "$PREFIX" "$libdir"); then pc_libdir="\${exec_prefix}/$rel"; else pc_libdir=$libdir; fi
    if rel=$(below "$PREFIX" "$includedir"); then pc_includedir="\${prefix}/$rel"; else pc_includedir=$includedir; fi
    pc_libdir=${pc_libdir%/.}; pc_includedir=${pc_includedir%/.}

    # CMake paths relative to the config file's directory, $libdir/cmake/netCDF,
    # so a staged or moved installation finds itself. The prefix is the
    # ancestor of that directory when $libdir is below $PREFIX.
    local cmake_prefix cmake_libdir cmake_includedir
    if rel=$(below "$PREFIX" "$libdir"); then
        cmake_prefix='${CMAKE_CURRENT_LIST_DIR}/../..'
        if [ "$rel" = . ]; then
            cmake_libdir='${_netCDF_prefix}'
        else
            cmake_prefix=$cmake_prefix$(printf '%s' "/$rel" | sed 's|/[^/]*|/..|g')
            cmake_libdir="\${_netCDF_prefix}/$rel"
        fi
        if rel=$(below "$PREFIX" "$includedir"); then
            cmake_includedir='${_netCDF_prefix}'
            [ "$rel" = . ] || cmake_includedir="$cmake_includedir/$rel"
        else
            cmake_includedir=$includedir
        fi
    else
        # $libdir outside $PREFIX: not relocatable, every path absolute.
        cmake_prefix=$PREFIX
        cmake_libdir=$libdir
        cmake_includedir=$includedir
    fi

    # Generate the templated files (into a global $gen, for the EXIT trap).
    gen=$(mktemp -d "${TMPDIR:-/tmp}/nczarr-rs-install.XXXXXX")
    trap 'rm -rf "$gen"' EXIT
    # sed replacement text: escape the delimiter, & and backslash.
    esc() { printf '%s' "$1" | sed 's/[|&\\]/\\&/g'; }
    local subst=() kv
    # The system netcdf-c's library directory, one of the places the
    # library (and nc-config) look for the netcdf-c serving other formats
    # (build.rs records the same for the library).
    local build_netcdf_libdir
    build_netcdf_libdir=$(pkg-config --variable=libdir netcdf 2>/dev/null || true)
    [ "$build_netcdf_libdir" != "$libdir" ] || build_netcdf_libdir=""
    for kv in "build_netcdf_libdir=$build_netcdf_libdir" "prefix=$PREFIX" "bindir=$bindir" "libdir=$libdir" "includedir=$includedir" \
        "pc_libdir=$pc_libdir" "pc_includedir=$pc_includedir" \
        "nc_version=$nc_version" "crate_version=$crate_version" "cc=$cc" "libs_private=" \
        "soname=$SONAME" "std_filters=$std_filters" "sizeof_void_p=$sizeof_void_p" \
        "plugin_searchpath=/usr/local/hdf5/lib/plugin" "cmake_prefix=$cmake_prefix" \
        "cmake_libdir=$cmake_libdir" "cmake_includedir=$cmake_includedir"; do
        subst+=(-e "s|@${kv%%=*}@|$(esc "${kv#*=}")|g")
    done
    for f in "${!has[@]}"; do
        subst+=(-e "s|@has_${f,,}@|${has[$f]}|g")
    done
    local t
    for t in netcdf.pc nc-config netCDFConfig.cmake netCDFConfigVersion.cmake netCDFTargets.cmake; do
        sed "${subst[@]}" "$here/$t.in" > "$gen/$t"
    done
    if grep -n '@[a-z_0-9]*@' "$gen"/*; then die "unsubstituted template variables (above)"; fi
    # netcdf_meta.h with the build's parallel features.
    sed -e "s/^\(#define[[:space:]]\{1,\}NC_HAS_PARALLEL4\{0,1\}[[:space:]]\{1,\}\)[0-9]\{1,\}/\1$([ "$PARALLEL" = 1 ] && echo 1 || echo 0)/" \
        "$root/include/netcdf_meta.h" > "$gen/netcdf_meta.h"

    # What to install: kind, destination, source (file) or target (link), mode.
    local plan=()
    plan+=("f|$libdir/$REALNAME|$lib|755")
    plan+=("l|$libdir/$SONAME|$REALNAME|")
    plan+=("l|$libdir/libnetcdf.so|$SONAME|")
    local h
    for h in $NETCDF_C_HEADERS; do
        [ ! -f "$root/include/$h" ] || plan+=("f|$includedir/$h|$root/include/$h|644")
    done
    plan+=("f|$includedir/netcdf_meta.h|$gen/netcdf_meta.h|644")
    [ "$PARALLEL" != 1 ] || plan+=("f|$includedir/netcdf_par.h|$root/include/netcdf_par.h|644")
    plan+=("f|$libdir/pkgconfig/netcdf.pc|$gen/netcdf.pc|644")
    plan+=("f|$bindir/nc-config|$gen/nc-config|755")
    for t in netCDFConfig.cmake netCDFConfigVersion.cmake netCDFTargets.cmake; do
        plan+=("f|$libdir/cmake/netCDF/$t|$gen/$t|644")
    done

    # What a previous install of ours wrote may be replaced; anything else
    # only with FORCE=1.
    declare -A ours
    local e
    if [ -f "$DESTDIR$manifest" ]; then
        while IFS= read -r e; do ours[${e#* }]=1; done < "$DESTDIR$manifest"
    fi
    local p kind dest src mode foreign=()
    for p in "${plan[@]}" "f|$manifest||"; do
        IFS='|' read -r kind dest src mode <<< "$p"
        if { [ -e "$DESTDIR$dest" ] || [ -L "$DESTDIR$dest" ]; } && [ -z "${ours[$dest]:-}" ]; then
            foreign+=("$DESTDIR$dest")
        fi
    done
    if [ ${#foreign[@]} -gt 0 ] && [ "$FORCE" != 1 ]; then
        printf '  %s\n' "${foreign[@]}" >&2
        die "these files exist and were not installed by nczarr-rs; not replacing them (FORCE=1 replaces them, and uninstall then removes them)"
    fi

    # Directories this install creates, outermost first.
    local created=() d
    for p in "${plan[@]}" "f|$manifest||"; do
        IFS='|' read -r kind dest src mode <<< "$p"
        d=$(dirname "$dest")
        local chain=()
        while [ "$d" != / ] && [ ! -d "$DESTDIR$d" ]; do chain=("$d" "${chain[@]}"); d=$(dirname "$d"); done
        for d in "${chain[@]}"; do
            mkdir -p "$DESTDIR$d"
            created+=("$d")
        done
    done

    # The manifest first (a failed install can still be uninstalled): the
    # previous one's entries, then this one's.
    {
        [ ! -f "$DESTDIR$manifest" ] || cat "$DESTDIR$manifest"
        for d in "${created[@]}"; do echo "d $d"; done
        for p in "${plan[@]}"; do
            IFS='|' read -r kind dest src mode <<< "$p"
            echo "$kind $dest"
        done
        echo "f $manifest"
    } | awk '!seen[$0]++' > "$gen/manifest"
    install -m 644 "$gen/manifest" "$DESTDIR$manifest"

    # A serial install over a parallel one of ours: its netcdf_par.h would
    # declare functions this library lacks.
    if [ "$PARALLEL" != 1 ] && [ -n "${ours[$includedir/netcdf_par.h]:-}" ]; then
        rm -f "$DESTDIR$includedir/netcdf_par.h"
    fi
    for p in "${plan[@]}"; do
        IFS='|' read -r kind dest src mode <<< "$p"
        case $kind in
            f) install -m "$mode" "$src" "$DESTDIR$dest" ;;
            l) ln -sfn "$src" "$DESTDIR$dest" ;;
        esac
        echo "installed $DESTDIR$dest"
    done
    echo "installed nczarr-rs $crate_version (netCDF $nc_version API); 'make uninstall' removes what" \
        "$DESTDIR$manifest lists"
    refresh_ldconfig install
}

case $action in
    install) do_install ;;
    uninstall) do_uninstall ;;
    *) die "usage: install.sh install|uninstall" ;;
esac
