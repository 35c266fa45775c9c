"""Fixtures for the reference tests: the corpus (make_corpus.py) built once
per session, on disk and on the S3 test servers (moto and s3s-fs, started
by tests/s3/conftest.py's fixtures, reused here), and refdump.c built
against our library and against netcdf-c 4.10.1 (the netCDF4 wheel's).

In CI (CI=true) a missing tool is a failure; elsewhere it skips."""

import importlib.util
import logging
import os
import pathlib
import shutil
import sys
import warnings

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "tests"))
from cbuild import OUR_LIBDIR, build  # noqa: E402

IN_CI = os.environ.get("CI") == "true"
logging.getLogger("asyncio").setLevel(logging.CRITICAL)

# The S3 servers, their keys and the proxy fixture of tests/s3, loaded
# under another name (both directories have a conftest.py).
_spec = importlib.util.spec_from_file_location("s3_conftest", ROOT / "tests" / "s3" / "conftest.py")
s3 = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(s3)
moto_server = s3.moto_server
s3sfs_server = s3.s3sfs_server
proxy_for = s3.proxy_for
BUCKET = s3.BUCKET
ACCESS_KEY, SECRET_KEY = s3.ACCESS_KEY, s3.SECRET_KEY
# Every S3 object of the corpus is under this prefix, on each server.
PREFIX = "reference"


def missing(what):
    if IN_CI:
        pytest.fail(f"{what} (CI=true: the reference tests need it)")
    pytest.skip(what)


@pytest.fixture(params=["moto", "s3sfs"])
def server(request):
    """Each S3 server in turn, holding the S3 corpus."""
    srv = request.getfixturevalue(f"{request.param}_server")
    request.getfixturevalue("s3_corpus")  # made on moto, uploaded to both
    if request.param == "s3sfs":
        request.getfixturevalue("s3sfs_corpus")
    return srv


@pytest.fixture(scope="session")
def progs(tmp_path_factory):
    if shutil.which("cc") is None:
        missing("no C compiler (cc)")
    if not (OUR_LIBDIR / "libnetcdf.so").exists():
        missing(f"no {OUR_LIBDIR / 'libnetcdf.so'}: run make build")
    d = tmp_path_factory.mktemp("progs")
    return {
        "ours": build(HERE / "refdump.c", d / "refdump"),
        "netcdf_c": build(HERE / "refdump.c", d / "refdump_netcdf_c", against_wheel=True),
    }


@pytest.fixture(scope="session")
def corpus(tmp_path_factory):
    """The local corpus: (directory, [Ref], {bad name: file name})."""
    try:
        import kerchunk  # noqa: F401
        import virtualizarr  # noqa: F401
    except ImportError as e:
        missing(f"{e} (kerchunk and virtualizarr in tests/requirements.txt)")
    import make_corpus

    d = tmp_path_factory.mktemp("corpus")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        refs, bad = make_corpus.build_local(d)
    return d, refs, bad


def s3_options(endpoint):
    """fsspec's (s3fs) options for a test server."""
    return {"key": ACCESS_KEY, "secret": SECRET_KEY, "endpoint_url": endpoint,
            "client_kwargs": {"region_name": "us-east-1"}}


def s3_registry(endpoint):
    """VirtualiZarr's (obstore) registry for a test server."""
    from obspec_utils.registry import ObjectStoreRegistry
    from obstore.store import S3Store

    store = S3Store(BUCKET, endpoint=endpoint, access_key_id=ACCESS_KEY, secret_access_key=SECRET_KEY,
                    region="us-east-1", client_options={"allow_http": True}, virtual_hosted_style_request=False)
    return ObjectStoreRegistry({f"s3://{BUCKET}": store})


def s3_target(name):
    return f"s3://{BUCKET}/{PREFIX}/{name}"


@pytest.fixture(scope="session")
def s3_corpus(corpus, moto_server, tmp_path_factory):
    """The S3 corpus: the .nc files uploaded to moto, and references made
    by kerchunk and VirtualiZarr reading them there (so their targets are
    the s3:// URLs the tools write), uploaded beside them. Returns
    (local directory of the S3 references, [Ref], {bad name: file name},
    [every key uploaded])."""
    import make_corpus

    files, _, _ = corpus
    out = tmp_path_factory.mktemp("s3refs")
    uploaded = []

    def put(path, key):
        moto_server.put(BUCKET, key, path.read_bytes())
        uploaded.append((path, key))

    for nc in sorted(files.glob("*.nc")) + [files / "lon.bin"]:
        put(nc, f"{PREFIX}/{nc.name}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        refs = make_corpus.build_refs(out, s3_target, storage_options=s3_options(moto_server.endpoint),
                                      registry=s3_registry(moto_server.endpoint), tag="s3")
        refs += make_corpus.build_handmade(out, files, s3_target, tag="s3")
        bad = make_corpus.build_bad(out, files, s3_target, tag="s3")
    for ref in sorted(out.glob("*.json")):
        put(ref, f"{PREFIX}/{ref.name}")
    return out, refs, bad, uploaded


@pytest.fixture(scope="session")
def s3sfs_corpus(s3_corpus, s3sfs_server):
    for path, key in s3_corpus[3]:
        s3sfs_server.put(BUCKET, key, path.read_bytes())


@pytest.fixture
def env(tmp_path):
    """The environment of our programs: a HOME of the test's own, the S3
    test keys, no other AWS_* variable, no instance-metadata probing."""
    e = {k: v for k, v in os.environ.items() if not k.startswith("AWS_") and k not in ("NCTRACING", "LD_LIBRARY_PATH")}
    home = tmp_path / "home"
    home.mkdir()
    e.update(HOME=str(home), AWS_EC2_METADATA_DISABLED="true", AWS_ACCESS_KEY_ID=ACCESS_KEY,
             AWS_SECRET_ACCESS_KEY=SECRET_KEY, AWS_REGION="us-east-1", LC_ALL="C.UTF-8")
    return e


# ---------------------------------------------------------------------------
# Parquet references (make_corpus.build_parquet): made from the JSON ones.

# Copies of compressed.kerchunk.rs3 named without .parq (nor .parquet), a
# directory all the same, so Parquet; and named .parquet.
UNSUFFIXED = "compressed.kerchunk.rs3.{tag}.refs"
DOT_PARQUET = "compressed.kerchunk.rs3.{tag}.parquet"


def _unsuffixed(out, tag):
    for name in (UNSUFFIXED, DOT_PARQUET):
        shutil.copytree(out / f"compressed.kerchunk.rs3.{tag}.parq", out / name.format(tag=tag))


@pytest.fixture(scope="session")
def pq_corpus(corpus):
    """The local Parquet corpus, beside the local corpus (the same .nc
    files): (directory, [PqRef], {bad name: directory name})."""
    try:
        import fastparquet  # noqa: F401
        import pyarrow  # noqa: F401
    except ImportError as e:
        missing(f"{e} (fastparquet and pyarrow in tests/requirements.txt)")
    import make_corpus

    files, refs, _ = corpus
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        made, bad = make_corpus.build_local_parquet(files, refs)
    _unsuffixed(files, "local")
    return files, made, bad


@pytest.fixture(scope="session")
def pq_s3_corpus(corpus, s3_corpus, moto_server, tmp_path_factory):
    """The S3 Parquet corpus: made from the S3 JSON references (targets
    s3:// URLs of the bucket; VirtualiZarr's reading the files on moto),
    uploaded under PREFIX, each file of a NAME.parq directory as the key
    PREFIX/NAME.parq/... Returns (local directory of it, [PqRef],
    {bad name: directory name}, [(path, key) uploaded], local directory of
    the JSON references they were made from)."""
    import make_corpus

    files = corpus[0]
    json_dir, json_refs = s3_corpus[0], s3_corpus[1]
    out = tmp_path_factory.mktemp("s3parquet")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        made = make_corpus.build_parquet(out, json_dir, json_refs, files, s3_target,
                                         registry=s3_registry(moto_server.endpoint), tag="s3")
        bad = make_corpus.build_bad_parquet(out, out / "compressed.kerchunk.rs3.s3.parq", files, s3_target,
                                            tag="s3")
    _unsuffixed(out, "s3")
    uploaded = []
    for path in sorted(p for p in out.rglob("*") if p.is_file()):
        key = f"{PREFIX}/{path.relative_to(out).as_posix()}"
        moto_server.put(BUCKET, key, path.read_bytes())
        uploaded.append((path, key))
    return out, made, bad, uploaded, json_dir


@pytest.fixture(scope="session")
def pq_s3sfs_corpus(pq_s3_corpus, s3sfs_server):
    for path, key in pq_s3_corpus[3]:
        s3sfs_server.put(BUCKET, key, path.read_bytes())


@pytest.fixture(params=["moto", "s3sfs"])
def pq_server(request):
    """Each S3 server in turn, holding the S3 corpus and its Parquet
    references."""
    srv = request.getfixturevalue(f"{request.param}_server")
    request.getfixturevalue("s3_corpus")
    request.getfixturevalue("pq_s3_corpus")
    if request.param == "s3sfs":
        request.getfixturevalue("s3sfs_corpus")
        request.getfixturevalue("pq_s3sfs_corpus")
    return srv
