"""Interop with netcdf-c 4.10.1 (the netCDF4==1.7.5.1.post1 wheel's library):
it reads the metadata we write, and we read the metadata it writes, with the
same dimensions, variables, attribute names, types and values.

Each direction is checked twice: through netCDF4-python's own view of the
dataset, and by running one C program (describe.c) against both libraries
and comparing everything the netCDF API reports."""

import json

import netCDF4
import numpy as np
import pytest

from conftest import build, run, same_as_netcdf_c, url


@pytest.fixture
def sample(tools, tmp_path):
    path = tmp_path / "sample.zarr"
    run(tools["write_sample"], url(path))
    return path


def test_netcdf_c_reads_what_we_write(tools, sample):
    ours = run(tools["describe_ours"], url(sample))
    theirs = run(tools["describe_netcdf_c"], url(sample))
    same_as_netcdf_c(ours, theirs)
    # And the description says what write_sample.c defined.
    assert "  dim time 0 unlimited\n" in theirs
    assert '  att att_uint64 uint64 2 [18446744073709551615, 0]\n' in theirs
    assert '  att att_float float 3 [0.100000001, -1.5e-30, 3.40282347e+38]\n' in theirs
    assert '  att att_strings string 3 ["first", "", "third value"]\n' in theirs
    assert "  var big int (lat) chunks=(3) nofill=0 fill=[-2147483647] endian=big\n" in theirs
    assert "group /g1/g2\n" in theirs


def test_netcdf4_python_sees_our_dataset(sample):
    with netCDF4.Dataset(url(sample)) as ds:
        assert list(ds.dimensions) == ["time", "lat", "lon"]
        assert ds.dimensions["time"].isunlimited()
        assert len(ds.dimensions["lat"]) == 3
        assert ds.title == 'interop "sample"\n'
        assert ds.att_int64.dtype == np.int64
        assert list(ds.att_int64) == [-(2**63), 2**63 - 1]
        assert ds.att_uint64.dtype == np.uint64
        assert ds.att_float.dtype == np.float32
        assert ds.att_float[0] == np.float32(0.1)
        # Full precision, where netcdf-c itself would keep 6 digits.
        assert ds.att_double[1] == 1234567.891
        assert ds.att_strings == ["first", "", "third value"]
        tas = ds["tas"]
        assert tas.dimensions == ("time", "lat", "lon")
        assert tas.dtype == np.float32
        assert tas.chunking() == [10, 3, 2]
        assert tas.units == "K"
        assert tas._FillValue == np.float32(-999)
        assert list(tas.valid_range) == [180.0, 330.5]
        assert ds["big"].endian() == "big"
        assert ds["v_string"].dtype == str
        assert ds["v_char"].dtype == np.dtype("S1")
        assert ds["scalar"].dimensions == ()
        assert ds["scalar"].comment == "scalar"
        deep = ds.groups["g1"].groups["g2"]["deep"]
        assert deep.dimensions == ("z", "lat")
        assert deep.dtype == np.int16
        assert ds.groups["g1"].level == 7


@pytest.mark.filterwarnings("ignore:endian-ness of dtype:UserWarning")
def test_we_read_what_netcdf4_python_writes(tools, tmp_path):
    path = tmp_path / "py.zarr"
    with netCDF4.Dataset(url(path), "w") as ds:
        ds.createDimension("time", None)
        ds.createDimension("x", 5)
        ds.title = "written by netCDF4-python"
        ds.ints = np.array([1, 2, 3], dtype="i4")
        ds.f = np.float32(0.25)
        ds.d = 1234567.891
        ds.i64 = np.int64(-5)
        ds.u8 = np.array([1, 255], dtype="u1")
        ds.setncattr_string("strings", ["a", "bc"])
        t = ds.createVariable("t", "f8", ("time", "x"), fill_value=-1.0)
        t.units = "s"
        ds.createVariable("b", "i1", ("x",))
        ds.createVariable("u", "u8", ("x",), fill_value=np.uint64(7))
        ds.createVariable("str", str, ("x",))
        ds.createVariable("sc", "i4", ())
        g = ds.createGroup("grp")
        g.createDimension("y", 2)
        gv = g.createVariable("gv", "u2", ("y", "x"), endian="big")
        gv.note = "in a group"
    ours = run(tools["describe_ours"], url(path))
    theirs = run(tools["describe_netcdf_c"], url(path))
    same_as_netcdf_c(ours, theirs)
    expected_lines = [
        "  dim time 0 unlimited",
        '  att title char 25 "written by netCDF4-python"',
        "  att ints int 3 [1, 2, 3]",
        "  att f float 1 [0.25]",
        # netcdf-c writes doubles with 6 significant digits; we read what it wrote.
        "  att d double 1 [1234570]",
        '  att strings string 2 ["a", "bc"]',
        "  var t double (time, x) chunks=(1, 5) nofill=0 fill=[-1] endian=little",
        "    att _FillValue double 1 [-1]",
        "  var u uint64 (x) chunks=(5) nofill=0 fill=[7] endian=little",
        "  var sc int () nofill=0 fill=[-2147483647] endian=little",
        "  var gv ushort (y, x) chunks=(2, 5) nofill=0 fill=[65535] endian=big",
    ]
    for line in expected_lines:
        assert line + "\n" in ours


def read_json(path):
    return json.loads(path.read_text())


def test_layout_is_current_nczarr(sample):
    """The objects are those netcdf-c 4.9.3+ writes (FACTS.md §1.2, §1.5, §1.7)."""
    assert read_json(sample / ".zgroup") == {"zarr_format": 2}
    root = read_json(sample / ".zattrs")
    assert root["_nczarr_superblock"] == {"version": "2.0.0"}
    group = root["_nczarr_group"]
    assert group["dimensions"] == {"time": {"size": 0, "unlimited": 1}, "lat": 3, "lon": 4}
    assert group["groups"] == ["g1"]
    assert group["arrays"][:2] == ["v_byte", "v_char"]
    types = root["_nczarr_attr"]["types"]
    assert types["att_byte"] == "|i1" and types["att_int64"] == "<i8" and types["title"] == ">S1"
    assert types["_nczarr_group"] == "|J0" and types["_NCProperties"] == ">S1"
    assert root["_NCProperties"].startswith("version=2,netcdf=4.9.3,nczarr=2.0.0")
    assert root["att_one_double"] == 3.141592653589793

    zarray = read_json(sample / "tas" / ".zarray")
    assert list(zarray) == ["zarr_format", "shape", "dtype", "chunks", "fill_value", "order", "compressor", "filters"]
    assert zarray["shape"] == [0, 3, 4] and zarray["chunks"] == [10, 3, 2]
    assert zarray["dtype"] == "<f4" and zarray["fill_value"] == -999.0 and zarray["order"] == "C"
    tas = read_json(sample / "tas" / ".zattrs")
    assert tas["_ARRAY_DIMENSIONS"] == ["time", "lat", "lon"]
    assert tas["_nczarr_array"] == {"dimension_references": ["/time", "/lat", "/lon"], "storage": "chunked"}
    assert "_ARRAY_DIMENSIONS" not in tas["_nczarr_attr"]["types"]

    assert read_json(sample / "v_byte" / ".zarray")["dtype"] == "|i1"
    assert read_json(sample / "v_ubyte" / ".zarray")["dtype"] == "|u1"
    assert read_json(sample / "v_char" / ".zarray")["dtype"] == ">S1"
    assert read_json(sample / "v_string" / ".zarray")["dtype"] == "|S128"
    assert read_json(sample / "big" / ".zarray")["dtype"] == ">i4"
    assert read_json(sample / "nofill" / ".zarray")["fill_value"] is None
    assert read_json(sample / "v_float" / ".zarray")["fill_value"] == 9.96921e36

    scalar = read_json(sample / "scalar" / ".zarray")
    assert scalar["shape"] == [1] and scalar["chunks"] == [1]
    scalar_attrs = read_json(sample / "scalar" / ".zattrs")
    assert scalar_attrs["_ARRAY_DIMENSIONS"] == ["_scalar_"]
    assert scalar_attrs["_nczarr_array"] == {"dimension_references": [], "scalar": 1, "storage": "chunked"}

    # Variables in subgroups get their dimensions' names too, wherever the
    # dimensions are (netcdf-c 4.10 writes them so; readers make them
    # dimensions of the variable's group).
    deep = read_json(sample / "g1" / "g2" / "deep" / ".zattrs")
    assert deep["_ARRAY_DIMENSIONS"] == ["z", "lat"]
    assert deep["_nczarr_array"]["dimension_references"] == ["/g1/z", "/lat"]
    g1 = read_json(sample / "g1" / ".zattrs")
    assert "_nczarr_superblock" not in g1
    assert g1["_nczarr_group"] == {"dimensions": {"z": 2}, "arrays": [], "groups": ["g2"]}


def test_we_see_what_netcdf_c_changes_in_our_store(tools, tmp_path):
    """netcdf-c 4.10.1 (not consolidating, its default) changes objects below
    the root, rewrites the root objects with the same content and leaves our
    .zmetadata stale: we must notice (the root objects are newer than it)
    and read the objects."""
    path = tmp_path / "plain.zarr"
    run(tools["write_plain"], url(path))
    assert (path / ".zmetadata").exists()
    root_before = json.loads((path / ".zattrs").read_text())
    modify = build("modify_atts.c", tmp_path / "modify_atts", against_wheel=True)
    run(modify, url(path))
    assert json.loads((path / ".zattrs").read_text()) == root_before
    ours = run(tools["describe_ours"], url(path))
    assert "att added_by_netcdf_c int 1 [1]" in ours
    assert 'att added_by_netcdf_c char 3 "yes"' in ours
    same_as_netcdf_c(ours, run(tools["describe_netcdf_c"], url(path)))
