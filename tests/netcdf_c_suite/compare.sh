#!/usr/bin/env bash
# Run netcdf-c 4.9.0's tests over Debian's own libnetcdf.so.19 and over
# OURLIBDIR's, with the same binaries (built against OURLIBDIR by build.sh),
# and fail when a test that passes over Debian's fails over ours, unless
# exceptions.txt lists it ("NAME  reason", one a line, # comments).
#
#   tests/netcdf_c_suite/compare.sh OURLIBDIR [TEST...]
#
# Tests that fail over Debian's library are reported and not held against
# us, except those suite.sh's REQUIRED lists (they need only what we claim
# and Debian's build lacks: NCZarr zip stores). Exit status: 0, or 1 on an
# unexpected failure, 2 on a usage or build error. NCSUITE_OUT: where
# results and failed tests' scratch directories go (default: a new temporary
# directory). Takes about twice run.sh's time.
set -uo pipefail
. "$(dirname "$0")/suite.sh"

if [ $# -lt 1 ] || [ ! -d "$1" ]; then
    awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0" >&2
    exit 2
fi
OURS=$(cd "$1" && pwd); shift
OUT=${NCSUITE_OUT:-$(mktemp -d "${TMPDIR:-/tmp}/ncsuite-compare.XXXXXX")}
mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
T0=$(date +%s)

"$SUITE_DIR/build.sh" "$OURS" | grep -v '^  ' || exit 2

# Debian's library, under the SONAME the test programs ask for
DEB=$OUT/debian-lib
mkdir -p "$DEB"
ln -sfn "$DEB_LIBNETCDF" "$DEB/libnetcdf.so.19"

run() {   # run NAME LIBDIR TEST...: results in $OUT/NAME/results.txt, log in $OUT/NAME.log
    local name=$1 lib=$2 rc try; shift 2
    for try in 1 2 3; do
        NCSUITE_NO_BUILD=1 NCSUITE_OUT=$OUT/$name "$SUITE_DIR/run.sh" "$lib" "$@" > "$OUT/$name.log" 2>&1
        rc=$?
        [ $rc = 3 ] || break
        echo "compare: $lib changed during the run; again" >&2
        "$SUITE_DIR/build.sh" "$OURS" | grep -v '^  ' || exit 2
    done
    if [ $rc -ge 2 ]; then
        echo "compare: run.sh over $lib failed (exit $rc):" >&2
        tail -20 "$OUT/$name.log" >&2
        exit 2
    fi
    echo "compare: over $lib: $(tail -1 "$OUT/$name.log") ($(grep -o 'in [0-9]* s' "$OUT/$name.log" | tail -1))"
}
run debian "$DEB" "$@"
run ours "$OURS" "$@"

declare -A DEBST OURST EXC
while read -r st t _; do DEBST[$t]=$st; done < "$OUT/debian/results.txt"
while read -r st t _; do OURST[$t]=$st; done < "$OUT/ours/results.txt"
if [ -f "$SUITE_DIR/exceptions.txt" ]; then
    while read -r t reason; do
        [[ -z $t || $t == \#* ]] && continue
        EXC[$t]=$reason
    done < "$SUITE_DIR/exceptions.txt"
fi

wrap() { fmt -w 100 | sed 's/^/    /'; }
list() { local st=$1 which=$2; awk -v s="$st" '$1 == s {print $2}' "$OUT/$which/results.txt"; }
failline() { grep -m1 -F "FAIL $2 (" "$OUT/$1.log" | cut -c1-400; }

deb_pass=$(list PASS debian); our_pass=$(list PASS ours)
echo
echo "Pass over Debian's libnetcdf ($(echo "$deb_pass" | grep -c .)):"
echo "$deb_pass" | paste -sd' ' - | wrap
echo "Pass over ours ($(echo "$our_pass" | grep -c .)):"
echo "$our_pass" | paste -sd' ' - | wrap

# required NAME: why NAME must pass over ours whatever Debian's does, or ""
required() {
    local r
    for r in "${REQUIRED[@]}"; do
        # shellcheck disable=SC2053
        [[ $1 == ${r%%|*} ]] && { echo "${r#*|}"; return; }
    done
}
deb_fail=$(list FAIL debian)
if [ -n "$deb_fail" ]; then
    echo "Fail over Debian's libnetcdf too (not held against us unless marked):"
    for t in $deb_fail; do
        echo "  $(failline debian "$t")"
        r=$(required "$t")
        echo "      over ours: ${OURST[$t]:-not run}${r:+ (held against us: $r)}"
    done
fi
skipped=$(list SKIP debian)
[ -z "$skipped" ] || { echo "Skipped (helper programs not built):"; echo "$skipped" | paste -sd' ' - | wrap; }

unexpected=() expected=() stale=()
held=$deb_pass
for t in $deb_fail $(list SKIP debian); do [ -z "$(required "$t")" ] || held+=" $t"; done
for t in $held; do
    if [ "${OURST[$t]:-}" != PASS ]; then
        if [ -n "${EXC[$t]:-}" ]; then expected+=("$t"); else unexpected+=("$t"); fi
    elif [ -n "${EXC[$t]:-}" ]; then
        stale+=("$t")
    fi
done
if [ ${#expected[@]} -gt 0 ]; then
    echo "Fail over ours, as exceptions.txt expects:"
    for t in "${expected[@]}"; do echo "  $t: ${EXC[$t]}"; done
fi
if [ ${#stale[@]} -gt 0 ]; then
    echo "Listed in exceptions.txt but pass over ours now (drop them?): ${stale[*]}"
fi
if [ ${#unexpected[@]} -gt 0 ]; then
    echo "UNEXPECTED failures over ours (pass over Debian's, or REQUIRED) (${#unexpected[@]}):"
    for t in "${unexpected[@]}"; do echo "  $(failline ours "$t")"; done
    echo "  (scratch directories: $OUT/ours/scratch)"
fi
echo "compare: $(( $(date +%s) - T0 )) s; results in $OUT/{debian,ours}/results.txt"
echo "compare: $(echo "$our_pass" | grep -c .) passed, ${#unexpected[@]} failed, ${#expected[@]} skipped"
[ ${#unexpected[@]} = 0 ]
