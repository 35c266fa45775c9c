#!/usr/bin/env bash
# The C tests under memory checkers (make memcheck-test): every ctests/t_*
# test (ctests/run.sh) and the tools ABI driver (ctests/tools_abi/run.sh),
# once with AddressSanitizer + UBSan + LeakSanitizer compiled into the test
# programs and plugins, once under valgrind memcheck (whole process, our
# library included); under valgrind also the Fortran programs over
# Debian's netcdf-fortran (tests/fortran/run.sh), which reach us through C
# strings and buffers netcdf-fortran sizes its own way.
# ctests/sanitize/env.sh sets the flags; the suppression files next to it
# say what is suppressed and why.
#
# Usage: ctests/memcheck.sh [LIBDIR] [asan|valgrind ...]   (default: both)
set -u -o pipefail
here=$(cd "$(dirname "$0")" && pwd)
libdir=$(cd "${1:-$(dirname "$here")/target/release}" && pwd) || exit 1
shift || true
modes=("$@")
[ ${#modes[@]} -gt 0 ] || modes=(asan valgrind)
status=0
for mode in "${modes[@]}"; do
    start=$SECONDS
    NCZARR_RS_CTEST_SANITIZE=$mode "$here/run.sh" "$libdir" || status=1
    NCZARR_RS_CTEST_SANITIZE=$mode "$here/tools_abi/run.sh" "$libdir" | grep -v '^  |' || status=1
    if [ "$mode" = valgrind ]; then
        NCZARR_RS_CTEST_SANITIZE=$mode "$(dirname "$here")/tests/fortran/run.sh" "$libdir" || status=1
    fi
    echo "memcheck ($mode): $((SECONDS - start))s"
done
exit $status
