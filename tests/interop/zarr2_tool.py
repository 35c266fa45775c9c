"""Run under zarr-python 2 (the .venv-zarr2 venv) by the interop tests.

    zarr2_tool.py write PATH    write a sample store with zarr-python 2
    zarr2_tool.py read PATH     print a store's arrays and attributes as JSON
    zarr2_tool.py objects PATH  write a store of numpy object arrays (strings
                                with vlen-utf8, bytes with vlen-bytes)
    zarr2_tool.py values PATH NAME...  print the values of arrays as JSON,
                                bytes as {"hex": ...}
"""
import json
import sys

import numpy as np
import zarr


def write(path):
    root = zarr.open_group(path, mode="w")
    root.attrs.update({"title": "zarr2", "n": 7, "values": [0.5, 1.5]})
    a = root.create_dataset("temp", shape=(4, 6), chunks=(3, 4), dtype="<f4", compressor=None, fill_value=np.nan)
    a[:3, :] = np.arange(18, dtype="f4").reshape(3, 6)
    a.attrs["_ARRAY_DIMENSIONS"] = ["lat", "lon"]
    a.attrs["units"] = "K"
    b = root.create_dataset("counts", shape=(6,), chunks=(4,), dtype="|i1", compressor=None, fill_value=-1)
    b[:] = np.array([-128, -1, 0, 1, 2, 127], dtype="i1")
    b.attrs["_ARRAY_DIMENSIONS"] = ["lon"]
    f = root.create_dataset("fortran", shape=(3, 2), chunks=(2, 2), dtype=">i8", order="F", compressor=None, fill_value=0)
    f[:] = np.arange(6).reshape(3, 2)
    s = root.create_dataset("labels", shape=(2,), chunks=(2,), dtype="|S3", compressor=None, fill_value=b"")
    s[:] = [b"abc", b"d"]
    n = root.create_dataset("nested", shape=(5,), chunks=(2,), dtype="<u2", compressor=None, dimension_separator="/", fill_value=9)
    n[:3] = [1, 2, 3]
    g = root.create_group("sub")
    gv = g.create_dataset("v", shape=(2,), chunks=(1,), dtype="<f8", compressor=None, fill_value=None)
    gv[:] = [1.25, -2.5]
    zarr.consolidate_metadata(path)


def read(path):
    out = {}
    group = zarr.open_group(path, mode="r")

    def visit(prefix, g):
        out[prefix or "/"] = {"attrs": dict(g.attrs)}
        for name, arr in g.arrays():
            data = arr[...]
            out[f"{prefix}/{name}"] = {
                "dtype": arr.dtype.str,
                "shape": list(arr.shape),
                "attrs": dict(arr.attrs),
                "data": [x.decode() if isinstance(x, bytes) else x for x in data.ravel().tolist()],
            }
        for name, sub in g.groups():
            visit(f"{prefix}/{name}", sub)

    visit("", group)
    print(json.dumps(out, allow_nan=True))


def objects(path):
    """What zarr-python 2 writes for `dtype=str` (and for bytes objects):
    `|O` with a vlen filter; its defaults (Blosc, fill "0" for str and 0
    for bytes) on "s" and "raw"."""
    import numcodecs

    def obj(values):
        return np.array(values, dtype=object)

    root = zarr.open_group(path, mode="w")
    s = root.create_dataset("s", shape=(7,), chunks=(3,), dtype=str)
    s[:4] = obj(["\u03b1", "", "plain", "x" * 10])
    s.attrs["_ARRAY_DIMENSIONS"] = ["n"]
    grid = root.create_dataset("grid", shape=(3, 4), chunks=(2, 3), dtype=str, order="F",
                               compressor=numcodecs.Zlib(1), fill_value=None)
    grid[:2, :3] = obj([["a", "b", "c"], ["d", "e", "f"]])
    grid.attrs["_ARRAY_DIMENSIONS"] = ["y", "x"]
    raw = root.create_dataset("raw", shape=(5,), chunks=(2,), dtype=object, object_codec=numcodecs.VLenBytes(),
                              compressor=None)
    raw[:3] = obj([b"a", b"\xff", b"c"])
    raw.attrs["_ARRAY_DIMENSIONS"] = ["m"]
    num = root.create_dataset("num", shape=(7,), chunks=(3,), dtype="<i4", compressor=None, fill_value=0)
    num[:] = np.arange(7, dtype="i4")
    num.attrs["_ARRAY_DIMENSIONS"] = ["n"]
    t = root.create_group("g").create_dataset("t", shape=(2,), chunks=(2,), dtype=str)
    t[:] = obj(["old", "old"])
    t.attrs["_ARRAY_DIMENSIONS"] = ["k"]
    zarr.consolidate_metadata(path)


def values(path, *names):
    def plain(x):
        return {"hex": x.hex()} if isinstance(x, bytes) else x

    group = zarr.open_group(path, mode="r")
    print(json.dumps({name: [plain(x) for x in group[name][...].ravel().tolist()] for name in names}))


if __name__ == "__main__":
    {"write": write, "read": read, "objects": objects, "values": values}[sys.argv[1]](*sys.argv[2:])
