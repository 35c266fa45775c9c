"""Pure Zarr v2 both ways: stores written by zarr-python 3 (v2 format),
zarr-python 2.18 and xarray are read by us with the right structure and
values; stores we write are read by them. Stores are generated here, at
test time."""

import json
import pathlib
import subprocess

import numpy as np
import pytest
import xarray as xr
import zarr

from conftest import ROOT, run, url

HERE = pathlib.Path(__file__).resolve().parent
ZARR2_PYTHON = ROOT / ".venv-zarr2" / "bin" / "python"


def zarr2(command, path):
    """Run tests/interop/zarr2_tool.py under zarr-python 2."""
    result = subprocess.run([str(ZARR2_PYTHON), str(HERE / "zarr2_tool.py"), command, str(path)],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return result.stdout


def zarr_url(path):
    return f"file://{path}#mode=zarr,file"


def describe_nodes(text):
    """Our description (describe.c) by node, so that every line is tied to
    the group or variable it belongs to: {"/": {"dims": [...], "atts":
    [...]}, "/g/var": {"var": declaration, "atts": [...], "data": line}}
    (lines without their indentation and leading keyword)."""
    nodes, group, node = {}, None, None
    for line in text.splitlines():
        if not line:
            continue
        if line.startswith("group "):
            group = line[len("group "):]
            node = nodes[group] = {"dims": [], "atts": []}
        elif line.startswith("  var "):
            decl = line[len("  var "):]
            node = nodes[f"{group.rstrip('/')}/{decl.split()[0]}"] = {"var": decl, "atts": [], "data": None}
        elif line.startswith("  dim "):
            nodes[group]["dims"].append(line[len("  dim "):])
        elif line.startswith("  att "):
            nodes[group]["atts"].append(line[len("  att "):])
        elif line.startswith("    att "):
            node["atts"].append(line[len("    att "):])
        elif line.startswith("    data "):
            assert node["data"] is None, f"two data lines for one variable in:\n{text}"
            node["data"] = line[len("    data "):]
        else:
            raise AssertionError(f"unexpected line {line!r} in:\n{text}")
    return nodes


def expect_nodes(text, expected):
    """Each node named in `expected` is described exactly so: a variable's
    declaration, attributes and data, a group's dimensions and attributes
    (keys left out are not checked)."""
    nodes = describe_nodes(text)
    wrong = []
    for path, want in expected.items():
        got = nodes.get(path)
        if got is None:
            wrong.append(f"{path}: not described")
            continue
        wrong += [f"{path} {key}: {got[key]!r}, want {value!r}" for key, value in want.items() if got[key] != value]
    assert not wrong, "\n".join(wrong) + f"\nin:\n{text}"
    return nodes


def data_values(line):
    """The numbers of a numeric data line ("[1, -2.5, nan]")."""
    assert line.startswith("[") and line.endswith("]"), line
    inner = line[1:-1]
    return [float(x) if any(c in x for c in ".en") else int(x) for x in inner.split(", ")] if inner else []


def assert_values_as(node, array, path):
    """Our data line of a numeric variable holds, in order, the values
    zarr-python reads from the same array (NaN where it has NaN)."""
    want = np.asarray(array[...]).ravel()
    got = np.asarray(data_values(node["data"]), dtype=want.dtype if want.dtype.kind != "b" else "u1")
    np.testing.assert_array_equal(got, want.astype(got.dtype), err_msg=f"{path}: ours vs zarr-python")


def test_we_read_zarr_python_3(tools, tmp_path):
    path = tmp_path / "z3.zarr"
    root = zarr.open_group(path, mode="w", zarr_format=2)
    root.attrs.update({"title": "zarr3", "n": 7, "pi": 3.5, "flag": True, "list": [1, 2], "nan": float("nan")})
    a = root.create_array("i2", shape=(4, 5), chunks=(3, 2), dtype="<i2", compressors=None, fill_value=-1)
    a[:3] = np.arange(15, dtype="i2").reshape(3, 5)  # row 3 never written: fill
    a.attrs["_ARRAY_DIMENSIONS"] = ["y", "x"]
    b = root.create_array("be", shape=(5,), chunks=(2,), dtype=">f8", compressors=None, fill_value=float("nan"))
    b[:3] = [1.5, 2.5, 3.5]
    b.attrs["_ARRAY_DIMENSIONS"] = ["x"]
    c = root.create_array("flags", shape=(3,), chunks=(3,), dtype="|b1", compressors=None, fill_value=False)
    c[:] = [True, False, True]
    s = root.create_array("names", shape=(3,), chunks=(2,), dtype="|S5", compressors=None, fill_value=b"")
    s[:] = [b"ab", b"cdefg", b""]
    z = root.create_array("zero_d", shape=(), dtype="<i4", compressors=None, fill_value=0)
    z[...] = 42
    f = root.create_array("fortran", shape=(2, 3), chunks=(2, 3), dtype="<i4", compressors=None, order="F", fill_value=0)
    f[:] = np.arange(6).reshape(2, 3)
    n = root.create_array("nested", shape=(4,), chunks=(2,), dtype="<u4", compressors=None,
                          chunk_key_encoding={"name": "v2", "separator": "/"}, fill_value=None)
    n[:] = [1, 2, 3, 4]
    u = root.create_array("unicode", shape=(3,), chunks=(2,), dtype="<U4", compressors=None, fill_value="")
    u[:] = ["añb", "", "√2π!"]
    cx = root.create_array("complex", shape=(2,), chunks=(2,), dtype="<c8", compressors=None, fill_value=0)
    cx[:] = [1 + 2j, 3 - 4j]
    cx.attrs["kind"] = "complex"
    # zarr-python's default compressor (Blosc), values unlike nested's.
    comp = root.create_array("compressed", shape=(6,), chunks=(4,), dtype="<i4", fill_value=0)
    comp[:5] = [5, -6, 7, -8, 9]  # [5] never written: fill
    comp.attrs["note"] = "still listed"
    sub = root.create_group("sub")
    sub.create_array("inner", shape=(2,), chunks=(2,), dtype="|u1", compressors=None, fill_value=0)[:] = [7, 8]
    zarr.consolidate_metadata(path)
    assert root["compressed"].compressors, "the default compressor is not Blosc any more: pick one"

    text = run(tools["describe_ours"], zarr_url(path))
    nodes = expect_nodes(text, {
        "/": {"atts": ['title char 5 "zarr3"', "n int 1 [7]", "pi double 1 [3.5]", "flag ubyte 1 [1]",
                       "list int 2 [1, 2]", "nan double 1 [nan]"]},
        "/i2": {"var": "i2 short (y, x) chunks=(3, 2) nofill=0 fill=[-1] endian=little",
                "data": "[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, -1, -1, -1, -1, -1]"},
        "/be": {"var": "be double (x) chunks=(2) nofill=0 fill=[nan] endian=big", "data": "[1.5, 2.5, 3.5, nan, nan]"},
        "/flags": {"data": "[1, 0, 1]"},  # |b1 as ubyte
        "/names": {"data": '["ab", "cdefg", ""]'},
        "/unicode": {"data": '["a\\xc3\\xb1b", "", "\\xe2\\x88\\x9a2\\xcf\\x80!"]'},  # <U4, as UTF-8
        # An unsupported dtype: listed, attributes readable, data refused.
        "/complex": {"var": "complex ubyte (_Anonymous_Dim_2) chunks=(2) nofill=0 fill=[0]",
                     "atts": ['kind char 7 "complex"'], "data": "error -45"},
        "/zero_d": {"var": "zero_d int () nofill=0 fill=[0] endian=little", "data": "[42]"},
        "/fortran": {"var": "fortran int (_Anonymous_Dim_2, _Anonymous_Dim_3) chunks=(2, 3) nofill=0 fill=[0] "
                            "endian=little",
                     "data": "[0, 1, 2, 3, 4, 5]"},  # order F transposed back
        "/nested": {"var": "nested uint (_Anonymous_Dim_4) chunks=(2) nofill=1 fill=[0] endian=little",
                    "data": "[1, 2, 3, 4]"},
        "/compressed": {"var": "compressed int (_Anonymous_Dim_6) chunks=(4) nofill=0 fill=[0] endian=little",
                        "atts": ['note char 12 "still listed"'], "data": "[5, -6, 7, -8, 9, 0]"},
        "/sub/inner": {"data": "[7, 8]"},
    })
    assert {"y 4", "x 5"} <= set(nodes["/"]["dims"])
    # Every numeric array as zarr-python reads it, value for value.
    for name in ("i2", "be", "flags", "zero_d", "fortran", "nested", "compressed", "sub/inner"):
        assert_values_as(nodes[f"/{name}"], root[name], name)


def test_we_read_zarr_python_2(tools, tmp_path):
    path = tmp_path / "z2.zarr"
    zarr2("write", path)
    text = run(tools["describe_ours"], zarr_url(path))
    nodes = expect_nodes(text, {
        "/": {"atts": ["n int 1 [7]", 'title char 5 "zarr2"', "values double 2 [0.5, 1.5]"]},  # zarr 2 sorts keys
        "/temp": {"var": "temp float (lat, lon) chunks=(3, 4) nofill=0 fill=[nan] endian=little",
                  "atts": ['units char 1 "K"'],
                  "data": "[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, nan, nan, nan, nan, nan, nan]"},
        "/counts": {"var": "counts byte (lon) chunks=(4) nofill=0 fill=[-1]", "data": "[-128, -1, 0, 1, 2, 127]"},
        "/fortran": {"var": "fortran int64 (_Anonymous_Dim_3, _Anonymous_Dim_2) chunks=(2, 2) nofill=0 fill=[0] "
                            "endian=big",
                     "data": "[0, 1, 2, 3, 4, 5]"},
        "/labels": {"data": '["abc", "d"]'},
        "/nested": {"data": "[1, 2, 3, 9, 9]"},  # dimension_separator "/", missing chunk as fill
        "/sub/v": {"data": "[1.25, -2.5]"},
    })
    # The same store as zarr-python 2 reads it, array by array.
    seen = json.loads(zarr2("read", path))
    for name in ("temp", "counts", "fortran", "nested", "sub/v"):
        theirs = seen[f"/{name}"]
        want = np.array(theirs["data"], dtype=np.dtype(theirs["dtype"]).newbyteorder("="))
        np.testing.assert_array_equal(np.asarray(data_values(nodes[f"/{name}"]["data"]), dtype=want.dtype), want,
                                      err_msg=f"{name}: ours vs zarr-python 2")
    assert [f'"{v}"' for v in seen["/labels"]["data"]] == nodes["/labels"]["data"][1:-1].split(", ")


@pytest.fixture(params=["nczarr", "zarr"])
def ours(request, tools, tmp_path):
    path = tmp_path / f"ours-{request.param}.zarr"
    run(tools["write_data"], f"file://{path}#mode={request.param},file")
    return request.param, path


def expected_values():
    grid = np.full((5, 7), -1.0, dtype=np.float32)
    grid[1:5, 2:7] = (0.5 * np.arange(20, dtype=np.float32)).reshape(4, 5)
    return grid


def test_zarr_python_3_reads_ours(ours):
    mode, path = ours
    if mode == "nczarr":
        # zarr-python 3 rejects netcdf-c's ">S1" spelling of NC_CHAR, which
        # NCZarr mode keeps so that netcdf-c reads char variables back.
        with pytest.raises(ValueError, match="S1"):
            zarr.open_group(path, mode="r")
        return
    g = zarr.open_group(path, mode="r")
    np.testing.assert_array_equal(g["grid"][:], expected_values())
    assert g["grid"].chunks == (2, 3)
    np.testing.assert_array_equal(g["be"][:], [1, -2, 3, 65536, 5, 6, 2147483647])
    assert g["be"].dtype == np.dtype(">i4")
    assert list(g["strs"][:]) == [b"short", b"", b"a rather longer string"]
    assert g["chars"][:].tobytes() == b"abcdefghijklmnopqrstu"
    np.testing.assert_array_equal(g["exact64"][:], [-(2**63), 0, 2**63 - 1])
    np.testing.assert_array_equal(g["rec"][2], [10, 11, 12])
    assert g["grid"].attrs["_ARRAY_DIMENSIONS"] == ["y", "x"]
    assert g["g/inner"][-1] == 65535
    assert "_nczarr_array" not in g["grid"].attrs


def test_zarr_python_2_reads_ours(ours):
    mode, path = ours
    seen = json.loads(zarr2("read", path))
    assert seen["/grid"]["shape"] == [5, 7]
    np.testing.assert_array_equal(np.array(seen["/grid"]["data"], dtype=np.float32).reshape(5, 7), expected_values())
    assert seen["/be"]["dtype"] == ">i4"
    assert seen["/be"]["data"] == [1, -2, 3, 65536, 5, 6, 2147483647]
    assert seen["/strs"]["data"] == ["short", "", "a rather longer string"]
    assert seen["/chars"]["dtype"] == "|S1"  # numpy spells ">S1" as "|S1"
    assert "".join(seen["/chars"]["data"]) == "abcdefghijklmnopqrstu"
    assert seen["/exact64"]["data"] == [-(2**63), 0, 2**63 - 1]
    assert seen["/g/inner"]["data"] == [0, 1, 2, 3, 4, 5, 65535]
    assert ("_nczarr_array" in seen["/grid"]["attrs"]) == (mode == "nczarr")


def test_we_read_xarray(tools, tmp_path):
    path = tmp_path / "xr.zarr"
    temp = np.arange(24, dtype="f4").reshape(2, 3, 4) * np.float32(0.25) - 2
    temp[1, 2, 3] = np.nan
    mask = np.array([[1, 0, -1, 2], [3, -4, 5, 0], [32767, -32768, 7, 1]], dtype="i2")
    ds = xr.Dataset(
        {
            "temp": (("time", "lat", "lon"), temp, {"units": "K"}),
            "mask": (("lat", "lon"), mask),
        },
        coords={"lat": [10.0, 20.0, 30.0], "lon": [1, 2, 3, 4], "time": [0.5, 1.5]},
        attrs={"title": "from xarray"},
    )
    encoding = {name: {"compressors": None} for name in list(ds.data_vars) + list(ds.coords)}
    ds.to_zarr(path, consolidated=True, zarr_format=2, encoding=encoding)
    text = run(tools["describe_ours"], zarr_url(path))
    nodes = expect_nodes(text, {
        "/": {"dims": ["lat 3", "lon 4", "time 2"], "atts": ['title char 11 "from xarray"']},
        "/temp": {"var": "temp float (time, lat, lon) chunks=(2, 3, 4) nofill=0 fill=[nan] endian=little",
                  "atts": ['units char 1 "K"'],
                  "data": "[-2, -1.75, -1.5, -1.25, -1, -0.75, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1, 1.25, 1.5, "
                          "1.75, 2, 2.25, 2.5, 2.75, 3, 3.25, 3.5, nan]"},
        "/mask": {"var": "mask short (lat, lon) chunks=(3, 4) nofill=1 fill=[0] endian=little",
                  "data": "[1, 0, -1, 2, 3, -4, 5, 0, 32767, -32768, 7, 1]"},
        "/lat": {"data": "[10, 20, 30]"},
        "/lon": {"data": "[1, 2, 3, 4]"},
        "/time": {"data": "[0.5, 1.5]"},
    })
    # What xarray (without decoding) and zarr-python read from the store.
    theirs = xr.open_zarr(path, consolidated=True, mask_and_scale=False, decode_times=False)
    group = zarr.open_group(path, mode="r")
    for name in ("temp", "mask", "lat", "lon", "time"):
        np.testing.assert_array_equal(theirs[name].values, group[name][...], err_msg=name)
        assert_values_as(nodes[f"/{name}"], group[name], name)


def test_xarray_reads_ours(tools, tmp_path):
    # An NCZarr dataset without char variables (see the zarr-python 3 test),
    # opened from our consolidated .zmetadata.
    path = tmp_path / "ours.zarr"
    run(tools["write_sample_numeric"], url(path))
    assert (path / ".zmetadata").exists()
    ds = xr.open_zarr(path, consolidated=True)
    assert dict(ds.sizes) == {"time": 4, "lat": 3, "lon": 2}
    np.testing.assert_array_equal(ds["lat"].values, [-10.0, 0.0, 10.0])
    np.testing.assert_array_equal(ds["t"].values[3], [[300.5, 301.5], [302.5, 303.5], [304.5, 305.5]])
    assert np.isnan(ds["t"].values[0, 0, 0])  # never written: fill, masked
    assert ds["t"].attrs["units"] == "K"
    assert ds.attrs["title"] == "for xarray"
