#!/usr/bin/env bash
# Run netcdf-c 4.9.0's tests (built by build.sh) over the libnetcdf.so.19 in
# LIBDIR, chosen with LD_LIBRARY_PATH=LIBDIR; the shell tests use Debian's
# ncdump/ncgen/nccopy, which load the same library.
#
#   tests/netcdf_c_suite/run.sh LIBDIR [TEST...]
#
# TEST: a full name (nc_test4/tst_dims, ncdump/tst_nccopy4.sh,
# nczarr_test/run_purezarr.sh@zip), a base name (tst_dims, run_tests.sh) or
# a glob ('ncdump/*', 'nczarr_test/*@zip'). Tests another selected
# test depends on are added. Prints PASS/FAIL/SKIP NAME per test, then a
# summary; exit status 0 when nothing failed, 1 when something failed, 2 on
# a usage or build error, 3 when LIBDIR's library changed during the run.
#
# Environment: NCSUITE_JOBS (2), NCSUITE_TIMEOUT (120 s per test),
# NCSUITE_OUT (directory for results and scratch directories; default a new
# temporary directory), NCSUITE_KEEP=1 keeps every scratch directory (by
# default only failed tests' are kept), NCSUITE_NO_BUILD=1 skips calling
# build.sh (which otherwise builds against NCSUITE_BUILD_LIBDIR, default
# target/release), NCSUITE_QUIET=1 prints only failures and the summary.
set -uo pipefail
. "$(dirname "$0")/suite.sh"

if [ $# -lt 1 ] || [ ! -d "$1" ]; then
    awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0" >&2
    exit 2
fi
LIBDIR=$(cd "$1" && pwd); shift
if [ ! -e "$LIBDIR/libnetcdf.so.19" ]; then
    echo "run: no $LIBDIR/libnetcdf.so.19 (the tests load libnetcdf.so.19 by its SONAME)" >&2
    exit 2
fi

if [ "${NCSUITE_NO_BUILD:-0}" != 1 ]; then
    "$SUITE_DIR/build.sh" "${NCSUITE_BUILD_LIBDIR:-$DEFAULT_LIBDIR}" | grep -v '^  ' || exit 2
fi
[ -f "$BUILD/built.txt" ] || { echo "run: nothing built; run build.sh first" >&2; exit 2; }

OUT=${NCSUITE_OUT:-$(mktemp -d "${TMPDIR:-/tmp}/ncsuite.XXXXXX")}
mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
rm -f "$OUT/results.txt"; mkdir -p "$OUT/status"; rm -f "$OUT"/status/*

declare -A BUILT NOTBUILT DEPS_OF SEL LEVEL ALLTESTS VARIANT_SED
while read -r p; do BUILT[$p]=1; done < "$BUILD/built.txt"
while read -r p r; do NOTBUILT[$p]=$r; done < "$BUILD/not_built.txt"
for d in "${DEPS[@]}"; do DEPS_OF[${d%%:*}]=${d#*: }; done
for t in "${TESTS[@]}"; do ALLTESTS[$t]=1; done
for v in "${VARIANTS[@]}"; do VARIANT_SED[${v%%|*}]=${v#*|}; done   # "COMMON_SED|SCRIPT_SED"
for t in "${TESTS[@]}"; do
    [[ $t == *@* ]] || continue
    vl=${t#*@}
    for v in ${vl//@/ }; do
        [ -n "${VARIANT_SED[$v]:-}" ] || { echo "run: $t: no variant $v in suite.sh's VARIANTS" >&2; exit 2; }
    done
done
SERIAL=" nc_test/run_mmap.sh "     # CMake runs it RUN_SERIAL

# --- selection -------------------------------------------------------------
if [ $# -eq 0 ]; then
    for t in "${TESTS[@]}"; do SEL[$t]=1; done
else
    for a in "$@"; do
        hit=0
        for t in "${TESTS[@]}"; do
            b=${t#*/}
            # shellcheck disable=SC2053
            if [ "$t" = "$a" ] || [ "$b" = "$a" ] || [ "${b%.sh}" = "$a" ] || [[ $t == $a ]]; then
                SEL[$t]=1; hit=1
            fi
        done
        [ $hit = 1 ] || { echo "run: no test named $a" >&2; exit 2; }
    done
fi
add_deps() {
    local t=$1 d
    for d in ${DEPS_OF[$t]:-}; do
        [ -n "${SEL[$d]:-}" ] || { SEL[$d]=1; add_deps "$d"; }
    done
}
for t in "${!SEL[@]}"; do add_deps "$t"; done
level() {
    local t=$1 d l m=0
    for d in ${DEPS_OF[$t]:-}; do l=$(level "$d"); [ $((l + 1)) -gt $m ] && m=$((l + 1)); done
    echo $m
}

# --- why a selected test cannot run -----------------------------------------
skip_reason() {
    local t=${1%%@*} dir=${1%%/*} name=${1#*/} p pd pn
    name=${name%%@*}
    if [[ $name == *.sh ]]; then
        [ -f "$SRC/$dir/$name" ] || { echo "no script $SRC/$dir/$name"; return; }
        for p in "${!NOTBUILT[@]}"; do
            pd=${p%%/*} pn=${p#*/}
            if { [ "$pd" = "$dir" ] && grep -qE "(execdir\}?/|\./)${pn}([^A-Za-z0-9_.-]|$)" "$SRC/$dir/$name"; } ||
               { [ "$p" = ncdump/ncpathcvt ] && grep -qE 'NCPATHCVT|ncdump/ncpathcvt' "$SRC/$dir/$name"; }; then
                echo "needs helper program $p, not built: ${NOTBUILT[$p]}"; return
            fi
        done
    elif [ -z "${BUILT[$t]:-}" ]; then
        echo "not built: ${NOTBUILT[$t]:-not in the build list}"
    fi
}

# --- one test ----------------------------------------------------------------
scratch_of() { echo "$OUT/scratch/${1//\//__}"; }

run_one() {
    local t=$1 dir=${1%%/*} name=${1#*/} variants= v vs script s w f b rc t0 t1 secs line d
    if [[ $name == *@* ]]; then variants=${name#*@}; name=${name%%@*}; fi
    s=$(scratch_of "$t"); w=$s/$dir
    rm -rf "$s"; mkdir -p "$w" "$s/home"
    cp "$BUILD/test_common.sh" "$s/test_common.sh"
    script=$SRC/$dir/$name
    # DIR/NAME.sh@V1@V2: test_common.sh and the script edited as VARIANTS says
    if [ -n "$variants" ]; then
        cp "$script" "$s/$name"; script=$s/$name
        for v in ${variants//@/ }; do
            vs=${VARIANT_SED[$v]}
            [ -z "${vs%%|*}" ] || sed -i -e "${vs%%|*}" "$s/test_common.sh"
            [ -z "${vs#*|}" ] || sed -i -e "${vs#*|}" "$script"
        done
    fi
    # the other build directories, as ../ncdump etc. (tools, helper programs)
    for d in ncdump ncgen ncgen3 nc_test nc_test4 nczarr_test; do
        [ "$d" = "$dir" ] || ln -s "$BUILD/$d" "$s/$d"
    done
    # data files beside the programs, as CMake's build copies them
    if [ "$dir" != ncdump ]; then
        for f in "$SRC/$dir"/*; do
            b=$(basename "$f")
            case "$b" in *.c|*.h|*.m4|*.in|*.am|Makefile*|CMakeLists.txt) continue ;; esac
            [ -f "$f" ] && cp "$f" "$w/"
        done
    fi
    for f in "$BUILD/$dir"/*; do
        b=$(basename "$f")
        case "$b" in *.*) continue ;; esac
        [ -x "$f" ] && [ ! -d "$f" ] && ln -sf "$f" "$w/$b"
    done
    # what the tests this one depends on left behind
    for d in ${DEPS_OF[$t]:-}; do
        cp -a "$(scratch_of "$d")/${d%%/*}/." "$w/" 2>/dev/null || true
    done
    if [[ $name == *.sh ]]; then
        set -- /bin/sh "$script"
    else
        set -- "./$name"
    fi
    t0=$(date +%s.%N)
    (
        cd "$w" || exit 99
        export LD_LIBRARY_PATH=$LIBDIR HOME=$s/home srcdir=$SRC/$dir TOPSRCDIR=$SRC \
               TOPBUILDDIR=$BUILD CC=${CC:-cc} LC_ALL=C.UTF-8 TMPDIR=$s
        unset SETX NETCDF_LOG_LEVEL HDF5_PLUGIN_PATH NCZARR_RS_DEBUG NCZARR_S3_TEST_HOST NCZARR_S3_TEST_BUCKET
        exec timeout -k 5 "$TEST_TIMEOUT" "$@" </dev/null >"$s/output.log" 2>&1
    )
    rc=$?
    t1=$(date +%s.%N)
    secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.1f", b-a}')
    if [ $rc = 0 ]; then
        echo "PASS $t $secs" > "$OUT/status/${t//\//__}"
        [ "${NCSUITE_QUIET:-0}" = 1 ] || echo "PASS $t"
    else
        local why="exit $rc"
        [ $rc = 124 ] || [ $rc = 137 ] && why="timeout after ${TEST_TIMEOUT} s"
        local tail
        tail=$(grep -v '^[[:space:]]*$' "$s/output.log" | tail -3 | cut -c1-240 | paste -sd'|' - | sed 's/|/ | /g')
        echo "FAIL $t $secs" > "$OUT/status/${t//\//__}"
        echo "FAIL $t ($why: $tail)"
    fi
}

# --- run, level by level (dependents after their prerequisites) --------------
ordered=()
for t in "${TESTS[@]}"; do [ -n "${SEL[$t]:-}" ] && ordered+=("$t"); done
maxlevel=0
for t in "${ordered[@]}"; do
    LEVEL[$t]=$(level "$t")
    [ "${LEVEL[$t]}" -gt $maxlevel ] && maxlevel=${LEVEL[$t]}
done

T0=$(date +%s)
libstat() { stat -L -c '%s %Y' "$LIBDIR/libnetcdf.so.19" 2>/dev/null; }
LIBSTAT0=$(libstat)
loaded=$(LD_LIBRARY_PATH=$LIBDIR ldd "$BUILD/nc_test/t_nc" 2>/dev/null | awk '/libnetcdf/ {print $3}' | head -1)
echo "run: loading $loaded, ${#ordered[@]} tests, $JOBS at a time, ${TEST_TIMEOUT} s each; scratch in $OUT/scratch"
nskip=0
for lv in $(seq 0 $maxlevel); do
    serial=()
    for t in "${ordered[@]}"; do
        [ "${LEVEL[$t]}" = "$lv" ] || continue
        r=$(skip_reason "$t")
        if [ -n "$r" ]; then
            echo "SKIP $t 0" > "$OUT/status/${t//\//__}"
            [ "${NCSUITE_QUIET:-0}" = 1 ] || echo "SKIP $t ($r)"
            continue
        fi
        case "$SERIAL" in *" $t "*) serial+=("$t"); continue ;; esac
        while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; done
        run_one "$t" &
    done
    wait
    for t in "${serial[@]}"; do run_one "$t"; done
done
ELAPSED=$(( $(date +%s) - T0 ))

# --- summary ----------------------------------------------------------------
for t in "${ordered[@]}"; do cat "$OUT/status/${t//\//__}"; done > "$OUT/results.txt"
npass=$(grep -c '^PASS' "$OUT/results.txt")
nfail=$(grep -c '^FAIL' "$OUT/results.txt")
nskip=$(grep -c '^SKIP' "$OUT/results.txt")
if [ "${NCSUITE_KEEP:-0}" != 1 ]; then
    while read -r st t _; do
        [ "$st" = FAIL ] || rm -rf "$(scratch_of "$t")"
    done < "$OUT/results.txt"
fi
echo "run: over $LIBDIR in ${ELAPSED} s; results in $OUT/results.txt"
echo "run: slowest: $(sort -k3 -rn "$OUT/results.txt" | head -5 | awk '{printf "%s %ss, ", $2, $3}' | sed 's/, $//')"
if [ "$nfail" -gt 0 ]; then
    echo "run: failed ($nfail), scratch directories kept in $OUT/scratch:"
    grep '^FAIL' "$OUT/results.txt" | awk '{print "  " $2}'
fi
echo "$npass passed, $nfail failed, $nskip skipped"
if [ "$(libstat)" != "$LIBSTAT0" ]; then
    echo "run: $LIBDIR/libnetcdf.so.19 changed during the run: results are not reliable, run again" >&2
    exit 3
fi
[ "$nfail" = 0 ]
