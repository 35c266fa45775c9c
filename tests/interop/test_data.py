"""Variable data across libraries: what we write, netcdf-c 4.10.1 and
netCDF4-python read with the same values, and the reverse. The C program
describe.c prints every value of every variable and is run against both
libraries on the same store."""

import numpy as np
import netCDF4
import pytest

from conftest import run, same_as_netcdf_c, url


@pytest.fixture
def ours(tools, tmp_path):
    path = tmp_path / "data.zarr"
    run(tools["write_data"], url(path))
    return path


def test_netcdf_c_reads_our_data(tools, ours):
    mine = run(tools["describe_ours"], url(ours))
    theirs = run(tools["describe_netcdf_c"], url(ours))
    same_as_netcdf_c(mine, theirs)
    assert "    data [1, -2, 3, 65536, 5, 6, 2147483647]\n" in mine  # big-endian var
    assert '    data "abcdefghijklmnopqrstu"\n' in mine
    assert '    data ["short", "", "a rather longer string"]\n' in mine
    assert "    data [-9223372036854775808, 0, 9223372036854775807]\n" in mine


def test_netcdf4_python_reads_our_data(ours):
    with netCDF4.Dataset(url(ours)) as ds:
        ds.set_auto_mask(False)
        grid = ds["grid"][:]
        expected = np.full((5, 7), -1.0, dtype=np.float32)
        expected[1:5, 2:7] = (0.5 * np.arange(20, dtype=np.float32)).reshape(4, 5)
        np.testing.assert_array_equal(grid, expected)
        assert ds["grid"].chunking() == [2, 3]
        for name, dtype in [("b", "i1"), ("ub", "u1"), ("sh", "i2"), ("us", "u2"), ("i", "i4"), ("ui", "u4"),
                            ("i64", "i8"), ("u64", "u8")]:
            assert ds[name].dtype == np.dtype(dtype)
            np.testing.assert_array_equal(ds[name][:], [1, 2, 100])  # 2.5 truncated, as C does
        np.testing.assert_array_equal(ds["d"][:], [1, 2.5, 100])
        assert ds["be"].endian() == "big"
        np.testing.assert_array_equal(ds["be"][:], [1, -2, 3, 65536, 5, 6, 2147483647])
        assert list(ds["strs"][:]) == ["short", "", "a rather longer string"]
        assert ds["chars"][:].tobytes() == b"abcdefghijklmnopqrstu"
        assert len(ds.dimensions["t"]) == 3
        rec = ds["rec"][:]
        np.testing.assert_array_equal(rec[2], [10, 11, 12])
        np.testing.assert_array_equal(rec[:2], np.full((2, 3), -32767))
        assert ds["time"][0] == 42.0
        assert ds["scalar"][...] == 3.141592653589793
        np.testing.assert_array_equal(ds.groups["g"]["inner"][:], [0, 1, 2, 3, 4, 5, 65535])


@pytest.mark.filterwarnings("ignore:endian-ness of dtype:UserWarning")
def test_we_read_netcdf4_python_data(tools, tmp_path):
    path = tmp_path / "py.zarr"
    rng = np.random.default_rng(7)
    with netCDF4.Dataset(url(path), "w") as ds:
        ds.createDimension("t", None)
        ds.createDimension("y", 6)
        ds.createDimension("x", 9)
        ds.createDimension("n", 4)
        v = ds.createVariable("temp", "f4", ("t", "y", "x"), chunksizes=(2, 4, 4), fill_value=-99.0)
        v[0:3, :, :] = rng.standard_normal((3, 6, 9)).astype("f4")
        v[4, 1:3, 2:5] = 7.5  # record 3 left as fill, record 4 partial
        ints = ds.createVariable("ints", "i8", ("n",))
        ints[:] = [-(2**63), -1, 0, 2**63 - 1]
        u = ds.createVariable("u", "u2", ("y",), endian="big")
        u[:] = np.arange(6) * 10000
        s = ds.createVariable("s", str, ("n",))
        s[:] = np.array(["alpha", "b", "", "a somewhat longer value"], dtype=object)
        c = ds.createVariable("c", "S1", ("n",))
        c[:] = np.array([b"w", b"x", b"y", b"z"])
        sc = ds.createVariable("sc", "f8", ())
        sc.assignValue(2.75)
        g = ds.createGroup("g")
        gi = g.createVariable("gi", "i1", ("x",))
        gi[:] = np.arange(-4, 5)
    mine = run(tools["describe_ours"], url(path))
    theirs = run(tools["describe_netcdf_c"], url(path))
    same_as_netcdf_c(mine, theirs)
    assert "    data [-9223372036854775808, -1, 0, 9223372036854775807]\n" in mine
    assert '    data ["alpha", "b", "", "a somewhat longer value"]\n' in mine
    assert '    data "wxyz"\n' in mine
    assert "    data [0, 10000, 20000, 30000, 40000, 50000]\n" in mine
    assert "    data [2.75]\n" in mine
    assert "    data [-4, -3, -2, -1, 0, 1, 2, 3, 4]\n" in mine
