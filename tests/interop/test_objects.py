"""Zarr v2 numpy object arrays (`dtype: "|O"` with a `vlen-utf8` or
`vlen-bytes` filter), what zarr-python 2 and 3 and xarray write for string
variables, opened for writing: write_objects.c writes strings into a store
zarr-python made (whole and partial chunks, chunks never stored, empty,
non-ASCII and long strings, bytes that are not UTF-8), adds attributes and
a variable; then each array's `.zarray` is as zarr-python wrote it, and
zarr-python 2, zarr-python 3 and we read every value back. A corrupt
chunk is an error, for reads and for writes into it."""

import json
import pathlib
import subprocess

import numcodecs
import numpy as np
import pytest
import zarr
from zarr.core.dtype import VariableLengthBytes, VariableLengthUTF8

from conftest import ROOT, run

HERE = pathlib.Path(__file__).resolve().parent
ZARR2_PYTHON = ROOT / ".venv-zarr2" / "bin" / "python"
OBJECT_ARRAYS = ["s", "grid", "raw", "g/t"]
NC_ENCZARR = -137

LONG = "L" * 70000
EXPECTED = {
    "s": ["", "now set", "plain", "x" * 10, "\u00f1and\u00fa \u20ac", "\U0001f600", LONG],
    # 3x4, C order: zarr-python's a-f in rows 0-1, columns 0-2; ours a 2x2
    # slab at (1, 2); elements of the chunks we stored first that nobody
    # wrote are the fill, here null, stored as "".
    "grid": ["a", "b", "c", "", "d", "e", "p", "q", "", "", "r", "s"],
    "raw": [b"a", b"\xff", b"\xff\xfe", b"", b"tail"],
    "g/t": ["", "\u00e9"],
}


def zarr2(*args):
    """Run tests/interop/zarr2_tool.py under zarr-python 2."""
    result = subprocess.run([str(ZARR2_PYTHON), str(HERE / "zarr2_tool.py"), *map(str, args)],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return result.stdout


def obj(values):
    return np.array(values, dtype=object)


def zarr3_objects(path):
    """The store of zarr2_tool.py's `objects`, as zarr-python 3 writes it in
    format 2 (fill "" where zarr-python 2 has "0" and 0, an explicit
    dimension_separator)."""
    root = zarr.open_group(path, mode="w", zarr_format=2)
    s = root.create_array("s", shape=(7,), chunks=(3,), dtype=VariableLengthUTF8())
    s[:4] = obj(["\u03b1", "", "plain", "x" * 10])
    s.attrs["_ARRAY_DIMENSIONS"] = ["n"]
    grid = root.create_array("grid", shape=(3, 4), chunks=(2, 3), dtype=str, order="F",
                             compressors=numcodecs.Zlib(1), fill_value=None)
    grid[:2, :3] = obj([["a", "b", "c"], ["d", "e", "f"]])
    grid.attrs["_ARRAY_DIMENSIONS"] = ["y", "x"]
    raw = root.create_array("raw", shape=(5,), chunks=(2,), dtype=VariableLengthBytes(), compressors=None)
    raw[:3] = obj([b"a", b"\xff", b"c"])
    raw.attrs["_ARRAY_DIMENSIONS"] = ["m"]
    num = root.create_array("num", shape=(7,), chunks=(3,), dtype="<i4", compressors=None, fill_value=0)
    num[:] = np.arange(7, dtype="i4")
    num.attrs["_ARRAY_DIMENSIONS"] = ["n"]
    t = root.create_group("g").create_array("t", shape=(2,), chunks=(2,), dtype=str)
    t[:] = obj(["old", "old"])
    t.attrs["_ARRAY_DIMENSIONS"] = ["k"]
    zarr.consolidate_metadata(path)


def make_store(writer, path):
    if writer == "zarr2":
        zarr2("objects", path)
    else:
        zarr3_objects(path)


def zarrays(path):
    return {name: json.loads((path / name / ".zarray").read_text()) for name in OBJECT_ARRAYS}


def url(path, mode):
    return f"file://{path}#mode={mode},file"


def from_zarr2(path, names):
    """Values as zarr-python 2 reads them (bytes decoded back from hex)."""
    seen = json.loads(zarr2("values", path, *names))
    return {n: [bytes.fromhex(x["hex"]) if isinstance(x, dict) else x for x in v] for n, v in seen.items()}


def from_ours(tool, path, mode, name):
    """Values as we read them, through write_objects.c's dump."""
    lines = run(tool, "dump", url(path, mode), name).splitlines()
    raw = [b"" if line == "-" else bytes.fromhex(line) for line in lines]
    return raw if name == "raw" else [b.decode() for b in raw]


@pytest.fixture(scope="module")
def write_objects(tools):
    return tools["write_objects"]


@pytest.mark.parametrize("mode", ["zarr", "nczarr"])
@pytest.mark.parametrize("writer", ["zarr2", "zarr3"])
def test_write_into_object_arrays(write_objects, tmp_path, writer, mode):
    path = tmp_path / f"{writer}.zarr"
    make_store(writer, path)
    before = zarrays(path)
    run(write_objects, "write", url(path, mode))

    # Every object array's .zarray is as zarr-python wrote it: |O, the
    # vlen filter in its place, the compressor, the fill value, the order.
    assert zarrays(path) == before
    assert json.loads((path / "s" / ".zattrs").read_text())["units"] == "text"

    # zarr-python 2 reads every value.
    assert from_zarr2(path, OBJECT_ARRAYS) == EXPECTED
    assert from_zarr2(path, ["added"]) == {"added": [1, 2, 3, 4, 5, 6, 7]}

    # zarr-python 3 too. (It refuses zarr-python 2's fill value 0 of
    # vlen-bytes arrays, which we keep as it was: not "raw" of that store.)
    for name in OBJECT_ARRAYS:
        if writer == "zarr2" and name == "raw":
            continue
        seen = zarr.open_array(path / name, mode="r", zarr_format=2)[...].ravel().tolist()
        assert seen == EXPECTED[name], name

    # And we do, in either mode.
    for name in OBJECT_ARRAYS:
        assert from_ours(write_objects, path, mode, name) == EXPECTED[name], name

    # The rewritten store opens for writing again, still as it was.
    run(write_objects, "put", url(path, mode), "s", 2, "again")
    assert zarrays(path) == before
    assert from_zarr2(path, ["s"])["s"][:4] == ["", "now set", "again", "x" * 10]


def test_fill_zero_reads_as_empty(write_objects, tmp_path):
    # zarr-python 2's default fill of a vlen-bytes array is 0, which
    # numcodecs stores as an empty element: unwritten elements read as "",
    # and the 0 is kept.
    path = tmp_path / "zero.zarr"
    zarr2("objects", path)
    assert json.loads((path / "raw" / ".zarray").read_text())["fill_value"] == 0
    assert from_ours(write_objects, path, "zarr", "raw") == [b"a", b"\xff", b"c", b"", b""]
    run(write_objects, "put", url(path, "zarr"), "raw", 4, "end")
    assert json.loads((path / "raw" / ".zarray").read_text())["fill_value"] == 0
    assert from_zarr2(path, ["raw"])["raw"] == [b"a", b"\xff", b"c", b"", b"end"]


def corruptions():
    # "raw" chunk 0 as numcodecs' vlen-bytes stores [b"a", b"\xff"]: a u32
    # count, then per element a u32 length and the bytes.
    good = bytes.fromhex("02000000" "01000000" "61" "01000000" "ff")
    return {
        "truncated": good[:-1],
        "length past the end": good[:4] + bytes.fromhex("ffffff7f") + good[8:],
        "count too small": bytes.fromhex("01000000") + good[4:],
        "count too large": bytes.fromhex("03000000") + good[4:],
        "count huge": bytes.fromhex("ffffffff") + good[4:],
        "trailing bytes": good + b"x",
        "empty": b"",
    }


@pytest.mark.parametrize("how", list(corruptions()))
def test_a_corrupt_chunk_is_an_error(write_objects, tmp_path, how):
    path = tmp_path / "corrupt.zarr"
    zarr2("objects", path)
    chunk = path / "raw" / "0"
    bad = corruptions()[how]
    chunk.write_bytes(bad)
    # Reading it is NC_ENCZARR, never values.
    assert run(write_objects, "dump", url(path, "zarr"), "raw") == f"error {NC_ENCZARR}\n"
    # A write into part of it fails (it would rebuild the chunk from
    # garbage), and leaves it as it was.
    result = subprocess.run([str(write_objects), "put", url(path, "zarr"), "raw", "1", "x"], capture_output=True, text=True)
    assert result.returncode == 3, result.stdout + result.stderr
    assert result.stdout.startswith(f"error {NC_ENCZARR} ")
    assert chunk.read_bytes() == bad
    # The other chunks are still written to.
    run(write_objects, "put", url(path, "zarr"), "raw", 2, "ok")
    assert from_zarr2(path, ["s"])["s"][0] == "\u03b1"
