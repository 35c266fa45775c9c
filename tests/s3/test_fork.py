"""fork() with an S3 dataset open, then while threads are inside S3
requests (s3fork.c): every child reads the right values again, through the
dataset it inherited and a fresh open, and exits within its deadline."""

from conftest import BUCKET, run, s3_url, status_of


def test_fork(progs, server, prefix, env):
    url = s3_url(server.endpoint, BUCKET, f"{prefix}/f.zarr")
    assert status_of(run(progs["s3probe"], "writebig", url, 16, 128, 0, env=env).stdout, "close") == 0
    out = run(progs["s3fork"], url, env=env, timeout=180).stdout
    assert out.startswith("PASS"), out


def test_fork_through_slow_proxy(progs, server, prefix, env, proxy_for):
    """Responses delayed, so the forks land while requests are in flight."""
    url = s3_url(server.endpoint, BUCKET, f"{prefix}/f.zarr")
    assert status_of(run(progs["s3probe"], "writebig", url, 16, 128, 0, env=env).stdout, "close") == 0
    proxy = proxy_for(server)
    proxy.fault("delay", count=None, method="GET", seconds=0.05)
    out = run(progs["s3fork"], s3_url(proxy.endpoint, BUCKET, f"{prefix}/f.zarr"), env=env, timeout=180).stdout
    assert out.startswith("PASS"), out
    assert proxy.max_in_flight >= 1
