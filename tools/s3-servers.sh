#!/bin/sh
# Local S3 servers for tests: moto (no signature checks) and s3s-fs (checks
# SigV4 signatures, keys AK/SK), each on a free 127.0.0.1 port, each with
# the bucket $BUCKET (default nczarr-test).
#
#   tools/s3-servers.sh start [STATE_DIR]  start both, wait until they answer
#   tools/s3-servers.sh stop  [STATE_DIR]  stop the ones start started
#   tools/s3-servers.sh env   [STATE_DIR]  print the variables to export:
#       eval "$(tools/s3-servers.sh env)"; cargo test --release --test s3_driver
#
# STATE_DIR (default ${TMPDIR:-/tmp}/nczarr-rs-s3-servers) holds the pids,
# logs, s3s-fs's data and urls.env:
#   NCZARR_RS_TEST_MOTO=http://127.0.0.1:<port>
#   NCZARR_RS_TEST_S3S=http://127.0.0.1:<port>
#   NCZARR_RS_TEST_BUCKET=<bucket>
#
# Binaries: $MOTO_SERVER, else /tmp/motoenv/bin/moto_server, else on PATH
#   (python3 -m venv /tmp/motoenv && /tmp/motoenv/bin/pip install 'moto[server]==5.2.5');
# $S3S_FS, else ~/.cache/nczarr-rs/tools/bin/s3s-fs, else on PATH
#   (cargo install s3s-fs --version 0.14.1 --features binary --locked --root ~/.cache/nczarr-rs/tools).
set -eu

cmd=${1:-}
state=${2:-${TMPDIR:-/tmp}/nczarr-rs-s3-servers}
bucket=${BUCKET:-nczarr-test}

find_bin() { # variable-value default name
    if [ -n "$1" ]; then echo "$1"; elif [ -x "$2" ]; then echo "$2"; else command -v "$3" || true; fi
}

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

wait_up() { # url
    i=0
    while ! curl -s -o /dev/null "$1/"; do
        i=$((i + 1))
        if [ "$i" -gt 150 ]; then echo "s3-servers: $1 did not start" >&2; return 1; fi
        sleep 0.2
    done
}

stop_one() { # pidfile
    if [ -f "$1" ]; then
        kill "$(cat "$1")" 2>/dev/null || true
        rm -f "$1"
    fi
}

case "$cmd" in
start)
    moto=$(find_bin "${MOTO_SERVER:-}" /tmp/motoenv/bin/moto_server moto_server)
    s3s=$(find_bin "${S3S_FS:-}" "$HOME/.cache/nczarr-rs/tools/bin/s3s-fs" s3s-fs)
    [ -n "$moto" ] || { echo "s3-servers: moto_server not found" >&2; exit 1; }
    [ -n "$s3s" ] || { echo "s3-servers: s3s-fs not found" >&2; exit 1; }
    mkdir -p "$state"
    "$0" stop "$state"
    rm -rf "$state/s3s-data"
    mkdir -p "$state/s3s-data/$bucket"

    moto_port=$(free_port)
    "$moto" -H 127.0.0.1 -p "$moto_port" >"$state/moto.log" 2>&1 &
    echo $! >"$state/moto.pid"
    s3s_port=$(free_port)
    "$s3s" --host 127.0.0.1 --port "$s3s_port" --access-key AK --secret-key SK "$state/s3s-data" \
        >"$state/s3s.log" 2>&1 &
    echo $! >"$state/s3s.pid"

    wait_up "http://127.0.0.1:$moto_port"
    wait_up "http://127.0.0.1:$s3s_port"
    # moto checks no signature: an unsigned PUT creates the bucket.
    curl -sf -X PUT "http://127.0.0.1:$moto_port/$bucket" >/dev/null
    {
        echo "NCZARR_RS_TEST_MOTO=http://127.0.0.1:$moto_port"
        echo "NCZARR_RS_TEST_S3S=http://127.0.0.1:$s3s_port"
        echo "NCZARR_RS_TEST_BUCKET=$bucket"
    } >"$state/urls.env"
    cat "$state/urls.env"
    ;;
stop)
    stop_one "$state/moto.pid"
    stop_one "$state/s3s.pid"
    ;;
env)
    [ -f "$state/urls.env" ] || { echo "s3-servers: not started ($state)" >&2; exit 1; }
    sed 's/^/export /' "$state/urls.env"
    ;;
*)
    sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
    ;;
esac
