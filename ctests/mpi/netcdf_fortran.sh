#!/usr/bin/env bash
# netcdf-fortran (Debian's source package "netcdf-fortran") built with
# OpenMPI's compilers against the parallel install of this library, for
# ctests/mpi/nf90_par.f90: its nf90_create/nf90_open with comm= and info=
# call nc_create_par_fortran/nc_open_par_fortran in whichever
# libnetcdf.so.19 the program loads.
#
#   ctests/mpi/netcdf_fortran.sh MPI_LIBDIR
#
# Prints the install prefix (include/netcdf.mod, lib/libnetcdff.so.7) on
# stdout, what it did on stderr. The prefix is a cache, reused by every
# clone on the machine:
#   ${NCZARR_RS_TOOLS:-$HOME/.cache/nczarr-rs/tools}/netcdf-fortran-mpi/VERSION-HASH
# VERSION is the Debian source version; HASH covers what the build depends
# on here: include/netcdf.h, netcdf_par.h and netcdf_meta.h (configure reads
# NC_HAS_PARALLEL there), this script and the Fortran compiler's version
# (module files are compiler-specific). When the prefix is complete nothing
# is built or fetched. The downloaded source is kept in netcdf-fortran-src/.
#
# The library is built against a scratch parallel install (packaging/
# install.sh PARALLEL=1, removed afterwards) and has no run path: a program
# chooses the libnetcdf.so.19 it runs with. Its nf-config --flibs names that
# scratch directory; nothing here uses it.
#
# Exit status: 0 built or cached; 2 a prerequisite is missing (mpif90 or
# mpicc, or the source package cannot be had): the caller may skip; 1 the
# build failed.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
mpi_libdir=$(cd "${1:?usage: netcdf_fortran.sh MPI_LIBDIR}" && pwd)
tools=${NCZARR_RS_TOOLS:-$HOME/.cache/nczarr-rs/tools}
say() { echo "netcdf-fortran: $*" >&2; }
missing() { say "$*"; exit 2; }

for tool in mpicc mpif90; do
    command -v $tool >/dev/null || missing "no $tool (tools/install-test-deps.sh installs openmpi-bin and libopenmpi-dev)"
done
# mpif90 runs gfortran, which it does not depend on as a package.
fc_version=$(mpif90 --version 2>/dev/null | head -n 1) || true
[ -n "$fc_version" ] || missing "mpif90 does not run (no gfortran? tools/install-test-deps.sh installs it)"

# The newest source version apt knows.
source_version() {
    local v best=
    for v in $(apt-cache showsrc --only-source netcdf-fortran 2>/dev/null | awk '/^Version:/ {print $2}'); do
        if [ -z "$best" ] || dpkg --compare-versions "$v" gt "$best"; then best=$v; fi
    done
    echo "$best"
}
version=$(source_version)
if [ -z "$version" ]; then
    # No deb-src entry yet: the netcdf-c suite's fetch adds the machine's
    # one (and fetches netcdf-c's source, which mpi-test builds anyway).
    say "apt knows no source of netcdf-fortran: adding deb-src with tests/netcdf_c_suite/fetch.sh"
    "$root/tests/netcdf_c_suite/fetch.sh" >&2 || true
    version=$(source_version)
    [ -n "$version" ] || missing "apt has no source package netcdf-fortran (deb-src)"
fi

hash=$(cat "$root/include/netcdf.h" "$root/include/netcdf_par.h" "$root/include/netcdf_meta.h" "$here/netcdf_fortran.sh" \
    <(echo "$fc_version") | sha256sum | cut -c1-12)
cache=$tools/netcdf-fortran-mpi
prefix=$cache/$version-$hash
if [ -f "$prefix/.complete" ]; then
    say "cached in $prefix"
    echo "$prefix"
    exit 0
fi

mkdir -p "$cache"
# One build at a time (two clones testing at once); the second reuses it.
exec 9> "$cache/.lock"
flock 9
if [ -f "$prefix/.complete" ]; then
    say "cached in $prefix (built meanwhile)"
    echo "$prefix"
    exit 0
fi
start=$SECONDS
# What a failed or interrupted build left (under the lock: no build runs).
for d in "$cache"/.build-* "$cache"/*; do
    [ ! -d "$d" ] || [ -f "$d/.complete" ] || rm -rf "$d"
done

# ---- the source ----
src=$tools/netcdf-fortran-src/$version
mkdir -p "$src"
upstream=${version%-*}
upstream=${upstream#*:}
dsc=$src/netcdf-fortran_${version#*:}.dsc
have() { ls "$src"/netcdf-fortran_"$1".* 2>/dev/null | head -n 1 || true; }
orig=$(have "$upstream.orig.tar")
debian_tar=$(have "${version#*:}.debian.tar")
if [ ! -f "$dsc" ] || [ -z "$orig" ] || [ -z "$debian_tar" ]; then
    say "fetching Debian's source netcdf-fortran $version into $src"
    # As root apt warns that it cannot drop privileges to _apt; harmless.
    # A failure is judged by what arrived (below).
    (cd "$src" && apt-get source --download-only -qq "netcdf-fortran=$version" 2>&1 | grep -v unsandboxed >&2) || true
    orig=$(have "$upstream.orig.tar")
    debian_tar=$(have "${version#*:}.debian.tar")
fi
[ -f "$dsc" ] && [ -n "$orig" ] || missing "apt-get source netcdf-fortran=$version fetched no .dsc and .orig tarball"
build=$cache/.build-$version-$hash
rm -rf "$build" "$prefix"
mkdir -p "$build"
if [ -n "$debian_tar" ]; then
    command -v dpkg-source >/dev/null || missing "no dpkg-source (tools/install-test-deps.sh installs dpkg-dev)"
    # Checks the tarballs against the .dsc and applies Debian's patches.
    dpkg-source -q -x "$dsc" "$build/src" > "$build/dpkg-source.log" 2>&1 ||
        { cat "$build/dpkg-source.log" >&2; say "dpkg-source -x $dsc failed"; exit 1; }
    patches="Debian's patches applied"
else
    # Some mirrors (this machine's) serve the .dsc and the upstream tarball
    # but not Debian's packaging tarball: build the upstream tarball the
    # .dsc names, checked against its checksum, without Debian's patches.
    sum=$(awk -v f="$(basename "$orig")" '/^Checksums-Sha256:/ {on = 1; next} /^[^ ]/ {on = 0}
        on && $3 == f {print $1}' "$dsc")
    [ -n "$sum" ] && [ "$(sha256sum < "$orig" | cut -d' ' -f1)" = "$sum" ] ||
        { say "$(basename "$orig") does not match the checksum in $(basename "$dsc")"; exit 1; }
    mkdir "$build/src"
    tar -xf "$orig" -C "$build/src" --strip-components=1
    patches="Debian's packaging tarball unavailable from the mirror: upstream tarball only, without Debian's patches"
fi
say "building netcdf-fortran $version ($patches) in $build"

# ---- our parallel install, to build against ----
PREFIX=$build/netcdf-c PARALLEL=1 LIB=$mpi_libdir/libnetcdf.so "$root/packaging/install.sh" install > "$build/install-c.log" ||
    { cat "$build/install-c.log" >&2; say "packaging/install.sh failed"; exit 1; }

log() { local step=$1; shift; "$@" > "$build/$step.log" 2>&1 || { tail -n 30 "$build/$step.log" >&2; say "$step failed (log: $build/$step.log)"; exit 1; }; }
cd "$build/src"
log configure ./configure --prefix="$prefix" --enable-shared --disable-static --disable-doxygen \
    CC=mpicc FC=mpif90 F77=mpif90 CPPFLAGS="-I$build/netcdf-c/include" LDFLAGS="-L$build/netcdf-c/lib"
# The parallel build as netcdf-fortran means it: 4.5.4 reads NC_HAS_PARALLEL4
# (or NC_HAS_PARALLEL) in netcdf_meta.h and then defines NF_HAS_PARALLEL4,
# which turns on its own parallel tests. Its nf_create_par calls
# nc_create_par_fortran either way, so Debian's serial build does too.
grep -q '^checking if netCDF-fortran should be built with HDF5 parallel I/O features\.\.\. yes$' "$build/configure.log" &&
    grep -q '^#define NF_HAS_PARALLEL4 1$' config.log ||
    { grep -i parallel "$build/configure.log" >&2; say "configure did not detect the parallel netcdf-c"; exit 1; }
log make make -j2
log install make install

# What the test relies on: the parallel entry points, over libnetcdf.so.19
# (its references name the symbol version of the parallel build, if any).
# (Read whole first: grep -q ending a pipe early fails it under pipefail.)
lib=$prefix/lib/libnetcdff.so.7
syms=$(nm -D "$lib")
grep -q ' T nf_create_par_$' <<< "$syms" && grep -q ' U nc_create_par_fortran\(@.*\)\?$' <<< "$syms" &&
    grep -q 'NEEDED.*\[libnetcdf\.so\.19\]' <<< "$(readelf -d "$lib")" ||
    { say "$lib lacks nf_create_par_ -> nc_create_par_fortran over libnetcdf.so.19"; exit 1; }
cp "$build/configure.log" config.log "$prefix/"
printf 'netcdf-fortran %s (%s)\nbuilt %s against %s\n%s\n' "$version" "$patches" "$(date -u +%FT%TZ)" \
    "$mpi_libdir" "$fc_version" > "$prefix/.complete"
cd "$cache"
rm -rf "$build"
say "built in $prefix ($((SECONDS - start)) s)"
echo "$prefix"
