"""Read the NCZarr store nf90_roundtrip wrote and check it through netcdf-c
4.10.1 (the library inside the pinned netCDF4 wheel): the same metadata and
the same values the Fortran program wrote and checked. Keep in step with
nf90_roundtrip.f90.

Usage: python check_store.py STORE_DIR
Prints PASS and exits 0 when every check holds; an AssertionError otherwise.
"""

import pathlib
import sys

import netCDF4
import numpy as np

NX, NY, NT, NSTR, NZ = 6, 4, 3, 8, 3
NC_FILL_DOUBLE = 9.9692099683868690e36


def expected():
    """The values, in C order (the Fortran program's dimensions reversed)."""
    i = np.arange(1, NX + 1)
    j = np.arange(1, NY + 1)
    t = np.arange(1, NT + 1)
    v_int = np.full((NY, NX), -1, dtype="i4")
    v_int[:, 0::2] = 100 * i[0::2][None, :] + j[:, None]
    v_int[3, 5] = 7777
    return {
        "v_real": (i[None, :] + 10 * j[:, None] + 0.5).astype("f4"),
        "v_double": 1000.0 * t[:, None] + 0.25 * i[None, :],
        "v_int": v_int,
        "v_short": ((i - 3) * 1000).astype("i2"),
        "v_byte": np.array([-128, -1, 0, 1, 42, 127], dtype="i1"),
        "v_char": np.array([list(s.ljust(NSTR).encode()) for s in ["alpha", "beta", "gamma", "deltaXYZ"]], dtype="u1")
        .view("S1")
        .reshape(NY, NSTR),
        "v_int64": ((-1) ** i * i * 3000000000).astype("i8"),
        "v_ubyte": np.array([0, 1, 127, 128, 200, 255], dtype="u1"),
        "v_be": (1.5 * i).astype("f4"),
        "v_rec_int": np.array([11, 22, -2147483647], dtype="i4"),
        "v_scalar": np.float64(3.14159265358979323846),
    }


# name: (dtype, dimensions, chunks or None, zlib level, shuffle, fill value)
VARS = {
    "v_real": ("f4", ("y", "x"), [2, 3], 4, True, -999.0),
    "v_double": ("f8", ("time", "x"), [1, 6], 0, False, NC_FILL_DOUBLE),
    "v_int": ("i4", ("y", "x"), None, 0, False, -1),
    "v_short": ("i2", ("x",), None, 1, False, -32767),
    "v_byte": ("i1", ("x",), None, 0, False, -127),
    "v_char": ("S1", ("y", "strlen"), None, 0, False, None),
    "v_int64": ("i8", ("x",), None, 0, False, -9223372036854775806),
    "v_ubyte": ("u1", ("x",), None, 0, False, 255),
    "v_be": (">f4", ("x",), None, 0, False, None),
    "v_rec_int": ("i4", ("time",), [2], 0, False, -2147483647),
    "v_scalar": ("f8", (), None, 0, False, NC_FILL_DOUBLE),
}


def check(store):
    url = f"file://{pathlib.Path(store).resolve()}#mode=nczarr,file"
    with netCDF4.Dataset(url) as ds:
        ds.set_auto_mask(False)
        assert ds.data_model == "NETCDF4", ds.data_model
        dims = {name: (len(d), d.isunlimited()) for name, d in ds.dimensions.items()}
        assert dims == {"x": (NX, False), "y": (NY, False), "time": (NT, True), "strlen": (NSTR, False)}, dims

        assert ds.ncattrs() and sorted(ds.ncattrs()) == sorted(
            ["title", "int_att", "dbl_att", "flt_att", "short_att", "byte_att", "added_later"]
        ), ds.ncattrs()
        assert ds.title == "nczarr-rs Fortran 90 test"
        assert ds.added_later == "yes"
        for name, dtype, values in [
            ("int_att", "i4", [1, -2, 3]),
            ("dbl_att", "f8", [1.5, -2.25, 1.0e300]),
            ("short_att", "i2", [-7, 7]),
            ("byte_att", "i1", [-1, 1, 2]),
        ]:
            got = ds.getncattr(name)
            assert got.dtype == np.dtype(dtype), (name, got.dtype)
            np.testing.assert_array_equal(got, values, err_msg=name)
        assert ds.flt_att.dtype == np.float32 and ds.flt_att == 0.5

        assert list(ds.variables) == list(VARS), list(ds.variables)
        want = expected()
        for name, (dtype, dimnames, chunks, level, shuffle, fill) in VARS.items():
            v = ds.variables[name]
            assert v.dtype == np.dtype(dtype), (name, v.dtype)
            assert v.dimensions == dimnames, (name, v.dimensions)
            if chunks is not None:
                assert v.chunking() == chunks, (name, v.chunking())
            f = v.filters()
            assert f["zlib"] == (level > 0) and f["complevel"] == level and f["shuffle"] == shuffle, (name, f)
            assert not f["fletcher32"], name
            if fill is not None:
                assert v.get_fill_value() == fill, (name, v.get_fill_value())
            got = v[...]
            assert got.shape == np.shape(want[name]), (name, got.shape)
            np.testing.assert_array_equal(got, want[name], err_msg=name)
        assert ds["v_be"].endian() == "big" and ds["v_real"].endian() == "little"

        # Slices read through netcdf-c, as the Fortran program read them.
        np.testing.assert_array_equal(ds["v_real"][1:3, 1:4], want["v_real"][1:3, 1:4])
        np.testing.assert_array_equal(ds["v_int"][:, 0::2], want["v_int"][:, 0::2])
        np.testing.assert_array_equal(ds["v_double"][2], want["v_double"][2])

        r = ds["v_real"]
        assert sorted(r.ncattrs()) == ["_FillValue", "units", "valid_range"], r.ncattrs()
        assert r.units == "K"
        assert r.valid_range.dtype == np.float32
        np.testing.assert_array_equal(r.valid_range, [-1000.0, 1000.0])
        assert r._FillValue == np.float32(-999.0) and r._FillValue.dtype == np.float32
        assert ds["v_int"].ncattrs() == ["_FillValue"] and ds["v_int"]._FillValue == -1
        assert ds["v_double"].ncattrs() == ["long_name"] and ds["v_double"].long_name == "record data"
        assert ds["v_short"].valid_min == -5000 and ds["v_short"].valid_min.dtype == np.int16

        assert list(ds.groups) == ["grp1"], list(ds.groups)
        g = ds.groups["grp1"]
        assert g.path == "/grp1"
        assert {n: len(d) for n, d in g.dimensions.items()} == {"z": NZ}
        assert g.ncattrs() == ["description"] and g.description == "first group"
        assert list(g.variables) == ["g_var"]
        gv = g.variables["g_var"]
        assert gv.dtype == np.int32 and gv.dimensions == ("x", "z"), (gv.dtype, gv.dimensions)
        i = np.arange(1, NX + 1)[:, None]
        k = np.arange(1, NZ + 1)[None, :]
        np.testing.assert_array_equal(gv[:], 100 * k + i)
        assert list(g.groups) == ["sub"]
        sub = g.groups["sub"]
        assert sub.path == "/grp1/sub" and sub.ncattrs() == ["level"] and sub.level == 2
        assert not sub.groups and not sub.variables and not sub.dimensions


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: check_store.py STORE_DIR")
    check(sys.argv[1])
    print("PASS")
