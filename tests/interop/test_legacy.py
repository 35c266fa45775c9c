"""Older NCZarr layouts read with the writer's meaning:

* netcdf-c 4.9.0 (Debian's ncgen writes it here, at test time);
* netcdf-c 4.9.1-4.9.2 and 4.8.0, which no installable tool writes: those
  stores are built below from the layout facts (FACTS.md section 1.2),
  object by object.

Older layouts open read-only, as in netcdf-c."""

import json
import shutil
import struct
import subprocess

import pytest

from conftest import assert_lines, run, url

CDL = """netcdf t {
dimensions:
    x = 3 ;
    y = 2 ;
variables:
    int v(x) ;
        v:units = "m" ;
        v:scale = 2.5 ;
    char c(y) ;
    double s ;
    float f(x, y) ;
        f:_FillValue = -1.f ;
// global attributes:
        :title = "ncgen" ;
        :nums = 1, 2, 3 ;
data:
    v = 1, 2, 3 ;
    c = "ab" ;
    s = 2.5 ;
    f = 1, 2, 3, 4, _, 6 ;
}
"""


def test_netcdf_c_4_9_0_written_by_debian_ncgen(tools, tmp_path):
    ncgen = shutil.which("ncgen")
    assert ncgen, "Debian's netcdf-bin must be installed (tools/install-test-deps.sh does)"
    cdl = tmp_path / "t.cdl"
    cdl.write_text(CDL)
    store = tmp_path / "deb.zarr"
    subprocess.run([ncgen, "-4", "-o", url(store), str(cdl)], check=True)
    assert "_NCZARR_SUPERBLOCK" in (store / ".zgroup").read_text()  # really the 4.9.0 layout
    text = run(tools["describe_ours"], url(store))
    assert_lines(text, [
        "  dim x 3",
        "  dim y 2",
        '  att title char 5 "ncgen"',
        "  att nums int 3 [1, 2, 3]",
        "  var v int (x) chunks=(3) nofill=0 fill=[-2147483647] endian=little",
        '    att units char 1 "m"',
        "    att scale double 1 [2.5]",
        "    data [1, 2, 3]",
        "  var c char (y) chunks=(2) nofill=0 fill=\"\\x00\"",
        '    data "ab"',
        "  var s double () nofill=0 fill=[9.9692099999999994e+36] endian=little",
        "    data [2.5]",
        "    data [1, 2, 3, 4, -1, 6]",
    ])
    assert "_NCZARR" not in text
    # Editable, and kept in 4.9.0's layout (tests/programs/test_edit_490_store.py edits one).
    assert run(tools["describe_ours"], "-w", url(store)) == "redef 0\n" + text
    assert "_NCZARR_SUPERBLOCK" in (store / ".zgroup").read_text()
    assert run(tools["describe_ours"], url(store)) == text


def put_json(path, value):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value))


def put_chunk(path, data):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


@pytest.fixture
def store_4_9_1(tmp_path):
    """netcdf-c 4.9.1-4.9.2: lowercase keys in .zgroup/.zarray, types in
    .zattrs, NC_CHAR as >S1, a subgroup with its own dimension."""
    s = tmp_path / "v491.zarr"
    put_json(s / ".zgroup", {"zarr_format": 2, "_nczarr_superblock": {"version": "2.0.0"},
                             "_nczarr_group": {"dims": {"x": 4}, "vars": ["a", "name", "s", "words"],
                                               "groups": ["g"]}})
    put_json(s / ".zattrs", {"title": "fixture", "_NCProperties": "version=2,netcdf=4.9.2,nczarr=2.0.0",
                             "_nczarr_attr": {"types": {"title": ">S1", "_NCProperties": ">S1"}}})
    put_json(s / "a" / ".zarray", {"zarr_format": 2, "shape": [4], "dtype": "<i2", "chunks": [4], "fill_value": -1,
                                   "order": "C", "compressor": None, "filters": None,
                                   "_nczarr_array": {"dimrefs": ["/x"], "storage": "chunked"}})
    put_json(s / "a" / ".zattrs", {"big": 5000000000, "_ARRAY_DIMENSIONS": ["x"],
                                   "_nczarr_attr": {"types": {"big": "<i8"}}})
    put_chunk(s / "a" / "0", bytes([1, 0, 2, 0, 3, 0, 4, 0]))
    put_json(s / "name" / ".zarray", {"zarr_format": 2, "shape": [4], "dtype": ">S1", "chunks": [4],
                                      "fill_value": "", "order": "C", "compressor": None, "filters": None,
                                      "_nczarr_array": {"dimrefs": ["/x"], "storage": "chunked"}})
    put_chunk(s / "name" / "0", b"wxyz")
    put_json(s / "s" / ".zarray", {"zarr_format": 2, "shape": [1], "dtype": "<f4", "chunks": [1], "fill_value": "Infinity",
                                   "order": "C", "compressor": None, "filters": None,
                                   "_nczarr_array": {"dimrefs": [], "storage": "scalar"}})
    put_json(s / "words" / ".zarray", {"zarr_format": 2, "shape": [4], "dtype": "|S6", "chunks": [2],
                                       "fill_value": "", "order": "C", "compressor": None, "filters": None,
                                       "_nczarr_array": {"dimrefs": ["/x"], "storage": "chunked"}})
    put_json(s / "words" / ".zattrs", {"_nczarr_maxstrlen": 6, "_nczarr_attr": {"types": {"_nczarr_maxstrlen": "<i4"}}})
    put_chunk(s / "words" / "0", b"alpha\0six666")
    put_json(s / "g" / ".zgroup", {"zarr_format": 2,
                                   "_nczarr_group": {"dims": {"z": 2}, "vars": ["b"], "groups": []}})
    put_json(s / "g" / "b" / ".zarray", {"zarr_format": 2, "shape": [2, 4], "dtype": "<f8", "chunks": [1, 4],
                                         "fill_value": "NaN", "order": "C", "compressor": None, "filters": None,
                                         "_nczarr_array": {"dimrefs": ["/g/z", "/x"], "storage": "chunked"}})
    put_chunk(s / "g" / "b" / "1.0", struct.pack("<4d", 1.5, 2.5, 3.5, 4.5))  # row 0 never written
    return s


def test_netcdf_c_4_9_1_layout(tools, store_4_9_1):
    text = run(tools["describe_ours"], url(store_4_9_1))
    assert_lines(text, [
        '  att title char 7 "fixture"',
        "  var a short (x) chunks=(4) nofill=0 fill=[-1] endian=little",
        "    att big int64 1 [5000000000]",
        "    data [1, 2, 3, 4]",
        "  var name char (x) chunks=(4) nofill=0 fill=\"\\x00\"",
        '    data "wxyz"',
        "  var s float () nofill=0 fill=[inf] endian=little",  # a scalar never written
        "    data [inf]",
        "    att _nczarr_maxstrlen int 1 [6]",
        '    data ["alpha", "six666", "", ""]',
        "group /g",
        "  dim z 2",
        "  var b double (z, x) chunks=(1, 4) nofill=0 fill=[nan] endian=little",
        "    data [nan, nan, nan, nan, 1.5, 2.5, 3.5, 4.5]",
    ])
    for hidden in ["_nczarr_array", "_nczarr_attr", "_nczarr_group", "_nczarr_superblock", "_ARRAY_DIMENSIONS"]:
        assert hidden not in text
    # Editable: upgraded to the current layout at its first commit.
    assert run(tools["describe_ours"], "-w", url(store_4_9_1)) == "redef 0\n" + text
    assert run(tools["describe_ours"], url(store_4_9_1)) == text


def test_netcdf_c_4_8_0_objects(tools, tmp_path):
    """NCZarr format 1.0.0: separate .nczarr/.nczgroup/.nczvar/.nczattr
    objects, attribute types as nc_type numbers."""
    s = tmp_path / "v480.zarr"
    put_json(s / ".nczarr", {"zarr_format": 2, "nczarr_version": "1.0.0"})
    put_json(s / ".zgroup", {"zarr_format": 2})
    put_json(s / ".nczgroup", {"dims": {"lat": 2}, "vars": ["lat"], "groups": []})
    put_json(s / ".zattrs", {"history": "made by hand"})
    put_json(s / ".nczattr", {"types": {"history": "2"}})
    put_json(s / "lat" / ".zarray", {"zarr_format": 2, "shape": [2], "dtype": "<i4", "chunks": [2],
                                     "fill_value": -99, "order": "C", "compressor": None, "filters": None})
    put_json(s / "lat" / ".nczvar", {"dimrefs": ["/lat"], "storage": "chunked"})
    put_json(s / "lat" / ".zattrs", {"_FillValue": -99, "lat_attr": "north"})
    put_json(s / "lat" / ".nczattr", {"types": {"_FillValue": "4", "lat_attr": "2"}})
    put_chunk(s / "lat" / "0", bytes([10, 0, 0, 0, 20, 0, 0, 0]))
    text = run(tools["describe_ours"], url(s))
    assert_lines(text, [
        "  dim lat 2",
        '  att history char 12 "made by hand"',
        "  var lat int (lat) chunks=(2) nofill=0 fill=[-99] endian=little",
        "    att _FillValue int 1 [-99]",
        '    att lat_attr char 5 "north"',
        "    data [10, 20]",
    ])


def test_debian_netcdf_c_4_9_0_reads_our_490_layout(tools, tmp_path):
    """`nczarr_layout=4.9.0` writes what Debian 12's netcdf-c (4.9.0)
    reads: its ncdump shows the same structure and values we do."""
    ncdump = shutil.which("ncdump")
    assert ncdump, "Debian's netcdf-bin must be installed (tools/install-test-deps.sh does)"
    store = tmp_path / "p490.zarr"
    run(tools["write_plain"], f"file://{store}#mode=nczarr,file&nczarr_layout=4.9.0")
    assert "_NCZARR_SUPERBLOCK" in (store / ".zgroup").read_text()
    assert not (store / ".zmetadata").exists()
    dump = subprocess.run([ncdump, url(store)], capture_output=True, text=True, check=True).stdout
    for text in [
        "\tx = 3 ;",
        "\tint v(x, y) ;",
        "\t\tv:offset = 100 ;",
        '\t\tv:units = "m2" ;',
        "\tchar c(y) ;",
        '\t\t:title = "plain" ;',
        "  80, 90, 100, 110 ;",
        ' c = "wxyz" ;',
        " b = -1, 0, 1 ;",
        "group: g {",
        "  3.5, 4.5, 5.5 ;",
    ]:
        assert text in dump, f"{text!r} not in:\n{dump}"
    # We read it back too, as the same dataset in the current layout.
    current = tmp_path / "current.zarr"
    run(tools["write_plain"], url(current))
    assert run(tools["describe_ours"], url(store)) == run(tools["describe_ours"], url(current))
