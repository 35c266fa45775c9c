#!/usr/bin/env bash
# Durability settings (src/zmap/durability.rs), checked by counting the
# calls that force data to disk (strace): ctests/durability.c writes 16
# chunks, optionally calls nc_sync, closes, reopens and checks every value.
#
# - default: nc_close forces nothing (no fdatasync, fsync or syncfs);
#   nc_sync does (one syncfs for a directory store; fdatasync of the new
#   archive and fsync of its directory for a zip);
# - every commit durable (NCZARR_RS_FSYNC=1, the fragment's fsync=close,
#   .ncrc's NCZARR_RS.FSYNC=close): every chunk file is fdatasync'ed and
#   directories fsync'ed at the close, with no nc_sync;
# - never (NCZARR_RS_FSYNC=0, or fsync=0 in the fragment, which wins over
#   the environment): nothing, even at nc_sync;
# - a value not understood is NC_EINVAL at nc_create.
#
# Counts are bounded from above too, so syncs that multiply fail.
#
# Usage: ctests/t_durability.sh (run by ctests/run.sh in a scratch
# directory; NCZARR_RS_LIBDIR is our library's directory). Not run under
# a memory checker's wrapper: strace is the point here.
set -u
here=$(cd "$(dirname "$0")" && pwd)
libdir=${NCZARR_RS_LIBDIR:?}
unset LD_LIBRARY_PATH LD_PRELOAD NCZARR_RS_FSYNC NCRCENV_RC
export NCRCENV_IGNORE=1
fail() { echo "FAIL: $*"; exit 1; }
command -v strace >/dev/null || fail "strace is not installed (tools/install-test-deps.sh installs it)"
cc -std=c99 -Wall -Wextra -Werror -O2 -I"$here/../include" "$here/durability.c" -L"$libdir" -lnetcdf \
    -Wl,-rpath,"$libdir" -o durability || fail "build"

# run NAME EXPECT_FDATASYNC EXPECT_FSYNC EXPECT_SYNCFS URL [sync]
# Each EXPECT is "0" (none) or "N-M" (at least N, at most M: the upper
# bound catches syncs multiplying). Extra environment comes before:
# VAR=value run ...
run() {
    local name=$1 fdatasync=$2 fsync=$3 syncfs=$4
    shift 4
    rm -rf d.zarr d.zip
    strace -f -qq -e trace=fdatasync,fsync,syncfs -o "$name.strace" ./durability "$@" >"$name.out" 2>&1 ||
        fail "$name: $(cat "$name.out")"
    grep -q '^ok 1024 values' "$name.out" || fail "$name: $(cat "$name.out")"
    local call want got
    for call in fdatasync fsync syncfs; do
        want=${!call}
        got=$(grep -c " $call(" "$name.strace")
        case $want in
            0) [ "$got" = 0 ] || fail "$name: $got $call calls, expected none" ;;
            *-*) [ "$got" -ge "${want%-*}" ] && [ "$got" -le "${want#*-}" ] ||
                fail "$name: $got $call calls, expected ${want%-*} to ${want#*-}" ;;
        esac
    done
    echo "ok $name: fdatasync $(grep -c ' fdatasync(' "$name.strace"), fsync $(grep -c ' fsync(' "$name.strace"), syncfs $(grep -c ' syncfs(' "$name.strace")"
}

dir="file://$PWD/d.zarr#mode=nczarr,file"
zip="file://$PWD/d.zip#mode=nczarr,zip"
run default-close 0 0 0 "$dir"
# nc_sync's commit: a syncfs before it and after each barrier (4 here).
run default-sync 0 0 1-4 "$dir" sync
run default-zip-close 0 0 0 "$zip"
run default-zip-sync 1-2 1-2 0 "$zip" sync
# Every commit durable: each of the 16 chunk files and each metadata
# object synced once per commit that wrote it (28 here), each changed
# directory once per barrier.
NCZARR_RS_FSYNC=1 run env-every-commit 16-40 1-16 0 "$dir"
run fragment-every-commit 16-40 1-16 0 "$dir&fsync=close"
NCZARR_RS_FSYNC=1 run env-every-commit-zip 1-4 1-4 0 "$zip"
echo "NCZARR_RS.FSYNC=close" >rc
(unset NCRCENV_IGNORE; NCRCENV_RC=$PWD/rc run ncrc-every-commit 16-40 1-16 0 "$dir") || exit 1
NCZARR_RS_FSYNC=0 run env-never 0 0 0 "$dir" sync
NCZARR_RS_FSYNC=1 run fragment-wins 0 0 0 "$dir&fsync=0" sync
./durability "$dir&fsync=maybe" >bad.out 2>&1
rc=$?
[ "$rc" = 36 ] || fail "fsync=maybe: exit $rc ($(cat bad.out)), expected NC_EINVAL (36)"
echo "ok fsync=maybe is NC_EINVAL"
echo PASS
