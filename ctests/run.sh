#!/usr/bin/env bash
# Compile every ctests/t_*.c against the built library and run each in its
# own scratch directory. Prints one line per test and a closing
# "N passed, N failed" line; exits non-zero if any test failed.
#
# Usage: ctests/run.sh [LIBDIR] [test names...]
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
# Absolute, so the tests' RUNPATH finds this library from their scratch
# directories (a relative one would silently load the system libnetcdf).
libdir=$(cd "${1:-$root/target/release}" && pwd) || exit 1
shift || true
build=$root/target/ctests
mkdir -p "$build"

# Test filter plugins, built as shared libraries; every test runs with
# HDF5_PLUGIN_PATH pointing at them (built-in codecs still win for the
# standard filter ids).
plugins=$build/plugins
mkdir -p "$plugins"
for src in "$here"/plugins/*.c; do
    cc -std=c99 -Wall -Werror -shared -fPIC -I"$root/include" "$src" -L"$libdir" -lnetcdf \
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
    exe=$build/$t
    if [ -e "$here/$t.sh" ]; then
        exe=("env" "NCZARR_RS_LIBDIR=$libdir" "bash" "$here/$t.sh")
    elif ! cc -std=c99 -D_DEFAULT_SOURCE -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror -g -I"$root/include" "$here/$t.c" \
            -L"$libdir" -lnetcdf -Wl,-rpath,"$libdir" -lm -lpthread -o "$exe" 2> "$build/$t.cc.log"; then
        echo "FAIL $t (does not compile)"; cat "$build/$t.cc.log"
        failed=$((failed + 1)); continue
    fi
    scratch=$(mktemp -d "$build/$t.XXXXXX")
    if (cd "$scratch" && "${exe[@]}") > "$build/$t.log" 2>&1; then
        echo "ok   $t"
        passed=$((passed + 1))
        rm -rf "$scratch"
    else
        echo "FAIL $t"; sed 's/^/     /' "$build/$t.log"
        failed=$((failed + 1))
    fi
done
echo "ctests: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
