"""Converting netCDF-4 files to NCZarr and back with Debian's nccopy over
our library (the `.nc` side served by the netcdf-c beside us): the stores
it writes (directory, zip, Zarr v3, pure Zarr) read right in netcdf-c
4.10.1 (the netCDF4 wheel) and zarr-python, value by value against the
original file as netcdf-c 4.10.1 reads it, and converted back they dump
as the original does."""

import os
import pathlib
import subprocess

import netCDF4
import numpy as np
import pytest
import zarr

OUR_LIBDIR = pathlib.Path(os.environ.get("NCZARR_RS_LIBDIR", pathlib.Path(__file__).resolve().parents[2]
                                         / "target" / "release")).resolve()

CDL = """netcdf source {
dimensions: time = UNLIMITED; lat = 3; lon = 4;
variables:
  double time(time); time:units = "days since 2000-01-01";
  float temp(time, lat, lon); temp:units = "K"; temp:_FillValue = -999.f;
    temp:_Storage = "chunked"; temp:_ChunkSizes = 1, 3, 4; temp:_DeflateLevel = 4; temp:_Shuffle = "true";
  int counts(lat, lon);
  string names(lat);
  :title = "conversion test"; :version = 3;
data:
  time = 0, 1;
  temp = %s;
  counts = 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12;
  names = "north", "", "south pole";
group: sub {
  dimensions: n = 2;
  variables: short s(n); s:scale = 0.5;
  data: s = -7, 7;
}
}
""" % ", ".join(["_"] + [str(200 + 0.5 * i) for i in range(1, 24)])


def ours():
    e = dict(os.environ)
    e["LD_LIBRARY_PATH"] = str(OUR_LIBDIR)
    return e


def debian():
    return {k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"}


@pytest.fixture
def source(tmp_path):
    (tmp_path / "source.cdl").write_text(CDL)
    out = tmp_path / "source.nc"
    subprocess.run(["/usr/bin/ncgen", "-k", "nc4", "-o", str(out), str(tmp_path / "source.cdl")], check=True,
                   env=debian())
    return out


def nccopy(src, dst):
    r = subprocess.run(["/usr/bin/nccopy", str(src), str(dst)], capture_output=True, text=True, env=ours(),
                       timeout=120)
    assert r.returncode == 0, r.stderr


def values(ds):
    """Every variable of a netCDF4 Dataset and its groups, raw (no masking)."""
    out = {}

    def walk(g, prefix):
        for name, v in g.variables.items():
            v.set_auto_maskandscale(False)
            out[prefix + name] = v[...]
        for name, sub in g.groups.items():
            walk(sub, prefix + name + "/")
    walk(ds, "")
    return out


def assert_same(got, want):
    assert sorted(got) == sorted(want)
    for name in want:
        g, w = np.asarray(got[name]), np.asarray(want[name])
        assert g.shape == w.shape, name
        assert g.tolist() == w.tolist(), name


TARGETS = {
    "nczarr dir": "file://{p}/out.zarr#mode=nczarr,file",
    "nczarr zip": "file://{p}/out.zip#mode=nczarr,zip",
    "nczarr v3": "file://{p}/out3.zarr#mode=nczarr,file,v3",
    "pure zarr": "file://{p}/pure.zarr#mode=zarr,file",
}


@pytest.mark.parametrize("target", list(TARGETS))
def test_netcdf4_file_to_zarr_and_back(source, tmp_path, target):
    url = TARGETS[target].format(p=tmp_path)
    nccopy(source, url)
    with netCDF4.Dataset(source) as ds:
        want = values(ds)
    # netcdf-c 4.10.1 reads the NCZarr store (its wheel has neither zip
    # nor Zarr v3).
    if target == "nczarr dir":
        with netCDF4.Dataset(url) as ds:
            assert_same(values(ds), want)
            assert ds.title == "conversion test" and ds["temp"].units == "K"
            assert ds.dimensions["time"].isunlimited()
    # zarr-python reads every array, by its path.
    if target != "nczarr zip":
        store = url.split("://", 1)[1].split("#")[0]
        root = zarr.open_group(store, mode="r")
        np.testing.assert_array_equal(root["temp"][...], want["temp"])
        np.testing.assert_array_equal(root["counts"][...], want["counts"])
        np.testing.assert_array_equal(root["sub/s"][...], want["sub/s"])
        # Strings are fixed-width bytes in NCZarr v2 (as netcdf-c writes
        # them), text in v3.
        text = [s.decode() if isinstance(s, bytes) else str(s) for s in root["names"][...].tolist()]
        assert text == ["north", "", "south pole"]
    # And back to a netCDF-4 file, which netcdf-c reads as the original.
    nccopy(url, tmp_path / "back.nc")
    with netCDF4.Dataset(tmp_path / "back.nc") as ds:
        got = values(ds)
    assert_same(got, want)
