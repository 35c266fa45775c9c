"""Zarr v2 stores made with zarr-python for the zip tests, and a way to
compare what zarr-python sees in two stores."""

import zipfile

import numcodecs
import numpy as np
import zarr
from zarr.storage import LocalStore, ZipStore


def snapshot(group):
    """path -> description of every group and array below a zarr group."""
    out = {}

    def walk(g, path):
        out[path or "/"] = ("group", sorted(g.attrs.asdict().items()))
        for name, a in sorted(g.arrays()):
            out[f"{path}/{name}"] = ("array", a.dtype.str, a.shape, a.chunks, repr(a.fill_value),
                                     sorted(a.attrs.asdict().items()), a[...])
        for name, sub in sorted(g.groups()):
            walk(sub, f"{path}/{name}")
    walk(group, "")
    return out


def assert_same_snapshot(got, expected):
    assert sorted(got) == sorted(expected)
    for path, want in expected.items():
        have = got[path]
        if want[0] == "group":
            assert have == want, path
        else:
            # Everything but the values, then the values (NaN equal to NaN).
            assert have[:-1] == want[:-1], path
            np.testing.assert_array_equal(have[-1], want[-1], err_msg=path)


def open_zip(archive, below=None):
    """zarr-python's view of a zip, of the group at its root or below a
    top directory."""
    return zarr.open_group(ZipStore(archive, mode="r"), path=below, mode="r", zarr_format=2)


def populate(root):
    """The same group, whichever store: attributes set after creation (so
    ZipStore rewrites .zattrs), compressed and plain chunks, a partly
    written array, a subgroup."""
    root.attrs["title"] = "from zarr-python"
    root.attrs["n"] = 3
    v = root.create_array("v", shape=(4,), chunks=(2,), dtype="<i4", compressors=None, fill_value=-1)
    v.attrs["_ARRAY_DIMENSIONS"] = ["x"]
    v[:] = [0, 1, 2, 3]
    t = root.create_array("temp", shape=(3, 4), chunks=(2, 3), dtype="<f8", fill_value=-9.5,
                          compressors=numcodecs.Zlib(level=1))
    t.attrs["_ARRAY_DIMENSIONS"] = ["y", "x"]
    t.attrs["units"] = "K"
    t[:2] = np.arange(8, dtype="f8").reshape(2, 4) * 1.5
    sub = root.create_group("sub")
    sub.attrs["level"] = 2
    inner = sub.create_array("inner", shape=(5,), chunks=(5,), dtype="<u2", fill_value=0)  # Blosc
    inner.attrs["_ARRAY_DIMENSIONS"] = ["z"]
    inner[:] = [5, 4, 3, 2, 65535]


def zarr_python_zip(path, consolidated=False, compression=zipfile.ZIP_STORED):
    store = ZipStore(path, mode="w", compression=compression)
    populate(zarr.open_group(store, mode="w", zarr_format=2))
    if consolidated:
        zarr.consolidate_metadata(store)
    store.close()
    return path


def zarr_python_dir(path, consolidated=False):
    store = LocalStore(path)
    populate(zarr.open_group(store, mode="w", zarr_format=2))
    if consolidated:
        zarr.consolidate_metadata(store)
    return path


def rewrite_v(store_or_path, values=(7, 7)):
    """Rewrite v[0:2] in place: through a ZipStore opened in mode "a",
    which appends a second v/0 entry, or in a directory store."""
    store = ZipStore(store_or_path, mode="a") if str(store_or_path).endswith(".zip") else LocalStore(store_or_path)
    v = zarr.open_array(store, path="v", mode="r+", zarr_format=2)
    v[0:2] = list(values)
    store.close()
