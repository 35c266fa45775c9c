#!/usr/bin/env bash
# The benchmarks as a correctness test of our library (make bench-smoke, part
# of make test): the shared ncbench.c and ncz_bench.c, and bench/ncz_write.c,
# built against LIBDIR only, run on tiny cubes with edge chunks, in every
# storage mode and codec, every workload (the C programs also with
# bench/numpy_alloc.so preloaded, as bench/run runs them), plus stores
# written by zarr-python (through the test venv) read back. Each of these programs checks every value it reads. No timing
# is judged here: bench/run measures.
#
# Usage: bench/smoke.sh LIBDIR
# Needs: cc, the team's shared/bench beside this clone (or $NCZARR_RS_SHARED),
# and .venv (make deps; or $BENCH_SMOKE_PYTHON) with zarr and numcodecs.
# With CI=true anything missing is a failure; elsewhere that part is
# skipped with a note.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
libdir=$(cd "${1:?usage: bench/smoke.sh LIBDIR}" && pwd)
. "$root/bench/common.sh"
shared=$(shared_bench_dir "$root")
python=${BENCH_SMOKE_PYTHON:-$root/.venv/bin/python}
export PYTHONDONTWRITEBYTECODE=1   # no __pycache__ in bench/ or the shared dir
work=$(mktemp -d "${TMPDIR:-/tmp}/bench-smoke.XXXXXX")
trap 'rm -rf "$work"' EXIT
passed=0 failed=0

# A cube that is not a whole number of chunks in any dimension.
NCBENCH_CUBE=(9 70 66 4 32 32)
NCZ_KEYS=(NT=20 NY=70 NX=66 ct=8 cy=32 cx=32 bt=5 by=20 bx=20 nslab=4 npts=8 st=3 nblk=8 reps=1)
READS=(read_full read_slab read_series read_strided read_blocks)

# missing WHAT: a test tool is absent. CI must have everything.
missing() {
    if [ "${CI:-}" = true ]; then
        echo "FAIL: $1 (CI=true: nothing may be skipped)" >&2
        exit 1
    fi
    echo "SKIP: $1" >&2
}

pass() { passed=$((passed + 1)); }
fail() {
    failed=$((failed + 1))
    echo "FAIL: $1" >&2
    sed 's/^/    /' "$2" >&2
}

# ncbench_case MODE CODEC: write, read all, series, slabs, strided; every
# value is compared with what was written, and the checksums must agree.
# A v3 mode must have written v3 (a root zarr.json), not v2.
ncbench_case() {
    local mode=$1 codec=$2 dir out prefix
    dir=$work/ncbench/${mode//,/_}.$codec
    out=$dir.out
    mkdir -p "$dir"
    prefix=file://$dir/d
    [[ $mode == *zip* ]] && prefix=$prefix.zip
    if NCBENCH_MODE=$mode "$work/bin/ncbench" "$prefix" "${NCBENCH_CUBE[@]}" "$codec" >"$out" 2>&1 &&
        awk '/^checksum/ { ok = ($2 == $3) } END { exit !ok }' "$out" &&
        { [[ $mode != *v3* ]] || [ -f "$dir/d/zarr.json" ] || ! echo "no $dir/d/zarr.json: not v3" >>"$out"; }; then
        pass
    else
        fail "ncbench mode=$mode codec=$codec" "$out"
    fi
}

# ncz_case NAME WORKLOAD URL KEYS...: one ncz_bench run; it must exit 0 and
# every JSON line must report verify_errors 0.
ncz_case() {
    local name=$1 out=$work/ncz.$1.out
    shift
    if "$work/bin/ncz_bench" "$@" "${NCZ_KEYS[@]}" >"$out" 2>&1 && json_lines_ok "$out" 1; then
        pass
    else
        fail "ncz_bench $*" "$out"
    fi
}

run_ncbench() {
    local mode codec
    for mode in nczarr,file zarr,file zarr,file,v3 nczarr,file,v3 nczarr,zip; do
        for codec in none zlib zstd blosc; do
            ncbench_case "$mode" "$codec"
        done
    done
}

# Writes through the C API, each store then read back whole; the full_*
# store also by every read workload. Then the metadata workloads.
run_ncz_writes() {
    local name codec wl url keys
    for name in none zlib; do
        keys=()
        [ "$name" = zlib ] && keys=(deflate=1 shuffle=1)
        for wl in write_full write_steps write_blocks; do
            url="file://$work/w.$name.$wl#mode=nczarr,file"
            ncz_case "$wl.$name" "$wl" "$url" "${keys[@]}"
            ncz_case "$wl.$name.read_full" read_full "$url"
        done
        for wl in "${READS[@]}"; do
            ncz_case "write_full.$name.$wl" "$wl" "file://$work/w.$name.write_full#mode=nczarr,file"
        done
    done
    ncz_case meta_create meta_create "file://$work/meta#mode=nczarr,file" nvar=40 natt=4
    ncz_case meta_open meta_open "file://$work/meta#mode=nczarr,file" nvar=40 natt=4
}

# bench/ncz_write.c: every codec and write workload (it checks the filter
# and reads every value back itself), then read by ncz_bench; once more
# with numpy_alloc.so preloaded (as bench/run runs the C programs), which
# must change nothing but the buffers' page size.
run_ncz_write() {
    local codec wl url out
    for codec in zstd3 blosc_lz4 blosc_zstd; do
        for wl in write_full write_steps write_blocks; do
            url="file://$work/nw.$codec.$wl#mode=nczarr,file"
            out=$work/nw.$codec.$wl.out
            if "$work/bin/ncz_write" "$wl" "$url" codec="$codec" "${NCZ_KEYS[@]}" >"$out" 2>&1 &&
                json_lines_ok "$out" 1; then
                pass
            else
                fail "ncz_write $wl codec=$codec" "$out"
            fi
            ncz_case "nw.$codec.$wl.read_full" read_full "$url"
        done
    done
    out=$work/numpy_alloc.out
    url="file://$work/na#mode=nczarr,file"
    if LD_PRELOAD=$work/bin/numpy_alloc.so NUMPY_ALLOC_VERBOSE=1 "$work/bin/ncz_write" write_full "$url" \
        codec=blosc_lz4 NT=40 NY=128 NX=256 ct=8 cy=64 cx=64 reps=1 >"$out" 2>&1 &&
        json_lines_ok "$out" 1 && grep -q '^numpy_alloc: [1-9][0-9]* allocations' "$out"; then
        pass
    else
        fail "ncz_write under numpy_alloc.so (a 5 MiB buffer advised)" "$out"
    fi
}

# Zarr v2 stores as zarr-python writes them (zarr_bench.py gen, with our
# blosc_zstd addition), read by every read workload through mode=zarr.
run_zarr_python_stores() {
    if ! "$python" -c 'import zarr, numcodecs' 2>/dev/null; then
        missing "zarr-python stores: $python cannot import zarr and numcodecs (make deps)"
        return 0
    fi
    local codec store wl out
    for codec in none zlib1_shuffle zstd3 blosc_lz4 blosc_zstd; do
        store=$work/zp.$codec
        out=$work/gen.$codec.out
        if ! ZARR_BENCH_DIR=$shared "$python" "$root/bench/zarr_bench_ext.py" gen "$store" \
            --codec "$codec" NT=20 NY=70 NX=66 ct=8 cy=32 cx=32 >"$out" 2>&1; then
            fail "zarr_bench.py gen --codec $codec" "$out"
            continue
        fi
        for wl in "${READS[@]}"; do
            ncz_case "zp.$codec.$wl" "$wl" "file://$store#mode=zarr,file"
        done
    done
}

main() {
    command -v cc >/dev/null || { missing "cc"; exit 0; }
    if [ ! -f "$shared/ncbench.c" ] || [ ! -f "$shared/ncz_bench.c" ] || [ ! -f "$shared/zarr_bench.py" ]; then
        missing "the shared benchmarks ($shared; set NCZARR_RS_SHARED)"
        exit 0
    fi
    mkdir -p "$work/bin"
    compile_ours "$shared/ncbench.c" "$work/bin/ncbench" "$libdir"
    compile_ours "$shared/ncz_bench.c" "$work/bin/ncz_bench" "$libdir"
    compile_ours "$root/bench/ncz_write.c" "$work/bin/ncz_write" "$libdir"
    cc -O2 -shared -fPIC "$root/bench/numpy_alloc.c" -o "$work/bin/numpy_alloc.so"
    run_ncbench
    run_ncz_writes
    run_ncz_write
    run_zarr_python_stores
    echo "bench-smoke: $passed passed, $failed failed"
    [ "$failed" -eq 0 ]
}

main
