#!/usr/bin/env bash
# S3 read throughput against raw concurrent GETs of the same objects on
# the same server (the S3 issue's target: within 2x): s3s-fs on
# 127.0.0.1 (tools/s3-servers.sh), a 64 MiB float variable in 256
# uncompressed chunks written by bench/s3_read.c, read whole three times
# by us (s3.concurrency requests in flight) and GET three times by boto3
# with 64 threads. Prints medians and the ratio (raw time / ours: above
# 0.5 meets the target).
#
# Usage: bench/s3_read.sh [N_CHUNKS=256]     Needs: make build, make deps.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-256}
work=$(mktemp -d "${TMPDIR:-/tmp}/s3bench.XXXXXX")
export MOTO_SERVER=${MOTO_SERVER:-$root/.venv/bin/moto_server}
export S3S_FS=${S3S_FS:-${NCZARR_RS_TOOLS:-$HOME/.cache/nczarr-rs/tools}/bin/s3s-fs}
trap '"$root/tools/s3-servers.sh" stop "$work/servers" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
"$root/tools/s3-servers.sh" start "$work/servers" >/dev/null
. "$work/servers/urls.env"
export AWS_ACCESS_KEY_ID=AK AWS_SECRET_ACCESS_KEY=SK AWS_EC2_METADATA_DISABLED=true
cc -O2 -I"$root/include" "$root/bench/s3_read.c" -L"$root/target/release" -lnetcdf \
    -Wl,-rpath,"$root/target/release" -o "$work/s3_read"
"$work/s3_read" "$NCZARR_RS_TEST_S3S/$NCZARR_RS_TEST_BUCKET/bench/d.zarr#mode=nczarr,s3" "$n" 3 > "$work/ours"
"${PYTHON:-$root/.venv/bin/python}" "$root/bench/s3_raw.py" "$NCZARR_RS_TEST_S3S" "$NCZARR_RS_TEST_BUCKET" bench/d.zarr/v/ 64 3 > "$work/raw"
median() { sort -n | sed -n 2p; }
ours=$(awk '/^read_ms/ {print $2}' "$work/ours" | median)
raw=$(awk '/^raw_ms/ {print $2}' "$work/raw" | median)
mb=$((n / 4))
echo "chunks $n ($mb MiB), s3s-fs on 127.0.0.1"
printf 'ours (open + read all)   %8.1f ms  %7.1f MB/s\n' "$ours" "$(echo "$mb * 1048.576 / $ours" | bc -l)"
printf 'raw GETs (boto3, 64 thr) %8.1f ms  %7.1f MB/s\n' "$raw" "$(echo "$mb * 1048.576 / $raw" | bc -l)"
printf 'ratio raw/ours           %8.2f   (target: at least 0.5)\n' "$(echo "$raw / $ours" | bc -l)"
