#!/usr/bin/env bash
# S3 read throughput and request counts, against raw concurrent GETs of
# the same objects on the same server (boto3, 64 threads), on 127.0.0.1
# (tools/s3-servers.sh; s3s-fs, or moto with S3_BENCH_SERVER=moto). Two
# stores, each read whole three times (open + read + close; medians):
#
#   1-D   a 64 MiB float variable in 256 uncompressed chunks, written by us
#         (bench/s3_read.c);
#   3-D   what netcdf-c 4.10.1 writes by default (NCZarr, no filters): float
#         32x512x512 in 128 chunks of 4x128x128, written by the netCDF4
#         wheel's libnetcdf (tests/s3/slab.c) to a directory and uploaded.
#
# For each: our MB/s, raw MB/s, their ratio (raw time / ours; above 0.5
# meets the S3 issue's target), and from one more read through the
# counting proxy (bench/s3_requests.py): chunk GETs per chunk (1.00 is the
# least a read of every chunk can cost) and the peak of requests in flight
# (at most s3.concurrency, 64).
#
# Usage: bench/s3_read.sh [N_CHUNKS=256]     Needs: make build, make deps.
# NCZARR_RS_LIBDIR: another build of the library to measure.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-256}
python=${PYTHON:-$root/.venv/bin/python}
work=$(mktemp -d "${TMPDIR:-/tmp}/s3bench.XXXXXX")
export MOTO_SERVER=${MOTO_SERVER:-$root/.venv/bin/moto_server}
export S3S_FS=${S3S_FS:-${NCZARR_RS_TOOLS:-$HOME/.cache/nczarr-rs/tools}/bin/s3s-fs}
trap '"$root/tools/s3-servers.sh" stop "$work/servers" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
"$root/tools/s3-servers.sh" start "$work/servers" >/dev/null
. "$work/servers/urls.env"
case ${S3_BENCH_SERVER:-s3s-fs} in
    moto) endpoint=$NCZARR_RS_TEST_MOTO ;;
    *) endpoint=$NCZARR_RS_TEST_S3S ;;
esac
bucket=$NCZARR_RS_TEST_BUCKET
export AWS_ACCESS_KEY_ID=AK AWS_SECRET_ACCESS_KEY=SK AWS_EC2_METADATA_DISABLED=true AWS_REGION=us-east-1
ours_lib=${NCZARR_RS_LIBDIR:-$root/target/release}
cc -O2 -I"$root/include" "$root/bench/s3_read.c" -L"$ours_lib" -lnetcdf -Wl,-rpath,"$ours_lib" -o "$work/s3_read"
wheel_lib=$("$python" -c "import sys; sys.path.insert(0, '$root/tests'); from cbuild import wheel_libnetcdf; print(wheel_libnetcdf())")
cc -O2 -std=c99 -D_DEFAULT_SOURCE -I"$root/include" "$root/tests/s3/slab.c" "$wheel_lib" \
    -Wl,-rpath,"$(dirname "$wheel_lib")" -o "$work/slab_netcdf_c"

median() { sort -n | sed -n 2p; }
field() { awk -v k="$1" '$1 == k {print $2}' "$2"; }

# measure NAME CHUNKS MIB URL_TAIL RAW_PREFIX CHUNK_RE COMMAND...: COMMAND
# ROUNDS reads the dataset ROUNDS times ({url} is its URL on the server, or
# through the proxy for the count).
printf '%-34s %6s %5s %9s %8s %9s %8s %8s %10s %6s\n' store chunks MiB "ours ms" "MB/s" "raw ms" "MB/s" raw/ours \
    GETs/chunk peak
measure() {
    local name=$1 chunks=$2 mib=$3 tail=$4 prefix=$5 chunk_re=$6
    shift 6
    local cmd=("$@")
    "${cmd[@]/\{url\}/$endpoint/$bucket/$tail}" 3 > "$work/ours"
    "$python" "$root/bench/s3_raw.py" "$endpoint" "$bucket" "$prefix" 64 3 > "$work/raw"
    "$python" "$root/bench/s3_requests.py" "$endpoint" "$chunk_re" -- "${cmd[@]/\{url\}/\{endpoint\}/$bucket/$tail}" \
        1 > "$work/count"
    local ours raw
    ours=$(field read_ms "$work/ours" | median)
    raw=$(field raw_ms "$work/raw" | median)
    printf '%-34s %6d %5d %9.1f %8.1f %9.1f %8.1f %8.2f %10.2f %6d\n' "$name" "$chunks" "$mib" \
        "$ours" "$(echo "$mib * 1048.576 / $ours" | bc -l)" "$raw" "$(echo "$mib * 1048.576 / $raw" | bc -l)" \
        "$(echo "$raw / $ours" | bc -l)" "$(echo "$(field chunk_gets "$work/count") / $chunks" | bc -l)" \
        "$(field peak_in_flight "$work/count")"
}

"$work/s3_read" "$endpoint/$bucket/bench/d.zarr#mode=nczarr,s3" "$n" 0 > /dev/null
measure "1-D, written by us" "$n" $((n / 4)) "bench/d.zarr#mode=nczarr,s3" bench/d.zarr/v/ '/v/[0-9]' \
    "$work/s3_read" -r "{url}" v

"$work/slab_netcdf_c" write "file://$work/nc.zarr#mode=nczarr,file" 32x512x512 4x128x128 > /dev/null
"$python" "$root/bench/s3_upload.py" "$endpoint" "$bucket" bench/nc.zarr "$work/nc.zarr"
measure "3-D, netcdf-c 4.10.1 defaults" 128 32 "bench/nc.zarr#mode=nczarr,s3" bench/nc.zarr/big/ '/big/[0-9]' \
    "$work/s3_read" -r "{url}" big
echo "server: ${S3_BENCH_SERVER:-s3s-fs} on 127.0.0.1; raw: boto3 GETs of the same chunk objects, 64 threads"
