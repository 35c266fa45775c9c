#!/usr/bin/env bash
# bench/s3_suite.sh OUT_DIR: the S3 rows of bench/run (issue 23, target 4),
# against s3s-fs on 127.0.0.1 (tools/s3-servers.sh), everything in one run
# against the same server:
#
#   read_full  the full suite's cube (NT x 512 x 1024 float32, chunks
#              16 x 128 x 256), one Zarr v2 store per codec written by
#              zarr-python (bench/zarr_bench_ext.py gen) and uploaded, read
#              by ours (the shared ncz_bench.c, #mode=zarr,s3), tensorstore
#              (zarr driver, `s3` kvstore) and zarr-python 3 (obstore's
#              S3Store); every value checked;
#   write_full the same cube written by each (ours #mode=nczarr,s3), each
#              written store read back whole by ncz_bench and checked;
#   raw        concurrent GETs and PUTs of the same chunk objects, 64 in
#              flight (obstore; boto3 GETs too, bench/s3_raw.py): the limit;
#   open       the 500-variable dataset (ncz_bench meta_create, 10
#              attributes each) opened with S3_LATENCY_MS added to every
#              request by the counting proxy (tests/s3/proxy.py): requests,
#              sequential waves (bench/s3_open.py), time; ncz_bench
#              meta_open and `ncdump -h`; NCZarr and pure Zarr, v2 and v3,
#              with and without consolidated metadata.
#
# Writes OUT_DIR/*.jsonl (one JSON object per run or rep), OUT_DIR/S3.md
# (the markdown section) and OUT_DIR/s3_rows.json (its table, for
# bench/report.py), and prints the table. Exit status 1 when a value read
# back was wrong or one of our runs failed.
#
# Environment:
#   S3_NT (default 256; 64 with BENCH_QUICK=1), S3_REPS (default
#   $BENCH_REPS or 3; medians), S3_CODECS (default "none zstd3"; also
#   blosc_lz4), S3_LATENCY_MS (default 20), S3_LIBDIR (our library's
#   directory, default target/release), S3_BENCH_PYTHON (tensorstore, zarr,
#   obstore: default .venv-bench), S3_TEST_PYTHON (boto3: default .venv),
#   NCZARR_RS_SHARED (the shared benchmarks, as bench/run), S3_KEEP=1 keeps
#   the scratch directory.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/bench/common.sh"
out=${1:?usage: bench/s3_suite.sh OUT_DIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
NT=${S3_NT:-256}
[ -z "${S3_NT:-}" ] && [ "${BENCH_QUICK:-0}" = 1 ] && NT=64
REPS=${S3_REPS:-${BENCH_REPS:-3}}
read -r -a CODECS <<<"${S3_CODECS:-none zstd3}"
LAT=${S3_LATENCY_MS:-20}
LIBDIR=$(cd "${S3_LIBDIR:-$root/target/release}" && pwd)
PY=${S3_BENCH_PYTHON:-$root/.venv-bench/bin/python}
TPY=${S3_TEST_PYTHON:-$root/.venv/bin/python}
shared=$(shared_bench_dir "$root")
export ZARR_BENCH_DIR=$shared PYTHONDONTWRITEBYTECODE=1
SCALE=(NT="$NT" NY=512 NX=1024)
work=$(mktemp -d "${BENCH_TMP:-${TMPDIR:-/tmp}}/s3suite.XXXXXX")
log() { printf '[s3 %s] %s\n' "$(date +%T)" "$*" >&2; }
cleanup() {
    "$root/tools/s3-servers.sh" stop "$work/servers" >/dev/null 2>&1 || true
    if [ "${S3_KEEP:-0}" = 1 ]; then log "scratch kept: $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

export MOTO_SERVER=${MOTO_SERVER:-$root/.venv/bin/moto_server}
export S3S_FS=${S3S_FS:-${NCZARR_RS_TOOLS:-$HOME/.cache/nczarr-rs/tools}/bin/s3s-fs}
"$root/tools/s3-servers.sh" start "$work/servers" >/dev/null
. "$work/servers/urls.env"
E=$NCZARR_RS_TEST_S3S
B=$NCZARR_RS_TEST_BUCKET
export AWS_ACCESS_KEY_ID=AK AWS_SECRET_ACCESS_KEY=SK AWS_REGION=us-east-1 AWS_EC2_METADATA_DISABLED=true
unset AWS_PROFILE AWS_ENDPOINT_URL AWS_ENDPOINT_URL_S3 HDF5_PLUGIN_PATH
for v in $(compgen -e | grep '^NCZARR_RS_' || true); do unset "$v"; done   # our defaults

# ncz_bench against our library; the shim lets its deflate=1 name zstd3 or
# blosc_lz4 (S3BENCH_CODEC) for the compressed writes.
nczb=$work/ncz_bench
cc -O2 -I"$root/include" -include "$root/bench/s3_codec_shim.h" "$shared/ncz_bench.c" -L"$LIBDIR" -lnetcdf \
    -Wl,-rpath,"$LIBDIR" -lm -o "$nczb"
check_loads "$nczb" "$LIBDIR/libnetcdf.so.19"
{
    echo "server=s3s-fs $("$S3S_FS" --version 2>/dev/null | head -1) on 127.0.0.1"
    echo "scale=${SCALE[*]} ct=16 cy=128 cx=256 reps=$REPS codecs=${CODECS[*]} latency_ms=$LAT"
    echo "python_peers=$("$PY" -c 'from importlib.metadata import version as v; print(", ".join(f"{p} {v(p)}" for p in ("tensorstore", "zarr", "obstore", "numcodecs")))')"
    echo "lib=$LIBDIR/libnetcdf.so.19 sha256=$(sha256sum "$LIBDIR/libnetcdf.so.19" | cut -c1-16)"
    echo "load_before=$(cut -d' ' -f1-3 /proc/loadavg)"
} >"$out/meta.txt"

fail=0
# run NAME CMD...: CMD's stdout appended to OUT/NAME.jsonl, stderr to its .err.
run() {
    local name=$1 t0=$SECONDS rc=0
    shift
    "$@" >>"$out/$name.jsonl" 2>>"$out/$name.err" || rc=$?
    local note=""
    [ "$rc" = 0 ] || note=" (exit $rc: $(tail -c 200 "$out/$name.err" | tr '\n' ' '))"
    log "  $name: $((SECONDS - t0)) s$note"
    [ "$rc" = 0 ] || { echo "{\"failed\": \"$name\", \"rc\": $rc}" >>"$out/$name.jsonl"; [[ $name == *ours* ]] && fail=1; }
    return 0
}
url() { echo "$E/$B/$1#mode=$2,s3"; }
keys_for() { case $1 in none) ;; *) echo deflate=1 ;; esac; }

for codec in "${CODECS[@]}"; do
    store=s3bench/read_$codec.zarr
    log "codec $codec: generating and uploading the read store"
    "$PY" "$root/bench/zarr_bench_ext.py" gen "$work/read_$codec.zarr" --codec "$codec" "${SCALE[@]}"
    "$TPY" "$root/bench/s3_upload.py" "$E" "$B" "$store" "$work/read_$codec.zarr"
    rm -rf "$work/read_$codec.zarr"

    log "codec $codec: read_full"
    run "read_full.$codec.ours" "$nczb" read_full "$(url "$store" zarr)" "${SCALE[@]}" reps="$REPS"
    run "read_full.$codec.tensorstore" "$PY" "$root/bench/s3_peers.py" read tensorstore "$E" "$B" "$store" \
        "${SCALE[@]}" reps="$REPS"
    run "read_full.$codec.zarr" "$PY" "$root/bench/s3_peers.py" read zarr "$E" "$B" "$store" "${SCALE[@]}" \
        reps="$REPS"
    log "codec $codec: raw GETs and PUTs of the same objects"
    run "raw.$codec" "$PY" "$root/bench/s3_peers.py" raw "$E" "$B" "$store/t2m/" reps="$REPS"
    "$TPY" "$root/bench/s3_raw.py" "$E" "$B" "$store/t2m/" 64 "$REPS" 2>>"$out/raw.$codec.err" |
        awk '{ printf "{\"workload\": \"raw_get\", \"impl\": \"boto3\", \"seconds\": %.6f, \"objects\": %d, \"verify_errors\": 0}\n", $2 / 1e3, $4 }' \
            >>"$out/raw.$codec.jsonl" || true
    "$PY" "$root/bench/s3_peers.py" delete "$E" "$B" "$store/"

    log "codec $codec: write_full"
    for impl in ours tensorstore zarr; do
        wstore=s3bench/write_${impl}_$codec.zarr
        if [ "$impl" = ours ]; then
            # shellcheck disable=SC2046
            run "write_full.$codec.ours" env S3BENCH_CODEC="$codec" "$nczb" write_full "$(url "$wstore" nczarr)" \
                "${SCALE[@]}" reps="$REPS" $(keys_for "$codec")
            mode=nczarr
        else
            run "write_full.$codec.$impl" "$PY" "$root/bench/s3_peers.py" write "$impl" "$E" "$B" "$wstore" \
                --codec "$codec" "${SCALE[@]}" reps="$REPS"
            mode=zarr
        fi
        # Every value of what was written, read back by ncz_bench.
        run "verify_write.$codec.$impl" "$nczb" read_full "$(url "$wstore" $mode)" "${SCALE[@]}" reps=1
        "$PY" "$root/bench/s3_peers.py" delete "$E" "$B" "$wstore/"
    done
done

# ---------------------------------------------------------------- opening
log "open: 500 variables x 10 attributes, $LAT ms per request"
open_case() { # CASE CMD... ({endpoint} is the proxy's)
    local case=$1
    shift
    run open "$TPY" "$root/bench/s3_open.py" --runs "$REPS" "$E" "$LAT" "$case" -- "$@"
}
for mode in nczarr zarr nczarr,v3 zarr,v3; do
    key=s3bench/meta_${mode/,/_}.zarr
    run "meta_create.${mode/,/_}" "$nczb" meta_create "$(url "$key" "$mode")" reps=1
    open_case "$mode meta_open" "$nczb" meta_open "{endpoint}/$B/$key#mode=${mode%%,*},s3" reps=1
    open_case "$mode ncdump -h" env LD_LIBRARY_PATH="$LIBDIR" ncdump -h "{endpoint}/$B/$key#mode=${mode%%,*},s3"
    open_case "$mode noconsolidated meta_open" "$nczb" meta_open \
        "{endpoint}/$B/$key#mode=${mode%%,*},noconsolidated,s3" reps=1
done
# zarr-python's own store of bench/run's meta_open (no consolidated metadata).
"$PY" "$root/bench/zarr_bench_ext.py" meta_create "$work/meta_zp.zarr"
"$TPY" "$root/bench/s3_upload.py" "$E" "$B" s3bench/meta_zp.zarr "$work/meta_zp.zarr"
open_case "zarr-python v2 meta_open" "$nczb" meta_open "{endpoint}/$B/s3bench/meta_zp.zarr#mode=zarr,s3" reps=1
echo "load_after=$(cut -d' ' -f1-3 /proc/loadavg)" >>"$out/meta.txt"

"$TPY" "$root/bench/s3_report.py" "$out" || fail=1
exit "$fail"
