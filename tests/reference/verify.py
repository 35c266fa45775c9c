"""Check a reference file (JSON, or a Parquet directory) with fsspec's ReferenceFileSystem and zarr-python:
every array it holds has the values netcdf-c reads from the original files
(expected.py), and it holds every variable of the source but those the tool
is known to leave out. This proves the corpus right before our library is
asked to read it."""

import functools
import json
import os

import fsspec
from fsspec.implementations.reference import LazyReferenceMapper
import numpy as np
import zarr
from zarr.storage import FsspecStore

from expected import DEFAULT_FILL, expected_arrays


class Pandas3LazyReferenceMapper(LazyReferenceMapper):
    """fsspec 2026.9.0's reader of Parquet references, under pandas 3: a
    null path reads as NaN (pandas 3's str dtype has NaN for missing), and
    so does a raw column that is all null (pyarrow writes Arrow's null type,
    read as float64), where fsspec tests `is None` (a NaN raw is returned
    as the chunk, a NaN path is taken for a URL). Those NaNs are made None;
    everything else is fsspec's: the ravel of the chunk index, the record
    and row, the [url] / [url, offset, size] / raw choice."""

    def setup(self):
        super().setup()
        load = self.open_refs

        @functools.lru_cache(maxsize=self.cache_size)
        def open_refs(field, record):
            refs = load(field, record)
            if refs:
                for c in ("path", "raw"):
                    if c in refs:
                        refs[c] = np.array([None if isinstance(v, float) and np.isnan(v) else v for v in refs[c]],
                                           dtype=object)
            return refs

        self.open_refs = open_refs


def open_reference(path, remote_protocol=None, remote_options=None):
    """{array path: zarr.Array} of a reference file, through fsspec."""
    if remote_options:
        # a fresh s3fs, not one bound to another event loop
        remote_options = {**remote_options, "skip_instance_cache": True, "asynchronous": True}
    fo = str(path)
    if os.path.isdir(path):
        fo = Pandas3LazyReferenceMapper(fo, fs=fsspec.filesystem("file"))
        # fsspec would look for a protocol in every reference (and fail on
        # a group below the root, taken for an array): the targets' is known.
        remote_protocol = remote_protocol or "file"
    fs = fsspec.filesystem("reference", fo=fo, remote_protocol=remote_protocol,
                           remote_options=remote_options or {}, asynchronous=True,
                           skip_instance_cache=True,
                           # jinja templates and gen (off by default)
                           simple_templates=False)
    store = FsspecStore(fs, read_only=True, path="")
    # The arrays are found from the keys: zarr-python's listing of
    # subgroups through ReferenceFileSystem finds none below the first level.
    if os.path.isdir(path):
        # Parquet (fsspec's LazyReferenceMapper): the metadata keys are
        # in .zmetadata.
        assert fs.references is fo
        with open(os.path.join(path, ".zmetadata")) as f:
            keys = list(json.load(f)["metadata"])
    else:
        with open(path) as f:
            doc = json.load(f)
        keys = doc["refs"] if "refs" in doc else doc
        keys = list(keys) + [g["key"] for g in doc.get("gen", [])]
    paths = sorted(k[: -len("/.zarray")] for k in keys if k.endswith("/.zarray"))
    return {p: zarr.open_array(store, path=p, mode="r", zarr_format=2) for p in paths}


def compare(path, got, expected, fill_value):
    """Equal bit for bit (NaN too). One allowance: an array whose Zarr
    fill_value is null reads as 0 in zarr-python where a chunk is absent,
    where netcdf-c reads its default fill value."""
    got = np.asarray(got)
    if got.dtype.byteorder == ">":
        got = got.astype(got.dtype.newbyteorder("="))
    assert got.shape == expected.shape, (path, got.shape, expected.shape)
    assert got.dtype == expected.dtype, (path, got.dtype, expected.dtype)
    if got.tobytes() == expected.tobytes():
        return
    if fill_value is None:
        key = expected.dtype.str[1:]
        absent = (expected == expected.dtype.type(DEFAULT_FILL[key])) & (got == 0)
        same = (got == expected) | (np.isnan(got) & np.isnan(expected) if expected.dtype.kind == "f" else False)
        if np.all(same | absent):
            return
    bad = np.argwhere(got != expected)[:5]
    raise AssertionError(f"{path}: values differ at {bad.tolist()}")


def verify(ref_path, ref, files_dir, remote_protocol=None, remote_options=None):
    """Returns the paths of the arrays checked."""
    found = open_reference(ref_path, remote_protocol, remote_options)
    expected = expected_arrays(files_dir, ref)
    wanted = set(expected) - set(ref.missing)
    assert wanted <= set(found), (ref.name, "missing", sorted(wanted - set(found)))
    assert set(found) <= set(expected), (ref.name, "extra", sorted(set(found) - set(expected)))
    for path in sorted(wanted):
        arr = found[path]
        compare(path, arr[...], expected[path], arr.metadata.fill_value)
    return sorted(wanted)
