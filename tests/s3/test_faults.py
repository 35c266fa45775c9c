"""Server faults, injected by the proxy (proxy.py) between our library and
a real server: error bursts are retried and give the right values; a server
that stops answering or a port with nothing behind it gives an error and
the call returns; a connection reset or a short body never gives wrong
values; a commit broken half-way returns an error and leaves either the
old dataset or an error for readers, never metadata over missing chunks.

`readbig` (s3probe.c) poisons its buffer before reading and prints
"values offset K" only when every value is right."""

import time

import pytest

from conftest import BUCKET, NC_ES3, run, s3_url, status_of
from proxy import Proxy

CHUNK_RE = r"/v/\d"


@pytest.fixture
def big(progs, server, prefix, env):
    """A 64-chunk dataset (v[i] = i) written directly; its key."""
    key = f"{prefix}/big.zarr"
    out = run(progs["s3probe"], "writebig", s3_url(server.endpoint, BUCKET, key), 64, 256, 0, env=env).stdout
    assert status_of(out, "close") == 0
    return key


def readbig(progs, url, env, timeout=120):
    return run(progs["s3probe"], "readbig", url, env=env, timeout=timeout).stdout.strip()


@pytest.mark.parametrize("status,slowdown", [(500, False), (503, False), (503, True)])
def test_error_bursts_are_retried(progs, server, big, env, proxy_for, status, slowdown):
    proxy = proxy_for(server)
    proxy.fault("status", count=3, method="GET", path_re=r"\.zmetadata$", status=status, slowdown=slowdown)
    proxy.fault("status", count=3, method="GET", path_re=CHUNK_RE, status=status, slowdown=slowdown)
    assert readbig(progs, s3_url(proxy.endpoint, BUCKET, big), env) == "values offset 0"
    statuses = [r.status for r in proxy.snapshot()]
    assert statuses.count(status) == 6, statuses
    # The refused .zmetadata was asked for again until it came.
    meta = [r.status for r in proxy.snapshot() if r.key.endswith(".zmetadata")]
    assert meta == [status] * 3 + [200], meta


def test_error_bursts_on_write_are_retried(progs, server, prefix, env, proxy_for):
    proxy = proxy_for(server)
    proxy.fault("status", count=3, method="PUT", path_re=CHUNK_RE, status=503, slowdown=True)
    proxy.fault("status", count=2, method="PUT", path_re=r"\.zmetadata$", status=500)
    url = s3_url(proxy.endpoint, BUCKET, f"{prefix}/w.zarr")
    out = run(progs["s3probe"], "writebig", url, 32, 64, 9, env=env).stdout
    assert status_of(out, "close") == 0
    assert [r.status for r in proxy.snapshot()].count(503) == 3
    assert readbig(progs, s3_url(server.endpoint, BUCKET, f"{prefix}/w.zarr"), env) == "values offset 9"


def test_server_stops_answering_at_open(progs, server, big, env, proxy_for):
    proxy = proxy_for(server)
    proxy.fault("hang", count=None)
    url = s3_url(proxy.endpoint, BUCKET, big) + "&http.timeout=2&s3.retries=2"
    out = run(progs["s3probe"], "open", url, env=env, timeout=120).stdout
    assert status_of(out, "open") == NC_ES3


def test_server_stops_answering_mid_read(progs, server, big, env, proxy_for):
    proxy = proxy_for(server)
    proxy.fault("hang", count=None, method="GET", path_re=CHUNK_RE, skip=5)
    url = s3_url(proxy.endpoint, BUCKET, big) + "&http.timeout=2&s3.retries=2"
    assert readbig(progs, url, env, timeout=120) == f"error {NC_ES3}"


def test_dead_port(progs, env):
    port = Proxy.dead_port()
    t = time.monotonic()
    out = run(progs["s3probe"], "open", s3_url(f"http://127.0.0.1:{port}", BUCKET, "x/d.zarr"), env=env,
              timeout=60).stdout
    elapsed = time.monotonic() - t
    assert status_of(out, "open") == NC_ES3
    assert elapsed < 20, f"{elapsed:.1f} s to give up on a dead port"


@pytest.mark.parametrize("kind", ["reset", "short"])
def test_broken_bodies_never_give_wrong_values(progs, server, big, env, proxy_for, kind):
    proxy = proxy_for(server)
    url = s3_url(proxy.endpoint, BUCKET, big) + "&s3.retries=3&http.timeout=10"
    # A few broken: retried, or an error; never wrong values.
    proxy.fault(kind, count=3, method="GET", path_re=CHUNK_RE)
    out = readbig(progs, url, env)
    assert out == "values offset 0" or out.startswith("error "), out
    assert sum(r.fault == kind for r in proxy.snapshot()) >= 1
    # Every chunk broken, every time: an error.
    proxy.reset()
    proxy.fault(kind, count=None, method="GET", path_re=CHUNK_RE)
    out = readbig(progs, url, env)
    assert out.startswith("error "), out
    # The metadata broken too: the open fails, it does not invent a dataset.
    proxy.reset()
    proxy.fault(kind, count=None, method="GET")
    out = readbig(progs, url, env)
    assert out.startswith("error "), out


def test_connection_dropped_during_create_commit(progs, server, prefix, env, proxy_for):
    """A new dataset whose chunk PUTs fail part-way through nc_close: the
    close fails; a reader finds no dataset, the whole one, or the state
    committed before (the variable defined, its values fill) with at most
    some of the new chunks: every value is the new one or the fill value,
    never anything else."""
    proxy = proxy_for(server)
    proxy.fault("drop", count=None, method="PUT", path_re=CHUNK_RE, skip=10)
    url = s3_url(proxy.endpoint, BUCKET, f"{prefix}/new.zarr") + "&s3.retries=2&http.timeout=5"
    out = run(progs["s3probe"], "writebig", url, 64, 256, 0, env=env).stdout
    assert status_of(out, "close") != 0, out
    after = run(progs["s3probe"], "readbig", s3_url(server.endpoint, BUCKET, f"{prefix}/new.zarr"), 0,
                env=env).stdout.strip()
    if after.startswith("WRONG"):
        assert after.endswith(" other 0"), after
    else:
        assert after.startswith("error ") or after == "values offset 0", after


def test_connection_dropped_during_rewrite_commit(progs, server, big, env, proxy_for):
    """An existing dataset rewritten; the commit's PUTs fail part-way: the
    close fails; a reader sees the old values, the new ones, or (for a
    rewrite in place) chunks of each, but never fill values or garbage."""
    proxy = proxy_for(server)
    proxy.fault("drop", count=None, method="PUT", skip=10)
    url = s3_url(proxy.endpoint, BUCKET, big) + "&s3.retries=2&http.timeout=5"
    out = run(progs["s3probe"], "rewrite", url, 50, env=env).stdout
    assert status_of(out, "close") != 0, out
    after = run(progs["s3probe"], "readbig", s3_url(server.endpoint, BUCKET, big), 0, 50, env=env).stdout.strip()
    if after.startswith("WRONG"):
        assert after.endswith("fill 0 other 0"), after
    else:
        assert after in ("values offset 0", "values offset 50") or after.startswith("error "), after
