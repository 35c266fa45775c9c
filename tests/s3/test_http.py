"""Read-only `http` storage (`#mode=...,http`): stores served by a plain
web server (Python's http.server on 127.0.0.1 over a directory), read
through their URL with GETs only. Whatever the directory holds reads the
same over http as through `file://`, as long as its metadata names every
member (consolidated, or NCZarr); writes are NC_EPERM."""

import subprocess
import sys

import numpy as np
import pytest
import zarr

from conftest import free_port, local_url, run, status_of, wait_listening
from describe_output import data_lines, values_line

NC_EPERM = -37
NC_ENOTNC = -51


@pytest.fixture
def web(tmp_path):
    """A web server over tmp_path/www; yields (directory, base URL)."""
    root = tmp_path / "www"
    root.mkdir()
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1",
                             "--directory", str(root)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_listening(port, proc, "http.server")
        yield root, f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(10)


def web_url(base, name, mode="nczarr"):
    return f"{base}/data/{name}#mode={mode},http"


@pytest.mark.parametrize("writer", ["write_sample", "write_data", "write_filtered"])
@pytest.mark.parametrize("mode", ["nczarr", "nczarr,noconsolidated", "zarr"])
def test_reads_what_the_directory_holds(progs, env, web, writer, mode):
    root, base = web
    (root / "data").mkdir()
    run(progs[writer], local_url(root / "data" / "d.zarr", mode), env=env)
    expected = run(progs["describe"], local_url(root / "data" / "d.zarr", mode), env=env).stdout
    assert run(progs["describe"], web_url(base, "d.zarr", mode), env=env).stdout == expected
    assert "data error" not in expected


def test_zarr_python_consolidated_store(progs, env, web):
    root, base = web
    path = root / "data" / "zp.zarr"
    g = zarr.open_group(str(path), mode="w", zarr_format=2)
    a = g.create_array("t", shape=(6, 5), chunks=(4, 2), dtype="f8", fill_value=-1.0)
    a[:] = np.arange(30, dtype="f8").reshape(6, 5) / 4
    a.attrs["_ARRAY_DIMENSIONS"] = ["y", "x"]
    g.create_group("sub").create_array("n", shape=(3,), dtype="i2")[:] = [7, 8, 9]
    zarr.consolidate_metadata(str(path))
    over_web = run(progs["describe"], web_url(base, "zp.zarr", "zarr"), env=env).stdout
    assert over_web == run(progs["describe"], local_url(path, "zarr"), env=env).stdout
    # And as zarr-python reads the same store, every value.
    got = data_lines(over_web)
    assert got == {"t": values_line(a[...]), "sub/n": values_line(g["sub/n"][...])}, over_web




def test_unlisted_store_is_not_a_dataset(progs, env, web):
    """Pure Zarr without .zmetadata needs a listing, which a web server
    does not give; a missing store is the same."""
    root, base = web
    path = root / "data" / "plain.zarr"
    zarr.open_group(str(path), mode="w", zarr_format=2).create_array("v", shape=(2,), dtype="i4")[:] = [1, 2]
    assert status_of(run(progs["s3probe"], "open", web_url(base, "plain.zarr", "zarr"), env=env).stdout,
                     "open") == NC_ENOTNC
    assert status_of(run(progs["s3probe"], "open", web_url(base, "none.zarr"), env=env).stdout,
                     "open") == NC_ENOTNC


def test_writes_are_refused(progs, env, web):
    root, base = web
    (root / "data").mkdir()
    run(progs["write_sample"], local_url(root / "data" / "d.zarr"), env=env)
    before = sorted(p.relative_to(root) for p in root.rglob("*"))
    url = web_url(base, "d.zarr")
    assert status_of(run(progs["s3probe"], "openw", url, env=env).stdout, "open") == NC_EPERM
    assert status_of(run(progs["s3probe"], "noclobber", url, env=env).stdout, "create") == NC_EPERM
    assert status_of(run(progs["s3probe"], "open", url, env=env).stdout, "open") == 0
    assert sorted(p.relative_to(root) for p in root.rglob("*")) == before
