"""The test infrastructure itself, with boto3 as the client: both servers
run and keep objects, s3s-fs checks signatures (also through the proxy,
which forwards the Host header as sent), and each proxy fault does what
the other tests count on."""

import socket
import threading
import time

import boto3
import pytest
from botocore import UNSIGNED
from botocore.config import Config
from botocore.exceptions import ClientError, ReadTimeoutError, ResponseStreamingError

from conftest import ACCESS_KEY, BUCKET, PUBLIC_BUCKET, SECRET_KEY
from proxy import overlapping


def client(endpoint, secret=SECRET_KEY, unsigned=False, retries=0, read_timeout=10, pool=10):
    cfg = Config(s3={"addressing_style": "path"}, retries={"max_attempts": retries + 1, "mode": "standard"},
                 read_timeout=read_timeout, connect_timeout=5, max_pool_connections=pool)
    if unsigned:
        cfg = cfg.merge(Config(signature_version=UNSIGNED))
    return boto3.client("s3", endpoint_url=endpoint, aws_access_key_id=ACCESS_KEY, aws_secret_access_key=secret,
                        region_name="us-east-1", config=cfg)


def test_servers_keep_objects(server, prefix):
    server.put(BUCKET, f"{prefix}/a", b"hello")
    assert server.get(BUCKET, f"{prefix}/a") == b"hello"
    assert server.keys(BUCKET, prefix + "/") == [f"{prefix}/a"]


def test_s3sfs_checks_signatures_through_proxy(s3sfs_server, prefix, proxy_for):
    proxy = proxy_for(s3sfs_server)
    good = client(proxy.endpoint)
    good.put_object(Bucket=BUCKET, Key=f"{prefix}/x", Body=b"12345", ContentType="application/octet-stream")
    assert good.get_object(Bucket=BUCKET, Key=f"{prefix}/x", Range="bytes=1-2")["Body"].read() == b"23"
    with pytest.raises(ClientError) as e:
        client(proxy.endpoint, secret="wrong").get_object(Bucket=BUCKET, Key=f"{prefix}/x")
    assert e.value.response["ResponseMetadata"]["HTTPStatusCode"] == 403
    recs = proxy.snapshot()
    assert [(r.method, r.status) for r in recs] == [("PUT", 200), ("GET", 206), ("GET", 403)]
    assert recs[1].range == "bytes=1-2"


def test_moto_unsigned_needs_public_read(moto_server, prefix):
    moto_server.put(BUCKET, f"{prefix}/private", b"p")
    moto_server.put(PUBLIC_BUCKET, f"{prefix}/open", b"o", acl="public-read")
    anon = client(moto_server.endpoint, unsigned=True)
    assert anon.get_object(Bucket=PUBLIC_BUCKET, Key=f"{prefix}/open")["Body"].read() == b"o"
    with pytest.raises(ClientError) as e:
        anon.get_object(Bucket=BUCKET, Key=f"{prefix}/private")
    assert e.value.response["ResponseMetadata"]["HTTPStatusCode"] == 403


def test_moto_if_none_match(moto_server, prefix):
    c = client(moto_server.endpoint)
    c.put_object(Bucket=BUCKET, Key=f"{prefix}/k", Body=b"1", IfNoneMatch="*")
    with pytest.raises(ClientError) as e:
        c.put_object(Bucket=BUCKET, Key=f"{prefix}/k", Body=b"2", IfNoneMatch="*")
    assert e.value.response["ResponseMetadata"]["HTTPStatusCode"] == 412


def test_proxy_status_faults(server, prefix, proxy_for):
    server.put(BUCKET, f"{prefix}/o", b"data")
    proxy = proxy_for(server)
    proxy.fault("status", count=2, status=500)
    proxy.fault("status", count=1, status=503, slowdown=True)
    c = client(proxy.endpoint, retries=5)
    assert c.get_object(Bucket=BUCKET, Key=f"{prefix}/o")["Body"].read() == b"data"
    assert [r.status for r in proxy.snapshot()] == [500, 500, 503, 200]


def test_proxy_hang_delay_reset_short(server, prefix, proxy_for):
    server.put(BUCKET, f"{prefix}/o", b"x" * 100000)
    proxy = proxy_for(server)
    c = client(proxy.endpoint, read_timeout=1)
    # count=None: botocore retries a timed-out or broken read on its own.
    proxy.fault("hang", count=None)
    with pytest.raises(ReadTimeoutError):
        c.get_object(Bucket=BUCKET, Key=f"{prefix}/o")["Body"].read()
    proxy.clear_faults()
    proxy.fault("delay", count=1, seconds=0.5)
    t = time.monotonic()
    assert len(c.get_object(Bucket=BUCKET, Key=f"{prefix}/o")["Body"].read()) == 100000
    assert time.monotonic() - t >= 0.5
    # Half the body (the proxy's default fraction), then an RST or a FIN:
    # botocore notices either while reading the body, and says which.
    for kind, broken in (("reset", r"ConnectionResetError"),
                         ("short", r"IncompleteRead\(50000 bytes read, 50000 more expected\)")):
        proxy.fault(kind, count=None)
        with pytest.raises(ResponseStreamingError, match=broken):
            c.get_object(Bucket=BUCKET, Key=f"{prefix}/o")["Body"].read()
        proxy.clear_faults()
        assert any(r.fault == kind for r in proxy.snapshot())
    # The proxy keeps serving afterwards.
    assert len(c.get_object(Bucket=BUCKET, Key=f"{prefix}/o")["Body"].read()) == 100000


def test_proxy_many_in_flight(server, prefix, proxy_for):
    server.put(BUCKET, f"{prefix}/o", b"y")
    proxy = proxy_for(server)
    proxy.fault("delay", count=None, seconds=0.5)
    c = client(proxy.endpoint, pool=80)
    errors = []

    def get():
        try:
            assert c.get_object(Bucket=BUCKET, Key=f"{prefix}/o")["Body"].read() == b"y"
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=get) for _ in range(72)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert proxy.max_in_flight >= 64
    assert overlapping(proxy.snapshot()) >= 64


def test_dead_port_refuses():
    from proxy import Proxy
    port = Proxy.dead_port()
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=2)
