#!/usr/bin/env python3
"""Write the fuzz targets' seed corpora (fuzz/seeds/<target>/) from real
stores and real encoded chunks.

Stores come from every writer at hand, each small:
  * netcdf-c 4.10.1 (the netCDF4 wheel): NCZarr and pure Zarr, with its
    filter plugins;
  * Debian's netcdf-c 4.9.0 (ncgen): the 4.8.1-4.9.0 `_NCZARR_*` layout;
  * this library (Debian's ncgen loading target/release/libnetcdf.so):
    the current layout, pure Zarr, the 4.9.0 layout, built-in filters;
  * zarr-python 3 and 2 (Zarr v2: every numcodecs codec, `order: F`,
    `/` chunk keys, string dtypes, consolidated metadata) and xarray;
  * the 4.9.1-4.9.2 and 4.8.0 layouts, which no installable tool writes,
    object by object (as tests/interop/test_legacy.py builds them).

Run with the test venv after `make build`:
    .venv/bin/python fuzz/gen_seeds.py
or, for the Parquet record files alone (fastparquet and pyarrow only):
    .venv/bin/python fuzz/gen_seeds.py parquet
Output is deterministic for the pinned tool versions; rerun it when a
writer or the archive format (fuzz/src/archive.rs) changes.
"""

import json
import os
import pathlib
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

ROOT = pathlib.Path(__file__).resolve().parent.parent
SEEDS = ROOT / "fuzz" / "seeds"
LIB = ROOT / "target" / "release"
ZARR2_PYTHON = ROOT / ".venv-zarr2" / "bin" / "python"
# Seeds are kept small: stores over this size are left out.
MAX_SEED = 24 * 1024


def archive(objects, seed=0):
    """fuzz/src/archive.rs: u64 seed, then (u8 key length, key, u32 value length, value)*."""
    out = bytearray(struct.pack("<Q", seed))
    for key, value in sorted(objects.items()):
        k = key.encode()
        out += bytes([len(k)]) + k + struct.pack("<I", len(value)) + value
    return bytes(out)


def no_gzip_time(data):
    """A gzip stream with its header's time zeroed, so seeds do not change
    from run to run (the header is not checksummed)."""
    data = bytes(data)
    return data[:4] + bytes(4) + data[8:] if data[:3] == b"\x1f\x8b\x08" else data


def read_store(path):
    path = pathlib.Path(path)
    return {p.relative_to(path).as_posix(): no_gzip_time(p.read_bytes()) for p in sorted(path.rglob("*")) if p.is_file()}


def is_metadata(key):
    name = key.rsplit("/", 1)[-1]
    return name.startswith(".") or name == "zarr.json"


class Seeds:
    def __init__(self):
        self.files = {}

    def add(self, target, name, data):
        assert (target, name) not in self.files, (target, name)
        if any(t == target and d == data for (t, _), d in self.files.items()):
            return  # the same input under another name
        self.files[(target, name)] = data

    def write(self):
        # Only the targets written here are replaced: others' seeds are
        # written by hand (references) or by a run for them alone.
        for target in {t for t, _ in self.files}:
            if (SEEDS / target).exists():
                shutil.rmtree(SEEDS / target)
        for (target, name), data in sorted(self.files.items()):
            d = SEEDS / target
            d.mkdir(parents=True, exist_ok=True)
            (d / name).write_bytes(data)
        counts = {}
        for target, _ in self.files:
            counts[target] = counts.get(target, 0) + 1
        total = sum(len(d) for d in self.files.values())
        print(f"{len(self.files)} seeds, {total} bytes:", ", ".join(f"{t} {n}" for t, n in sorted(counts.items())))


def add_store(seeds, name, path):
    objects = read_store(path)
    full = archive(objects, zlib.crc32(name.encode()))
    meta = archive({k: v for k, v in objects.items() if is_metadata(k)}, zlib.crc32(name.encode()))
    if len(full) <= MAX_SEED:
        seeds.add("store", name, full)
    else:
        print(f"store {name}: {len(full)} bytes, only its metadata kept", file=sys.stderr)
    seeds.add("metadata", name, meta)
    seeds.add("rewrite", name, meta)
    for key, value in objects.items():
        if key.endswith(".zattrs") or key.endswith(".nczattr") or key.endswith(".nczattrs"):
            attrs = json.loads(value)
            types = {}
            for holder in ("_nczarr_attr", "_NCZARR_ATTR"):
                types.update((attrs.get(holder) or {}).get("types", {}))
            for i, (att, v) in enumerate(attrs.items()):
                dtype = types.get(att, "")
                seeds.add("attrs", f"{name}-{key.replace('/', '_')}-{i}", b"\0" + dtype.encode() + b"\n" + json.dumps(v).encode())


# --------------------------------------------------------------------------
# Writers


def url(path, extra=""):
    return f"file://{path}#mode=nczarr,file{extra}"


CDL = """netcdf t {
types:
dimensions:
    x = 3 ;
    y = 2 ;
    t = UNLIMITED ;
variables:
    int v(x) ;
        v:units = "m" ;
        v:scale = 2.5 ;
        v:_Storage = "chunked" ;
        v:_ChunkSizes = 2 ;
    char c(y) ;
    double s ;
    float f(x, y) ;
        f:_FillValue = -1.f ;
        f:_Endianness = "big" ;
    short r(t, x) ;
    ubyte u(y) ;
        u:_NoFill = "true" ;
    int64 big(x) ;
    uint64 ubig(y) ;
    ushort us(x) ;
    uint ui(y) ;
    byte b(x) ;
    string str(y) ;
// global attributes:
        :title = "ncgen" ;
        :nums = 1, 2, 3 ;
        :d = 1.5, -2.25 ;
        :i64 = 5000000000L ;
        :s = "one" ;
data:
    v = 1, 2, 3 ;
    c = "ab" ;
    s = 2.5 ;
    f = 1, 2, 3, 4, _, 6 ;
    r = 1, 2, 3, 4, 5, 6 ;
    u = 7, 8 ;
    big = -1, 0, 1 ;
    ubig = 1, 18446744073709551615 ;
    us = 1, 2, 65535 ;
    ui = 0, 4294967295 ;
    b = -128, 0, 127 ;
    str = "alpha", "" ;
group: g {
  dimensions:
    z = 2 ;
  variables:
    double w(z, x) ;
      w:_ChunkSizes = 1, 2 ;
  data:
    w = 1, 2, 3, 4, 5, 6 ;
  }
}
"""

# netcdf-c 4.9.0 has neither strings nor unlimited dimensions.
CDL_490 = """netcdf t {
dimensions:
    x = 3 ;
    y = 2 ;
variables:
    int v(x) ;
        v:units = "m" ;
        v:scale = 2.5 ;
    char c(y) ;
    double s ;
    float f(x, y) ;
        f:_FillValue = -1.f ;
// global attributes:
        :title = "ncgen" ;
        :nums = 1, 2, 3 ;
data:
    v = 1, 2, 3 ;
    c = "ab" ;
    s = 2.5 ;
    f = 1, 2, 3, 4, _, 6 ;
group: g {
  dimensions:
    z = 2 ;
  variables:
    short w(z) ;
  data:
    w = 9, 8 ;
  }
}
"""

FILTERS_CDL = """netcdf f {
dimensions:
    x = 64 ;
variables:
    float deflate(x) ;
        deflate:_DeflateLevel = 5 ;
        deflate:_Shuffle = "true" ;
        deflate:_ChunkSizes = 32 ;
    int fletcher(x) ;
        fletcher:_Fletcher32 = "true" ;
        fletcher:_ChunkSizes = 64 ;
    float zstd(x) ;
        zstd:_Filter = "32015,3" ;
        zstd:_ChunkSizes = 64 ;
    double bz2(x) ;
        bz2:_Filter = "307,9" ;
        bz2:_ChunkSizes = 64 ;
    float lz4(x) ;
        lz4:_Filter = "32004" ;
        lz4:_ChunkSizes = 64 ;
    float blosc(x) ;
        blosc:_Filter = "32001,0,0,0,0,5,1,1" ;
        blosc:_ChunkSizes = 64 ;
    int blosc_bits(x) ;
        blosc_bits:_Filter = "32001,0,0,0,0,5,2,5" ;
        blosc_bits:_ChunkSizes = 64 ;
data:
    deflate = %(ramp)s ;
    fletcher = %(ramp)s ;
    zstd = %(ramp)s ;
    bz2 = %(ramp)s ;
    lz4 = %(ramp)s ;
    blosc = %(ramp)s ;
    blosc_bits = %(ramp)s ;
}
""" % {"ramp": ", ".join(str(i % 7) for i in range(64))}


def ncgen(cdl, target, ours, extra=""):
    env = dict(os.environ)
    if ours:
        env["LD_LIBRARY_PATH"] = str(LIB)
    with tempfile.NamedTemporaryFile("w", suffix=".cdl", delete=False) as f:
        f.write(cdl)
    subprocess.run(["ncgen", "-4", "-o", url(target, extra), f.name], check=True, env=env)
    os.unlink(f.name)


def netcdf_c_stores(tmp, seeds):
    import importlib.util

    # netcdf-c reads the plugin path once, when it starts.
    spec = importlib.util.find_spec("netCDF4")
    os.environ["HDF5_PLUGIN_PATH"] = str(pathlib.Path(spec.origin).resolve().parent / "plugins")
    import netCDF4
    import numpy as np

    for name, mode in [("netcdf-c-4.10.1", "nczarr"), ("netcdf-c-4.10.1-zarr", "zarr")]:
        path = tmp / name
        with netCDF4.Dataset(f"file://{path}#mode={mode},file", "w") as ds:
            ds.title = "netcdf-c"
            ds.createDimension("x", 6)
            ds.createDimension("t", None)
            g = ds.createGroup("sub")
            g.createDimension("y", 4)
            g.note = np.array([1, 2], "i2")
            ramp = np.arange(24, dtype="f4").reshape(6, 4)
            for vname, kw in [("plain", {}), ("z", dict(zlib=True, complevel=4, shuffle=True)),
                              ("zs", dict(compression="zstd", complevel=3)),
                              ("bz", dict(compression="bzip2", complevel=9)),
                              ("fl", dict(fletcher32=True))]:
                v = g.createVariable(vname, "f4", ("x", "y"), chunksizes=(4, 3), **kw)
                v[:] = ramp
            ds.createDimension("n", 64)
            bl = ds.createVariable("bl", "f4", ("n",), compression="blosc_lz4", complevel=5, blosc_shuffle=1)
            bl[:] = np.arange(64) % 7
            r = ds.createVariable("rec", "i4", ("t", "x"), fill_value=-9)
            r[0:2, :] = np.arange(12).reshape(2, 6)
            be = ds.createVariable("be", "i8", ("x",), endian="big")
            be[:] = np.arange(6) - 3
            sc = ds.createVariable("sc", "f8")
            sc.assignValue(3.25)
            ch = ds.createVariable("ch", "S1", ("x",))
            ch[:] = np.array(list("abcdef"), "S1")
            if mode == "nczarr":
                st = ds.createVariable("st", str, ("x",))
                st[:] = np.array(["a", "bb", "", "dddd", "e", "f"], dtype=object)
        add_store(seeds, name, path)


def debian_and_our_stores(tmp, seeds):
    path = tmp / "netcdf-c-4.9.0"
    ncgen(CDL_490, path, ours=False)
    add_store(seeds, "netcdf-c-4.9.0", path)
    for name, cdl, extra in [("ours", CDL, ""), ("ours-zarr", CDL_490, ""), ("ours-490", CDL_490, "&nczarr_layout=4.9.0"),
                             ("ours-filters", FILTERS_CDL, ""), ("ours-noconsolidated", CDL, ",noconsolidated"),
                             ("ours-v3", CDL, ",v3"), ("ours-v3-filters", FILTERS_CDL, ",v3")]:
        path = tmp / name
        if name == "ours-zarr":
            target = f"file://{path}#mode=zarr,file"
            env = dict(os.environ, LD_LIBRARY_PATH=str(LIB))
            with tempfile.NamedTemporaryFile("w", suffix=".cdl", delete=False) as f:
                f.write(cdl)
            subprocess.run(["ncgen", "-4", "-o", target, f.name], check=True, env=env)
            os.unlink(f.name)
        else:
            ncgen(cdl, path, ours=True, extra=extra)
        add_store(seeds, name, path)


def put_json(objects, key, value):
    objects[key] = json.dumps(value).encode()


def legacy_stores(seeds):
    """4.9.1-4.9.2 and 4.8.0 layouts (tests/interop/test_legacy.py)."""
    o = {}
    put_json(o, ".zgroup", {"zarr_format": 2, "_nczarr_superblock": {"version": "2.0.0"},
                            "_nczarr_group": {"dims": {"x": 4}, "vars": ["a", "name", "s", "words"], "groups": ["g"]}})
    put_json(o, ".zattrs", {"title": "fixture", "_NCProperties": "version=2,netcdf=4.9.2,nczarr=2.0.0",
                            "_nczarr_attr": {"types": {"title": ">S1", "_NCProperties": ">S1"}}})
    put_json(o, "a/.zarray", {"zarr_format": 2, "shape": [4], "dtype": "<i2", "chunks": [4], "fill_value": -1,
                              "order": "C", "compressor": None, "filters": None,
                              "_nczarr_array": {"dimrefs": ["/x"], "storage": "chunked"}})
    put_json(o, "a/.zattrs", {"big": 5000000000, "_ARRAY_DIMENSIONS": ["x"], "_nczarr_attr": {"types": {"big": "<i8"}}})
    o["a/0"] = bytes([1, 0, 2, 0, 3, 0, 4, 0])
    put_json(o, "name/.zarray", {"zarr_format": 2, "shape": [4], "dtype": ">S1", "chunks": [4], "fill_value": "",
                                 "order": "C", "compressor": None, "filters": None,
                                 "_nczarr_array": {"dimrefs": ["/x"], "storage": "chunked"}})
    o["name/0"] = b"wxyz"
    put_json(o, "s/.zarray", {"zarr_format": 2, "shape": [1], "dtype": "<f4", "chunks": [1], "fill_value": "Infinity",
                              "order": "C", "compressor": None, "filters": None,
                              "_nczarr_array": {"dimrefs": [], "storage": "scalar"}})
    put_json(o, "words/.zarray", {"zarr_format": 2, "shape": [4], "dtype": "|S6", "chunks": [2], "fill_value": "",
                                  "order": "C", "compressor": None, "filters": None,
                                  "_nczarr_array": {"dimrefs": ["/x"], "storage": "chunked"}})
    put_json(o, "words/.zattrs", {"_nczarr_maxstrlen": 6, "_nczarr_attr": {"types": {"_nczarr_maxstrlen": "<i4"}}})
    o["words/0"] = b"alpha\0six666"
    put_json(o, "g/.zgroup", {"zarr_format": 2, "_nczarr_group": {"dims": {"z": 2}, "vars": ["b"], "groups": []}})
    put_json(o, "g/b/.zarray", {"zarr_format": 2, "shape": [2, 4], "dtype": "<f8", "chunks": [1, 4],
                                "fill_value": "NaN", "order": "C", "compressor": None, "filters": None,
                                "_nczarr_array": {"dimrefs": ["/g/z", "/x"], "storage": "chunked"}})
    o["g/b/1.0"] = struct.pack("<4d", 1.5, 2.5, 3.5, 4.5)
    add_objects(seeds, "netcdf-c-4.9.1", o)

    o = {}
    put_json(o, ".nczarr", {"zarr_format": 2, "nczarr_version": "1.0.0"})
    put_json(o, ".zgroup", {"zarr_format": 2})
    put_json(o, ".nczgroup", {"dims": {"lat": 2}, "vars": ["lat"], "groups": []})
    put_json(o, ".zattrs", {"history": "made by hand"})
    put_json(o, ".nczattr", {"types": {"history": "2"}})
    put_json(o, "lat/.zarray", {"zarr_format": 2, "shape": [2], "dtype": "<i4", "chunks": [2], "fill_value": -99,
                                "order": "C", "compressor": None, "filters": None})
    put_json(o, "lat/.nczvar", {"dimrefs": ["/lat"], "storage": "chunked"})
    put_json(o, "lat/.zattrs", {"_FillValue": -99, "lat_attr": "north"})
    put_json(o, "lat/.nczattr", {"types": {"_FillValue": "4", "lat_attr": "2"}})
    o["lat/0"] = bytes([10, 0, 0, 0, 20, 0, 0, 0])
    add_objects(seeds, "netcdf-c-4.8.0", o)


def add_objects(seeds, name, objects):
    with tempfile.TemporaryDirectory() as d:
        for key, value in objects.items():
            p = pathlib.Path(d) / key
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_bytes(value)
        add_store(seeds, name, d)


def zarr_python_stores(tmp, seeds):
    import numcodecs
    import numpy as np
    import xarray
    import zarr

    ramp = ((np.arange(96) % 13) * 0.5).astype("<f4").reshape(8, 12)
    cases = {
        "blosc-default": dict(),
        "blosc-zstd-noshuffle": dict(compressors=numcodecs.Blosc(cname="zstd", clevel=3, shuffle=0)),
        "blosc-zlib": dict(compressors=numcodecs.Blosc(cname="zlib", clevel=1, shuffle=1)),
        "blosc-blosclz": dict(compressors=numcodecs.Blosc(cname="blosclz", clevel=9, shuffle=1)),
        "blosc-lz4hc-bits": dict(compressors=numcodecs.Blosc(cname="lz4hc", clevel=5, shuffle=2)),
        "zlib": dict(compressors=numcodecs.Zlib(level=1)),
        "gzip": dict(compressors=numcodecs.GZip(level=5)),
        "bz2": dict(compressors=numcodecs.BZ2(level=9)),
        "zstd": dict(compressors=numcodecs.Zstd(level=3)),
        "lz4": dict(compressors=numcodecs.LZ4()),
        "shuffle-zlib": dict(filters=[numcodecs.Shuffle(elementsize=4)], compressors=numcodecs.Zlib(level=1)),
        "fletcher": dict(filters=[numcodecs.Fletcher32()], compressors=None),
        "raw": dict(compressors=None),
    }
    for name, kw in cases.items():
        path = tmp / f"zarr3-{name}"
        root = zarr.open_group(path, mode="w", zarr_format=2)
        a = root.create_array("a", shape=ramp.shape, chunks=(4, 8), dtype="<f4", fill_value=0, **kw)
        a[:] = ramp
        a.attrs["_ARRAY_DIMENSIONS"] = ["y", "x"]
        zarr.consolidate_metadata(path)
        add_store(seeds, f"zarr3-{name}", path)

    # Dtypes, orders, separators, groups, scalars, strings.
    path = tmp / "zarr3-kinds"
    root = zarr.open_group(path, mode="w", zarr_format=2)
    root.attrs.update({"title": "kinds", "n": 3, "f": 1.5, "list": [1, 2.5], "flag": True, "obj": {"a": 1}})
    for dtype in ["|i1", "|u1", "<i2", ">u2", "<i4", "<u4", "<i8", ">u8", ">f4", "<f8", "|b1"]:
        a = root.create_array(f"d{dtype[1:]}{'be' if dtype[0] == '>' else ''}", shape=(5,), chunks=(2,), dtype=dtype,
                              fill_value=1, compressors=None)
        a[:] = np.arange(5).astype(dtype)
    g = root.create_group("g")
    g.attrs["nan"] = float("nan")
    a = g.create_array("fortran", shape=(3, 4), chunks=(2, 3), dtype="<i4", fill_value=-1, compressors=None, order="F")
    a[:] = np.arange(12).reshape(3, 4)
    a = g.create_array("slash", shape=(3, 4), chunks=(2, 3), dtype="<i2", fill_value=0, compressors=None,
                       chunk_key_encoding={"name": "v2", "separator": "/"})
    a[:] = np.arange(12).reshape(3, 4)
    a = root.create_array("scalar", shape=(), dtype="<f8", fill_value=float("nan"), compressors=None)
    a[()] = 2.5
    a = root.create_array("nanfill", shape=(4,), chunks=(3,), dtype="<f4", fill_value=float("nan"), compressors=None)
    a[:2] = 1
    a = root.create_array("u5", shape=(3,), chunks=(2,), dtype="<U5", fill_value="", compressors=None)
    a[:] = np.array(["a", "bcdef", "é"])
    a = root.create_array("s3", shape=(3,), chunks=(3,), dtype="|S3", fill_value=b"", compressors=None)
    a[:] = np.array([b"ab", b"cde", b""])
    a = root.create_array("nofill", shape=(4,), chunks=(4,), dtype="<i4", fill_value=None, compressors=None)
    zarr.consolidate_metadata(path)
    add_store(seeds, "zarr3-kinds", path)

    path = tmp / "xarray"
    ds = xarray.Dataset(
        {"temp": (("time", "lat"), np.arange(6, dtype="f4").reshape(3, 2), {"units": "K"}),
         "label": (("lat",), np.array(["n", "s"]))},
        coords={"lat": [10.0, 20.0], "time": np.array(["2000-01-01", "2000-01-02", "2000-01-03"], dtype="datetime64[ns]")},
        attrs={"source": "xarray"})
    ds.to_zarr(path, zarr_format=2, consolidated=True, mode="w")
    add_store(seeds, "xarray", path)

    v3_stores(tmp, seeds)

    object_stores(tmp, seeds)

    if ZARR2_PYTHON.exists():
        path = tmp / "zarr2"
        subprocess.run([str(ZARR2_PYTHON), "-c", ZARR2_SCRIPT, str(path)], check=True)
        add_store(seeds, "zarr2", path)
        path = tmp / "zarr2-objects"
        subprocess.run([str(ZARR2_PYTHON), "-c", ZARR2_OBJECTS_SCRIPT, str(path)], check=True)
        add_store(seeds, "zarr2-objects", path)
    else:
        print(f"no {ZARR2_PYTHON}: zarr-python 2 seeds left out", file=sys.stderr)


def object_stores(tmp, seeds):
    """Zarr v2 numpy object arrays as zarr-python 3 writes them (`|O` with
    a vlen-utf8 or vlen-bytes filter), compressed or not, order C and F."""
    import numcodecs
    import numpy as np
    import zarr
    from zarr.core.dtype import VariableLengthBytes, VariableLengthUTF8

    path = tmp / "zarr3-objects"
    root = zarr.open_group(path, mode="w", zarr_format=2)
    s = root.create_array("s", shape=(5,), chunks=(2,), dtype=VariableLengthUTF8(), compressors=None)
    s[:3] = np.array(["a", "", "\u00e9\u20ac"], dtype=object)
    s.attrs["_ARRAY_DIMENSIONS"] = ["n"]
    f = root.create_array("f", shape=(3, 4), chunks=(2, 3), dtype=str, order="F", fill_value=None,
                          compressors=numcodecs.Zlib(1))
    f[:2, :3] = np.array([["a", "bb", "ccc"], ["", "e", "f"]], dtype=object)
    f.attrs["_ARRAY_DIMENSIONS"] = ["y", "x"]
    b = root.create_array("b", shape=(3,), chunks=(3,), dtype=VariableLengthBytes())
    b[:] = np.array([b"\xff", b"", b"z"], dtype=object)
    b.attrs["_ARRAY_DIMENSIONS"] = ["m"]
    zarr.consolidate_metadata(path)
    add_store(seeds, "zarr3-objects", path)


def v3_stores(tmp, seeds):
    """Zarr v3 as zarr-python 3 writes it: every core codec, both chunk key
    encodings, transpose, sharding, strings, groups, consolidated or not."""
    import warnings

    import numpy as np
    import zarr
    from zarr.codecs import BloscCodec, Crc32cCodec, GzipCodec, TransposeCodec, ZstdCodec

    warnings.simplefilter("ignore")
    for consolidated in (True, False):
        name = "zarr3-v3" + ("" if consolidated else "-noconsolidated")
        path = tmp / name
        g = zarr.open_group(path, mode="w")
        g.attrs.update({"title": "v3", "nan": float("nan"), "big": 2**63 - 1, "list": [1, 2.5]})
        a = g.create_array("t", shape=(5, 4), chunks=(2, 3), dtype="int32", dimension_names=["y", "x"], fill_value=-1)
        a[:] = np.arange(20).reshape(5, 4)
        b = g.create_array("f", shape=(4,), chunks=(3,), dtype=">f8", dimension_names=["x"], fill_value="NaN")
        b[:] = [1.5, 2.5, np.nan, -4]
        s = g.create_group("sub")
        c = s.create_array("u", shape=(3,), chunks=(2,), dtype="uint16", compressors=[GzipCodec(level=5)],
                           dimension_names=[None])
        c[:2] = [7, 8]
        e = g.create_array("sc", shape=(), dtype="float32", fill_value=3.5)
        e[()] = 9.25
        w = g.create_array("w", shape=(3,), chunks=(3,), dtype="<U4", dimension_names=["x3"])
        w[:] = ["ab", "cd\u00e9", ""]
        bl = g.create_array("bl", shape=(6,), chunks=(4,), dtype="float32",
                            compressors=[BloscCodec(cname="lz4", shuffle="bitshuffle")], dimension_names=["n"])
        bl[:] = np.arange(6) / 2
        crc = g.create_array("crc", shape=(6,), chunks=(4,), dtype="int64",
                             compressors=[ZstdCodec(level=3, checksum=True), Crc32cCodec()], dimension_names=["n"])
        crc[:] = np.arange(6) * -3
        sh = g.create_array("sh", shape=(8,), chunks=(2,), shards=(4,), dtype="int32", dimension_names=["m"])
        sh[:] = np.arange(8)
        st = g.create_array("s", shape=(3,), dtype=str, dimension_names=["k"])
        st[:] = ["a", "bb", "ccc"]
        k2 = g.create_array("k2", shape=(2, 3), chunks=(1, 2), dtype="uint8",
                            chunk_key_encoding={"name": "v2", "separator": "."}, dimension_names=["p", "q"])
        k2[:] = [[1, 2, 3], [4, 5, 6]]
        tp = g.create_array("tp", shape=(2, 3), chunks=(2, 3), dtype="int16", filters=[TransposeCodec(order=[1, 0])],
                            dimension_names=["p", "q3"])
        tp[:] = [[1, 2, 3], [4, 5, 6]]
        if consolidated:
            zarr.consolidate_metadata(path)
        add_store(seeds, name, path)
    v3_shard_stores(tmp, seeds)


def v3_shard_stores(tmp, seeds):
    """Shards as the reader walks them: shards inside shards (indexes at
    either end, with and without CRC, gzip inside), a transpose before
    the shards and inside them, float16 in shards."""
    import warnings

    import numpy as np
    import zarr
    import zarr.codecs as zc

    warnings.simplefilter("ignore")
    path = tmp / "zarr3-shards"
    g = zarr.open_group(path, mode="w")
    n = g.create_array("nested", shape=(6, 8), chunks=(4, 4), dtype="int16", fill_value=-1, compressors=None,
                       serializer=zc.ShardingCodec(chunk_shape=(2, 4), index_location="start", codecs=[
                           zc.ShardingCodec(chunk_shape=(1, 2), index_codecs=[zc.BytesCodec()],
                                            codecs=[zc.BytesCodec(), zc.GzipCodec(level=1)])]),
                       dimension_names=["y", "x"])
    n[:5, 1:] = np.arange(35).reshape(5, 7)
    t = g.create_array("transposed", shape=(5, 6), chunks=(4, 6), dtype="int32", fill_value=7,
                       filters=[zc.TransposeCodec(order=(1, 0))], compressors=None,
                       serializer=zc.ShardingCodec(chunk_shape=(2, 1), codecs=[
                           zc.TransposeCodec(order=(1, 0)), zc.BytesCodec()]),
                       dimension_names=["r", "c"])
    t[1:, :] = np.arange(24).reshape(4, 6)
    h = g.create_array("half", shape=(7,), chunks=(2,), shards=(4,), dtype="float16", fill_value="NaN",
                       dimension_names=["k"])
    h[:5] = [0.1, -65504, np.inf, 2**-24, 3]
    zarr.consolidate_metadata(path)
    add_store(seeds, "zarr3-shards", path)


def zip_seeds(tmp, seeds):
    """Zip archives (the zip target): both layouts we write, a zarr-python
    ZipStore with the duplicates its rewrites leave, deflated entries with
    data descriptors beside junk, and a small zip64 archive."""
    import io
    import warnings
    import zipfile

    import numpy as np
    import zarr

    warnings.simplefilter("ignore")
    cdl = tmp / "tiny.cdl"
    cdl.write_text('netcdf tiny {\ndimensions: x = 4 ;\nvariables: int v(x) ; v:units = "m" ;\n'
                   'data: v = 1, 2, 3, 4 ;\n}\n')
    env = dict(os.environ, LD_LIBRARY_PATH=str(LIB))
    for name, frag in [("netcdf_c_layout", "mode=nczarr,zip"), ("root_layout", "mode=zarr,zip&zip_layout=root")]:
        out = tmp / f"{name}.zip"
        subprocess.run(["ncgen", "-k", "nc4", "-o", f"file://{out}#{frag}", str(cdl)], check=True, env=env)
        seeds.add("zip", name, out.read_bytes())
    path = tmp / "zp.zip"
    store = zarr.storage.ZipStore(path, mode="w")
    g = zarr.open_group(store, mode="w", zarr_format=2)
    a = g.create_array("v", shape=(4,), chunks=(2,), dtype="i4", compressors=None)
    a[:] = np.arange(4)
    store.close()
    store = zarr.storage.ZipStore(path, mode="a")
    zarr.open_group(store, mode="a", zarr_format=2)["v"][0:2] = [7, 7]
    store.close()
    seeds.add("zip", "zarr_python_duplicates", path.read_bytes())

    class Unseekable(io.RawIOBase):
        def __init__(self):
            self.data = bytearray()

        def writable(self):
            return True

        def write(self, b):
            self.data += b
            return len(b)

    stream = Unseekable()
    with zipfile.ZipFile(stream, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("d.zarr/.zgroup", b'{"zarr_format":2}')
        z.writestr("d.zarr/v/.zarray", b'{"zarr_format":2,"shape":[4],"chunks":[4],"dtype":"<i2","compressor":null,'
                                       b'"fill_value":0,"order":"C","filters":null}')
        z.writestr("d.zarr/v/0", bytes(range(8)) * 4)
        z.writestr("__MACOSX/._x", b"junk")
    seeds.add("zip", "descriptors_deflated", bytes(stream.data))
    saved = zipfile.ZIP64_LIMIT, zipfile.ZIP_FILECOUNT_LIMIT
    zipfile.ZIP64_LIMIT, zipfile.ZIP_FILECOUNT_LIMIT = 100, 3
    try:
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w") as z:
            for k, v in [(".zgroup", b'{"zarr_format":2}'), ("v/.zarray", b"x" * 200), ("v/0", b"1" * 8),
                         ("v/1", b"2" * 8)]:
                z.writestr(zipfile.ZipInfo(k, (2024, 1, 1, 0, 0, 0)), v)
        seeds.add("zip", "zip64_small", buf.getvalue())
    finally:
        zipfile.ZIP64_LIMIT, zipfile.ZIP_FILECOUNT_LIMIT = saved


ZARR2_SCRIPT = """
import sys, numpy as np, zarr, numcodecs
root = zarr.open_group(sys.argv[1], mode="w")
root.attrs["title"] = "zarr2"
a = root.create_dataset("blosc", shape=(8, 12), chunks=(4, 8), dtype="<f4",
                        compressor=numcodecs.Blosc(cname="lz4", clevel=5, shuffle=1, blocksize=64))
a[:] = (np.arange(96) % 13).reshape(8, 12)
a.attrs["_ARRAY_DIMENSIONS"] = ["y", "x"]
b = root.create_dataset("f", shape=(3, 5), chunks=(2, 2), dtype=">i8", order="F", dimension_separator="/",
                        filters=[numcodecs.Shuffle(elementsize=8)], compressor=numcodecs.Zlib(level=3))
b[:] = np.arange(15).reshape(3, 5)
g = root.create_group("g")
c = g.create_dataset("u", shape=(4,), chunks=(4,), dtype="<U3", fill_value="")
c[:] = ["a", "bb", "ccc", ""]
zarr.consolidate_metadata(sys.argv[1])
"""


ZARR2_OBJECTS_SCRIPT = """
import sys, numpy as np, zarr, numcodecs
root = zarr.open_group(sys.argv[1], mode="w")
s = root.create_dataset("s", shape=(5,), chunks=(2,), dtype=str)
s[:3] = np.array(["a", "", "\u00e9\u20ac"], dtype=object)
s.attrs["_ARRAY_DIMENSIONS"] = ["n"]
b = root.create_dataset("b", shape=(3,), chunks=(2,), dtype=object, object_codec=numcodecs.VLenBytes(),
                        compressor=None)
b[:2] = np.array([b"\\xff", b"z"], dtype=object)
b.attrs["_ARRAY_DIMENSIONS"] = ["m"]
zarr.consolidate_metadata(sys.argv[1])
"""


# --------------------------------------------------------------------------
# Codec seeds: fuzz/src/codecs.rs's header, then the stored chunk (decode)
# or the chunk (round trip).

CODEC_IDS = {"zlib": 0, "gzip": 1, "shuffle": 2, "fletcher32": 3, "bz2": 4, "zstd": 5, "lz4": 6, "blosc": 7}
CNAMES = ["lz4", "lz4hc", "zlib", "zstd", "blosclz", "snappy", "lz5"]


def codec_header(which, flags, size, level, expected):
    return bytes([which, flags, (size - 1) % 16, level & 0xFF]) + struct.pack("<I", expected)


def codec_seeds(seeds):
    import numcodecs
    import numpy as np

    data = [
        ("ramp-f4", ((np.arange(256) % 13) * 0.5).astype("<f4").tobytes(), 4),
        ("noise-i2", (np.random.default_rng(7).integers(-300, 300, 300)).astype("<i2").tobytes(), 2),
        ("bytes", b"abcabcabcabcxyz" * 9, 1),
        ("wide", np.arange(40, dtype="<f8").tobytes(), 8),
    ]
    for dname, raw, size in data:
        plain = [
            ("zlib", numcodecs.Zlib(level=5), 5),
            ("gzip", numcodecs.GZip(level=1), 1),
            ("shuffle", numcodecs.Shuffle(elementsize=size), 0),
            ("fletcher32", numcodecs.Fletcher32(), 0),
            ("bz2", numcodecs.BZ2(level=9), 9),
            ("zstd", numcodecs.Zstd(level=3), 3),
            ("lz4", numcodecs.LZ4(), 1),
        ]
        for cname, codec, level in plain:
            enc = no_gzip_time(codec.encode(raw))
            seeds.add("codec", f"{cname}-{dname}", codec_header(CODEC_IDS[cname], 0, size, level, len(raw)) + bytes(enc))
            seeds.add("codec", f"{cname}-{dname}-rt", codec_header(CODEC_IDS[cname], 1, size, level, 0) + raw)
        for inner in ["lz4", "lz4hc", "zlib", "zstd", "blosclz"]:
            for shuffle in (0, 1, 2):
                for blocksize in (0, 128):
                    codec = numcodecs.Blosc(cname=inner, clevel=5, shuffle=shuffle, blocksize=blocksize)
                    enc = codec.encode(raw)
                    flags = (shuffle << 1) | (CNAMES.index(inner) << 3)
                    seeds.add("codec", f"blosc-{inner}-{shuffle}-{blocksize}-{dname}",
                              codec_header(CODEC_IDS["blosc"], flags, size, 5, len(raw)) + bytes(enc))
            seeds.add("codec", f"blosc-{inner}-{dname}-rt",
                      codec_header(CODEC_IDS["blosc"], 1 | 2 | (CNAMES.index(inner) << 3), size, 5, 0) + raw)
        # Chains: shuffle+zlib (8), fletcher32+zstd (9), shuffle+blosc (10).
        sh = numcodecs.Shuffle(elementsize=size).encode(raw)
        seeds.add("codec", f"chain-shuffle-zlib-{dname}",
                  codec_header(8, 0, size, 4, len(raw)) + bytes(numcodecs.Zlib(level=4).encode(sh)))
        fl = numcodecs.Fletcher32().encode(raw)
        seeds.add("codec", f"chain-fletcher-zstd-{dname}",
                  codec_header(9, 0, size, 3, len(raw)) + bytes(numcodecs.Zstd(level=3).encode(fl)))
        seeds.add("codec", f"chain-shuffle-blosc-{dname}",
                  codec_header(10, 2, size, 5, len(raw)) + bytes(numcodecs.Blosc(cname="lz4", shuffle=1).encode(sh)))
    # Several blocks, split into byte planes, the last one shorter and
    # not split (c-blosc's rule; src/codec/testdata holds the same frame).
    many = (np.arange(250000, dtype="<u4") // 7).astype("<u4")
    seeds.add("codec", "blosc-lz4-leftover-block",
              codec_header(CODEC_IDS["blosc"], 2, 4, 5, many.nbytes)
              + bytes(numcodecs.Blosc(cname="lz4", clevel=5, shuffle=1, blocksize=65536).encode(many)))


# --------------------------------------------------------------------------
# Text targets.

NAMES = [
    "file:///abs/path/d.zarr#mode=nczarr,file",
    "file://rel/d.zarr#mode=nczarr,file",
    "/abs/path/d.zarr#mode=nczarr,file",
    "file:///p/d.zarr#mode=nczarr",
    "file:///p/d.zarr#mode=zarr,file",
    "/abs/path/d.zarr",
    "file:///p/d.zarr#mode=nczarr,file,noconsolidated",
    "file:///p/d.zarr#mode=nczarr,file&nczarr_layout=4.9.0",
    "file:///p/d.zarr#zarr&log",
    "file:///p/d.zarr#xarray&aws.region=x&aws.region=y",
    "file:///p/d.zarr#noxarray",
    "file:///a%20b#mode=nczarr,s3",
    "https://host/p#mode=nczarr",
    "C:/x.zarr#mode=zarr",
    "file:///p?query#MODE=NCZARR,ZIP&mode=bytes",
    "s3://bkt/a/b.zarr",
    "https://bkt.s3.us-west-2.amazonaws.com/a/b.zarr#mode=zarr",
    "https://s3.amazonaws.com/bkt/k#log&aws.profile=no",
    "http://127.0.0.1:9000/bkt/a//b/#mode=nczarr,s3&s3.concurrency=8",
    "https://bkt.s3.eu-1.example.org:8443/x#mode=s3",
    "gs3://bkt/x#mode=xarray",
    "http://[::1]:9/b/sp%20ace%23#s3",
    "https://data.example.org/zarr/t.zarr#mode=zarr,http",
]

URIS = [
    "http://user:pwd@host:8080/path/x.nc?k=v&k2#frag=1&mode=dap4",
    "[log][show=fetch]https://h/p?q#f",
    "file:///abs/x.zarr#mode=nczarr,file",
    "file://rel.zarr#mode=zarr",
    "file:D:/x#mode=nczarr",
    "file:/p",
    "s3://bucket/key#mode=nczarr,s3",
    "https://h/p\\#x?a=%20b",
]

UNITS = ["days since 1970-01-01", "hours since 1-1-1 0:0:0", "seconds since 2000-01-01T12:30:45.5Z",
         "minutes since 1582-10-10", "months since 1900-1-1", "years since -100-1-1", "weeks since 2020-2-29 6:00",
         "common_year since 1", "days since 1970-01-01 00:00:00 +0530"]
DATES = ["1970-01-01", "2000-2-29 12:30:15.25", "1582-10-10", "-4713-1-1", "99999-12-31 23:59:59", "0-0-0", "2000-13-40"]

SPECS = ["32001,0,0,0,256,5,1,1|307,9", "[1]1,6", "32015,3u", "1,1.5f,2.5d,3l,4ul,5b,6s,7us,-8,9.", "32004|", "2,|3",
         "4,32,32", "1,0x10,010", "307,9999999999999999999", "[x]1"]


def vlen_seeds(seeds):
    """fuzz/src/vlens.rs: chunks numcodecs encodes (mode 0), and elements
    separated by NUL bytes for round trips (mode 1, 3: reversed text)."""
    import numcodecs
    import numpy as np

    arrays = {
        "empty": [],
        "one": ["a"],
        "mixed": ["a", "bc", "", "d\u00e9f", "\U0001f600"],
        "blanks": ["", "", ""],
        "long": ["x" * 300, "y"],
    }
    for name, items in arrays.items():
        data = np.array(items, dtype=object)
        seeds.add("vlen", f"utf8-{name}", b"\0" + bytes(numcodecs.VLenUTF8().encode(data)))
        raw = np.array([i.encode() for i in items], dtype=object)
        seeds.add("vlen", f"bytes-{name}", b"\0" + bytes(numcodecs.VLenBytes().encode(raw)))
    not_utf8 = np.array([b"\xff\xfe", b"z"], dtype=object)
    seeds.add("vlen", "bytes-not-utf8", b"\0" + bytes(numcodecs.VLenBytes().encode(not_utf8)))
    for mode in (1, 3):
        seeds.add("vlen", f"round-trip-{mode}", bytes([mode]) + b"a\0bc\0\0d\xc3\xa9f")


def text_seeds(seeds):
    for i, n in enumerate(NAMES):
        seeds.add("url", f"name-{i}", n.encode())
    for i, u in enumerate(URIS):
        for flags in (0, 63):
            seeds.add("ncuri", f"uri-{i}-{flags}", bytes([flags]) + u.encode())
    calendars = range(9)
    for i, units in enumerate(UNITS):
        date = DATES[i % len(DATES)]
        head = bytes([i % 9, i % 8, ord(" ")]) + struct.pack("<d", 36524.25 * (i + 1))
        human = struct.pack("<qhhdq", 1970 + 10 * i, 1 + i % 12, 1 + i, 6.5, 0)
        text = (units + date).encode()
        seeds.add("cdtime", f"cd-{i}", head + human + bytes([len(units)]) + text)
    for c in calendars:
        seeds.add("cdtime", f"cal-{c}", bytes([c, c % 8, ord("T")]) + struct.pack("<d", -1e5) +
                  struct.pack("<qhhdq", -4713, 1, 1, 0.0, 1) + bytes([20]) + b"days since 1582-10-04" + b"1582-10-15 1:2:3")
    for i, s in enumerate(SPECS):
        seeds.add("filterspec", f"spec-{i}", s.encode())
    # attrs round trip (odd first byte): a type index, then arbitrary's bytes.
    for t in range(12):
        seeds.add("attrs", f"rt-{t}", bytes([1, t]) + bytes(range(1, 40)))


def parquet_seeds(seeds):
    """Record files of kerchunk's Parquet references (fuzz target
    `parquet`), as fsspec's LazyReferenceMapper writes them with each
    engine, and variants: other codecs, dictionary-encoded paths, several
    row groups, data page v2, 32-bit integers, one column only."""
    import numpy as np
    import pandas as pd

    n = 6
    paths = np.full(n, np.nan, dtype="O")
    offsets = np.zeros(n, dtype="int64")
    sizes = np.zeros(n, dtype="int64")
    raws = np.full(n, np.nan, dtype="O")
    for i in (0, 1, 3):
        paths[i], offsets[i], sizes[i] = "s3://bucket/data/file.nc", 4096 * i + 100, 4000
    paths[4] = "file:///data/whole.bin"
    raws[5] = b"\x00\x01inline chunk"
    frame = pd.DataFrame({"path": paths, "offset": offsets, "size": sizes, "raw": raws})
    with tempfile.TemporaryDirectory() as d:
        out = pathlib.Path(d) / "r.parq"

        def add(name, write):
            write(out)
            seeds.add("parquet", name, out.read_bytes())

        fastparquet_args = dict(engine="fastparquet", index=False, stats=False,
                                object_encoding={"raw": "bytes", "path": "utf8"}, has_nulls=["path", "raw"])
        add("fastparquet-zstd", lambda o: frame.to_parquet(o, compression="zstd", **fastparquet_args))
        add("fastparquet-none", lambda o: frame.to_parquet(o, compression=None, **fastparquet_args))
        categorical = frame.assign(path=frame["path"].astype("category"))
        add("fastparquet-category", lambda o: categorical.to_parquet(o, compression="zstd", **fastparquet_args))
        pyarrow_args = dict(engine="pyarrow", index=False, write_statistics=False)
        add("pyarrow-zstd", lambda o: frame.to_parquet(o, compression="zstd", **pyarrow_args))
        add("pyarrow-category", lambda o: categorical.to_parquet(o, compression="zstd", **pyarrow_args))
        for codec in ("snappy", "gzip", "lz4", None):
            add(f"pyarrow-{codec}", lambda o: frame.to_parquet(o, compression=codec, **pyarrow_args))
        add("pyarrow-v2-pages", lambda o: frame.to_parquet(o, compression="zstd", data_page_version="2.0",
                                                            **pyarrow_args))
        add("pyarrow-row-groups", lambda o: frame.to_parquet(o, compression="zstd", row_group_size=2, **pyarrow_args))
        narrow = frame.assign(offset=frame["offset"].astype("int32"), size=frame["size"].astype("int32"))
        add("pyarrow-int32", lambda o: narrow.to_parquet(o, compression="zstd", **pyarrow_args))
        add("pyarrow-raw-only", lambda o: frame[["raw"]].to_parquet(o, compression="zstd", **pyarrow_args))


def main():
    if sys.argv[1:] == ["parquet"]:
        seeds = Seeds()
        parquet_seeds(seeds)
        seeds.write()
        return
    if not (LIB / "libnetcdf.so").exists():
        sys.exit(f"build the library first (make build): no {LIB / 'libnetcdf.so'}")
    seeds = Seeds()
    with tempfile.TemporaryDirectory() as d:
        tmp = pathlib.Path(d)
        netcdf_c_stores(tmp, seeds)
        debian_and_our_stores(tmp, seeds)
        legacy_stores(seeds)
        zarr_python_stores(tmp, seeds)
        zip_seeds(tmp, seeds)
    codec_seeds(seeds)
    vlen_seeds(seeds)
    text_seeds(seeds)
    parquet_seeds(seeds)
    seeds.write()


if __name__ == "__main__":
    main()
