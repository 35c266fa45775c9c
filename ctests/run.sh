#!/usr/bin/env bash
# Compile every ctests/t_*.c against the built library and run each in its
# own scratch directory. Prints one line per test and a closing
# "N passed, N failed" line; exits non-zero if any test failed.
#
# Usage: ctests/run.sh [--for SECONDS] [LIBDIR] [test names...]
#
# --for SECONDS runs each test over and over until SECONDS have passed
# (at least once), stopping at its first failing run: for rare races
# such as a fork landing where it should not in t_fork.
#
# NCZARR_RS_CTEST_SANITIZE=asan or =valgrind runs the same tests under a
# memory checker (see ctests/sanitize/env.sh): C tests and plugins built
# with AddressSanitizer, or run under valgrind memcheck; the t_*.sh tests
# apply it to the programs they build against this library.
set -u
for_seconds=
if [ "${1:-}" = --for ]; then
    case ${2:-} in
        '' | *[!0-9]*) echo "FAIL: --for needs a number of seconds"; exit 1 ;;
    esac
    for_seconds=$2
    shift 2
fi
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
# Absolute, so the tests' RUNPATH finds this library from their scratch
# directories (a relative one would silently load the system libnetcdf).
libdir=$(cd "${1:-$root/target/release}" && pwd) || exit 1
shift || true
. "$here/sanitize/env.sh"
build=$root/target/ctests$san_dir
mkdir -p "$build"

# Test filter plugins, built as shared libraries; every test runs with
# HDF5_PLUGIN_PATH pointing at them (built-in codecs still win for the
# standard filter ids).
plugins=$build/plugins
mkdir -p "$plugins"
for src in "$here"/plugins/*.c; do
    cc -std=c99 -Wall -Werror -shared -fPIC ${san_cflags[@]+"${san_cflags[@]}"} -I"$root/include" "$src" -L"$libdir" -lnetcdf \
        -o "$plugins/lib__nczrs_$(basename "$src" .c).so" || { echo "FAIL building plugin $src"; exit 1; }
done
export HDF5_PLUGIN_PATH=$plugins

# Tests are C programs (t_*.c) or scripts (t_*.sh, given the library's
# directory as NCZARR_RS_LIBDIR).
tests=("$@")
if [ ${#tests[@]} -eq 0 ]; then
    for f in "$here"/t_*.c "$here"/t_*.sh; do tests+=("$(basename "${f%.*}")"); done
fi

passed=0 failed=0
for t in "${tests[@]}"; do
    exe=("${san_run[@]+"${san_run[@]}"}" "$build/$t")
    # A child forked while other threads run holds their thread state
    # (Rust's thread handles, glibc's TLS destructor lists) with nothing
    # pointing at it: valgrind would call it leaked in every such child.
    # Tests that do this on purpose say so; valgrind then checks them for
    # memory errors but not leaks (ASan's LeakSanitizer still does).
    if [ "${NCZARR_RS_CTEST_SANITIZE:-}" = valgrind ] && [ -e "$here/$t.c" ] &&
        grep -q 'valgrind: forks beside threads' "$here/$t.c"; then
        exe=("${exe[@]:0:${#exe[@]}-1}" --leak-check=no "${exe[@]: -1}")
    fi
    if [ -e "$here/$t.sh" ]; then
        exe=("env" "NCZARR_RS_LIBDIR=$libdir" "bash" "$here/$t.sh")
        # They run netcdf-c too, which loads every plugin it finds and
        # cannot load ASan-built ones; they use no filters.
        [ "${NCZARR_RS_CTEST_SANITIZE:-}" != asan ] || exe=("env" "-u" "HDF5_PLUGIN_PATH" "${exe[@]:1}")
    elif ! cc -std=c99 -D_DEFAULT_SOURCE -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror -g ${san_cflags[@]+"${san_cflags[@]}"} \
            -I"$root/include" "$here/$t.c" -L"$libdir" -lnetcdf -Wl,-rpath,"$libdir" -lm -lpthread -o "$build/$t" \
            2> "$build/$t.cc.log"; then
        echo "FAIL $t (does not compile)"; cat "$build/$t.cc.log"
        failed=$((failed + 1)); continue
    fi
    runs=0 ok=1 start=$SECONDS
    while :; do
        runs=$((runs + 1))
        scratch=$(mktemp -d "$build/$t.XXXXXX")
        if (cd "$scratch" && "${exe[@]}") > "$build/$t.log" 2>&1; then
            rm -rf "$scratch"
        else
            ok=0
            break
        fi
        [ -n "$for_seconds" ] && [ $((SECONDS - start)) -lt "$for_seconds" ] || break
    done
    if [ $ok = 1 ]; then
        echo "ok   $t${for_seconds:+ ($runs runs in $((SECONDS - start)) s)}"
        passed=$((passed + 1))
    else
        echo "FAIL $t${for_seconds:+ (run $runs, after $((SECONDS - start)) s)}"; sed 's/^/     /' "$build/$t.log"
        failed=$((failed + 1))
    fi
done
echo "ctests${NCZARR_RS_CTEST_SANITIZE:+ (${NCZARR_RS_CTEST_SANITIZE})}: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
