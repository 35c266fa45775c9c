#!/usr/bin/env bash
# Crash safety: ctests/crash.c kills a writer with SIGKILL at random
# moments (seeded by CRASH_SEED, bounded by CRASH_SECONDS, default 45) and
# checks every killed store
# with this library; then a sample of the killed stores is read with
# netcdf-c 4.10.1 (the netCDF4 wheel's library in the test venv):
# - using .zmetadata (NCZARR_CONSOLIDATED=1), every sample must pass;
# - reading the objects alone (netcdf-c's default), every sample whose
#   commit was not interrupted must pass; the others are counted (netcdf-c
#   refuses a variable whose shape disagrees with its unlimited dimension,
#   which the objects of an interrupted commit can show).
# Each kill loop fails unless some kills landed inside a commit (the
# writer's pending .zmetadata on disk after the kill; crash.c aims some
# kills at commits), and the samples must include interrupted commits.
#
# Usage: ctests/t_crash.sh (run by ctests/run.sh in a scratch directory;
# NCZARR_RS_LIBDIR is our library's directory).
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
libdir=${NCZARR_RS_LIBDIR:-$root/target/release}
unset LD_LIBRARY_PATH LD_PRELOAD
fail() { echo "FAIL: $*"; exit 1; }
cflags="-std=c99 -Wall -Wextra -Werror -O2"

cc $cflags -I"$root/include" "$here/crash.c" -L"$libdir" -lnetcdf -Wl,-rpath,"$libdir" -o crash_ours ||
    fail "build (ours)"
# fsync changes nothing for SIGKILL but the timing: most of the budget
# goes to runs without it (more iterations), the rest with every commit
# durable (NCZARR_RS_FSYNC=1: the barriers between a commit's steps, which
# the default's nc_sync also takes).
# Under a memory checker every run is far slower: a shorter budget there
# (the point is memory errors, not the odds of hitting a window).
seconds=${CRASH_SECONDS:-$([ -n "${NCZARR_RS_CTEST_SANITIZE:-}" ] && echo 15 || echo 45)}
NCZARR_RS_FSYNC=0 CRASH_SECONDS=$((seconds * 2 / 3)) ./crash_ours loop || fail "kill loop (no fsync)"
mv samples samples-nofsync
NCZARR_RS_FSYNC=1 CRASH_SECONDS=$((seconds / 3)) CRASH_SEED=$(( ${CRASH_SEED:-20240601} + 1 )) ./crash_ours loop ||
    fail "kill loop (fsync)"
sed 's|^|nofsync/|' samples-nofsync/list >> samples/list
mv samples-nofsync samples/nofsync

wheel=$(ls "$root"/.venv/lib/python3*/site-packages/netcdf4.libs/libnetcdf-*.so* 2>/dev/null | head -1)
[ -n "$wheel" ] || fail "no netCDF4 wheel (netcdf-c 4.10.1) in $root/.venv; run make deps"
cc $cflags -I"$root/include" "$here/crash.c" "$wheel" -Wl,-rpath,"$(dirname "$wheel")" -o crash_c ||
    fail "build (netcdf-c 4.10.1)"
n=0 objects_failed=0 pending=0
while read -r it k created pre; do
    url="file://$PWD/samples/$it.zarr#mode=nczarr,file"
    n=$((n + 1))
    out=$(NCZARR_CONSOLIDATED=1 ./crash_c check "$url" "$k" "$created" "$pre") ||
        fail "netcdf-c 4.10.1 (consolidated) on sample $it (synced $k): $out"
    interrupted=0
    grep -q nczarr_rs_pending "samples/$it.zarr/.zmetadata" 2>/dev/null && interrupted=1
    pending=$((pending + interrupted))
    if ! out=$(./crash_c check "$url" "$k" "$created" "$pre"); then
        [ $interrupted = 1 ] || fail "netcdf-c 4.10.1 (objects) on sample $it (synced $k): $out"
        objects_failed=$((objects_failed + 1))
    fi
done < samples/list
[ $n -gt 0 ] || fail "no samples"
# crash.c samples the first interrupted commits of each loop: netcdf-c
# must have read some, or the consolidated check above tested no commit.
[ $pending -gt 0 ] || fail "no sample holds an interrupted commit (pending .zmetadata)"
echo "netcdf-c 4.10.1 read $n samples: all pass with .zmetadata; reading objects, $objects_failed of the" \
    "$pending interrupted commits fail, all others pass"
