"""Appending records to a reopened pure Zarr store (v2 and v3): Zarr keeps
no unlimited flag, so the first dimension of the arrays grows when a write
goes past its end, as the unlimited dimension the store was written from
would; other dimensions stay fixed (NC_EINVALCOORDS past their end).
zarr-python reads every value."""

import subprocess

import numpy as np
import pytest
import zarr

from cbuild import build

HERE = __import__("pathlib").Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def appender(tmp_path_factory):
    return build(HERE / "append_records.c", tmp_path_factory.mktemp("append") / "append_records")


def run(*args):
    return subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=60, check=True).stdout


@pytest.mark.parametrize("mode", ["zarr", "zarr,v3", "xarray", "zarr,noxarray"])
def test_records_append_to_reopened_pure_zarr(appender, tmp_path, mode):
    url = f"file://{tmp_path / 'r.zarr'}#mode={mode},file"
    assert run(appender, url, "create") == "put 0\nclose 0\n"
    assert run(appender, url, "append") == "append 0\nt 4\npast x -40\nclose 0\n"
    got = zarr.open_group(str(tmp_path / "r.zarr"), mode="r")["v"][:]
    assert got.tolist() == np.arange(1, 13).reshape(4, 3).tolist()
