#!/usr/bin/env bash
# The MPI tests (make mpi-test): C programs using netcdf_par.h, built with
# mpicc against the parallel library and run under mpirun on 4 ranks
# (oversubscribed: CI machines have 2 cores), then the stores they wrote
# read by the serial library's ncdump, by netcdf-c 4.10.1's (the oracle,
# Zarr v2 only: it reads no v3) and by zarr-python, values checked; and a
# Fortran 90 program over netcdf-fortran built with mpif90 from Debian's
# source (netcdf_fortran.sh).
#
# Usage: ctests/mpi/run.sh MPI_LIBDIR SERIAL_LIBDIR PYTHON
#   MPI_LIBDIR     the parallel build (make MPI=1: target/mpi/release)
#   SERIAL_LIBDIR  the default build (target/release)
#   PYTHON         the test venv's python (netCDF4 for the oracle, zarr)
# The S3 runs use moto and s3s-fs (tools/s3-servers.sh; MOTO_SERVER and
# S3S_FS name the binaries, as for make unit-test). A missing mpicc,
# mpirun, S3 server, mpif90 (gfortran) or netcdf-fortran source package
# fails under CI=true, else what needs it is skipped with a message.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
mpi_libdir=$(cd "${1:?usage: run.sh MPI_LIBDIR SERIAL_LIBDIR PYTHON}" && pwd)
serial_libdir=$(cd "${2:?usage: run.sh MPI_LIBDIR SERIAL_LIBDIR PYTHON}" && pwd)
python=${3:?usage: run.sh MPI_LIBDIR SERIAL_LIBDIR PYTHON}
NP=${NCZARR_RS_MPI_NP:-4}

for tool in mpicc mpirun; do
    if ! command -v $tool >/dev/null; then
        if [ "${CI:-}" = true ]; then
            echo "mpi-test: FAIL: no $tool (tools/install-test-deps.sh installs openmpi-bin and libopenmpi-dev)" >&2
            exit 1
        fi
        echo "mpi-test: skipped: no $tool (install openmpi-bin and libopenmpi-dev)"
        exit 0
    fi
done
for lib in "$mpi_libdir/libnetcdf.so.19" "$serial_libdir/libnetcdf.so.19"; do
    [ -e "$lib" ] || { echo "mpi-test: $lib is missing (make build; make MPI=1 build)" >&2; exit 1; }
done
nm -D --defined-only "$mpi_libdir/libnetcdf.so" | awk '{sub(/@.*/, "", $3)} $3 == "nc_create_par" {found = 1} END {exit !found}' ||
    { echo "mpi-test: $mpi_libdir/libnetcdf.so is not the parallel build (make MPI=1 build)" >&2; exit 1; }

work=$(dirname "$mpi_libdir")/mpi-test
rm -rf "$work"
mkdir -p "$work/bin" "$work/run"
for src in "$here"/t_*.c; do
    mpicc -std=c99 -Wall -Wextra -Werror -O2 -I"$root/include" "$src" -L"$mpi_libdir" -lnetcdf \
        -Wl,-rpath,"$mpi_libdir" -o "$work/bin/$(basename "$src" .c)"
done

# OpenMPI refuses to run as root unless told (CI containers run as root).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# No network interfaces to probe on one machine: shared memory and self.
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
mpi() { timeout 300 mpirun -np "$NP" --oversubscribe "$@"; }

# netcdf-c 4.10.1 (the tools tests' oracle: the netCDF4 wheel's library
# behind a shim), built where those tests build it, with the wheel's filter
# plugins (shuffle is one).
oracle_setup=$(cd "$root" && "$python" -c \
    'import sys; sys.path.insert(0, "tests/tools"); import harness; print(harness.build_oracle()); print(harness.wheel_plugins())')
oracle=$(sed -n 1p <<< "$oracle_setup")
oracle_plugins=$(sed -n 2p <<< "$oracle_setup")

cd "$work/run"
failed=0
ran=0
run() {
    local name=$1; shift
    ran=$((ran + 1))
    if "$@"; then echo "PASS $name"; else echo "FAIL $name"; failed=$((failed + 1)); fi
}

# The communicator's collectives (src/parallel/comm.rs's tests), from the
# library's unit-test binary of the parallel build, on every rank.
unit_test=$(cd "$root" && cargo test --release --features mpi --lib --target-dir "$(dirname "$mpi_libdir")" \
    --no-run --message-format=json 2>/dev/null |
    "$python" -c 'import json, sys; [print(m["executable"]) for m in map(json.loads, sys.stdin) if m.get("executable")]')
[ -x "$unit_test" ] || { echo "mpi-test: cannot build the parallel unit tests" >&2; exit 1; }
unit_collectives() {
    mpi "$unit_test" --exact parallel::comm::tests::collectives --test-threads=1 > unit.log 2>&1 || { cat unit.log; return 1; }
}
run "comm collectives" unit_collectives

# (a), (e): 4 ranks write one store, in each format; (b): read back by
# other readers.
write_and_read() {
    local store=$1 mode=$2 zarr_format=$3 oracle_reads=$4
    local url="file://$PWD/$store#mode=$mode"
    mpi "$work/bin/t_par_write" "$url" || return 1
    echo "  ncdump over the serial nczarr-rs:"
    LD_LIBRARY_PATH=$serial_libdir ncdump -v field,zfield,rec "$url" | "$python" "$here/check_dump.py" "$NP" || return 1
    if [ "$oracle_reads" = yes ]; then
        echo "  ncdump over netcdf-c 4.10.1:"
        LD_LIBRARY_PATH=$oracle HDF5_PLUGIN_PATH=$oracle_plugins ncdump -v field,zfield,rec "$url" |
            "$python" "$here/check_dump.py" "$NP" || return 1
    fi
    "$python" "$here/check_zarr.py" "$NP" "$store" "$zarr_format"
}
run "t_par_write nczarr" write_and_read nczarr.zarr nczarr,file 2 yes
run "t_par_write zarr" write_and_read zarr.zarr zarr,file 2 yes
run "t_par_write zarr v3" write_and_read zarr3.zarr zarr,v3,file 3 no
run "t_par_write nczarr v3" write_and_read nczarr3.zarr nczarr,v3,file 3 no
# Chunks shared by several ranks (two-phase I/O), independent and
# collective, compressed and not: every value on every rank, then by
# zarr-python and by ncdump over the serial build.
shared() {
    local store=$1 mode=$2 zarr_format=$3 sharded=${4:-}
    local url="file://$PWD/$store#mode=$mode"
    mpi "$work/bin/t_par_shared" "$url" $sharded || return 1
    "$python" "$here/check_shared.py" "$store" "$zarr_format" || return 1
    LD_LIBRARY_PATH=$serial_libdir ncdump -v zcells,rec "$url" | tr -d ' \n' |
        grep -q "rec=100,101,102,103,104,105,106,107;" || { echo "ncdump over the serial build: records differ"; return 1; }
}
run "t_par_shared nczarr" shared shared.zarr nczarr,file 2
run "t_par_shared zarr v3" shared shared3.zarr zarr,v3,file 3
# The same in shards: each shard assembled by one rank.
run "t_par_shared nczarr v3 sharded" shared sharded3.zarr nczarr,v3,file 3 sharded
# A netCDF-4 file and an NCZarr store from one program: the .nc through
# Debian's parallel netcdf-c beside us (libnetcdf_mpi.so.19, MPI-IO), then
# read by the serial build's ncdump (Debian's serial netcdf-c behind it).
netcdf4_and_zarr() {
    [ -e /usr/lib/x86_64-linux-gnu/libnetcdf_mpi.so.19 ] ||
        { echo "no libnetcdf_mpi.so.19 (tools/install-test-deps.sh installs libnetcdf-mpi-19)"; return 1; }
    mpi "$work/bin/t_par_netcdf4" "$PWD/both.nc" "file://$PWD/both.zarr#mode=nczarr,file" || return 1
    LD_LIBRARY_PATH=$serial_libdir ncdump -v field "$PWD/both.nc" | tr -d ' \n' |
        grep -q "field=0.25,1.25,2.25,3.25,4.25,5.25,1000.25,.*,$(( NP * 4 - 1 ))005.25;}" ||
        { echo "ncdump of both.nc over the serial build: values differ"; return 1; }
}
run "t_par_netcdf4 (.nc and NCZarr)" netcdf4_and_zarr
# Renames of stored objects, v2 and v3.
run "t_par_rename nczarr" mpi "$work/bin/t_par_rename" "file://$PWD/rename.zarr#mode=nczarr,file"
run "t_par_rename nczarr v3" mpi "$work/bin/t_par_rename" "file://$PWD/rename3.zarr#mode=nczarr,v3,file"
# NCTRACING lines say the rank (the ranks share one stderr).
traced_ranks() {
    NCTRACING=5 mpi "$work/bin/t_par_rename" "file://$PWD/traced.zarr#mode=nczarr,file" 2> traced.err >/dev/null ||
        { cat traced.err; return 1; }
    local r
    for r in $(seq 0 $((NP - 1))); do
        grep -q "^nczarr-rs (5) \[rank $r\] file put " traced.err || { echo "no trace line of rank $r"; return 1; }
    done
}
run "NCTRACING ranks" traced_ranks
# S3: every rank its own connections; rank 0 clears a clobbered prefix.
s3_state=$work/s3-servers
s3_servers() { "$root/tools/s3-servers.sh" "$@" "$s3_state"; }
if s3_servers start >/dev/null; then
    trap 's3_servers stop >/dev/null 2>&1 || true' EXIT
    # shellcheck disable=SC1091
    . "$s3_state/urls.env"
    s3_write() {
        local url=$1/$NCZARR_RS_TEST_BUCKET/$2
        HOME=$work AWS_EC2_METADATA_DISABLED=true AWS_ACCESS_KEY_ID=AK AWS_SECRET_ACCESS_KEY=SK AWS_REGION=us-east-1 \
            mpi "$work/bin/t_par_write" "$url" || return 1
        echo "  ncdump over the serial nczarr-rs:"
        HOME=$work AWS_EC2_METADATA_DISABLED=true AWS_ACCESS_KEY_ID=AK AWS_SECRET_ACCESS_KEY=SK AWS_REGION=us-east-1 \
            LD_LIBRARY_PATH=$serial_libdir ncdump -v field,zfield,rec "$url" | "$python" "$here/check_dump.py" "$NP"
    }
    run "t_par_write s3 (s3s-fs) nczarr" s3_write "$NCZARR_RS_TEST_S3S" "par.zarr#mode=nczarr,s3"
    run "t_par_write s3 (s3s-fs) zarr v3" s3_write "$NCZARR_RS_TEST_S3S" "par3.zarr#mode=zarr,v3,s3"
    run "t_par_write s3 (moto) nczarr" s3_write "$NCZARR_RS_TEST_MOTO" "par.zarr#mode=nczarr,s3"
    s3_shared() {
        local url=$1/$NCZARR_RS_TEST_BUCKET/$2
        shift 2
        HOME=$work AWS_EC2_METADATA_DISABLED=true AWS_ACCESS_KEY_ID=AK AWS_SECRET_ACCESS_KEY=SK AWS_REGION=us-east-1 \
            mpi "$work/bin/t_par_shared" "$url" "$@"
    }
    run "t_par_shared s3 (s3s-fs) nczarr" s3_shared "$NCZARR_RS_TEST_S3S" "shared.zarr#mode=nczarr,s3"
    run "t_par_shared s3 (moto) zarr v3 sharded" s3_shared "$NCZARR_RS_TEST_MOTO" "sharded3.zarr#mode=zarr,v3,s3" sharded
elif [ "${CI:-}" = true ]; then
    echo "FAIL s3: the S3 test servers did not start (tools/install-test-deps.sh installs them)"
    failed=$((failed + 1))
else
    echo "skipped s3: the S3 test servers did not start (MOTO_SERVER, S3S_FS; see tools/s3-servers.sh)"
fi
# netcdf-c 4.9.0's own parallel test programs (nc_test4/tst_parallel*
# and the rest of its run_par_test.sh), on NCZarr stores.
netcdf_c_programs() {
    "$here/netcdf_c_tests.sh" "$mpi_libdir" "$serial_libdir" "$work/netcdf-c" > netcdf-c.log 2>&1
    local rc=$?
    sed 's/^/  /' netcdf-c.log
    return $rc
}
run "netcdf-c's parallel tests" netcdf_c_programs
# Fortran 90 over MPI: nf90_par.f90 through netcdf-fortran built from
# Debian's source against the parallel install (netcdf_fortran.sh, cached
# across runs), then the store by ncdump over the serial build and by
# zarr-python. The program's rpath is DT_RPATH (--disable-new-dtags), which
# the loader also searches for libnetcdff's own libnetcdf.so.19; a
# DT_RUNPATH is not, and as the program does not call libnetcdf itself
# (--as-needed drops -lnetcdf) the system's netcdf-c would load.
nf90_parallel() {
    local url="file://$PWD/f90par.zarr#mode=nczarr,file" lib want got
    mkdir -p "$work/nf90"
    mpif90 -Wall -Werror -O2 -I"$nf90_prefix/include" "$here/nf90_par.f90" -J "$work/nf90" \
        -L"$nf90_prefix/lib" -lnetcdff -Wl,--disable-new-dtags,-rpath,"$nf90_prefix/lib:$mpi_libdir" \
        -o "$work/bin/nf90_par" || return 1
    for lib in "libnetcdff.so.7 $nf90_prefix/lib" "libnetcdf.so.19 $mpi_libdir"; do
        want=$(readlink -f "${lib#* }/${lib%% *}")
        got=$(ldd "$work/bin/nf90_par" | awk -v l="${lib%% *}" '$1 == l {print $3}')
        [ "$(readlink -f "$got")" = "$want" ] || { echo "nf90_par loads ${lib%% *} from '$got', not ${lib#* }"; return 1; }
    done
    mpi "$work/bin/nf90_par" "$url" || return 1
    LD_LIBRARY_PATH=$serial_libdir ncdump -v temp,count,rec "$url" |
        "$python" "$here/check_nf90_par.py" "$NP" f90par.zarr
}
if nf90_prefix=$("$here/netcdf_fortran.sh" "$mpi_libdir" 2> netcdf-fortran.log); then
    sed 's/^/  /' netcdf-fortran.log
    run "nf90 parallel" nf90_parallel
else
    nf90_rc=$?
    sed 's/^/  /' netcdf-fortran.log
    if [ "$nf90_rc" = 2 ] && [ "${CI:-}" != true ]; then
        echo "skipped nf90 parallel: $(tail -n 1 netcdf-fortran.log)"
    else
        # Under CI a missing compiler or source package fails too.
        ran=$((ran + 1))
        failed=$((failed + 1))
        echo "FAIL nf90 parallel: no netcdf-fortran (ctests/mpi/netcdf_fortran.sh)"
    fi
fi
# (c), (d) and the other refusals.
run t_par_errors mpi "$work/bin/t_par_errors"
# OpenMPI warns of any fork; this one is the test.
run t_par_fork env OMPI_MCA_mpi_warn_on_fork=0 timeout 300 mpirun -np "$NP" --oversubscribe "$work/bin/t_par_fork"

# The MPI benchmark (bench/mpi/run) on a tiny field on 2 ranks: its one
# program over ours (a directory, s3s-fs) and over Debian's parallel
# netcdf-c, every value checked, nothing timed.
run "mpi bench smoke" "$root/bench/mpi/run" --smoke --libdir "$mpi_libdir"

# The parallel install (make MPI=1 install): netcdf_par.h, nc-config and
# the CMake package say parallel, and a program built as nc-config says
# runs on 4 ranks over the installed library.
parallel_install() {
    local prefix=$work/prefix ncc
    PREFIX=$prefix PARALLEL=1 LIB=$mpi_libdir/libnetcdf.so "$root/packaging/install.sh" install >/dev/null
    ncc=$prefix/bin/nc-config
    [ -f "$prefix/include/netcdf_par.h" ] || { echo "no netcdf_par.h installed"; return 1; }
    for q in --has-parallel --has-parallel4; do
        [ "$("$ncc" $q)" = yes ] || { echo "nc-config $q: $("$ncc" $q)"; return 1; }
    done
    grep -q '^#define NC_HAS_PARALLEL  *1' "$prefix/include/netcdf_meta.h" || { echo "NC_HAS_PARALLEL not 1"; return 1; }
    grep -qx 'set(netCDF_HAS_PARALLEL yes)' "$prefix/lib/cmake/netCDF/netCDFConfig.cmake" ||
        { echo "netCDF_HAS_PARALLEL not yes"; return 1; }
    # shellcheck disable=SC2046
    $("$ncc" --cc) -std=c99 $("$ncc" --cflags) "$here/t_par_write.c" $("$ncc" --libs) \
        -Wl,-rpath,"$prefix/lib" -o "$work/bin/t_par_write_installed" || return 1
    mpi "$work/bin/t_par_write_installed" "file://$PWD/installed.zarr#mode=nczarr,file" || return 1
    PREFIX=$prefix "$root/packaging/install.sh" uninstall >/dev/null
    [ ! -e "$prefix" ] || { echo "uninstall left $(find "$prefix")"; return 1; }
}
run "parallel install" parallel_install

echo "mpi-test: $((ran - failed)) of $ran passed ($NP ranks)"
[ "$failed" = 0 ]
