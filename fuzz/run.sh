#!/usr/bin/env bash
# Build the fuzz targets and run each for a bounded time (make fuzz-test).
#
#   fuzz/run.sh [target...]        every target when none is named
#
# FUZZ_SECONDS   seconds per target (default 20: 15 targets, about 5 minutes
#                of fuzzing on 2 cores, plus the build)
# FUZZ_ARGS      more libFuzzer flags
#
# Each target starts from its committed seeds (fuzz/seeds/<target>) and
# regression inputs (fuzz/regressions/<target>), writes what it finds to a
# scratch corpus under fuzz/target/fuzz-test/, and fails on any crash
# (panic, abort, sanitizer report), timeout (-timeout, per input), memory
# blow-up (-rss_limit_mb, -malloc_limit_mb) or leak. A failing input is
# printed (hex) and kept; fuzz/README.md tells how to replay it.
#
# cargo-fuzz (pinned, installed by tools/install-test-deps.sh into the
# tools cache) drives libFuzzer. The toolchain is stable Rust:
# RUSTC_BOOTSTRAP=1 lets it take the -Z flags cargo-fuzz passes
# (-Zsanitizer=address), so the library's unsafe code runs under
# AddressSanitizer.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tools=${NCZARR_RS_TOOLS:-${HOME:-/tmp}/.cache/nczarr-rs/tools}
cargo_fuzz=$tools/bin/cargo-fuzz
seconds=${FUZZ_SECONDS:-20}

if ! [ -x "$cargo_fuzz" ]; then
    echo "error: no $cargo_fuzz (make deps, or tools/install-test-deps.sh, installs it)" >&2
    exit 1
fi

cd "$root/fuzz"
if [ $# -gt 0 ]; then
    targets=("$@")
else
    # The [[bin]] sections of fuzz/Cargo.toml.
    mapfile -t targets < <(awk '/^\[\[bin\]\]/ { bin = 1 } bin && /^name = / { gsub(/"/, "", $3); print $3; bin = 0 }' Cargo.toml)
fi

export RUSTC_BOOTSTRAP=1
start=$(date +%s)
# -O with -a: optimised, with debug assertions and overflow checks on (an
# overflow on bad input is a bug too).
nice "$cargo_fuzz" build -O -a --sanitizer address
bin=$root/fuzz/target/x86_64-unknown-linux-gnu/release
echo "fuzz targets built in $(($(date +%s) - start)) s; ${#targets[@]} targets, $seconds s each"

dict_for() {
    case $1 in
        metadata | store | rewrite | attrs | merge) echo dict/zarr.dict ;;
        *) [ -f "dict/$1.dict" ] && echo "dict/$1.dict" ;;
    esac
}

# Stacks symbolized; leaks are failures too (but for lsan.supp's).
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:symbolize=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$root/fuzz/lsan.supp:print_suppressions=0}
failed=()
summary=()
for t in "${targets[@]}"; do
    [ -x "$bin/$t" ] || { echo "error: no fuzz target $t" >&2; exit 1; }
    work=$root/fuzz/target/fuzz-test/$t
    rm -rf "$work"
    mkdir -p "$work/corpus" "$work/artifacts"
    inputs=("$work/corpus")
    for d in "seeds/$t" "regressions/$t"; do
        [ -d "$d" ] && inputs+=("$d")
    done
    dict=$(dict_for "$t" || true)
    flags=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=1024
        -artifact_prefix="$work/artifacts/" -print_final_stats=1)
    [ -n "$dict" ] && flags+=(-dict="$dict")
    # shellcheck disable=SC2206
    flags+=(${FUZZ_ARGS:-})
    echo "== $t: ${flags[*]} ${inputs[*]}"
    if nice "$bin/$t" "${flags[@]}" "${inputs[@]}" >"$work/log" 2>&1; then
        runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log")
        rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$work/log")
        summary+=("$t: ${runs:-?} runs, ${rate:-?}/s")
    else
        failed+=("$t")
        summary+=("$t: FAILED")
    fi
done
echo "== fuzzing took $(($(date +%s) - start)) s in all"
# Failures are told last, where a log cut to its end still shows them.
for t in ${failed[@]+"${failed[@]}"}; do
    work=$root/fuzz/target/fuzz-test/$t
    echo "---- $t failed; the end of its log:"
    grep -v '^"' "$work/log" | tail -n 40
    for a in "$work"/artifacts/*; do
        [ -e "$a" ] || continue
        echo "---- failing input $a ($(stat -c %s "$a") bytes), hex:"
        od -An -tx1 -v "$a" | head -n 64
        echo "---- replay: $bin/$t $a   (or copy it to fuzz/regressions/$t/ and run cargo test --test fuzz_inputs)"
    done
done
printf '%s\n' "${summary[@]}"
if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzz-test: ${#failed[@]} target(s) failed: ${failed[*]}" >&2
    exit 1
fi
