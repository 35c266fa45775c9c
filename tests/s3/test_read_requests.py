"""What a read of chunks costs in requests, counted by the proxy (proxy.py)
and bounded from above: a read touching N chunks of a variable stored raw
is at most N GETs (ranges of one chunk merged into one), a sharded one at
most an index GET and one merged GET per shard, and no call has more than
`s3.concurrency` requests in flight. Then a server that never answers a
variable's chunks: the read fails with NC_ES3 within two minutes with the
default settings, however many chunks it touches, holding no more threads
than its concurrency.

The variable is `big` of slab.c, whose values say where they are: every
read checks every value."""

import collections
import os
import re
import subprocess
import time

import pytest

from conftest import BUCKET, NC_ES3, PUBLIC_BUCKET, run, s3_url, status_of
from proxy import Proxy, overlapping

METADATA = (".zmetadata", ".zgroup", ".zattrs", ".zarray", "zarr.json")
CHUNK_RE = r"/big/(c/)?\d"


def chunk_gets(proxy):
    return [r for r in proxy.object_gets() if re.search(CHUNK_RE, r.path) and not r.key.endswith(METADATA)]


def range_length(record):
    """Bytes a GET asked for: None for the whole object, else the length of
    its one range (a suffix range `-n` is n)."""
    if record.range is None:
        return None
    m = re.fullmatch(r"bytes=(\d*)-(\d*)", record.range)
    assert m, record.range
    first, last = m.groups()
    return int(last) if not first else int(last) - int(first) + 1


def upload(server, local_dir, key, bucket=BUCKET, acl=None):
    for dirpath, _, files in os.walk(local_dir):
        for name in files:
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, local_dir)
            with open(path, "rb") as f:
                server.put(bucket, f"{key}/{rel}", f.read(), acl=acl)


def read(progs, url, env, *slab, timeout=120):
    return run(progs["slab"], "read", url, *slab, env=env, timeout=timeout).stdout.strip()


def test_netcdf_c_store_read_whole_is_one_get_per_chunk(progs, server, prefix, env, proxy_for, tmp_path):
    """The case that was 512 GETs per chunk: netcdf-c 4.10.1's default
    NCZarr (no filters), float 32x512x512 in 128 chunks of 4x128x128, read
    whole: 128 GETs, each chunk once, at most s3.concurrency in flight."""
    local = tmp_path / "nc.zarr"
    out = run(progs["slab_netcdf_c"], "write", f"file://{local}#mode=nczarr,file", "32x512x512", "4x128x128",
              env=env).stdout
    assert status_of(out, "close") == 0
    key = f"{prefix}/nc.zarr"
    upload(server, local, key)
    for concurrency in (None, 8):
        proxy = proxy_for(server)
        # Slow enough that requests sent together are seen together.
        proxy.fault("delay", count=None, method="GET", path_re=CHUNK_RE, seconds=0.05)
        url = s3_url(proxy.endpoint, BUCKET, key)
        if concurrency:
            url += f"&s3.concurrency={concurrency}"
        assert read(progs, url, env) == f"ok {32 * 512 * 512}"
        gets = chunk_gets(proxy)
        keys = collections.Counter(r.key for r in gets)
        assert len(keys) == 128 and max(keys.values()) == 1, keys.most_common(3)
        limit = concurrency or 64
        assert proxy.max_in_flight <= limit, (concurrency, proxy.max_in_flight)
        assert overlapping(gets) >= min(limit, 8), overlapping(gets)


# (mode, filter, shards): written by us straight to S3, 16x256x256 floats
# in 64 chunks of 4x64x64.
WRITTEN_BY_US = [
    ("nczarr", "none", None),
    ("nczarr", "zlib", None),
    ("zarr", "blosc", None),
    ("zarr,v3", "none", None),
    ("nczarr,v3", "zstd", None),
    ("zarr,v3", "none", "2x2x2"),
    ("zarr,v3", "zlib", "2x2x2"),
]


@pytest.mark.parametrize("mode,codec,shards", WRITTEN_BY_US, ids=["-".join(filter(None, c)) for c in WRITTEN_BY_US])
def test_read_whole_costs_at_most_a_get_per_chunk(progs, server, prefix, env, proxy_for, mode, codec, shards):
    key = f"{prefix}/d.zarr"
    args = ["write", s3_url(server.endpoint, BUCKET, key, mode), "16x256x256", "4x64x64", codec]
    if shards:
        args.append(shards)
    assert status_of(run(progs["slab"], *args, env=env).stdout, "close") == 0
    proxy = proxy_for(server)
    proxy.fault("delay", count=None, method="GET", path_re=CHUNK_RE, seconds=0.05)
    url = s3_url(proxy.endpoint, BUCKET, key, mode) + "&s3.concurrency=6"
    assert read(progs, url, env) == f"ok {16 * 256 * 256}"
    gets = chunk_gets(proxy)
    per_object = collections.Counter(r.key for r in gets)
    summary = [(r.key, r.range) for r in gets][:20]
    if shards:
        # 8 shards: each its index (a suffix range) and one merged GET.
        assert len(per_object) == 8, summary
        assert max(per_object.values()) <= 2, summary
        index_gets = [r for r in gets if r.range and r.range.startswith("bytes=-")]
        assert len(index_gets) == 8, summary
    else:
        assert len(per_object) == 64 and max(per_object.values()) == 1, summary
    assert proxy.max_in_flight <= 6, proxy.max_in_flight
    assert overlapping(gets) >= 2, overlapping(gets)


def test_http_read_whole_is_one_get_per_chunk(progs, moto_server, prefix, env, proxy_for, tmp_path):
    """The same over plain HTTP (`mode=nczarr,http`, unsigned GETs of a
    public bucket): a GET per chunk, s3.concurrency at a time."""
    local = tmp_path / "d.zarr"
    out = run(progs["slab"], "write", f"file://{local}#mode=nczarr,file", "16x256x256", "4x64x64", env=env).stdout
    assert status_of(out, "close") == 0
    key = f"{prefix}/d.zarr"
    upload(moto_server, local, key, bucket=PUBLIC_BUCKET, acl="public-read")
    proxy = proxy_for(moto_server)
    proxy.fault("delay", count=None, method="GET", path_re=CHUNK_RE, seconds=0.05)
    url = f"{proxy.endpoint}/{PUBLIC_BUCKET}/{key}#mode=nczarr,http&s3.concurrency=6"
    assert read(progs, url, env) == f"ok {16 * 256 * 256}"
    gets = chunk_gets(proxy)
    assert len(gets) == 64 and len({r.key for r in gets}) == 64, [(r.key, r.range) for r in gets][:10]
    assert not any(r.signed for r in gets)
    assert proxy.max_in_flight <= 6 and overlapping(gets) >= 2, proxy.max_in_flight


@pytest.fixture
def four_mib_chunks(progs, server, prefix, env):
    """32x512x512 floats, uncompressed, in 8 chunks of 16x256x256 (4 MiB)."""
    key = f"{prefix}/ts.zarr"
    out = run(progs["slab"], "write", s3_url(server.endpoint, BUCKET, key), "32x512x512", "16x256x256",
              env=env).stdout
    assert status_of(out, "close") == 0
    return key


CHUNK_BYTES = 16 * 256 * 256 * 4


@pytest.mark.parametrize("start,count,chunks,longest", [
    # A time series at one point: through 2 chunks, 16 values 256 KiB
    # apart in each, fetched as one range (less than the chunk).
    ("0x100x300", "32x1x1", 2, CHUNK_BYTES - 1),
    # A small block across a corner of 8 chunks: short ranges.
    ("14x250x250", "4x12x12", 8, 1 << 20),
    # An unaligned block over most of 8 chunks (ranged or whole).
    ("5x100x100", "20x300x300", 8, None),
], ids=["time-series", "small-block", "large-block"])
def test_hyperslabs_of_raw_chunks_cost_a_get_per_chunk(progs, server, four_mib_chunks, env, proxy_for, start, count,
                                                       chunks, longest):
    proxy = proxy_for(server)
    url = s3_url(proxy.endpoint, BUCKET, four_mib_chunks)
    n = 1
    for c in count.split("x"):
        n *= int(c)
    assert read(progs, url, env, start, count) == f"ok {n}"
    gets = chunk_gets(proxy)
    summary = [(r.key, r.range) for r in gets]
    assert len({r.key for r in gets}) == chunks, summary
    assert len(gets) == chunks, summary
    if longest:
        assert all(range_length(r) is not None and range_length(r) <= longest for r in gets), summary


def hung_read(progs, proxy, key, env):
    """Start reading `big` through `proxy` with the default settings."""
    return subprocess.Popen([str(progs["slab"]), "read", s3_url(proxy.endpoint, BUCKET, key)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def threads_of(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("Threads:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def test_silent_server_fails_the_read_within_two_minutes(progs, moto_server, s3sfs_server, prefix, env):
    """Every chunk GET of the variable hangs (the server accepts, reads the
    request and never answers): with the default settings (30 s per
    response, 8 attempts, 64 requests at once) each read returns NC_ES3
    within two minutes, for 16 chunks and for 128 (twice the concurrency:
    the second half never starts), on both servers at once. Each call
    holds at most 64 threads of ours and 64 requests meanwhile."""
    cases = []
    for server in (moto_server, s3sfs_server):
        for nchunks in (16, 128):
            key = f"{prefix}/{server.name}-{nchunks}.zarr"
            out = run(progs["slab"], "write", s3_url(server.endpoint, BUCKET, key), f"{nchunks}x256", "1x256",
                      env=env).stdout
            assert status_of(out, "close") == 0
            proxy = Proxy(server.port)
            proxy.fault("hang", count=None, method="GET", path_re=CHUNK_RE)
            cases.append((server.name, nchunks, proxy, key))
    started = time.monotonic()
    procs = [(case, hung_read(progs, case[2], case[3], env)) for case in cases]
    peak_threads = collections.Counter()
    try:
        while any(p.poll() is None for _, p in procs) and time.monotonic() - started < 150:
            for (name, nchunks, _, _), p in procs:
                if p.poll() is None:
                    peak_threads[(name, nchunks)] = max(peak_threads[(name, nchunks)], threads_of(p.pid))
            time.sleep(0.5)
        for (name, nchunks, proxy, _), p in procs:
            try:
                out, err = p.communicate(timeout=1)
            except subprocess.TimeoutExpired:
                p.kill()
                pytest.fail(f"{name}, {nchunks} chunks: no answer after {time.monotonic() - started:.0f} s")
            assert out.strip() == f"error {NC_ES3}", (name, nchunks, out, err[-2000:])
            hung = chunk_gets(proxy)
            asked = {r.key for r in hung}
            assert 1 <= len(asked) <= 64 and proxy.max_in_flight <= 64, (name, nchunks, len(asked),
                                                                          proxy.max_in_flight)
            # The program's own thread, waiting, and at most 64 of ours.
            assert peak_threads[(name, nchunks)] <= 65, (name, nchunks, peak_threads)
    finally:
        for (_, _, proxy, _), p in procs:
            if p.poll() is None:
                p.kill()
            proxy.stop()
    elapsed = time.monotonic() - started
    assert elapsed < 120, f"{elapsed:.0f} s"
