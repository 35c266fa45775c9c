"""Zarr stores written by zarr-python 3.1.6 and xarray, one per feature,
for the v3 reading tests (test_read_v3.py).

Each writer `feature(path, zarr_format)` makes a new store at `path` and
returns a description: {"feature", "zarr_format", "wrote": [one line per
array or hand edit]}. The expected netCDF view is not written down here:
expected.py derives it from the store itself (metadata JSON and
zarr-python's decoding), so these writers only have to make the stores.

`zarr_format=3` is the subject; writers listed in V2_WRITERS also take
`zarr_format=2`, writing the nearest v2 equivalent (`_ARRAY_DIMENSIONS`
for dimension_names, numcodecs compressors for v3 codecs, ...), so the
comparison harness can be checked today against our v2 reader.

The CORRUPTORS damage a store written by `corruptible(path)` in place and
return the path of the one variable whose data must then be an error.
"""

import json
import os
import pathlib
import shutil
import warnings

import google_crc32c
import numcodecs
import numpy as np
import pandas as pd
import xarray as xr
import zarr
import zarr.codecs as zc
from zarr.core.dtype import VariableLengthBytes

# zarr-python warns about every numcodecs.* codec, every registry data type
# ("not part of the Zarr v3 spec") and consolidated metadata; the warnings
# say nothing about the stores, so they are silenced while writing.
QUIET = "ignore"

CORE_DTYPES = ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
               "float16", "float32", "float64"]


def _sample(dtype, n):
    """`n` values of `dtype` including its extremes (ints) or awkward
    floats (subnormal, -0.0, the largest finite value)."""
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return np.arange(n) % 3 == 0
    if dt.kind in "iu":
        info = np.iinfo(dt)
        base = np.arange(n, dtype=np.int64) * 7 - 20
        vals = np.clip(base, info.min, info.max).astype(dt)
        vals[0], vals[-1] = info.min, info.max
        return vals
    info = np.finfo(dt)
    vals = (np.arange(n) * 0.25 - 1.5).astype(dt)
    vals[0], vals[1], vals[2] = info.max, info.smallest_subnormal, -0.0
    vals[-1] = info.min
    return vals


def _array(group, name, data=None, *, fmt, dims=None, **kwargs):
    """Create one array (and write `data`, if given). `dims` become
    dimension_names (v3) or the `_ARRAY_DIMENSIONS` attribute (v2)."""
    shape = kwargs.pop("shape", None)
    if shape is None:
        shape = np.shape(data)
    if "dtype" not in kwargs:
        kwargs["dtype"] = data.dtype
    if dims is not None and fmt == 3:
        kwargs["dimension_names"] = dims
    a = group.create_array(name, shape=shape, **kwargs)
    if dims is not None and fmt == 2:
        a.attrs["_ARRAY_DIMENSIONS"] = list(dims)
    if data is not None:
        a[...] = data
    return a


def _new_root(path, fmt, **attrs):
    path = pathlib.Path(path)
    if path.exists():
        shutil.rmtree(path)
    root = zarr.open_group(path, mode="w", zarr_format=fmt)
    if attrs:
        root.attrs.update(attrs)
    return root


def _edit_json(path, edit):
    """Rewrite one metadata document (zarr.json, .zarray) through `edit`,
    keeping zarr-python's bare NaN/Infinity tokens."""
    path = pathlib.Path(path)
    doc = json.loads(path.read_text())
    edit(doc)
    path.write_text(json.dumps(doc, indent=2))


def _done(feature, fmt, wrote):
    return {"feature": feature, "zarr_format": fmt, "wrote": wrote}


# Attribute values of every JSON kind zarr-python writes. NaN and the
# infinities are written as bare tokens (json allow_nan).
ATTRIBUTES = {
    "int": 7,
    "negative": -5,
    "int64_max": 2**63 - 1,
    "int64_min": -(2**63),
    "uint32_big": 3_000_000_000,
    "uint64_max": 2**64 - 1,
    "float": 2.5,
    "float_int_valued": 3.0,
    "nan": float("nan"),
    "inf": float("inf"),
    "ninf": float("-inf"),
    "true": True,
    "false": False,
    "text": "hello",
    "unicode": "h\u00e9llo \u65e5\u672c \U0001f600",
    "empty_text": "",
    "ints": [1, 2, 3],
    "floats": [0.5, -1.25],
    "bools": [True, False],
    "float_list_with_nan": [float("nan"), 1.5],
    "strings": ["a", "b"],
    "mixed": [1, "a"],
    "empty_list": [],
    "nested": {"a": {"b": [1, 2]}, "c": "d"},
    "null": None,
}


def defaults(path, zarr_format=3):
    """zarr-python's defaults: nested groups, every core dtype, 0-d, 1-d and
    3-d shapes with partial edge chunks, the default compressor (zstd in
    v3, blosc in v2), attributes of every JSON kind."""
    fmt = zarr_format
    wrote = []
    with warnings.catch_warnings():
        warnings.simplefilter(QUIET)
        root = _new_root(path, fmt, **ATTRIBUTES)
        for dt in CORE_DTYPES:
            _array(root, f"t_{dt}", _sample(dt, 20).reshape(5, 4), chunks=(2, 3), dims=("y", "x"), fmt=fmt)
            wrote.append(f"/t_{dt}: {dt} (5, 4) chunks (2, 3), dims y, x")
        _array(root, "scalar", np.float64(-273.15), fmt=fmt)
        _array(root, "scalar_int", np.int32(42), fmt=fmt)
        wrote.append("/scalar, /scalar_int: 0-d float64 and int32")
        _array(root, "empty", shape=(0,), dtype="int32", chunks=(4,), dims=("nothing",), fmt=fmt)
        wrote.append("/empty: int32 shape (0,)")
        cube = (np.arange(3 * 5 * 7, dtype="int32") - 50).reshape(3, 5, 7)
        a = _array(root, "cube", cube, chunks=(2, 2, 3), dims=("z", "y2", "x2"), fmt=fmt)
        a.attrs.update(ATTRIBUTES)
        wrote.append("/cube: int32 (3, 5, 7) chunks (2, 2, 3), every attribute kind")
        g1 = root.create_group("g1", attributes={"level": 1, "name": "g1"})
        _array(g1, "v", np.linspace(0, 1, 4, dtype="float32"), chunks=(3,), dims=("x",), fmt=fmt)
        wrote.append("/g1/v: float32 (4,), dim x shared with /t_* (length 4)")
        g2 = g1.create_group("g2", attributes={"level": 2})
        _array(g2, "deep", np.arange(6, dtype="int16"), chunks=(4,), dims=("x",), fmt=fmt)
        wrote.append("/g1/g2/deep: int16 (6,), dim x of another length (defined in g2)")
        _array(g2, "deep_u8", np.arange(4, dtype="uint8"), dims=("x",), fmt=fmt)
        wrote.append("/g1/g2/deep_u8: uint8 (4,), dim x: the g2 one is 6 long")
        root.create_group("empty_group")
        wrote.append("/empty_group: a group with no members")
    return _done("defaults", fmt, wrote)


def dimension_names(path, zarr_format=3):
    """dimension_names present, absent, with null entries; shared names of
    equal length; names whose lengths conflict (in the same group and
    between a group and its child). v3 also: a `_ARRAY_DIMENSIONS`
    attribute and no dimension_names (what `zarr migrate v3` leaves)."""
    fmt = zarr_format
    wrote = []
    with warnings.catch_warnings():
        warnings.simplefilter(QUIET)
        root = _new_root(path, fmt)
        _array(root, "a_named", np.arange(12, dtype="i4").reshape(3, 4), dims=("row", "col"), fmt=fmt)
        _array(root, "b_shares", np.arange(4, dtype="f4"), dims=("col",), fmt=fmt)
        wrote.append("/a_named (row=3, col=4), /b_shares (col=4): one dimension col")
        _array(root, "c_unnamed", np.arange(6, dtype="i2").reshape(2, 3), fmt=fmt)
        wrote.append("/c_unnamed: no names: _Anonymous_Dim_2, _Anonymous_Dim_3")
        _array(root, "d_conflict", np.arange(5, dtype="u1"), dims=("col",), fmt=fmt)
        wrote.append("/d_conflict: col of length 5 after col=4 in the same group")
        if fmt == 3:
            _array(root, "e_partly", np.arange(6, dtype="i8").reshape(3, 2), dims=("row", None), fmt=fmt)
            wrote.append("/e_partly: dimension_names [row, null]")
            _array(root, "f_all_null", np.arange(2, dtype="i8"), dims=(None,), fmt=fmt)
            wrote.append("/f_all_null: dimension_names [null]")
            m = _array(root, "g_migrated", np.arange(3, dtype="i4"), fmt=fmt)
            m.attrs["_ARRAY_DIMENSIONS"] = ["row"]
            wrote.append("/g_migrated: no dimension_names, _ARRAY_DIMENSIONS [row] (zarr migrate v3)")
        sub = root.create_group("sub")
        _array(sub, "inherits", np.arange(3, dtype="f8"), dims=("row",), fmt=fmt)
        wrote.append("/sub/inherits: row=3 found in the root")
        _array(sub, "shadows", np.arange(7, dtype="f8"), dims=("row",), fmt=fmt)
        wrote.append("/sub/shadows: row=7: a new row in /sub")
        _array(sub, "scalar", np.float32(1.5), fmt=fmt)
        wrote.append("/sub/scalar: 0-d")
    return _done("dimension_names", fmt, wrote)


CODEC_DATA = ((np.arange(60) % 37) * 0.5 - 3.0).astype("<f4").reshape(6, 10)


def _v3_codec_cases():
    nc = zc  # zarr.codecs also exports the numcodecs.* wrappers (Shuffle, Zlib, ...)
    bl = zc.BloscCodec
    return {
        "raw": dict(compressors=None),
        "gzip": dict(compressors=zc.GzipCodec(level=5)),
        "zstd_checksum": dict(compressors=zc.ZstdCodec(level=3, checksum=True)),
        "zstd_negative": dict(compressors=zc.ZstdCodec(level=-3)),
        "blosc_lz4_noshuffle": dict(compressors=bl(cname="lz4", clevel=5, shuffle="noshuffle")),
        "blosc_lz4_shuffle": dict(compressors=bl(cname="lz4", clevel=5, shuffle="shuffle")),
        "blosc_lz4_bitshuffle": dict(compressors=bl(cname="lz4", clevel=5, shuffle="bitshuffle")),
        "blosc_zstd_noshuffle": dict(compressors=bl(cname="zstd", clevel=3, shuffle="noshuffle")),
        "blosc_zstd_shuffle": dict(compressors=bl(cname="zstd", clevel=3, shuffle="shuffle")),
        "blosc_zstd_bitshuffle": dict(compressors=bl(cname="zstd", clevel=3, shuffle="bitshuffle")),
        "blosc_blosclz": dict(compressors=bl(cname="blosclz", clevel=9, shuffle="shuffle")),
        "blosc_lz4hc": dict(compressors=bl(cname="lz4hc", clevel=5, shuffle="shuffle")),
        "blosc_zlib": dict(compressors=bl(cname="zlib", clevel=1, shuffle="shuffle")),
        "blosc_default": dict(compressors=bl()),
        "crc32c": dict(compressors=zc.Crc32cCodec()),
        "zstd_crc32c": dict(compressors=[zc.ZstdCodec(level=1), zc.Crc32cCodec()]),
        "big_endian": dict(serializer=zc.BytesCodec(endian="big"), compressors=None),
        "big_endian_gzip": dict(serializer=zc.BytesCodec(endian="big"), compressors=zc.GzipCodec()),
        "transpose": dict(filters=[zc.TransposeCodec(order=(1, 0))], compressors=None),
        "transpose_zstd": dict(filters=[zc.TransposeCodec(order=(1, 0))]),
        "chain": dict(filters=[zc.TransposeCodec(order=(1, 0))], serializer=zc.BytesCodec(endian="big"),
                      compressors=[nc.Shuffle(elementsize=4), zc.ZstdCodec(level=2), zc.Crc32cCodec()]),
        # numcodecs.* names. Those our v2 reader decodes today:
        "nc_shuffle_zlib": dict(compressors=[nc.Shuffle(elementsize=4), nc.Zlib(level=1)]),
        "nc_zlib": dict(compressors=nc.Zlib(level=1)),
        "nc_gzip": dict(compressors=nc.GZip(level=5)),
        "nc_bz2": dict(compressors=nc.BZ2(level=9)),
        "nc_zstd": dict(compressors=nc.Zstd(level=3)),
        "nc_lz4": dict(compressors=nc.LZ4()),
        "nc_blosc": dict(compressors=nc.Blosc(cname="zstd", clevel=3, shuffle=2)),
        "nc_fletcher32": dict(compressors=nc.Fletcher32()),
        # ... and those it does not (values or NC_ENOFILTER: expected.py).
        "nc_delta": dict(filters=[nc.Delta(dtype="<f4")]),
        "nc_fixedscaleoffset": dict(filters=[nc.FixedScaleOffset(offset=-3, scale=2, dtype="<f4", astype="<i2")]),
        "nc_quantize": dict(filters=[nc.Quantize(digits=2, dtype="<f4")]),
        "nc_bitround": dict(filters=[nc.BitRound(keepbits=8)]),
        "nc_astype": dict(filters=[nc.AsType(encode_dtype="<f8", decode_dtype="<f4")]),
        "nc_adler32": dict(compressors=nc.Adler32()),
        "nc_crc32": dict(compressors=nc.CRC32()),
        "nc_crc32c": dict(compressors=nc.CRC32C()),
        "nc_jenkins_lookup3": dict(compressors=nc.JenkinsLookup3()),
        "nc_lzma": dict(compressors=nc.LZMA()),
    }


def _v2_codec_cases():
    nc = numcodecs
    return {
        "raw": dict(compressors=None),
        "gzip": dict(compressors=nc.GZip(level=5)),
        "zstd": dict(compressors=nc.Zstd(level=3)),
        "zstd_checksum": dict(compressors=nc.Zstd(level=3, checksum=True)),
        "blosc_lz4_noshuffle": dict(compressors=nc.Blosc(cname="lz4", clevel=5, shuffle=nc.Blosc.NOSHUFFLE)),
        "blosc_lz4_shuffle": dict(compressors=nc.Blosc(cname="lz4", clevel=5, shuffle=nc.Blosc.SHUFFLE)),
        "blosc_lz4_bitshuffle": dict(compressors=nc.Blosc(cname="lz4", clevel=5, shuffle=nc.Blosc.BITSHUFFLE)),
        "blosc_zstd_noshuffle": dict(compressors=nc.Blosc(cname="zstd", clevel=3, shuffle=nc.Blosc.NOSHUFFLE)),
        "blosc_zstd_shuffle": dict(compressors=nc.Blosc(cname="zstd", clevel=3, shuffle=nc.Blosc.SHUFFLE)),
        "blosc_zstd_bitshuffle": dict(compressors=nc.Blosc(cname="zstd", clevel=3, shuffle=nc.Blosc.BITSHUFFLE)),
        "blosc_blosclz": dict(compressors=nc.Blosc(cname="blosclz", clevel=9, shuffle=nc.Blosc.SHUFFLE)),
        "blosc_lz4hc": dict(compressors=nc.Blosc(cname="lz4hc", clevel=5, shuffle=nc.Blosc.SHUFFLE)),
        "blosc_zlib": dict(compressors=nc.Blosc(cname="zlib", clevel=1, shuffle=nc.Blosc.SHUFFLE)),
        "blosc_default": dict(),
        "crc32c": dict(compressors=nc.CRC32C()),
        "big_endian": dict(dtype=">f4", compressors=None),
        "big_endian_gzip": dict(dtype=">f4", compressors=nc.GZip()),
        "transpose": dict(order="F", compressors=None),
        "transpose_zstd": dict(order="F", compressors=nc.Zstd()),
        "nc_shuffle_zlib": dict(filters=[nc.Shuffle(elementsize=4)], compressors=nc.Zlib(level=1)),
        "nc_zlib": dict(compressors=nc.Zlib(level=1)),
        "nc_bz2": dict(compressors=nc.BZ2(level=9)),
        "nc_lz4": dict(compressors=nc.LZ4()),
        "nc_fletcher32": dict(filters=[nc.Fletcher32()], compressors=None),
        "nc_delta": dict(filters=[nc.Delta(dtype="<f4")]),
        "nc_fixedscaleoffset": dict(filters=[nc.FixedScaleOffset(offset=-3, scale=2, dtype="<f4", astype="<i2")]),
        "nc_quantize": dict(filters=[nc.Quantize(digits=2, dtype="<f4")]),
        "nc_bitround": dict(filters=[nc.BitRound(keepbits=8)]),
        "nc_astype": dict(filters=[nc.AsType(encode_dtype="<f8", decode_dtype="<f4")]),
        "nc_adler32": dict(compressors=nc.Adler32()),
        "nc_crc32": dict(compressors=nc.CRC32()),
        "nc_jenkins_lookup3": dict(compressors=nc.JenkinsLookup3()),
        "nc_lzma": dict(compressors=nc.LZMA()),
    }


def codecs(path, zarr_format=3):
    """Every codec zarr-python 3.1.6 + numcodecs 0.16.6 writes, on the same
    float32 (6, 10) data in (4, 4) chunks (partial edges); plus bool with
    numcodecs.packbits and int32 with a transposed 3-d chunk."""
    fmt = zarr_format
    wrote = []
    with warnings.catch_warnings():
        warnings.simplefilter(QUIET)
        root = _new_root(path, fmt)
        cases = _v3_codec_cases() if fmt == 3 else _v2_codec_cases()
        for name, kwargs in cases.items():
            kwargs = dict(kwargs)
            dtype = kwargs.pop("dtype", "<f4")
            _array(root, name, CODEC_DATA.astype(dtype), dtype=dtype, chunks=(4, 4), dims=("y", "x"), fmt=fmt,
                   **kwargs)
            wrote.append(f"/{name}: {kwargs}")
        cube = np.arange(2 * 3 * 4, dtype="<i4").reshape(2, 3, 4)
        if fmt == 3:
            _array(root, "transpose_3d", cube, chunks=(2, 2, 3), dims=("a", "b", "c"), fmt=fmt,
                   filters=[zc.TransposeCodec(order=(2, 0, 1))])
            _array(root, "nc_packbits", np.arange(13) % 3 == 0, chunks=(5,), dims=("n",), fmt=fmt,
                   filters=[zc.PackBits()])
            # zarr-python writes bare {"name": "bytes"} for 1-byte types; the
            # spec also allows an endian there.
            _array(root, "u1_endian_big", np.arange(13, dtype="u1"), chunks=(5,), dims=("n",), fmt=fmt)
            _edit_json(pathlib.Path(path) / "u1_endian_big" / "zarr.json",
                       lambda d: d["codecs"][0].__setitem__("configuration", {"endian": "big"}))
        else:
            _array(root, "transpose_3d", cube, chunks=(2, 2, 3), dims=("a", "b", "c"), fmt=fmt, order="F")
            _array(root, "nc_packbits", np.arange(13) % 3 == 0, chunks=(5,), dims=("n",), fmt=fmt,
                   filters=[numcodecs.PackBits()])
        wrote.append("/transpose_3d: int32 (2, 3, 4); /nc_packbits: bool; v3 /u1_endian_big: hand edit, "
                     'bytes {"endian": "big"} on uint8')
    return _done("codecs", fmt, wrote)


def chunk_key_encodings(path, zarr_format=3):
    """v3: default "/" and "." and v2 "." and "/" (2-d and 0-d each); v2:
    dimension_separator "." and "/"."""
    fmt = zarr_format
    wrote = []
    encodings = {
        3: {"default_slash": {"name": "default", "separator": "/"},
            "default_dot": {"name": "default", "separator": "."},
            "v2_dot": {"name": "v2", "separator": "."},
            "v2_slash": {"name": "v2", "separator": "/"}},
        2: {"v2_dot": {"name": "v2", "separator": "."},
            "v2_slash": {"name": "v2", "separator": "/"}},
    }[fmt]
    with warnings.catch_warnings():
        warnings.simplefilter(QUIET)
        root = _new_root(path, fmt)
        for name, cke in encodings.items():
            data = np.arange(4 * 6, dtype="<i2").reshape(4, 6) - 10
            a = _array(root, name, None, shape=(4, 6), dtype="<i2", chunks=(2, 3), dims=("y", "x"), fmt=fmt,
                       chunk_key_encoding=cke, fill_value=-1)
            a[:3] = data[:3]  # the last row of chunks is partly fill
            a[3, :3] = data[3, :3]  # ... and chunk (1, 1) holds one fill row
            _array(root, f"{name}_0d", np.int16(99), fmt=fmt, chunk_key_encoding=cke)
            wrote.append(f"/{name}, /{name}_0d: {cke}")
        if fmt == 3:
            # {"name": "default"} with no configuration: separator "/".
            _array(root, "default_bare", np.arange(4, dtype="u2"), chunks=(2,), dims=("n",), fmt=fmt)
            _edit_json(pathlib.Path(path) / "default_bare" / "zarr.json",
                       lambda d: d.__setitem__("chunk_key_encoding", {"name": "default"}))
            wrote.append('/default_bare: hand edit: chunk_key_encoding {"name": "default"}')
    return _done("chunk_key_encodings", fmt, wrote)


def sharding(path, zarr_format=3):
    """sharding_indexed: index at the end and at the start, inner
    compressors, shards with empty inner chunks, shards missing, inner
    chunks and shards past the array's edge, 2-d, strings, nested
    sharding, an index without crc32c."""
    assert zarr_format == 3
    wrote = []
    with warnings.catch_warnings():
        warnings.simplefilter(QUIET)
        root = _new_root(path, 3)
        a = _array(root, "end_partial", None, shape=(10,), dtype="<i4", chunks=(2,), shards=(4,), fill_value=-1,
                   dims=("n10",), fmt=3)
        a[0:2] = [1, 2]
        a[8:10] = [9, 10]
        wrote.append("/end_partial: (10,) shards 4, inner 2: shard 0 half empty, shard 1 missing, shard 2 past edge")
        _array(root, "start_gzip", np.arange(10, dtype="<i4") * 3, dims=("n10",), fmt=3, chunks=(4,),
               compressors=None,
               serializer=zc.ShardingCodec(chunk_shape=(2,), codecs=[zc.BytesCodec(), zc.GzipCodec(level=3)],
                                           index_location="start"))
        wrote.append("/start_gzip: index at the start, gzip inside")
        b = _array(root, "start_partial", None, shape=(10,), dtype="<u2", fmt=3, chunks=(4,), fill_value=7,
                   dims=("n10",), compressors=None,
                   serializer=zc.ShardingCodec(chunk_shape=(2,), codecs=[zc.BytesCodec()], index_location="start"))
        b[2:4] = [100, 200]
        wrote.append("/start_partial: index at the start, only inner chunk 1 of shard 0 written")
        c = _array(root, "grid", None, shape=(5, 7), dtype="<f8", chunks=(2, 2), shards=(4, 4), fill_value=float("nan"),
                   compressors=zc.BloscCodec(cname="lz4", shuffle="bitshuffle"), dims=("y", "x"), fmt=3)
        c[:3, :5] = np.arange(15, dtype="f8").reshape(3, 5) / 4
        wrote.append("/grid: (5, 7) shards (4, 4) inner (2, 2), blosc inside, partly written")
        _array(root, "big_endian", np.arange(8, dtype=">i8") - 4, dims=("n8",), fmt=3, chunks=(8,),
               compressors=None,
               serializer=zc.ShardingCodec(chunk_shape=(4,), codecs=[zc.BytesCodec(endian="big"),
                                                                    zc.ZstdCodec(checksum=True)],
                                           index_codecs=[zc.BytesCodec(), zc.Crc32cCodec()]))
        wrote.append("/big_endian: big-endian bytes and zstd with checksum inside")
        _array(root, "index_no_crc", np.arange(8, dtype="<f4"), dims=("n8",), fmt=3, chunks=(8,), compressors=None,
               serializer=zc.ShardingCodec(chunk_shape=(2,), codecs=[zc.BytesCodec()],
                                           index_codecs=[zc.BytesCodec()]))
        wrote.append("/index_no_crc: index codecs [bytes] only")
        _array(root, "nested", np.arange(16, dtype="<i2").reshape(4, 4), dims=("r4", "c4"), fmt=3, chunks=(4, 4),
               compressors=None,
               serializer=zc.ShardingCodec(chunk_shape=(2, 4), codecs=[
                   zc.ShardingCodec(chunk_shape=(1, 2), codecs=[zc.BytesCodec(), zc.GzipCodec()])]))
        wrote.append("/nested: a shard of shards (4, 4) > (2, 4) > (1, 2)")
        _array(root, "transposed", np.arange(12, dtype="<i4").reshape(3, 4), dims=("r3", "c4"), fmt=3, chunks=(4, 4),
               filters=[zc.TransposeCodec(order=(1, 0))], compressors=None,
               serializer=zc.ShardingCodec(chunk_shape=(2, 2), codecs=[zc.BytesCodec()]))
        wrote.append("/transposed: transpose before sharding")
        r = _array(root, "transposed_rect", None, shape=(5, 6), dtype="<i4", dims=("r5", "c6"), fmt=3, chunks=(4, 6),
                   fill_value=-7, filters=[zc.TransposeCodec(order=(1, 0))], compressors=None,
                   serializer=zc.ShardingCodec(chunk_shape=(2, 1), codecs=[zc.TransposeCodec(order=(1, 0)),
                                                                           zc.BytesCodec()]))
        r[1:, 1:] = np.arange(20, dtype="<i4").reshape(4, 5)
        wrote.append("/transposed_rect: transposed (6, 4) shards of (2, 1) chunks, transposed back inside, "
                     "partly written")
        w = _array(root, "transposed_levels", None, shape=(8, 8), dtype="<i2", dims=("r8", "c8"), fmt=3,
                   chunks=(8, 8), fill_value=-3, filters=[zc.TransposeCodec(order=(1, 0))], compressors=None,
                   serializer=zc.ShardingCodec(chunk_shape=(4, 2), codecs=[
                       zc.TransposeCodec(order=(1, 0)),
                       zc.ShardingCodec(chunk_shape=(1, 4), codecs=[zc.TransposeCodec(order=(1, 0)), zc.BytesCodec()])]))
        w[1:7, 2:] = np.arange(36, dtype="<i2").reshape(6, 6)
        wrote.append("/transposed_levels: a transpose before the shards, between their levels and inside, "
                     "partly written")
        m = _array(root, "nested_start", None, shape=(6, 8), dtype="<i2", dims=("r6", "c8"), fmt=3, chunks=(4, 4),
                   fill_value=-1, compressors=None,
                   serializer=zc.ShardingCodec(chunk_shape=(2, 4), index_location="start", codecs=[
                       zc.ShardingCodec(chunk_shape=(1, 2), index_codecs=[zc.BytesCodec()],
                                        codecs=[zc.BytesCodec(), zc.ZstdCodec()])]))
        m[:5, 1:] = np.arange(35, dtype="<i2").reshape(5, 7)
        wrote.append("/nested_start: shards of shards, outer index at the start, inner ones without CRC, "
                     "edge shards, partly written")
        s = _array(root, "strings", None, shape=(5,), dtype=str, chunks=(2,), shards=(4,), dims=("n5",), fmt=3)
        s[:3] = ["a", "", "\u00e7a"]
        wrote.append("/strings: vlen-utf8 inside shards, partly written")
        _array(root, "missing", None, shape=(6,), dtype="<f4", chunks=(1,), shards=(3,), fill_value=2.5,
               dims=("n6",), fmt=3)
        wrote.append("/missing: no shard written at all")
    return _done("sharding", 3, wrote)


def fills(path, zarr_format=3):
    """fill_value in every encoding, with chunks left missing (zarr-python's
    write_empty_chunks=False never stores an all-fill chunk): NaN, +/-inf,
    -0.0, 0.1 in float32, hex bit patterns (hand edits: NaN with a payload,
    1.0, float16 +inf), u64 max, negative and extreme ints, bool true,
    strings of each kind."""
    fmt = zarr_format
    wrote = []
    cases = [
        ("f4_nan", "<f4", float("nan")),
        ("f8_nan", "<f8", float("nan")),
        ("f8_inf", "<f8", float("inf")),
        ("f4_ninf", "<f4", float("-inf")),
        ("f8_negzero", "<f8", -0.0),
        ("f4_tenth", "<f4", 0.1),
        ("f8_big", "<f8", -9.969209968386869e36),
        ("u8_max", "<u8", 2**64 - 1),
        ("i8_min", "<i8", -(2**63)),
        ("i2_negative", "<i2", -999),
        ("i1_min", "|i1", -128),
        ("u1_max", "|u1", 255),
        ("u4_max", "<u4", 2**32 - 1),
        ("bool_true", "|b1", True),
    ]
    if fmt == 3:
        cases.append(("f2_nan", "<f2", float("nan")))
    with warnings.catch_warnings():
        warnings.simplefilter(QUIET)
        root = _new_root(path, fmt)
        for name, dtype, fill in cases:
            a = _array(root, name, None, shape=(7,), dtype=dtype, chunks=(3,), fill_value=fill, dims=("n",), fmt=fmt)
            a[3:5] = np.array([1, 0], dtype=dtype)  # chunk 1 half data; chunks 0 and 2 missing
            wrote.append(f"/{name}: {dtype} fill {fill!r}, chunks 0 and 2 missing")
        # A chunk written and then overwritten with fill: zarr-python deletes it.
        a = _array(root, "erased", np.arange(6, dtype="<i4"), chunks=(3,), fill_value=-7, dims=("n6",), fmt=fmt)
        a[:3] = -7
        wrote.append("/erased: chunk 0 written, then overwritten with fill (deleted)")
        if fmt == 3:
            hexes = [("f4_hex_nan_payload", "<f4", "0x7fc00001"), ("f8_hex_one", "<f8", "0x3ff0000000000000"),
                     ("f2_hex_inf", "<f2", "0x7c00"), ("f4_hex_neg_nan", "<f4", "0xffc00000")]
            for name, dtype, hexfill in hexes:
                a = _array(root, name, None, shape=(7,), dtype=dtype, chunks=(3,), fill_value=0, dims=("n",), fmt=fmt)
                a[3:5] = np.array([1, 2], dtype=dtype)
                _edit_json(pathlib.Path(path) / name / "zarr.json", lambda d, h=hexfill: d.__setitem__("fill_value", h))
                wrote.append(f"/{name}: hand edit: fill_value {hexfill!r}")
        strings = [("s_vlen", str, "missing"), ("s_fixed_utf32", "<U6", "n/a \u00e9"), ("s_bytes", "|S4", b"zz")]
        for name, dtype, fill in strings:
            a = _array(root, name, None, shape=(5,), dtype=dtype, chunks=(2,), fill_value=fill, dims=("n5",), fmt=fmt)
            a[2:4] = [b"x", b"y"] if dtype == "|S4" else ["x", "y"]
            wrote.append(f"/{name}: {dtype} fill {fill!r}, chunks 0 and 2 missing")
        if fmt == 2:
            a = _array(root, "nofill", None, shape=(4,), dtype="<i4", chunks=(2,), fill_value=None, dims=("n4",),
                       fmt=fmt)
            a[:2] = [5, 6]
            wrote.append("/nofill: fill_value null, chunk 1 missing")
    return _done("fills", fmt, wrote)


def strings(path, zarr_format=3):
    """Every string layout zarr-python 3.1.6 writes: `string` (vlen-utf8)
    with non-ASCII and empty values, 1-d and 2-d, numpy `<U` (v3:
    fixed_length_utf32), `|S` (v3: null_terminated_bytes, one value not
    UTF-8), variable-length bytes (vlen-bytes). v3 also: the data type
    `"bytes"` that zarr-python 3.0 wrote for vlen-bytes (hand edit)."""
    fmt = zarr_format
    wrote = []
    text = np.array(["", "ascii", "h\u00e9llo w\u00f6rld", "\u65e5\u672c\u8a9e", "emoji \U0001f389", "tab\tnew\nline",
                     'quote " back \\'], dtype=object)
    with warnings.catch_warnings():
        warnings.simplefilter(QUIET)
        root = _new_root(path, fmt)
        _array(root, "vlen", text, dtype=str, chunks=(3,), dims=("n7",), fmt=fmt)
        _array(root, "vlen_2d", np.array([["a", "bb", ""], ["\u00e9", "x y", "last"]], dtype=object), dtype=str,
               chunks=(1, 2), dims=("r", "c"), fmt=fmt)
        _array(root, "vlen_raw", text[:4], dtype=str, chunks=(4,), compressors=None, dims=("n4",), fmt=fmt)
        wrote.append("/vlen, /vlen_2d, /vlen_raw: str (v3 string + vlen-utf8; v2 |O + vlen-utf8)")
        _array(root, "utf32", np.array(["", "abc", "\u00e9\u00e8", "\U0001f600x", "full5"], dtype="<U5"),
               chunks=(2,), dims=("n5",), fmt=fmt)
        wrote.append("/utf32: <U5")
        _array(root, "fixed_bytes", np.array([b"", b"ab", b"abcd", "\u00e9t".encode(), b"\xff\x01"], dtype="|S4"),
               chunks=(2,), dims=("n5",), fmt=fmt)
        wrote.append("/fixed_bytes: |S4, one value not UTF-8")
        vb = np.array([b"", b"abc", "\u00e9t\u00e9".encode(), b"\x01\x02\x7f", b"longer value here"], dtype=object)
        _array(root, "vlen_bytes", vb, dtype=VariableLengthBytes(), chunks=(2,), dims=("n5",), fmt=fmt)
        wrote.append("/vlen_bytes: variable-length bytes (vlen-bytes)")
        if fmt == 3:
            _array(root, "vlen_bytes_old_name", vb, dtype=VariableLengthBytes(), chunks=(2,), dims=("n5",), fmt=fmt)
            _edit_json(pathlib.Path(path) / "vlen_bytes_old_name" / "zarr.json",
                       lambda d: d.__setitem__("data_type", "bytes"))
            wrote.append('/vlen_bytes_old_name: hand edit: data_type "bytes" (zarr-python 3.0.x)')
        _array(root, "scalar_string", np.array("only one \u00e9", dtype=object), dtype=str, fmt=fmt)
        wrote.append("/scalar_string: 0-d str")
    return _done("strings", fmt, wrote)


def _tree(root, fmt):
    """Groups and arrays for the consolidation stores."""
    root.attrs.update({"title": "consolidated", "n": 3})
    _array(root, "top", np.arange(5, dtype="<i4"), chunks=(2,), dims=("n5",), fmt=fmt)
    g = root.create_group("g", attributes={"kind": "group"})
    _array(g, "inner", np.arange(6, dtype="<f8").reshape(2, 3) / 2, dims=("r", "c"), fmt=fmt)
    h = g.create_group("h")
    _array(h, "deepest", np.array([True, False]), dims=("b",), fmt=fmt)
    _array(root, "label", np.array(["x", "yy"], dtype=object), dtype=str, dims=("n2",), fmt=fmt)


def consolidated(path, zarr_format=3):
    """A tree, then zarr.consolidate_metadata: the root document carries
    every node's metadata (v3 inline `consolidated_metadata`; v2
    `.zmetadata`)."""
    fmt = zarr_format
    with warnings.catch_warnings():
        warnings.simplefilter(QUIET)
        root = _new_root(path, fmt)
        _tree(root, fmt)
        zarr.consolidate_metadata(path, zarr_format=fmt)
    return _done("consolidated", fmt, ["/top, /label, /g/inner, /g/h/deepest; consolidated"])


def stale_consolidated(path, zarr_format=3):
    """Consolidated, then changed without consolidating again: an array
    added at the root and one in /g, an attribute added to /top, data of
    /top rewritten. zarr-python's default view (consolidated metadata)
    does not see the new arrays or the new attribute; it sees the data.
    That is what we read in v3; in v2 on local storage we read the objects
    (netcdf-c's view), which do have them.

    .zmetadata's time is set to the newest of the root objects (zarr-python
    writes them concurrently), so that no reader going by times could take
    it as stale at once."""
    fmt = zarr_format
    with warnings.catch_warnings():
        warnings.simplefilter(QUIET)
        root = _new_root(path, fmt)
        _tree(root, fmt)
        zarr.consolidate_metadata(path, zarr_format=fmt)
        if fmt == 2:
            newest = max(os.stat(pathlib.Path(path) / f).st_mtime_ns for f in (".zgroup", ".zattrs", ".zmetadata"))
            os.utime(pathlib.Path(path) / ".zmetadata", ns=(newest, newest))
        direct = zarr.open_group(path, mode="r+", zarr_format=fmt, use_consolidated=False)
        _array(direct, "added_later", np.arange(3, dtype="<i2"), dims=("n3",), fmt=fmt)
        _array(direct["g"], "added_in_g", np.arange(2, dtype="<u4"), dims=("n2",), fmt=fmt)
        top = direct["top"]
        top.attrs["added"] = "after consolidation"
        top[:] = np.arange(5, dtype="<i4") * 10
    return _done("stale_consolidated", fmt, ["tree consolidated; then /added_later, /g/added_in_g, /top attribute "
                                             "'added' and /top data changed"])


def xarray_dataset(path, zarr_format=3):
    """xr.Dataset.to_zarr with its defaults (consolidated): CF time, float
    variables with NaN _FillValue (base64 in v3), packed int16
    (scale_factor, add_offset, _FillValue -32767), string coordinates
    (object str and <U), a bool variable, a 2-d variable with
    non-dimension coordinates."""
    fmt = zarr_format
    path = pathlib.Path(path)
    if path.exists():
        shutil.rmtree(path)
    time = pd.date_range("2000-01-01", periods=4, freq="D")
    temp = np.arange(24, dtype="f4").reshape(4, 2, 3)
    temp[0, 0, 0] = np.nan
    packed = np.linspace(0.0, 10.0, 24).reshape(4, 2, 3)
    packed[1, 1, 1] = np.nan
    ds = xr.Dataset(
        {
            "temp": (("time", "y", "x"), temp, {"units": "K", "long_name": "temperature"}),
            "packed": (("time", "y", "x"), packed),
            "flag": (("x",), np.array([True, False, True])),
            "field": (("y", "x"), np.array([[1.5, np.nan, 3.0], [4.0, 5.0, 6.0]])),
        },
        coords={
            "time": time,
            "x": [10, 20, 30],
            "y": np.array(["south", "n\u00f6rth"], dtype=object),
            "station": (("x",), np.array(["p", "q\u00e9", "r"], dtype="<U2")),
            "lat": (("y", "x"), np.arange(6, dtype="f8").reshape(2, 3) + 40.0),
        },
        attrs={"title": "from xarray", "history": "made by tests/v3/corpus.py"},
    )
    encoding = {"packed": {"dtype": "int16", "scale_factor": 0.01, "add_offset": 5.0, "_FillValue": -32767}}
    with warnings.catch_warnings():
        warnings.simplefilter(QUIET)
        ds.to_zarr(path, zarr_format=fmt, encoding=encoding)
    return _done("xarray_dataset", fmt, ["to_zarr defaults: /temp /packed /flag /field /time /x /y /station /lat"])


def unsupported(path, zarr_format=3):
    """Types netCDF has no place for, beside a healthy array: complex64,
    numpy.datetime64, numpy.timedelta64, raw bits r16 (v3 hand edit). Each
    should cost only its own data."""
    fmt = zarr_format
    wrote = []
    with warnings.catch_warnings():
        warnings.simplefilter(QUIET)
        root = _new_root(path, fmt)
        _array(root, "healthy", np.arange(3, dtype="<i4"), dims=("n3",), fmt=fmt)
        c = _array(root, "complex", np.array([1 + 2j, 3 - 4j, 0], dtype="<c8"), dims=("n3",), fmt=fmt)
        c.attrs["kind"] = "complex"
        _array(root, "datetime", np.array(["2000-01-01", "NaT", "2001-02-03"], dtype="M8[s]"), dims=("n3",), fmt=fmt)
        _array(root, "timedelta", np.array([1, 2, 3], dtype="m8[ms]"), dims=("n3",), fmt=fmt)
        wrote.append("/complex, /datetime, /timedelta beside /healthy")
        if fmt == 3:
            _array(root, "raw_bits", np.arange(3, dtype="<i2"), dims=("n3",), fmt=fmt, compressors=None)
            _edit_json(pathlib.Path(path) / "raw_bits" / "zarr.json",
                       lambda d: d.update(data_type="r16", fill_value=[0, 0], codecs=[{"name": "bytes"}]))
            wrote.append('/raw_bits: hand edit: data_type "r16", fill_value [0, 0]')
    return _done("unsupported", fmt, wrote)


def structured(path, zarr_format=3):
    """A structured (record) array beside a healthy one. zarr-python 3.1.6
    writes v3 `structured` and v2 a list-valued dtype."""
    fmt = zarr_format
    with warnings.catch_warnings():
        warnings.simplefilter(QUIET)
        root = _new_root(path, fmt)
        _array(root, "healthy", np.arange(2, dtype="<i4"), dims=("n2",), fmt=fmt)
        rec = np.array([(1, 1.5), (2, -2.5)], dtype=[("a", "<i4"), ("b", "<f8")])
        _array(root, "records", rec, dims=("n2",), fmt=fmt)
    return _done("structured", fmt, ["/records: structured [a int32, b float64] beside /healthy"])


def unknown_codecs(path, zarr_format=3):
    """Hand-edited codec lists naming a codec no one has: plain, with
    must_understand true, with must_understand false (v3); an unknown
    compressor id (v2). Beside a healthy array."""
    fmt = zarr_format
    wrote = []
    with warnings.catch_warnings():
        warnings.simplefilter(QUIET)
        root = _new_root(path, fmt)
        _array(root, "healthy", np.arange(4, dtype="<i4"), dims=("n4",), fmt=fmt)
        variants = {3: {"plain": {"name": "no_such_codec", "configuration": {"x": 1}},
                        "must_understand_true": {"name": "no_such_codec", "must_understand": True},
                        "must_understand_false": {"name": "no_such_codec", "must_understand": False}},
                    2: {"plain": {"id": "no_such_codec", "x": 1}}}[fmt]
        for name, codec in variants.items():
            _array(root, name, np.arange(4, dtype="<i4"), dims=("n4",), fmt=fmt, compressors=None)
            if fmt == 3:
                _edit_json(pathlib.Path(path) / name / "zarr.json",
                           lambda d, c=codec: d["codecs"].append(c))
            else:
                _edit_json(pathlib.Path(path) / name / ".zarray", lambda d, c=codec: d.__setitem__("compressor", c))
            wrote.append(f"/{name}: hand edit: codec {codec} appended")
    return _done("unknown_codecs", fmt, wrote)


def ignorable_extension(path, zarr_format=3):
    """Hand-edited array document with a field no one knows, marked
    must_understand false: to be ignored (values read), as zarr-python
    3.1.6 does. Group documents too."""
    assert zarr_format == 3
    with warnings.catch_warnings():
        warnings.simplefilter(QUIET)
        root = _new_root(path, 3)
        root.create_group("g")
        _array(root, "ext_ignorable", np.arange(4, dtype="<i4"), dims=("n4",), fmt=3)
        extra = {"name": "x", "must_understand": False, "configuration": {"k": [1]}}
        for doc in ["zarr.json", "g/zarr.json", "ext_ignorable/zarr.json"]:
            _edit_json(pathlib.Path(path) / doc, lambda d: d.__setitem__("some_extension", extra))
    return _done("ignorable_extension", 3, ['/, /g, /ext_ignorable: hand edit: "some_extension" with '
                                            "must_understand false"])


def unknown_extensions(path, zarr_format=3):
    """Hand-edited array documents with fields no one knows (must_understand
    true or absent: the spec says the reader must fail), an unknown chunk
    grid, chunk key encoding, storage transformer. Kept apart from other
    stores: a reader may refuse the whole store."""
    assert zarr_format == 3
    wrote = []
    with warnings.catch_warnings():
        warnings.simplefilter(QUIET)
        root = _new_root(path, 3)
        edits = {
            "ext_required": lambda d: d.__setitem__("some_extension", {"name": "x", "must_understand": True}),
            "ext_plain": lambda d: d.__setitem__("some_extension", {"name": "x"}),
            "grid_unknown": lambda d: d.__setitem__("chunk_grid", {"name": "no_such_grid", "configuration": {}}),
            "cke_unknown": lambda d: d.__setitem__("chunk_key_encoding", {"name": "no_such_keys"}),
            "storage_transformer": lambda d: d.__setitem__("storage_transformers", [{"name": "no_such_transformer"}]),
        }
        for name, edit in edits.items():
            _array(root, name, np.arange(4, dtype="<i4"), dims=("n4",), fmt=3)
            _edit_json(pathlib.Path(path) / name / "zarr.json", edit)
            wrote.append(f"/{name}: hand edit")
    return _done("unknown_extensions", 3, wrote)


# ----- corrupt stores (v3) -------------------------------------------------

def corruptible(path):
    """The store the CORRUPTORS damage: one array per kind of damage, each
    beside the healthy /ok."""
    with warnings.catch_warnings():
        warnings.simplefilter(QUIET)
        root = _new_root(path, 3)
        _array(root, "ok", np.arange(4, dtype="<i4"), dims=("n4",), fmt=3)
        _array(root, "sharded", np.arange(8, dtype="<i4"), dims=("n8",), fmt=3, chunks=(2,), shards=(8,),
               compressors=None)
        _array(root, "sharded_start", np.arange(8, dtype="<i4"), dims=("n8",), fmt=3, chunks=(8,), compressors=None,
               serializer=zc.ShardingCodec(chunk_shape=(2,), codecs=[zc.BytesCodec()], index_location="start"))
        _array(root, "checked", np.arange(8, dtype="<i4"), dims=("n8",), fmt=3, compressors=zc.Crc32cCodec())
        _array(root, "plain", np.arange(4, dtype="<i4"), dims=("n4",), fmt=3, compressors=None)
        _array(root, "text", np.array(["alpha", "beta", "gamma", "delta"], dtype=object), dtype=str,
               dims=("n4",), fmt=3, compressors=None)
    return path


def _shard_index(blob, n, at_start):
    """The (offset, nbytes) pairs of an uncompressed shard whose index codecs
    are bytes + crc32c."""
    size = 16 * n + 4
    raw = blob[:size] if at_start else blob[-size:]
    return np.frombuffer(raw[:-4], dtype="<u8").reshape(n, 2).copy()


def _put_shard_index(blob, index, at_start):
    raw = index.astype("<u8").tobytes()
    raw += google_crc32c.value(raw).to_bytes(4, "little")
    return raw + blob[len(raw):] if at_start else blob[:-len(raw)] + raw


def shard_offset_past_end(path):
    """An inner chunk's offset past the end of the shard (index crc32c
    recomputed, so only the offset is wrong)."""
    f = pathlib.Path(path) / "sharded" / "c" / "0"
    blob = f.read_bytes()
    index = _shard_index(blob, 4, False)
    index[1, 0] = len(blob) + 1000
    f.write_bytes(_put_shard_index(blob, index, False))
    return "/sharded"


def shard_nbytes_past_end(path):
    """An inner chunk's length running past the end of the shard (index at
    the start, crc32c recomputed). zarr-python 3.1.6 reads the right
    values anyway (a Python slice stops at the end); a ranged read of
    that length cannot, and the index is wrong: an error is expected."""
    f = pathlib.Path(path) / "sharded_start" / "c" / "0"
    blob = f.read_bytes()
    index = _shard_index(blob, 4, True)
    index[3, 1] = 1 << 40
    f.write_bytes(_put_shard_index(blob, index, True))
    return "/sharded_start"


def shard_wrong_inner_size(path):
    """An inner chunk's nbytes says 4 bytes where the uncompressed chunk
    needs 8 (crc32c recomputed)."""
    f = pathlib.Path(path) / "sharded" / "c" / "0"
    blob = f.read_bytes()
    index = _shard_index(blob, 4, False)
    index[0, 1] = 4
    f.write_bytes(_put_shard_index(blob, index, False))
    return "/sharded"


def shard_index_bad_crc(path):
    """One bit of the shard index flipped, its crc32c left as it was."""
    f = pathlib.Path(path) / "sharded" / "c" / "0"
    blob = bytearray(f.read_bytes())
    blob[-20] ^= 0x01  # in the index, before its 4-byte crc32c
    f.write_bytes(bytes(blob))
    return "/sharded"


def shard_truncated(path):
    """The shard object cut short: shorter than its own index."""
    f = pathlib.Path(path) / "sharded" / "c" / "0"
    f.write_bytes(f.read_bytes()[:20])
    return "/sharded"


def wrong_crc32c(path):
    """A data byte of a crc32c-checked chunk changed."""
    f = pathlib.Path(path) / "checked" / "c" / "0"
    blob = bytearray(f.read_bytes())
    blob[5] ^= 0x40
    f.write_bytes(bytes(blob))
    return "/checked"


def truncated_vlen_utf8(path):
    """An uncompressed vlen-utf8 chunk cut in the middle of its third
    string."""
    f = pathlib.Path(path) / "text" / "c" / "0"
    blob = f.read_bytes()
    # count, then (len, bytes) for "alpha" and "beta", then len of "gamma" + 2 bytes
    cut = 4 + (4 + 5) + (4 + 4) + 4 + 2
    f.write_bytes(blob[:cut])
    return "/text"


def vlen_utf8_count_too_big(path):
    """An uncompressed vlen-utf8 chunk whose element count is larger than
    the chunk (and than the bytes that follow)."""
    f = pathlib.Path(path) / "text" / "c" / "0"
    blob = f.read_bytes()
    f.write_bytes((1 << 30).to_bytes(4, "little") + blob[4:])
    return "/text"


def vlen_utf8_invalid_utf8(path):
    """A vlen-utf8 element that is not UTF-8 (0xff in "alpha"): the
    `string` type promises UTF-8. Accepting the bytes is also defensible;
    see ASSUMED_MAPPINGS in expected.py."""
    f = pathlib.Path(path) / "text" / "c" / "0"
    blob = bytearray(f.read_bytes())
    blob[8] = 0xFF
    f.write_bytes(bytes(blob))
    return "/text"


def chunk_truncated(path):
    """An uncompressed int32 chunk shorter than the chunk."""
    f = pathlib.Path(path) / "plain" / "c" / "0"
    f.write_bytes(f.read_bytes()[:6])
    return "/plain"


CORRUPTORS = [shard_offset_past_end, shard_nbytes_past_end, shard_wrong_inner_size, shard_index_bad_crc,
              shard_truncated, wrong_crc32c, truncated_vlen_utf8, vlen_utf8_count_too_big, chunk_truncated]

# Corruptions whose outcome is a mapping decision (see expected.py).
DEBATABLE_CORRUPTORS = [vlen_utf8_invalid_utf8]

V3_WRITERS = [defaults, dimension_names, codecs, chunk_key_encodings, sharding, fills, strings, consolidated,
              stale_consolidated, xarray_dataset, unsupported, structured, unknown_codecs, ignorable_extension,
              unknown_extensions]
V2_WRITERS = [defaults, dimension_names, codecs, chunk_key_encodings, fills, strings, consolidated,
              stale_consolidated, xarray_dataset, unsupported, structured, unknown_codecs]

