"""Zip stores and zarr-python (Zarr v2 format) both ways.

zarr-python's ZipStore reads the root-layout zips we write (and the
netcdf-c layout ones when told the top directory) with the same arrays,
values and attributes as the directory store the same writer makes.

We read ZipStore zips, plain, consolidated, deflated and rewritten in mode
"a": ZipStore appends a second entry whenever it rewrites a key (even
within one mode "w" session: .zgroup and .zattrs once attributes are set),
and the last entry is the one that counts, as for Python's zipfile."""

import collections
import zipfile

import numpy as np
import pytest
import zarr

import ziputil
from conftest import describe, dir_url, zip_url
from describe_output import data_lines, values_line
from zarr_stores import (assert_same_snapshot, open_zip, rewrite_v, snapshot, zarr_python_dir,
                         zarr_python_zip)

# ZipStore warns "Duplicate name" each time it rewrites a key.
pytestmark = pytest.mark.filterwarnings("ignore:Duplicate name:UserWarning")


# writer, mode: what zarr-python 3 can read (it rejects NCZarr's ">S1"
# char type, see tests/interop/test_zarr.py, so char data only in Zarr mode).
READABLE = [("write_data", "zarr"), ("write_filtered", "zarr"), ("write_numeric", "nczarr"),
            ("write_plain", "zarr"), ("write_numeric", "xarray")]


@pytest.mark.parametrize("writer,mode", READABLE)
def test_zarr_python_reads_our_root_layout(written, writer, mode):
    expected = snapshot(zarr.open_group(written(writer, mode, "dir"), mode="r", zarr_format=2))
    got = snapshot(open_zip(written(writer, mode, "root")))
    assert_same_snapshot(got, expected)


def test_zarr_python_reads_our_values(written):
    g = open_zip(written("write_data", "zarr", "root"))
    grid = np.full((5, 7), -1.0, dtype=np.float32)
    grid[1:5, 2:7] = (0.5 * np.arange(20, dtype=np.float32)).reshape(4, 5)
    np.testing.assert_array_equal(g["grid"][:], grid)
    assert g["grid"].attrs["_ARRAY_DIMENSIONS"] == ["y", "x"]
    assert list(g["strs"][:]) == [b"short", b"", b"a rather longer string"]
    np.testing.assert_array_equal(g["be"][:], [1, -2, 3, 65536, 5, 6, 2147483647])
    assert g["g/inner"][-1] == 65535
    g = open_zip(written("write_filtered", "zarr", "root"))
    expected = ((np.arange(600) % 37) * 0.5 - 3.0).astype("f4").reshape(20, 30)
    for name in ["deflate", "shuffle_deflate", "zstd", "bz2", "fletcher32", "lz4", "chain", "blosc",
                 "blosc_bits", "blosclz"]:
        np.testing.assert_array_equal(g[name][:], expected, err_msg=name)


@pytest.mark.parametrize("writer,mode", [("write_data", "zarr"), ("write_numeric", "nczarr")])
def test_zarr_python_reads_our_default_layout_below_top(written, writer, mode):
    expected = snapshot(zarr.open_group(written(writer, mode, "dir"), mode="r", zarr_format=2))
    assert_same_snapshot(snapshot(open_zip(written(writer, mode, "default"), below="d")), expected)


EXPECTED_LINES = [
    '  att title char 16 "from zarr-python"',
    "  att n int 1 [3]",
    "  var v int (x) chunks=(2) nofill=0 fill=[-1] endian=little",
    "    data [0, 1, 2, 3]",
    "  var temp double (y, x) chunks=(2, 3) nofill=0 fill=[-9.5] endian=little",
    '    att units char 1 "K"',
    "    data [0, 1.5, 3, 4.5, 6, 7.5, 9, 10.5, -9.5, -9.5, -9.5, -9.5]",
    "group /sub",
    "  att level int 1 [2]",
    "    data [5, 4, 3, 2, 65535]",
]


@pytest.mark.parametrize("consolidated", [False, True], ids=["plain", "consolidated"])
@pytest.mark.parametrize("compression", [zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED], ids=["stored", "deflated"])
def test_we_read_zarr_python_zips(progs, tmp_path, consolidated, compression):
    archive = zarr_python_zip(tmp_path / "zp.zip", consolidated, compression)
    directory = zarr_python_dir(tmp_path / "zp.dir", consolidated)
    counts = collections.Counter(ziputil.names(archive))
    # What makes this case: ZipStore wrote some keys twice, the first
    # .zattrs without the attributes.
    assert counts[".zattrs"] >= 2 and counts[".zgroup"] >= 2
    assert ((".zmetadata" in counts) == consolidated)
    if compression == zipfile.ZIP_DEFLATED:
        assert any(i.compress_type == zipfile.ZIP_DEFLATED for i in ziputil.infos(archive))
    got = describe(progs, zip_url(archive, "zarr"))
    assert got == describe(progs, dir_url(directory, "zarr"))
    lines = set(got.splitlines())
    assert [line for line in EXPECTED_LINES if line not in lines] == []
    # Each variable's data line is its own values, as zarr-python reads
    # them from the same zip.
    theirs = open_zip(archive)
    assert data_lines(got) == {name: values_line(theirs[name][...]) for name in ("v", "temp", "sub/inner")}






@pytest.mark.parametrize("consolidated", [False, True], ids=["plain", "consolidated"])
def test_last_entry_wins(progs, tmp_path, consolidated):
    """A chunk rewritten in mode "a": two entries named v/0, the later one
    holds [7, 7]; zarr-python and we read [7, 7, 2, 3]."""
    archive = zarr_python_zip(tmp_path / "zp.zip", consolidated)
    rewrite_v(archive)
    assert collections.Counter(ziputil.names(archive))["v/0"] == 2
    assert list(open_zip(archive)["v"][:]) == [7, 7, 2, 3]
    text = describe(progs, zip_url(archive, "zarr"))
    assert "  var v int (x) chunks=(2) nofill=0 fill=[-1] endian=little\n" in text
    assert "    data [7, 7, 2, 3]\n" in text
    assert '  att title char 16 "from zarr-python"\n' in text
