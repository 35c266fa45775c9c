"""Run under zarr-python 2 (the .venv-zarr2 venv) by the interop tests.

    zarr2_tool.py write PATH    write a sample store with zarr-python 2
    zarr2_tool.py read PATH     print a store's arrays and attributes as JSON
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


if __name__ == "__main__":
    {"write": write, "read": read}[sys.argv[1]](sys.argv[2])
