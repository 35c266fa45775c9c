"""What the library asks of the server, counted by the proxy (proxy.py):
how many requests of each kind an open takes, and how many it keeps in
flight. Counts and orderings only, never durations; where overlap has to
be observable the proxy delays responses, so that requests the library
sends together are seen together."""

import subprocess

from conftest import BUCKET, run, s3_url, status_of
from proxy import overlapping

METADATA = (".zmetadata", ".zgroup", ".zattrs", ".zarray")


def is_metadata(key):
    return key.rsplit("/", 1)[-1] in METADATA


def chunk_key(key):
    return not is_metadata(key) and not key.endswith("/")


def test_consolidated_open_is_one_get(progs, server, prefix, env, proxy_for):
    run(progs["write_sample"], s3_url(server.endpoint, BUCKET, f"{prefix}/d.zarr"), env=env)
    proxy = proxy_for(server)
    out = run(progs["s3probe"], "meta", s3_url(proxy.endpoint, BUCKET, f"{prefix}/d.zarr"), env=env).stdout
    assert status_of(out, "open") == 0 and status_of(out, "close") == 0
    assert "var tas " in out and "group /g1/g2" in out
    reqs = proxy.snapshot()
    summary = [(r.method, r.key, r.query) for r in reqs]
    assert [r for r in reqs if r.method == "HEAD"] == [], summary
    assert proxy.lists() == [], summary
    assert [r for r in reqs if r.method not in ("GET", "HEAD")] == [], summary
    # `.zmetadata`, and v3's root probed in the same batch (a miss).
    gets = proxy.object_gets()
    assert sorted(g.key for g in gets) == [f"{prefix}/d.zarr/.zmetadata", f"{prefix}/d.zarr/zarr.json"], summary
    assert [g.status for g in gets if g.key.endswith("zarr.json")] == [404], summary


def test_v3_open_is_one_round_trip(progs, server, prefix, env, proxy_for):
    """A v3 store's root is asked for together with v2's `.zmetadata`: no
    v2 object (`.zgroup`, `.zattrs`, `.nczarr`) is probed first."""
    run(progs["write_sample"], s3_url(server.endpoint, BUCKET, f"{prefix}/d.zarr", mode="nczarr,v3"), env=env)
    proxy = proxy_for(server)
    proxy.fault("delay", count=None, method="GET", seconds=0.2)
    out = run(progs["s3probe"], "meta", s3_url(proxy.endpoint, BUCKET, f"{prefix}/d.zarr", mode="nczarr,v3"),
              env=env).stdout
    assert status_of(out, "open") == 0 and "var tas " in out
    reqs = proxy.snapshot()
    summary = [(r.method, r.key, r.status) for r in reqs]
    gets = proxy.object_gets()
    assert sorted(g.key for g in gets) == [f"{prefix}/d.zarr/.zmetadata", f"{prefix}/d.zarr/zarr.json"], summary
    assert overlapping(gets) == 2, summary
    assert proxy.lists() == [] and [r for r in reqs if r.method != "GET"] == [], summary


def test_unconsolidated_open_one_get_per_object(progs, server, prefix, env, proxy_for):
    url = s3_url(server.endpoint, BUCKET, f"{prefix}/d.zarr").replace("#mode=nczarr,s3", "#mode=nczarr,s3,noconsolidated")
    run(progs["write_sample"], url, env=env)
    keys = server.keys(BUCKET, prefix + "/")
    meta_keys = sorted(k for k in keys if is_metadata(k) and not k.endswith(".zmetadata"))
    assert f"{prefix}/d.zarr/.zgroup" in meta_keys
    proxy = proxy_for(server)
    proxy.fault("delay", count=None, method="GET", seconds=0.2)
    purl = s3_url(proxy.endpoint, BUCKET, f"{prefix}/d.zarr").replace("#mode=nczarr,s3",
                                                                         "#mode=nczarr,s3,noconsolidated")
    out = run(progs["s3probe"], "meta", purl, env=env).stdout
    assert status_of(out, "open") == 0
    reqs = proxy.snapshot()
    summary = [(r.method, r.key, r.query, r.status) for r in reqs]
    assert [r for r in reqs if r.method == "HEAD"] == [], summary
    assert proxy.lists() == [], summary
    gets = proxy.object_gets()
    got = sorted(r.key for r in gets)
    # Each metadata object exactly once, and v3's root probed with v2's.
    assert got == sorted([*meta_keys, f"{prefix}/d.zarr/zarr.json"]), summary
    root_batch = [r for r in gets if r.key.endswith(("d.zarr/.zgroup", "d.zarr/.zattrs", "d.zarr/zarr.json"))]
    assert overlapping(root_batch) == 3, summary
    # The root group's children (its variables' .zarray/.zattrs) are fetched together.
    root_children = [r for r in gets if r.key.count("/") == 3 and r.key.split("/")[2] not in ("g1",)]
    assert overlapping(root_children) > 1, summary


def test_many_chunks_read_concurrently(progs, server, prefix, env, proxy_for):
    url = s3_url(server.endpoint, BUCKET, f"{prefix}/big.zarr")
    assert status_of(run(progs["s3probe"], "writebig", url, 128, 256, 0, env=env).stdout, "close") == 0
    proxy = proxy_for(server)
    proxy.fault("delay", count=None, method="GET", path_re=r"/v/\d", seconds=0.3)
    out = run(progs["s3probe"], "readbig", s3_url(proxy.endpoint, BUCKET, f"{prefix}/big.zarr"), env=env).stdout
    assert out.strip() == "values offset 0"
    chunk_gets = [r for r in proxy.object_gets() if "/v/" in r.key]
    assert len(chunk_gets) == 128 and len({r.key for r in chunk_gets}) == 128
    assert overlapping(chunk_gets) >= 32, f"peak {overlapping(chunk_gets)} chunk GETs in flight"
    assert proxy.max_in_flight <= 64, f"peak {proxy.max_in_flight} requests in flight (s3.concurrency 64)"


def test_later_opens_reuse_idle_connections(progs, s3sfs_server, prefix, env, proxy_for):
    """Datasets opened one after another in one process share the
    process's connection pool: the second and third opens of a store find
    the first's connections idle and connect no more (over https, each new
    connection is a TLS handshake). Requests are delayed so that the first
    read keeps many in flight, and so opens many connections. s3s-fs only:
    moto's server closes every connection after one answer, so there is
    nothing to reuse."""
    server = s3sfs_server
    url = s3_url(server.endpoint, BUCKET, f"{prefix}/big.zarr")
    assert status_of(run(progs["s3probe"], "writebig", url, 64, 256, 0, env=env).stdout, "close") == 0
    proxy = proxy_for(server)
    proxy.fault("delay", count=None, method="GET", seconds=0.2)
    probe = subprocess.Popen([str(progs["s3probe"]), "rereads", s3_url(proxy.endpoint, BUCKET, f"{prefix}/big.zarr"),
                              "3"], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        accepted = []
        for _ in range(3):
            assert probe.stdout.readline().strip() == "values offset 0"
            proxy.snapshot()  # every request answered
            accepted.append(proxy.accepted)
            probe.stdin.write("next\n")
            probe.stdin.flush()
        assert probe.wait(timeout=60) == 0
    finally:
        probe.kill()
    chunk_gets = [r for r in proxy.object_gets() if "/v/" in r.key]
    assert len(chunk_gets) == 3 * 64, len(chunk_gets)
    # Many connections at first (the delays keep requests in flight), but
    # never more than s3.concurrency (64) requests in flight need.
    assert 32 <= accepted[0] <= 64, accepted
    assert accepted[2] == accepted[0], f"connections accepted after each open: {accepted}"


def check_commit_order(puts, summary, var="v", metadata_after=False):
    """Chunk PUTs overlap; no metadata PUT runs while chunk PUTs are under
    way (a metadata PUT that starts after the first chunk PUT starts after
    the last one ended); with metadata_after, the commit rewrites
    .zmetadata after the chunks."""
    chunks = [r for r in puts if chunk_key(r.key) and f"/{var}/" in r.key]
    assert chunks, summary
    assert overlapping(chunks) > 1, summary
    first_chunk = min(r.start for r in chunks)
    last_chunk_end = max(r.end for r in chunks)
    during = [r for r in puts if is_metadata(r.key) and r.end > first_chunk and r.start < last_chunk_end]
    assert during == [], f"metadata PUTs while chunks were written: {[(r.key, r.start) for r in during]}"
    if metadata_after:
        after = [r for r in puts if is_metadata(r.key) and r.start >= last_chunk_end]
        assert any(r.key.endswith("/.zmetadata") for r in after), summary


def test_close_writes_chunks_then_metadata(progs, server, prefix, env, proxy_for):
    proxy = proxy_for(server)
    proxy.fault("delay", count=None, method="PUT", seconds=0.1)
    url = s3_url(proxy.endpoint, BUCKET, f"{prefix}/w.zarr")
    out = run(progs["s3probe"], "writebig", url, 64, 256, 3, env=env).stdout
    assert status_of(out, "close") == 0
    puts = proxy.requests("PUT")
    summary = [(r.method, r.key, r.status) for r in proxy.snapshot()]
    check_commit_order(puts, summary)

    # A rewrite of an existing dataset: its commit too.
    proxy.reset()
    proxy.fault("delay", count=None, method="PUT", seconds=0.1)
    out = run(progs["s3probe"], "rewrite", url, 11, env=env).stdout
    assert status_of(out, "close") == 0
    check_commit_order(proxy.requests("PUT"), [(r.method, r.key, r.status) for r in proxy.snapshot()])
    assert run(progs["s3probe"], "readbig", url, env=env).stdout.strip() == "values offset 11"


def test_close_after_growth_writes_chunks_then_metadata(progs, server, prefix, env, proxy_for):
    """Records appended to an unlimited dimension: the commit at nc_close
    has both chunks and metadata (the new length); chunks go first, in
    parallel, and every metadata object after the last chunk."""
    url = s3_url(server.endpoint, BUCKET, f"{prefix}/rec.zarr")
    assert status_of(run(progs["s3probe"], "growrec", url, 0, 4, env=env).stdout, "close") == 0
    proxy = proxy_for(server)
    proxy.fault("delay", count=None, method="PUT", seconds=0.1)
    out = run(progs["s3probe"], "growrec", s3_url(proxy.endpoint, BUCKET, f"{prefix}/rec.zarr"), 4, 64, env=env).stdout
    assert status_of(out, "close") == 0
    puts = proxy.requests("PUT")
    summary = [(r.method, r.key, r.status) for r in proxy.snapshot()]
    assert sum(1 for r in puts if "/r/" in r.key and chunk_key(r.key)) == 64, summary
    check_commit_order(puts, summary, var="r", metadata_after=True)
    assert '"shape":[68,256]' in server.get(BUCKET, f"{prefix}/rec.zarr/r/.zarray").decode().replace(" ", "")
