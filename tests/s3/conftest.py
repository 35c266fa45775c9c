"""Shared fixtures for the S3 tests: two real S3 servers on 127.0.0.1
(moto[server] from the venv, and s3s-fs, which verifies SigV4 signatures),
started once per session on free ports, each with a bucket; the C helper
programs built against our library; a clean environment per test (a temp
HOME, no instance-metadata probing); and the counting / fault-injecting
proxy (proxy.py) in front of a server.

In CI (CI=true) a missing server is a failure; elsewhere the tests that
need it are skipped."""

import itertools
import logging
import os
import pathlib
import shutil
import socket
import subprocess
import sys
import time

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
HERE = pathlib.Path(__file__).resolve().parent
INTEROP = ROOT / "tests" / "interop"
OUR_LIBDIR = pathlib.Path(os.environ.get("NCZARR_RS_LIBDIR", ROOT / "target" / "release")).resolve()
VENV_BIN = pathlib.Path(sys.executable).parent
IN_CI = os.environ.get("CI") == "true"

# s3fs (under zarr-python) leaves aiohttp sessions to be collected at exit;
# their "Unclosed client session" errors, logged by asyncio after pytest's
# summary, would bury it.
logging.getLogger("asyncio").setLevel(logging.CRITICAL)

sys.path.insert(0, str(HERE))
from proxy import Proxy  # noqa: E402

sys.path.insert(0, str(ROOT / "tests"))
from cbuild import build  # noqa: E402

BUCKET = "nczarr"
PUBLIC_BUCKET = "public"
# The keys s3s-fs checks signatures with; moto accepts any.
ACCESS_KEY = "AKIDNCZARRTEST"
SECRET_KEY = "nczarr-rs-very-secret-key-0123456789"

NC_EEXIST = -35
NC_EACCESS = -77
NC_ENOTFOUND = -90
NC_ES3 = -138
NC_ENOOBJECT = -141


def missing(what):
    """A server or tool is not installed: fail in CI, skip elsewhere."""
    if IN_CI:
        pytest.fail(f"{what} (CI=true: every S3 test server must be installed by tools/install-test-deps.sh)")
    pytest.skip(what)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def wait_listening(port, proc, what, timeout=30):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited with {proc.returncode} at start")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"{what} not listening on {port} after {timeout} s")


class Server:
    """One running S3 server: its endpoint, keys and a boto3 client."""

    def __init__(self, name, proc, port, logfile, verifies_signatures):
        self.name = name
        self.proc = proc
        self.port = port
        self.logfile = logfile
        self.verifies_signatures = verifies_signatures
        self.endpoint = f"http://127.0.0.1:{port}"
        import boto3
        from botocore.config import Config

        self.client = boto3.client(
            "s3",
            endpoint_url=self.endpoint,
            aws_access_key_id=ACCESS_KEY,
            aws_secret_access_key=SECRET_KEY,
            region_name="us-east-1",
            config=Config(s3={"addressing_style": "path"}, retries={"max_attempts": 2}),
        )

    def create_bucket(self, name, acl=None):
        kwargs = {"Bucket": name}
        if acl:
            kwargs["ACL"] = acl
        self.client.create_bucket(**kwargs)

    def keys(self, bucket, prefix):
        out = []
        pager = self.client.get_paginator("list_objects_v2")
        for page in pager.paginate(Bucket=bucket, Prefix=prefix):
            out += [o["Key"] for o in page.get("Contents", [])]
        return sorted(out)

    def get(self, bucket, key):
        return self.client.get_object(Bucket=bucket, Key=key)["Body"].read()

    def put(self, bucket, key, data, acl=None):
        kwargs = {"Bucket": bucket, "Key": key, "Body": data, "ContentType": "application/octet-stream"}
        if acl:
            kwargs["ACL"] = acl
        self.client.put_object(**kwargs)

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def s3s_fs_binary():
    explicit = os.environ.get("NCZARR_RS_S3S_FS")
    if explicit:
        return explicit
    tools = os.environ.get("NCZARR_RS_TOOLS") or os.path.join(os.environ.get("HOME", "/tmp"), ".cache/nczarr-rs/tools")
    candidate = os.path.join(tools, "bin", "s3s-fs")
    if os.access(candidate, os.X_OK):
        return candidate
    return shutil.which("s3s-fs")


@pytest.fixture(scope="session")
def moto_server(tmp_path_factory):
    exe = VENV_BIN / "moto_server"
    if not exe.exists():
        missing(f"no moto_server in {VENV_BIN} (moto[server] in tests/requirements.txt)")
    try:
        import boto3  # noqa: F401
    except ImportError:
        missing("no boto3 in the venv")
    port = free_port()
    log = tmp_path_factory.mktemp("moto") / "moto.log"
    env = dict(os.environ)
    env.pop("INITIAL_NO_AUTH_ACTION_COUNT", None)
    proc = subprocess.Popen([str(exe), "-H", "127.0.0.1", "-p", str(port)], stdout=open(log, "wb"),
                            stderr=subprocess.STDOUT, env=env)
    try:
        wait_listening(port, proc, "moto_server")
        server = Server("moto", proc, port, log, verifies_signatures=False)
        server.create_bucket(BUCKET)
        server.create_bucket(PUBLIC_BUCKET, acl="public-read")
    except Exception:
        proc.kill()
        raise
    yield server
    server.stop()


@pytest.fixture(scope="session")
def s3sfs_server(tmp_path_factory):
    exe = s3s_fs_binary()
    if not exe:
        missing("no s3s-fs binary (tools/install-test-deps.sh installs s3s-fs 0.14.1)")
    try:
        import boto3  # noqa: F401
    except ImportError:
        missing("no boto3 in the venv")
    port = free_port()
    d = tmp_path_factory.mktemp("s3sfs")
    (d / "data").mkdir()
    log = d / "s3s-fs.log"
    proc = subprocess.Popen([exe, "--host", "127.0.0.1", "--port", str(port), "--access-key", ACCESS_KEY,
                             "--secret-key", SECRET_KEY, str(d / "data")], stdout=open(log, "wb"),
                            stderr=subprocess.STDOUT)
    try:
        wait_listening(port, proc, "s3s-fs")
        server = Server("s3sfs", proc, port, log, verifies_signatures=True)
        server.create_bucket(BUCKET)
    except Exception:
        proc.kill()
        raise
    yield server
    server.stop()


@pytest.fixture(params=["moto", "s3sfs"])
def server(request):
    """Each S3 server in turn."""
    return request.getfixturevalue(f"{request.param}_server")


_counter = itertools.count()


@pytest.fixture
def prefix(request):
    """A key prefix of this test's own (the buckets are shared)."""
    name = "".join(c if c.isalnum() else "-" for c in request.node.name)[:60]
    return f"t{next(_counter):03d}-{name}"


def s3_url(endpoint, bucket, key, mode="nczarr"):
    return f"{endpoint}/{bucket}/{key}#mode={mode},s3"


def local_url(path, mode="nczarr"):
    return f"file://{path}#mode={mode},file"


@pytest.fixture
def env(tmp_path):
    """An environment for our programs: our keys, a HOME of the test's own
    (so no real ~/.aws is read), no other AWS_* variable, no instance
    metadata probing."""
    e = {k: v for k, v in os.environ.items() if not k.startswith("AWS_") and k != "NCTRACING"}
    home = tmp_path / "home"
    home.mkdir()
    e.update(HOME=str(home), AWS_EC2_METADATA_DISABLED="true", AWS_ACCESS_KEY_ID=ACCESS_KEY,
             AWS_SECRET_ACCESS_KEY=SECRET_KEY, AWS_REGION="us-east-1")
    return e


@pytest.fixture(scope="session")
def progs(tmp_path_factory):
    d = tmp_path_factory.mktemp("progs")
    return {
        "describe": build(INTEROP / "describe.c", d / "describe"),
        "write_sample": build(INTEROP / "write_sample.c", d / "write_sample"),
        "write_data": build(INTEROP / "write_data.c", d / "write_data"),
        "write_filtered": build(INTEROP / "write_filtered.c", d / "write_filtered"),
        "write_codecs": build(HERE / "write_codecs.c", d / "write_codecs"),
        "s3probe": build(HERE / "s3probe.c", d / "s3probe"),
        "slab": build(HERE / "slab.c", d / "slab"),
        # The same program over netcdf-c 4.10.1 (the netCDF4 wheel's).
        "slab_netcdf_c": build(HERE / "slab.c", d / "slab_netcdf_c", against_wheel=True),
        "s3fork": build(HERE / "s3fork.c", d / "s3fork", extra=("-lpthread",)),
    }


def run(prog, *args, env=None, timeout=120, check=True):
    """Run a helper program; returns the CompletedProcess. With check, a
    non-zero exit fails the test with its stderr."""
    try:
        result = subprocess.run([str(prog), *map(str, args)], capture_output=True, text=True, env=env,
                                timeout=timeout)
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"{pathlib.Path(prog).name} {' '.join(map(str, args))} did not return in {timeout} s "
                    f"(stderr: {e.stderr!r})")
    if check:
        assert result.returncode == 0, (f"{pathlib.Path(prog).name} {' '.join(map(str, args))} exited "
                                        f"{result.returncode}: {result.stderr[-3000:]}")
    return result


def status_of(output, what):
    """The status a probe printed as `what S`."""
    for line in output.splitlines():
        if line.startswith(what + " "):
            return int(line.split()[1])
    raise AssertionError(f"no '{what}' line in {output!r}")


@pytest.fixture
def proxy_for():
    """proxy_for(server) -> a fresh Proxy in front of it, stopped after the test."""
    made = []

    def make(server):
        p = Proxy(server.port)
        made.append(p)
        return p

    yield make
    for p in made:
        p.stop()
