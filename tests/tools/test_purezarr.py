"""Pure Zarr as netcdf-c 4.10.1 shows it: Debian's ncgen and ncdump over
our library and over netcdf-c 4.10.1 (the oracle), on stores each writes
and on stores zarr-python writes.

- A pure Zarr `fill_value` is the variable's fill value, never a
  `_FillValue` attribute (netcdf-c's ref_purezarr.cdl, its issue #2062):
  ncdump prints the fill-valued data as values, and the attribute list is
  the same over both libraries.
- Local consolidated metadata never hides an object edited after it was
  written (netcdf-c's run_filter_errors edits a `.zarray` with sed): the
  object is read, and an unknown codec there refuses the data with
  netcdf-c's diagnostic on stderr."""

import json
import subprocess

import pytest

from harness import assert_same, normalized, ok, run, OUR_LIBDIR

# netcdf-c's ref_purezarr_base.cdl, and a variable with a fill value that
# is not the default, so that a `_FillValue` attribute would show.
CDL = """netcdf tmp_purezarr {
dimensions:
  d2 = 2 ;
  d5 = 5 ;
variables:
  int i(d2, d5) ;
  short s(d5) ;
    s:_FillValue = 7s ;
    s:units = "m" ;
data:
  i = _, _, _, _, _, _, _, _, _, _ ;
  s = 1, 2, _, _, 5 ;
}
"""

MODES = ["zarr,noxarray,file", "zarr,file", "xarray,file"]


def zarr_url(path, mode):
    return f"file://{path}#mode={mode}"


@pytest.fixture(scope="module")
def cdl(base):
    path = base / "purezarr.cdl"
    path.write_text(CDL)
    return path


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("writer", ["ours", "oracle"])
def test_pure_zarr_dump_matches_netcdf_c(request, ours, oracle, base, cdl, writer, mode):
    store = base / f"pz-{writer}-{mode.replace(',', '-')}" / "purezarr.zarr"
    store.parent.mkdir(parents=True, exist_ok=True)
    ok("ncgen", request.getfixturevalue(writer), "-4", "-b", "-o", zarr_url(store, mode), cdl, cwd=store.parent)
    got = normalized(run("ncdump", ours, zarr_url(store, mode)))
    expected = normalized(run("ncdump", oracle, zarr_url(store, mode)))
    assert_same(got, expected, "ours", "netcdf-c 4.10.1")
    assert got[0] == 0
    # i has no `_FillValue` attribute (its fill is the default, so ncdump
    # still shows `_`); s keeps the one it was given.
    assert "i:_FillValue" not in got[1]
    assert "s:_FillValue = 7s ;" in got[1]
    assert " s = 1, 2, _, _, 5 ;" in got[1]


def test_zarr_python_fill_value_is_no_attribute(ours, oracle, base):
    import zarr

    path = base / "zp-fill.zarr"
    g = zarr.open_group(str(path), mode="w", zarr_format=2)
    a = g.create_array("a", shape=(4,), chunks=(2,), dtype="i4", fill_value=7, compressors=None)
    a[:2] = [1, 2]
    got = normalized(run("ncdump", ours, zarr_url(path, "zarr,file")))
    expected = normalized(run("ncdump", oracle, zarr_url(path, "zarr,file")))
    assert_same(got, expected, "ours", "netcdf-c 4.10.1")
    assert " a = 1, 2, 7, 7 ;" in got[1]
    assert "_FillValue" not in got[1]


def consolidated_blosc_store(path):
    """A zarr-python v2 store with consolidated metadata, `data` blosc
    compressed (as netcdf-c's ref_data.zarr)."""
    import numcodecs
    import zarr

    g = zarr.open_group(str(path), mode="w", zarr_format=2)
    a = g.create_array("data", shape=(4,), chunks=(2,), dtype="i4", fill_value=0, compressors=numcodecs.Blosc())
    a[:] = [1, 2, 3, 4]
    zarr.consolidate_metadata(str(path))
    assert (path / ".zmetadata").exists()


@pytest.mark.parametrize("lib", ["ours", "oracle"])
def test_edited_object_wins_over_stale_consolidated_metadata(request, base, lib):
    """netcdf-c's run_filter_errors, over both libraries: `.zarray`'s
    compressor renamed after `.zmetadata` was written."""
    path = base / f"stale-{lib}" / "ref_data.zarr"
    path.parent.mkdir(parents=True)
    consolidated_blosc_store(path)
    zarray = path / "data" / ".zarray"
    zarray.write_text(zarray.read_text().replace("blosc", "faultycodecname"))
    code, out, err = run("ncdump", request.getfixturevalue(lib), "-v", "data", "-L0",
                         zarr_url(path, "zarr"))
    assert code != 0, out
    assert "Variable 'data' has unsupported codec: (faultycodecname)" in err
    assert " data = 1, 2" not in out


def test_edited_attributes_win_over_stale_consolidated_metadata(ours, base):
    """An attribute edited in place (no writer rewrote `.zmetadata`) is what
    ncdump shows; with the object untouched, `.zmetadata` and the objects
    agree anyway."""
    path = base / "stale-attrs.zarr"
    consolidated_blosc_store(path)
    zattrs = path / "data" / ".zattrs"
    attrs = json.loads(zattrs.read_text()) if zattrs.exists() else {}
    attrs["units"] = "edited"
    zattrs.write_text(json.dumps(attrs))
    code, out, err = run("ncdump", ours, zarr_url(path, "zarr,file"))
    assert code == 0, err
    assert ':units = "edited" ;' in out
    assert " data = 1, 2, 3, 4 ;" in out


def test_v3_one_byte_text_is_char(ours, base):
    """A char variable written as pure Zarr v3 (one-byte
    null_terminated_bytes) reads back as char, as does zarr-python's `S1`."""
    import numpy as np
    import zarr

    cdl = base / "chars.cdl"
    cdl.write_text('netcdf chars {\ndimensions:\n  n = 4 ;\nvariables:\n  char c(n) ;\ndata:\n  c = "abc" ;\n}\n')
    ours_store = base / "chars-v3.zarr"
    ok("ncgen", ours, "-4", "-b", "-o", zarr_url(ours_store, "zarr,v3,file"), cdl, cwd=base)
    code, out, err = run("ncdump", ours, zarr_url(ours_store, "zarr,file"))
    assert code == 0, err
    assert "\tchar c(n) ;" in out and ' c = "abc" ;' in out

    zp = base / "s1-v3.zarr"
    g = zarr.open_group(str(zp), mode="w", zarr_format=3)
    a = g.create_array("s", shape=(3,), chunks=(3,), dtype="S1", dimension_names=["m"])
    a[:] = np.array([b"x", b"y", b"z"], dtype="S1")
    code, out, err = run("ncdump", ours, zarr_url(zp, "zarr,file"))
    assert code == 0, err
    assert "\tchar s(m) ;" in out and ' s = "xyz" ;' in out


def test_pure_zarr_without_a_root_group_object(ours, oracle, base):
    """Arrays straight under the root with no `.zgroup` there (netcdf-c's
    ref_power_901_constants): `mode=zarr` opens them, as netcdf-c does."""
    import zarr

    path = base / "nogroup.zarr"
    g = zarr.open_group(str(path), mode="w", zarr_format=2)
    a = g.create_array("a", shape=(3,), chunks=(3,), dtype="i2", fill_value=0, compressors=None,
                       attributes={"_ARRAY_DIMENSIONS": ["n"], "units": "m"})
    a[:] = [1, 2, 3]
    (path / ".zgroup").unlink()
    (path / ".zattrs").unlink(missing_ok=True)
    got = normalized(run("ncdump", ours, zarr_url(path, "zarr,file")))
    assert got[0] == 0, got[2]
    assert "\tshort a(n) ;" in got[1] and " a = 1, 2, 3 ;" in got[1]
    assert_same(got, normalized(run("ncdump", oracle, zarr_url(path, "zarr,file"))), "ours", "netcdf-c 4.10.1")
    # An empty directory is still no dataset.
    empty = base / "empty.zarr"
    empty.mkdir()
    assert run("ncdump", ours, zarr_url(empty, "zarr,file"))[0] != 0
