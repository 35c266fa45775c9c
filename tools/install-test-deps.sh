#!/usr/bin/env bash
# Install everything the tests need on a fresh machine: Debian packages for
# the C toolchain, binutils, CMake and pkg-config, a Python venv with pinned
# packages, and the pinned cbindgen used by the ABI check. Each step is
# skipped when what it installs is already there, so repeated runs are quick.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

need_apt=()
command -v cc >/dev/null || need_apt+=(gcc libc6-dev)
# libFuzzer (built by the fuzz targets' libfuzzer-sys) is C++.
command -v c++ >/dev/null || need_apt+=(g++)
command -v nm >/dev/null || need_apt+=(binutils)
command -v make >/dev/null || need_apt+=(make)
# tools/s3-servers.sh waits for the S3 test servers with curl.
command -v curl >/dev/null || need_apt+=(curl)
python3 -c "import ensurepip, venv" 2>/dev/null || need_apt+=(python3-venv)
# The tool tests (tests/tools) check that we define what Debian's
# libnetcdff.so.7 imports from libnetcdf.so.19.
dpkg -s libnetcdff-dev >/dev/null 2>&1 || need_apt+=(libnetcdff-dev)
# Debian's netcdf-c 4.9.0 tools write the 4.9.0-era stores the tests read.
command -v ncgen >/dev/null || need_apt+=(netcdf-bin)
# Debian's netcdf-c library and headers: the reference the *_debian_diff
# tests build the same C program against.
[ -e /usr/include/netcdf.h ] || need_apt+=(libnetcdf-dev)
# The packaging test builds programs with CMake and pkg-config.
command -v cmake >/dev/null || need_apt+=(cmake)
command -v pkg-config >/dev/null || need_apt+=(pkg-config)
# The Fortran tests: gfortran and Debian's netcdf-fortran (libnetcdff.so.7,
# its module files and nf-config).
command -v gfortran >/dev/null || need_apt+=(gfortran)
command -v nf-config >/dev/null || need_apt+=(libnetcdff-dev)
# The zip tests (tests/zip) zip directory stores with Info-ZIP's zip.
command -v zip >/dev/null || need_apt+=(zip)
# make memcheck-test: valgrind memcheck (AddressSanitizer comes with gcc).
command -v valgrind >/dev/null || need_apt+=(valgrind)
# ctests/t_durability.sh counts fsync calls with strace.
command -v strace >/dev/null || need_apt+=(strace)
# make mpi-test: the parallel build compiles csrc/parallel.c with OpenMPI's
# mpicc and runs its tests under mpirun.
dpkg -s libopenmpi-dev >/dev/null 2>&1 || need_apt+=(libopenmpi-dev)
command -v mpirun >/dev/null || need_apt+=(openmpi-bin)
# Debian's parallel netcdf-c 4.9.0 (the runtime only: libnetcdf-mpi-dev
# would switch hdf5.pc to the MPI HDF5): the parallel build hands it
# nc_create_par/nc_open_par of .nc files (ctests/mpi/t_par_netcdf4.c), and
# the MPI benchmark's smoke (bench/mpi/run --smoke, in make mpi-test) runs
# its program over it too.
dpkg -s libnetcdf-mpi-19 >/dev/null 2>&1 || need_apt+=(libnetcdf-mpi-19)
# Its Fortran test builds netcdf-fortran from Debian's source package
# (ctests/mpi/netcdf_fortran.sh) with mpif90 (openmpi-bin's, running
# gfortran, above); dpkg-source unpacks the source package.
command -v dpkg-source >/dev/null || need_apt+=(dpkg-dev)
# Debian's programs that link libnetcdf.so.19, run over us on .nc files
# and Zarr stores (tests/programs): NCO, CDO, GDAL, python3-netcdf4 and
# xarray, netcdf-c++4 (its headers to build a program), HDF5's headers
# (a reproducer built against it). Without recommends: CDO's pull in a
# gigabyte of plotting libraries.
need_programs=()
while read -r pkg; do
    [ -z "$pkg" ] || dpkg -s "$pkg" >/dev/null 2>&1 || need_programs+=("$pkg")
done < "$root/tests/programs/PACKAGES"
if [ ${#need_apt[@]} -gt 0 ] || [ ${#need_programs[@]} -gt 0 ]; then
    echo "installing Debian packages: ${need_apt[*]} ${need_programs[*]}"
    apt-get update -qq
    [ ${#need_apt[@]} -eq 0 ] || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}"
    [ ${#need_programs[@]} -eq 0 ] ||
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need_programs[@]}"
fi

# A venv per requirements file; rebuilt when the file changes.
make_venv() {
    local venv=$1 requirements=$2
    if ! cmp -s "$requirements" "$venv/.requirements" 2>/dev/null; then
        echo "creating $venv"
        rm -rf "$venv"
        python3 -m venv "$venv"
        "$venv/bin/pip" install -q --disable-pip-version-check -r "$requirements"
        cp "$requirements" "$venv/.requirements"
    fi
}
make_venv "$root/.venv" "$root/tests/requirements.txt"
make_venv "$root/.venv-zarr2" "$root/tests/requirements-zarr2.txt"

cbindgen_version=0.29.2
tools=${NCZARR_RS_TOOLS:-${HOME:-/tmp}/.cache/nczarr-rs/tools}
if ! "$tools/bin/cbindgen" --version 2>/dev/null | grep -q "$cbindgen_version"; then
    echo "installing cbindgen $cbindgen_version (ABI checker)"
    cargo install -q --locked --version "$cbindgen_version" --root "$tools" cbindgen
fi

# The fuzz targets' driver (make fuzz-test, fuzz/run.sh).
cargo_fuzz_version=0.13.2
if ! "$tools/bin/cargo-fuzz" --version 2>/dev/null | grep -q "$cargo_fuzz_version"; then
    echo "installing cargo-fuzz $cargo_fuzz_version (fuzz tests)"
    cargo install -q --locked --version "$cargo_fuzz_version" --root "$tools" cargo-fuzz
fi

# The S3 tests' second server (make s3-test, tests/s3): s3s-fs, an S3
# server over a directory that verifies SigV4 signatures (header and
# presigned). 0.14.1: later versions need a newer rustc.
s3s_fs_version=0.14.1
if ! "$tools/bin/s3s-fs" --version 2>/dev/null | grep -q "$s3s_fs_version"; then
    echo "installing s3s-fs $s3s_fs_version (S3 test server)"
    cargo install -q --locked --version "$s3s_fs_version" --features binary --root "$tools" s3s-fs
fi
