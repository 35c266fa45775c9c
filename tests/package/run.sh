#!/usr/bin/env bash
# Packaging tests: the build directory and `make install` give netCDF users
# a library their build systems find and their programs really load.
#
#  1. target/release has libnetcdf.so.19 -> libnetcdf.so (made by build.rs),
#     and a program linked there runs this library; tests/package/app.c
#     refuses any other (checked against an impostor libnetcdf.so.19).
#  2. `make install PREFIX=<scratch>` installs the expected files; app is
#     built (a) with CMake's find_package(netCDF) and netCDF::netcdf,
#     (b) with pkg-config, (c) with nc-config, and runs OUR installed
#     library each time; nc-config's answers are checked.
#  3. `make uninstall` removes the prefix again.
#  4. A DESTDIR-staged install with a multiarch libdir: refuses to replace
#     files it did not install, reinstalls over itself, its CMake package
#     works from the staging area and after being moved, and uninstall
#     leaves exactly the files that were there before.
#
# Usage: tests/package/run.sh [LIBDIR]   (LIBDIR: where libnetcdf.so is built)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
libdir=$(cd "${1:-$root/target/release}" && pwd)
work=$root/target/package-test
rm -rf "$work"
mkdir -p "$work"

fail() { echo "FAIL: $*" >&2; exit 1; }
step() { echo "-- $*"; }
ok() { echo "ok   $*"; }
# A command's output with its whitespace collapsed (pkg-config ends lines
# with a space).
words() { local w; w=$("$@"); echo $w; }
expect_eq() { [ "$1" = "$2" ] || fail "$3: got '$1', expected '$2'"; }

for tool in cc make cmake pkg-config; do
    command -v "$tool" >/dev/null || fail "$tool is not installed (tools/install-test-deps.sh installs it)"
done

version=$(sed -n 's/^#define[[:space:]]*NC_VERSION[[:space:]]*"\(.*\)".*/\1/p' "$root/include/netcdf_meta.h")
[ -n "$version" ] || fail "cannot read NC_VERSION from include/netcdf_meta.h"
# The loader must find libraries only where each test says.
unset LD_LIBRARY_PATH LD_PRELOAD PKG_CONFIG_PATH CMAKE_PREFIX_PATH || true

# run_app NAME EXE EXPECTED_LIBRARY: run EXE in a scratch directory; it
# must succeed and report having loaded EXPECTED_LIBRARY.
run_app() {
    local name=$1 exe=$2 want=$3 dir out loaded
    dir=$(mktemp -d "$work/run-$name.XXXXXX")
    out=$(cd "$dir" && "$exe" 2>&1) || fail "$name: app failed:
$out"
    loaded=$(printf '%s\n' "$out" | sed -n 's/^library: //p')
    [ "$(realpath "$loaded")" = "$(realpath "$want")" ] ||
        fail "$name: app loaded $loaded, expected $want"
    ok "$name: runs $(printf '%s\n' "$out" | sed -n 's/^nc_inq_libvers: //p') from $loaded"
}

# --- 1. the build directory ------------------------------------------------
step "build directory $libdir"
expect_eq "$(readlink "$libdir/libnetcdf.so.19" || true)" libnetcdf.so "$libdir/libnetcdf.so.19 link"
cc -std=c99 -Wall -Wextra -Werror -I"$root/include" "$here/app.c" -o "$work/app-built" \
    -L"$libdir" -lnetcdf -Wl,-rpath,"$libdir"
run_app built "$work/app-built" "$libdir/libnetcdf.so"

# The app must refuse another libnetcdf.so.19: build one that answers like
# netcdf-c and let the loader find it first.
mkdir -p "$work/impostor"
cc -std=c99 -Wall -Wextra -Werror -shared -fPIC -I"$root/include" "$here/impostor.c" \
    -Wl,-soname,libnetcdf.so.19 -o "$work/impostor/libnetcdf.so.19"
cc -std=c99 -Wall -Wextra -Werror -I"$root/include" "$here/app.c" -o "$work/app-norpath" -L"$libdir" -lnetcdf
if out=$(cd "$work/impostor" && LD_LIBRARY_PATH="$work/impostor" "$work/app-norpath" 2>&1); then
    fail "app did not notice it ran another library:
$out"
fi
case $out in *"not nczarr-rs"*) ok "app refuses another libnetcdf.so.19" ;;
    *) fail "app failed against the impostor, but not for that reason:
$out" ;; esac

# --- 2. make install ------------------------------------------------------
prefix=$work/prefix
step "make install PREFIX=$prefix"
make -C "$root" --no-print-directory -s install PREFIX="$prefix" LIB="$libdir/libnetcdf.so" > "$work/install.log"
[ -f "$prefix/lib/libnetcdf.so.19.1.0" ] && [ ! -L "$prefix/lib/libnetcdf.so.19.1.0" ] ||
    fail "no real file lib/libnetcdf.so.19.1.0"
cmp -s "$prefix/lib/libnetcdf.so.19.1.0" "$libdir/libnetcdf.so" || fail "installed library differs from the built one"
expect_eq "$(readlink "$prefix/lib/libnetcdf.so.19")" libnetcdf.so.19.1.0 "lib/libnetcdf.so.19 link"
expect_eq "$(readlink "$prefix/lib/libnetcdf.so")" libnetcdf.so.19 "lib/libnetcdf.so link"
for f in include/netcdf.h include/netcdf_meta.h include/netcdf_filter.h include/netcdf_filter_build.h \
    include/netcdf_filter_hdf5_build.h lib/pkgconfig/netcdf.pc lib/cmake/netCDF/netCDFConfig.cmake \
    lib/cmake/netCDF/netCDFConfigVersion.cmake lib/cmake/netCDF/netCDFTargets.cmake; do
    [ -f "$prefix/$f" ] || fail "$f not installed"
done
[ -x "$prefix/bin/nc-config" ] || fail "bin/nc-config not installed (executable)"
[ ! -e "$prefix/include/netcdf_f.h" ] || fail "netcdf_f.h (not public in netcdf-c) installed"
# netcdf_par.h comes only with the parallel build (ctests/mpi/run.sh
# checks that install).
[ ! -e "$prefix/include/netcdf_par.h" ] || fail "netcdf_par.h installed by the serial install"
ok "installed files"

# (a) CMake
step "CMake: find_package(netCDF), target_link_libraries(app netCDF::netcdf)"
cmake_app() { # NAME PREFIX_PATH LIBRARY
    local b=$work/cmake-$1
    cmake -S "$here/cmake" -B "$b" -DCMAKE_PREFIX_PATH="$2" -DEXPECT_PREFIX="$2" \
        -DEXPECT_VERSION="$version" > "$b.log" 2>&1 || { cat "$b.log"; fail "cmake configure ($1)"; }
    cmake --build "$b" > "$b.build.log" 2>&1 || { cat "$b.build.log"; fail "cmake build ($1)"; }
    run_app "cmake-$1" "$b/app" "$3"
}
cmake_app prefix "$prefix" "$prefix/lib/libnetcdf.so.19.1.0"

# (b) pkg-config
step "pkg-config --cflags --libs netcdf"
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
expect_eq "$(pkg-config --modversion netcdf)" "$version" "pkg-config --modversion"
expect_eq "$(pkg-config --variable=prefix netcdf)" "$prefix" "pkg-config prefix"
expect_eq "$(pkg-config --variable=libdir netcdf)" "$prefix/lib" "pkg-config libdir"
expect_eq "$(words pkg-config --cflags netcdf)" "-I$prefix/include" "pkg-config --cflags"
expect_eq "$(words pkg-config --libs netcdf)" "-L$prefix/lib -lnetcdf" "pkg-config --libs"
expect_eq "$(words pkg-config --static --libs netcdf)" "-L$prefix/lib -lnetcdf" "pkg-config --static --libs"
# shellcheck disable=SC2046 # word splitting is the point
cc -std=c99 -Wall -Wextra -Werror $(pkg-config --cflags netcdf) "$here/app.c" -o "$work/app-pc" \
    $(pkg-config --libs netcdf) -Wl,-rpath,"$(pkg-config --variable=libdir netcdf)"
run_app pkg-config "$work/app-pc" "$prefix/lib/libnetcdf.so.19.1.0"
unset PKG_CONFIG_PATH

# (c) nc-config
step "nc-config --cflags --libs"
ncc=$prefix/bin/nc-config
# shellcheck disable=SC2046
cc -std=c99 -Wall -Wextra -Werror $("$ncc" --cflags) "$here/app.c" -o "$work/app-ncc" \
    $("$ncc" --libs) -Wl,-rpath,"$("$ncc" --libdir)"
run_app nc-config "$work/app-ncc" "$prefix/lib/libnetcdf.so.19.1.0"

# nc-config's answers, one option at a time and several at once.
meta() { # netcdf_meta.h NC_HAS_* as yes/no
    local v
    v=$(sed -n "s/^#define[[:space:]]*$1[[:space:]]*\([0-9]*\).*/\1/p" "$prefix/include/netcdf_meta.h")
    if [ "$v" = 0 ]; then echo no; else echo yes; fi
}
check_ncc() { expect_eq "$("$ncc" "$1")" "$2" "nc-config $1"; }
check_ncc --version "netCDF $version"
check_ncc --prefix "$prefix"
check_ncc --includedir "$prefix/include"
check_ncc --libdir "$prefix/lib"
check_ncc --cflags "-I$prefix/include"
check_ncc --libs "-L$prefix/lib -lnetcdf"
check_ncc --static "-L$prefix/lib -lnetcdf"
expect_eq "$("$ncc" --libs --static)" "-L$prefix/lib -lnetcdf" "nc-config --libs --static"
expect_eq "$("$ncc" --cflags --libs)" "-I$prefix/include
-L$prefix/lib -lnetcdf" "nc-config --cflags --libs"
check_ncc --has-nc4 yes
check_ncc --has-nczarr yes
check_ncc --has-hdf4 no
# HDF5 and DAP are the netcdf-c's that serves other formats, found when
# nc-config runs: Debian's (libnetcdf19, with both), or none.
debian_netcdf_c=/usr/lib/$(uname -m)-linux-gnu/libnetcdf.so.19
check_ncc --netcdf-c "$debian_netcdf_c (4.9.0)"
for f in hdf5 dap dap2 dap4 cdf5; do
    check_ncc --has-$f yes
done
export NCZARR_RS_NETCDF_C=none
check_ncc --netcdf-c "none found: .nc files, DAP and in-memory datasets are not served"
for f in hdf5 dap dap2 dap4; do
    check_ncc --has-$f no
done
unset NCZARR_RS_NETCDF_C
check_ncc --has-pnetcdf no
check_ncc --has-parallel no
check_ncc --has-parallel4 no
check_ncc --has-s3 yes
check_ncc --has-szlib no
check_ncc --has-szip no
check_ncc --has-zstd yes
check_ncc --has-blosc yes
check_ncc --has-bz2 yes
check_ncc --has-stdfilters "bz2 deflate blosc zstd"
check_ncc --has-fortran no
check_ncc --has-c++4 no
check_ncc --plugindir ""
check_ncc --plugin-searchpath /usr/local/hdf5/lib/plugin
check_ncc --build-system cargo
# Answers that follow netcdf_meta.h (CDF5 too when no netcdf-c is found).
NCZARR_RS_NETCDF_C=none check_ncc --has-cdf5 "$(meta NC_HAS_CDF5)"
for pair in nc2:NC2 logging:LOGGING quantize:QUANTIZE multifilters:MULTIFILTERS \
    benchmarks:BENCHMARKS; do
    check_ncc "--has-${pair%%:*}" "$(meta "NC_HAS_${pair#*:}")"
done
all=$("$ncc" --all)
for line in "This netCDF $version has been built with the following features: " \
    "  --cflags            -> -I$prefix/include" "  --has-nczarr        -> yes" \
    "  --has-hdf5          -> yes" "  --netcdf-c          -> $debian_netcdf_c (4.9.0)" "  --version           -> netCDF $version"; do
    grep -qxF -- "$line" <<< "$all" || fail "nc-config --all lacks the line '$line':
$all"
done
# Every "-> value" line of --all lines its arrows up, as netcdf-c's does.
[ "$(grep -- '->' <<< "$all" | awk '{print index($0, "->")}' | sort -u | wc -l)" = 1 ] ||
    fail "nc-config --all: arrows not aligned"
"$ncc" --help | grep -q -- '--has-nczarr' || fail "nc-config --help lacks --has-nczarr"
if "$ncc" > /dev/null; then fail "nc-config without options succeeded"; fi
if out=$("$ncc" --bogus); then fail "nc-config --bogus succeeded"; fi
[ "$(head -n1 <<< "$out")" = "unknown option: --bogus" ] || fail "nc-config --bogus said: $out"
ok "nc-config answers"

# --- 3. make uninstall ----------------------------------------------------
step "make uninstall PREFIX=$prefix"
make -C "$root" --no-print-directory -s uninstall PREFIX="$prefix" > "$work/uninstall.log"
[ ! -e "$prefix" ] || fail "make uninstall left: $(find "$prefix")"
ok "uninstall removed everything, the prefix too (install created it)"

# --- 4. DESTDIR staging, multiarch libdir, foreign files, relocation -----
stage=$work/stage
final=/opt/nczarr-rs-package-test
mlibdir=$final/lib/x86_64-linux-gnu
staged=$stage$final
inst() { # make install/uninstall into the staging area
    make -C "$root" --no-print-directory -s "$1" DESTDIR="$stage" PREFIX="$final" libdir="$mlibdir" \
        LIB="$libdir/libnetcdf.so"
}
step "make install DESTDIR=$stage PREFIX=$final libdir=$mlibdir"
mkdir -p "$staged/include"
echo "/* not ours */" > "$staged/include/netcdf.h"
if inst install > "$work/stage-refused.log" 2>&1; then fail "install replaced a netcdf.h it did not install"; fi
grep -q "not installed by nczarr-rs" "$work/stage-refused.log" || { cat "$work/stage-refused.log"; fail "refusal message"; }
expect_eq "$(cat "$staged/include/netcdf.h")" "/* not ours */" "foreign netcdf.h after refused install"
[ ! -e "$staged/share" ] && [ ! -e "$staged/lib" ] || fail "refused install wrote files"
ok "install refuses to replace files it did not install"
rm "$staged/include/netcdf.h"
echo "/* not ours either */" > "$staged/include/other.h"
before=$(cd "$stage" && find . | sort)

inst install > "$work/stage-install.log"
inst install > "$work/stage-reinstall.log"
[ -f "$stage$mlibdir/libnetcdf.so.19.1.0" ] || fail "no library in the multiarch libdir"
expect_eq "$("$staged/bin/nc-config" --prefix)" "$final" "staged nc-config --prefix"
expect_eq "$("$staged/bin/nc-config" --libdir)" "$mlibdir" "staged nc-config --libdir"
grep -qx 'libdir=${exec_prefix}/lib/x86_64-linux-gnu' "$stage$mlibdir/pkgconfig/netcdf.pc" ||
    fail "netcdf.pc libdir: $(grep libdir= "$stage$mlibdir/pkgconfig/netcdf.pc")"
ok "staged install (and reinstall) with a multiarch libdir"

step "CMake package in the staging area, and moved elsewhere"
cmake_app staged "$staged" "$stage$mlibdir/libnetcdf.so.19.1.0"
mv "$staged" "$work/moved"
cmake_app moved "$work/moved" "$work/moved/lib/x86_64-linux-gnu/libnetcdf.so.19.1.0"
mv "$work/moved" "$staged"

step "make uninstall DESTDIR=$stage"
inst uninstall > "$work/stage-uninstall.log"
after=$(cd "$stage" && find . | sort)
[ "$after" = "$before" ] || fail "uninstall left a different tree:
$(diff <(echo "$before") <(echo "$after"))"
ok "uninstall left exactly the files that were there before"
if inst uninstall > /dev/null 2>&1; then fail "uninstall without a manifest succeeded"; fi
ok "uninstall without an installation fails"

echo "package tests: all passed"
