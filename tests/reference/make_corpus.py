"""The corpus of the reference (kerchunk / VirtualiZarr) tests.

`build_files(dir)` writes netCDF files with netcdf-c (the library inside the
pinned netCDF4 wheel, 4.10.1):

  plain.nc       netCDF-4, contiguous (uncompressed) variables of several
                 types, a CF time coordinate, packed shorts, attributes
  compressed.nc  netCDF-4, chunked, zlib + shuffle (+ fletcher32 on one
                 variable), an unlimited time, _FillValue and chunks never
                 written (so absent from the references)
  groups.nc      netCDF-4 with nested groups
  classic.nc     netCDF-3 classic, two record variables and fixed ones
  series_0..2.nc three netCDF-4 files of 4 time steps each

`build_refs(dir, url_of)` makes reference files for them with kerchunk
(0.2.10) and VirtualiZarr (2.5.1), the target files named by `url_of(name)`
(a local path, file:// URL or s3:// URL); `build_handmade(dir, target)`
writes the references written by hand (templates and gen) and the bad ones.
Each reference is described in the returned list of `Ref`s: which tool made
it, the original files it stands for and how they combine.
`build_parquet(dir, ...)` makes Parquet references (fsspec's
LazyReferenceMapper layout, written with fastparquet and pyarrow) from the
JSON ones, and `build_bad_parquet` the bad Parquet ones.

Run as a script it builds the local corpus into a directory and checks every
reference with fsspec's ReferenceFileSystem + zarr-python against
netCDF4-python's read of the original files (verify.py)."""

import base64
import copy
import dataclasses
import json
import pathlib
import sys
import warnings

import netCDF4
import numpy as np

# The three files of the series: 4 steps each, 12 in all.
SERIES = ["series_0.nc", "series_1.nc", "series_2.nc"]
STEPS = 4


@dataclasses.dataclass
class Ref:
    name: str  # the reference file's name, e.g. "plain.kerchunk.v1.json"
    tool: str  # "kerchunk", "virtualizarr", "hand"
    sources: list  # the original .nc files it stands for
    group: str = "/"  # the group of the source that is the reference's root
    concat: str = None  # the dimension the sources are concatenated along
    # Variables of the source the reference leaves out (a tool's choice).
    missing: tuple = ()


def _values(shape, seed, dtype):
    """Deterministic values, different per variable, exact in every type."""
    n = int(np.prod(shape))
    v = (np.arange(n, dtype=np.int64) * 7919 + seed * 104729) % 20011 - 10005
    return v.reshape(shape).astype(dtype)


def _common_atts(ds, title):
    ds.title = title
    ds.institution = "nczarr-rs tests"
    ds.setncattr("version", np.int32(3))
    ds.setncattr("valid_years", np.array([1999, 2000, 2001], dtype=np.int32))
    ds.setncattr("scale", np.float64(0.125))


def make_plain(path):
    with netCDF4.Dataset(path, "w", format="NETCDF4") as ds:
        _common_atts(ds, "plain netCDF-4, contiguous")
        ds.createDimension("time", 6)
        ds.createDimension("lat", 5)
        ds.createDimension("lon", 8)
        t = ds.createVariable("time", "f8", ("time",), contiguous=True)
        t.units = "days since 2000-01-01"
        t.calendar = "standard"
        t.standard_name = "time"
        t[:] = np.arange(6) * 1.5
        lat = ds.createVariable("lat", "f4", ("lat",), contiguous=True)
        lat.units = "degrees_north"
        lat[:] = np.linspace(-60, 60, 5)
        lon = ds.createVariable("lon", "f4", ("lon",), contiguous=True)
        lon.units = "degrees_east"
        lon[:] = np.arange(8) * 45.0
        shape = (6, 5, 8)
        temp = ds.createVariable("temp", "f4", ("time", "lat", "lon"), contiguous=True)
        temp.units = "K"
        temp.long_name = "air temperature"
        temp.valid_range = np.array([-20000.0, 20000.0], dtype=np.float32)
        temp[:] = _values(shape, 1, np.float32) / 8
        pres = ds.createVariable("pres", "f8", ("time", "lat", "lon"), contiguous=True)
        pres.units = "hPa"
        pres[:] = _values(shape, 2, np.float64) / 3
        count = ds.createVariable("count", "i4", ("time", "lat", "lon"), contiguous=True)
        count[:] = _values(shape, 3, np.int32) * 1000
        # Packed: the stored shorts are what must come back (the library
        # does not unpack); xarray would unpack.
        packed = ds.createVariable("packed", "i2", ("time", "lat", "lon"), contiguous=True)
        packed.scale_factor = np.float32(0.01)
        packed.add_offset = np.float32(273.15)
        packed.set_auto_maskandscale(False)
        packed[:] = _values(shape, 4, np.int16)
        flag = ds.createVariable("flag", "i1", ("lat", "lon"), contiguous=True)
        flag.flag_values = np.array([-1, 0, 1], dtype=np.int8)
        flag[:] = (_values((5, 8), 5, np.int64) % 3 - 1).astype(np.int8)
        big = ds.createVariable("big", "i8", ("lon",), contiguous=True)
        big[:] = np.arange(8, dtype=np.int64) * 3_000_000_000_000 - 7
        u = ds.createVariable("ushort", "u2", ("lon",), contiguous=True)
        u[:] = np.arange(8, dtype=np.uint16) * 8000
        # Characters: Zarr "|S1"; the hand-made reference gives its chunk
        # as inline text.
        ds.createDimension("nchar", 8)
        code = ds.createVariable("code", "S1", ("nchar",), contiguous=True)
        code[:] = np.array(list("ABCDEFGH"), dtype="S1")
        # A variable that is a plain grid of uncompressed chunks: the
        # hand-made `gen` reference addresses its chunks by arithmetic.
        grid = ds.createVariable("grid", "f4", ("time", "lat", "lon"), chunksizes=(1, 5, 8))
        grid[:] = _values(shape, 6, np.float32) / 4


def make_compressed(path):
    with netCDF4.Dataset(path, "w", format="NETCDF4") as ds:
        _common_atts(ds, "netCDF-4, zlib + shuffle, chunked")
        ds.createDimension("time", None)
        ds.createDimension("y", 6)
        ds.createDimension("x", 10)
        t = ds.createVariable("time", "i4", ("time",), chunksizes=(4,))
        t.units = "days since 2000-01-01"
        t.calendar = "noleap"
        t[:] = np.arange(8, dtype=np.int32) * 10
        shape = (8, 6, 10)
        v = ds.createVariable("temp", "f4", ("time", "y", "x"), zlib=True, complevel=4, shuffle=True,
                              chunksizes=(2, 3, 5), fill_value=np.float32(-999.0))
        v.units = "K"
        data = _values(shape, 7, np.float32) / 16
        # Time steps 0-3 written, 4-5 never (their chunks are not
        # allocated: the references have no key for them), 6-7 written with
        # a hole of fill values.
        v[0:4] = data[0:4]
        v[6:8] = data[6:8]
        v[7, 1:3, 2:7] = np.ma.masked
        d = ds.createVariable("dbl", "f8", ("time", "y", "x"), zlib=True, complevel=1, shuffle=False,
                              chunksizes=(4, 6, 10), fill_value=np.nan)
        d[:] = _values(shape, 8, np.float64) / 7
        d[5, 0, 0] = np.ma.masked
        i = ds.createVariable("cnt", "i2", ("y", "x"), zlib=True, shuffle=True, fletcher32=True,
                              chunksizes=(3, 5), fill_value=np.int16(-1))
        i[:] = _values((6, 10), 9, np.int16)
        i[0, 0] = np.ma.masked
        # The default fill value (no _FillValue attribute), never written.
        e = ds.createVariable("empty", "f8", ("y", "x"), zlib=True, chunksizes=(3, 5))
        e.comment = "never written"


def make_groups(path):
    with netCDF4.Dataset(path, "w", format="NETCDF4") as ds:
        _common_atts(ds, "netCDF-4 with groups")
        ds.createDimension("x", 4)
        r = ds.createVariable("root_var", "f4", ("x",))
        r[:] = np.arange(4, dtype=np.float32) + 0.5
        g = ds.createGroup("obs")
        g.source = "group obs"
        g.createDimension("n", 5)
        s = g.createVariable("station", "i4", ("n",))
        s[:] = np.arange(5, dtype=np.int32) * 11
        v = g.createVariable("value", "f8", ("n", "x"), zlib=True, chunksizes=(2, 4))
        v.units = "m"
        v[:] = _values((5, 4), 10, np.float64) / 9
        deep = g.createGroup("deep")
        w = deep.createVariable("w", "i2", ("n",))
        w.note = "a variable in obs/deep on obs's dimension"
        w[:] = np.arange(5, dtype=np.int16) - 2


def make_classic(path):
    with netCDF4.Dataset(path, "w", format="NETCDF3_CLASSIC") as ds:
        _common_atts(ds, "netCDF-3 classic with records")
        ds.createDimension("time", None)
        ds.createDimension("station", 3)
        ds.createDimension("level", 4)
        t = ds.createVariable("time", "f8", ("time",))
        t.units = "days since 2000-01-01 00:00:00"
        t.calendar = "gregorian"
        t[:] = np.arange(5) * 0.25
        h = ds.createVariable("height", "f4", ("level",))
        h.units = "m"
        h[:] = np.array([10, 100, 1000, 10000], dtype=np.float32)
        # Two record variables: in a classic file their records interleave
        # (time 0 of temp, time 0 of rain, time 1 of temp...).
        temp = ds.createVariable("temp", "f4", ("time", "station", "level"))
        temp.units = "K"
        temp[:] = _values((5, 3, 4), 11, np.float32) / 2
        rain = ds.createVariable("rain", "i2", ("time", "station"), fill_value=np.int16(-99))
        rain[:] = _values((5, 3), 12, np.int16)
        rain[2, 1] = np.ma.masked
        elev = ds.createVariable("elev", "i4", ("station",))
        elev[:] = np.array([5, 1500, -20], dtype=np.int32)
        b = ds.createVariable("code", "i1", ("station",))
        b[:] = np.array([-128, 0, 127], dtype=np.int8)


def make_series(directory):
    for k, name in enumerate(SERIES):
        with netCDF4.Dataset(directory / name, "w", format="NETCDF4") as ds:
            _common_atts(ds, "a time series in 3 files")
            ds.createDimension("time", None)
            ds.createDimension("x", 3)
            t = ds.createVariable("time", "f8", ("time",))
            t.units = "days since 2000-01-01"
            t.calendar = "standard"
            t[:] = (np.arange(STEPS) + k * STEPS) * 0.5
            x = ds.createVariable("x", "f4", ("x",))
            x[:] = np.array([1.0, 2.0, 4.0], dtype=np.float32)
            v = ds.createVariable("temp", "f4", ("time", "x"), zlib=True, chunksizes=(2, 3))
            v.units = "K"
            v[:] = _values((STEPS, 3), 13 + k, np.float32) / 4


def build_files(directory):
    directory = pathlib.Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    make_plain(directory / "plain.nc")
    make_compressed(directory / "compressed.nc")
    make_groups(directory / "groups.nc")
    make_classic(directory / "classic.nc")
    make_series(directory)
    return directory


# ---------------------------------------------------------------------------
# References made by the tools.


def to_v0(refs):
    """Version 0 of the format: the refs dict alone at top level (no
    templates, every value inline text or [url, offset, length])."""
    assert "templates" not in refs and "gen" not in refs
    return dict(refs["refs"])


def _dump(path, refs):
    with open(path, "w") as f:
        json.dump(refs, f, indent=1, sort_keys=True)


def _kerchunk_hdf(url, storage_options, inline=0):
    from kerchunk.hdf import SingleHdf5ToZarr

    # kerchunk warns (with a traceback) of each variable it leaves out.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return SingleHdf5ToZarr(url, storage_options=storage_options, inline_threshold=inline).translate()


def _kerchunk_nc3(url, storage_options, inline=0):
    from kerchunk.netCDF3 import NetCDF3ToZarr

    return NetCDF3ToZarr(url, storage_options=storage_options, inline_threshold=inline).translate()


def _virtualizarr(url, registry, classic=False, group=None, storage_options=None):
    from virtualizarr import open_virtual_dataset
    from virtualizarr.parsers import HDFParser, NetCDF3Parser

    # The NetCDF3Parser is kerchunk's NetCDF3ToZarr, reading through fsspec
    # (not the obstore registry): it takes fsspec's options.
    parser = (NetCDF3Parser(reader_options={"storage_options": storage_options or {}}) if classic
              else HDFParser(group=group))
    return open_virtual_dataset(url, registry=registry, parser=parser)


def build_refs(out, url_of, storage_options=None, registry=None, tag="local"):
    """Reference files for the corpus made by the tools, written into `out`
    with names <case>.<tool>[.<variant>].<tag>.json; `url_of(name)` is the URL
    the tools read each .nc file from (and so the target the references
    name); `storage_options` are fsspec's (kerchunk), `registry` an
    obstore registry (VirtualiZarr)."""
    import xarray as xr
    from kerchunk.combine import MultiZarrToZarr

    out = pathlib.Path(out)
    so = storage_options or {}
    made = []

    def ref(name, tool, sources, refs, **kw):
        _dump(out / name, refs)
        made.append(Ref(name, tool, sources, **kw))

    for case in ("plain", "compressed", "groups"):
        src = f"{case}.nc"
        # kerchunk leaves out a variable with fletcher32 (with a warning).
        missing = ("cnt",) if case == "compressed" else ()
        refs = _kerchunk_hdf(url_of(src), so)
        ref(f"{case}.kerchunk.v1.{tag}.json", "kerchunk", [src], refs, missing=missing)
        ref(f"{case}.kerchunk.v0.{tag}.json", "kerchunk", [src], to_v0(refs), missing=missing)
    # kerchunk inlines chunks smaller than inline_threshold bytes: base64
    # (or text) values in place of [url, offset, length].
    ref(f"plain.kerchunk.inline.{tag}.json", "kerchunk", ["plain.nc"], _kerchunk_hdf(url_of("plain.nc"), so, 300))
    refs = _kerchunk_nc3(url_of("classic.nc"), so)
    ref(f"classic.kerchunk.v1.{tag}.json", "kerchunk", ["classic.nc"], refs)
    ref(f"classic.kerchunk.v0.{tag}.json", "kerchunk", ["classic.nc"], to_v0(refs))

    singles = [_kerchunk_hdf(url_of(s), so) for s in SERIES]
    # A fresh s3fs instance: the cached one is bound to the event loop
    # kerchunk's HDF5 scan used, which zarr-python's is not.
    remote = {**so, "skip_instance_cache": True} if so else so
    combined = MultiZarrToZarr(singles, remote_protocol=None if not so else "s3", remote_options=remote,
                               concat_dims=["time"],
                               # Nothing inlined over S3: MultiZarrToZarr fetches what it
                               # inlines through an s3fs bound to another event loop.
                               inline_threshold=500 if not so else 0).translate()
    ref(f"series.kerchunk.v1.{tag}.json", "kerchunk", SERIES, combined, concat="time")

    if registry is not None:
        for case in ("plain", "compressed"):
            vds = _virtualizarr(url_of(f"{case}.nc"), registry)
            vds.vz.to_kerchunk(out / f"{case}.virtualizarr.{tag}.json", format="json")
            made.append(Ref(f"{case}.virtualizarr.{tag}.json", "virtualizarr", [f"{case}.nc"]))
        vds = _virtualizarr(url_of("groups.nc"), registry, group="obs")
        vds.vz.to_kerchunk(out / f"groups-obs.virtualizarr.{tag}.json", format="json")
        # VirtualiZarr's HDFParser takes one group, without its subgroups.
        made.append(Ref(f"groups-obs.virtualizarr.{tag}.json", "virtualizarr", ["groups.nc"], group="/obs",
                        missing=("deep/w",)))
        vds = _virtualizarr(url_of("classic.nc"), registry, classic=True, storage_options=so)
        vds.vz.to_kerchunk(out / f"classic.virtualizarr.{tag}.json", format="json")
        made.append(Ref(f"classic.virtualizarr.{tag}.json", "virtualizarr", ["classic.nc"]))
        parts = [_virtualizarr(url_of(s), registry) for s in SERIES]
        vds = xr.concat(parts, dim="time", coords="minimal", compat="override", combine_attrs="override")
        vds.vz.to_kerchunk(out / f"series.virtualizarr.{tag}.json", format="json")
        made.append(Ref(f"series.virtualizarr.{tag}.json", "virtualizarr", SERIES, concat="time"))
    return made


# ---------------------------------------------------------------------------
# References written by hand, from kerchunk's of plain.nc.


def _kerchunk_refs_of(out, tag):
    with open(out / f"plain.kerchunk.v1.{tag}.json") as f:
        return json.load(f)["refs"]


def build_handmade(out, files_dir, url_of, tag="local"):
    """plain.gen.<tag>.json: plain.nc through `templates` and `gen` (jinja
    arithmetic for the offsets of grid's chunks, with start and step), a
    `[url]` whole object (lon's values in a file of their own, lon.bin),
    inline text, inline base64 and .zattrs given as JSON objects rather than
    strings. With tag "local" also plain.relative.json, whose targets are
    relative paths (resolved against the reference file's directory)."""
    out = pathlib.Path(out)
    files_dir = pathlib.Path(files_dir)
    k = _kerchunk_refs_of(out, tag)
    target = url_of("plain.nc")
    refs = {}
    for key, value in k.items():
        if key.startswith("grid/") and not key.endswith((".zarray", ".zattrs")):
            continue  # made by gen
        if key.endswith((".zattrs", ".zgroup")):
            value = json.loads(value)  # a JSON object, not a string
        elif isinstance(value, list):
            assert value[0] == target, (value, target)
            value = ["{{u}}", value[1], value[2]]
        refs[key] = value
    # Grid's 6 chunks of 160 bytes are consecutive in the file (written
    # at once): offset = first + i * 160. Two generators, even and odd i.
    grid = sorted((key, v) for key, v in k.items() if key.startswith("grid/") and isinstance(v, list))
    first, size = grid[0][1][1], grid[0][1][2]
    assert [v[1] for _, v in grid] == [first + i * size for i in range(6)], grid
    gen = [{"key": "grid/{{i}}.0.0", "url": "{{u}}", "offset": f"{{{{{first} + i * {size}}}}}",
            "length": str(size), "dimensions": {"i": {"start": start, "stop": 6, "step": 2}}}
           for start in (0, 1)]
    # lon's 32 bytes as an object of their own: a [url] reference.
    lon = k["lon/0"]
    with open(files_dir / "plain.nc", "rb") as f:
        f.seek(lon[1])
        (files_dir / "lon.bin").write_bytes(f.read(lon[2]))
    refs["lon/0"] = ["{{lonbin}}"]
    # code's characters as inline text, time's values as inline base64.
    refs["code/0"] = "ABCDEFGH"
    with open(files_dir / "plain.nc", "rb") as f:
        t = k["time/0"]
        f.seek(t[1])
        refs["time/0"] = "base64:" + base64.b64encode(f.read(t[2])).decode()
    doc = {"version": 1, "templates": {"u": target, "lonbin": url_of("lon.bin")}, "gen": gen, "refs": refs}
    _dump(out / f"plain.gen.{tag}.json", doc)
    made = [Ref(f"plain.gen.{tag}.json", "hand", ["plain.nc"])]
    if tag == "local":
        rel = {key: (["plain.nc", v[1], v[2]] if isinstance(v, list) else v) for key, v in k.items()}
        _dump(out / "plain.relative.json", {"version": 1, "refs": rel})
        made.append(Ref("plain.relative.json", "hand", ["plain.nc"]))
    return made


# The bad references: (name, what is wrong). Each must make nc_open or
# nc_get_var fail with a netCDF error: no crash, no hang, no wrong bytes.
BAD = [
    ("bad-range-past-end", "temp's chunk extends 100 bytes past the end of plain.nc"),
    ("bad-offset-past-end", "temp's chunk starts past the end of plain.nc"),
    ("bad-short-chunk", "temp's uncompressed chunk is given 100 bytes where it has 960"),
    ("bad-missing-target", "temp's chunk is in a file that does not exist"),
    ("bad-malformed-json", "the reference file is cut short: not JSON"),
    ("bad-not-references", "JSON, but an array, not a reference object"),
    ("bad-template-self", "template u is '{{u}}': it refers to itself"),
    ("bad-template-undefined", "temp's chunk names template v, which is not defined"),
    ("bad-dotdot-key", "temp's chunk key has '..' segments"),
    ("bad-absurd-length", "temp's chunk is 2^62 bytes long"),
    ("bad-negative-offset", "temp's chunk has offset -8"),
    ("bad-version", "version 2, which does not exist"),
]


def build_bad(out, files_dir, url_of, tag="local"):
    """The bad references, written as bad-<what>.<tag>.json; returns
    {name: file name}."""
    out = pathlib.Path(out)
    size = (pathlib.Path(files_dir) / "plain.nc").stat().st_size
    k = _kerchunk_refs_of(out, tag)
    target = url_of("plain.nc")
    chunk = k["temp/0.0.0"]
    made = {}

    def put(name, doc=None, text=None):
        path = out / f"{name}.{tag}.json"
        if text is not None:
            path.write_text(text)
        else:
            _dump(path, doc)
        made[name] = path.name

    def with_temp(value, **extra):
        refs = dict(k)
        refs["temp/0.0.0"] = value
        return {"version": 1, **extra, "refs": refs}

    put("bad-range-past-end", with_temp([target, size - 860, 960]))
    put("bad-offset-past-end", with_temp([target, size + 4096, 960]))
    put("bad-short-chunk", with_temp([target, chunk[1], 100]))
    put("bad-missing-target", with_temp([url_of("no-such-file.nc"), chunk[1], chunk[2]]))
    put("bad-malformed-json", text=json.dumps({"version": 1, "refs": k})[:-200])
    put("bad-not-references", [["temp/0.0.0", chunk]])
    put("bad-template-self", with_temp(["{{u}}", chunk[1], chunk[2]], templates={"u": "{{u}}"}))
    put("bad-template-undefined", with_temp(["{{v}}", chunk[1], chunk[2]], templates={"u": target}))
    refs = dict(k)
    del refs["temp/0.0.0"]
    refs["temp/../temp/0.0.0"] = chunk
    refs["../../outside/.zarray"] = k["temp/.zarray"]
    put("bad-dotdot-key", {"version": 1, "refs": refs})
    put("bad-absurd-length", with_temp([target, chunk[1], 2**62]))
    put("bad-negative-offset", with_temp([target, -8, chunk[2]]))
    put("bad-version", {"version": 2, "refs": k})
    assert set(made) == {name for name, _ in BAD}
    return made


# ---------------------------------------------------------------------------
# Parquet references (fsspec's LazyReferenceMapper layout): a directory
# NAME.parq holding .zmetadata ({"metadata": {...}, "record_size": N}) and,
# per array, ARRAY/refs.R.parq with the columns path, offset, size, raw;
# chunk number n (the C-order ravel of its index) is row n % N of record
# n // N. A record whose chunks are all absent is not written at all.


@dataclasses.dataclass
class PqRef(Ref):
    # The JSON reference it was made from (the same Zarr metadata).
    json: str = None
    writer: str = None  # "fastparquet" (kerchunk.df.refs_to_dataframe) or "pyarrow"
    record_size: int = None


# (name stem, JSON reference stem, writer, record_size): each is made for
# tag "local" and "s3" as <stem>.<tag>.parq from <json>.<tag>.json. Small
# record sizes put a variable's chunks in several record files, the last
# one partly used; 100000 (the tools' default) puts them in one, mostly
# null rows.
PARQUET = [
    ("compressed.kerchunk.rs3", "compressed.kerchunk.v1", "fastparquet", 3),
    ("compressed.kerchunk.pyarrow.rs2", "compressed.kerchunk.v1", "pyarrow", 2),
    ("compressed.kerchunk.rs100000", "compressed.kerchunk.v1", "fastparquet", 100_000),
    ("groups.kerchunk.rs2", "groups.kerchunk.v1", "fastparquet", 2),
    ("classic.kerchunk.pyarrow.rs3", "classic.kerchunk.v1", "pyarrow", 3),
    ("series.kerchunk.rs2", "series.kerchunk.v1", "fastparquet", 2),
    ("plain.kerchunk.inline.rs3", "plain.kerchunk.inline", "fastparquet", 3),
    ("plain.kerchunk.inline.pyarrow.rs4", "plain.kerchunk.inline", "pyarrow", 4),
    # By hand from kerchunk's plain.nc: lon as a [url] whole object (lon.bin:
    # path, offset 0, size 0), code as inline text, time as inline base64.
    ("plain.hand.rs3", "plain.kerchunk.v1", "pyarrow", 3),
]
# VirtualiZarr's own Parquet output (.vz.to_kerchunk(format="parquet"),
# which is kerchunk's refs_to_dataframe): (stem, JSON stem, record_size).
PARQUET_VIRTUALIZARR = [
    ("compressed.virtualizarr.rs3", "compressed.virtualizarr", 3),
    ("series.virtualizarr.rs100000", "series.virtualizarr", 100_000),
]


def write_parquet(refs, path, writer, record_size):
    """The references `refs` (a JSON reference's "refs") as a Parquet
    directory at `path`, written as the tools write it: kerchunk's
    refs_to_dataframe (fastparquet), or LazyReferenceMapper.create with
    engine="pyarrow", filled in key order as refs_to_dataframe fills it."""
    import fsspec
    from fsspec.implementations.reference import LazyReferenceMapper
    from kerchunk.df import refs_to_dataframe

    if writer == "fastparquet":
        refs_to_dataframe({"version": 1, "refs": refs}, str(path), record_size=record_size)
        return
    assert writer == "pyarrow", writer
    out = LazyReferenceMapper.create(str(path), fs=fsspec.filesystem("file"), record_size=record_size,
                                     engine="pyarrow")
    for key in sorted(refs):
        out[key] = refs[key]
    out.flush()


def _hand_refs(refs, url_of, files_dir):
    refs = dict(refs)
    refs["lon/0"] = [url_of("lon.bin")]
    refs["code/0"] = "ABCDEFGH"
    _, offset, size = refs["time/0"]
    with open(pathlib.Path(files_dir) / "plain.nc", "rb") as f:
        f.seek(offset)
        refs["time/0"] = "base64:" + base64.b64encode(f.read(size)).decode()
    return refs


def build_parquet(out, json_dir, json_refs, files_dir, url_of, registry=None, storage_options=None, tag="local"):
    """The Parquet references of PARQUET (and PARQUET_VIRTUALIZARR with a
    registry) as <stem>.<tag>.parq directories in `out`, from the JSON
    references in `json_dir` (described by `json_refs`, a list of Ref).
    Returns [PqRef]."""
    out = pathlib.Path(out)
    json_dir = pathlib.Path(json_dir)
    by_name = {r.name: r for r in json_refs}
    made = []
    for stem, source, writer, record_size in PARQUET:
        src = by_name[f"{source}.{tag}.json"]
        with open(json_dir / src.name) as f:
            refs = json.load(f)["refs"]
        if stem.startswith("plain.hand"):
            refs = _hand_refs(refs, url_of, files_dir)
        name = f"{stem}.{tag}.parq"
        write_parquet(refs, out / name, writer, record_size)
        made.append(PqRef(name, "hand" if "hand" in stem else src.tool, src.sources, group=src.group,
                          concat=src.concat, missing=src.missing, json=src.name, writer=writer,
                          record_size=record_size))
    if registry is not None:
        import xarray as xr

        for stem, source, record_size in PARQUET_VIRTUALIZARR:
            src = by_name[f"{source}.{tag}.json"]
            if stem.startswith("series"):
                parts = [_virtualizarr(url_of(s), registry) for s in SERIES]
                vds = xr.concat(parts, dim="time", coords="minimal", compat="override", combine_attrs="override")
            else:
                vds = _virtualizarr(url_of(src.sources[0]), registry)
            name = f"{stem}.{tag}.parq"
            vds.vz.to_kerchunk(str(out / name), format="parquet", record_size=record_size)
            made.append(PqRef(name, "virtualizarr", src.sources, group=src.group, concat=src.concat,
                              missing=src.missing, json=src.name, writer="fastparquet", record_size=record_size))
    return made


def chunk_grid(zarray):
    """The number of chunks along each axis of an array (fsspec's
    LazyReferenceMapper._get_chunk_sizes): [1] for a scalar."""
    return [-(-s // c) for s, c in zip(zarray["shape"], zarray["chunks"])] or [1]


def chunk_number(index, grid):
    n = 0
    for i, g in zip(index, grid):
        n = n * g + i
    return n


# The bad Parquet references, made from compressed.kerchunk.rs3 (temp:
# 8x6x10 in 2x3x5 chunks, a 4x2x2 grid of 16 chunks, records of 3:
# refs.0.parq holds chunks 0-2). (name, what is wrong, netCDF error, when).
NC_ENCZARR, NC_ENOOBJECT = -137, -141
BAD_PARQUET = [
    ("bad-pq-zmetadata-not-json", ".zmetadata is cut short: not JSON", NC_ENCZARR, "open"),
    ("bad-pq-no-record-size", ".zmetadata has no record_size", NC_ENCZARR, "open"),
    ("bad-pq-zero-record-size", "record_size is 0", NC_ENCZARR, "open"),
    ("bad-pq-negative-record-size", "record_size is -3", NC_ENCZARR, "open"),
    ("bad-pq-metadata-not-object", "metadata is a list of pairs, not an object", NC_ENCZARR, "open"),
    ("bad-pq-dotdot-key", "a metadata key ../outside/.zarray escapes the root", NC_ENCZARR, "open"),
    ("bad-pq-record-not-parquet", "temp/refs.0.parq is text, not Parquet", NC_ENCZARR, "read"),
    ("bad-pq-record-truncated", "temp/refs.0.parq is cut to half its length", NC_ENCZARR, "read"),
    ("bad-pq-path-not-string", "temp/refs.0.parq's path column is int64", NC_ENCZARR, "read"),
    ("bad-pq-raw-not-binary", "temp/refs.0.parq's raw column is int64", NC_ENCZARR, "read"),
    ("bad-pq-short-record", "temp/refs.0.parq has 1 row: chunks 1 and 2 are past its end", NC_ENCZARR, "read"),
    ("bad-pq-missing-target", "temp's chunk 0 is in a file that does not exist", NC_ENOOBJECT, "read"),
    ("bad-pq-range-past-end", "temp's chunk 0 extends past the end of compressed.nc", NC_ENCZARR, "read"),
]


# Odd but good Parquet references made beside the bad ones.
GOOD_ODD_PARQUET = ["pq-absent-record", "pq-null-row", "pq-no-path-column", "pq-no-raw-column"]


def build_bad_parquet(out, good, files_dir, url_of, tag="local"):
    """The bad Parquet references, copies of the good directory `good`
    (compressed.kerchunk.rs3) each with one thing wrong, as
    <name>.<tag>.parq; and four odd but good ones (GOOD_ODD_PARQUET):
    pq-absent-record.<tag>.parq, where temp's refs.1.parq (chunks 3-5) is
    deleted, pq-null-row.<tag>.parq, where row 1 of temp's refs.0.parq
    (chunk 1) has a null path and raw, pq-no-path-column (refs.0.parq
    without its path column: chunks 0-2 absent) and pq-no-raw-column
    (without its raw column: every value as in the good one).
    Returns {name: directory name}."""
    import shutil

    import pyarrow as pa
    import pyarrow.parquet as pq

    out = pathlib.Path(out)
    good = pathlib.Path(good)
    meta = json.loads((good / ".zmetadata").read_text())
    assert meta["record_size"] == 3 and chunk_grid(meta["metadata"]["temp/.zarray"]) == [4, 2, 2]
    size = (pathlib.Path(files_dir) / "compressed.nc").stat().st_size
    made = {}

    def copy(name):
        d = out / f"{name}.{tag}.parq"
        if d.exists():
            shutil.rmtree(d)
        shutil.copytree(good, d)
        made[name] = d.name
        return d

    def zmetadata(name, text=None, **doc):
        d = copy(name)
        (d / ".zmetadata").write_text(text if text is not None else json.dumps(doc))

    def record(name, table=None, data=None):
        d = copy(name)
        if data is not None:
            (d / "temp" / "refs.0.parq").write_bytes(data)
        else:
            pq.write_table(table, d / "temp" / "refs.0.parq")

    text = (good / ".zmetadata").read_text()
    zmetadata("bad-pq-zmetadata-not-json", text[: len(text) // 2])
    zmetadata("bad-pq-no-record-size", metadata=meta["metadata"])
    zmetadata("bad-pq-zero-record-size", metadata=meta["metadata"], record_size=0)
    zmetadata("bad-pq-negative-record-size", metadata=meta["metadata"], record_size=-3)
    zmetadata("bad-pq-metadata-not-object", metadata=[[k, v] for k, v in meta["metadata"].items()], record_size=3)
    zmetadata("bad-pq-dotdot-key", metadata={**meta["metadata"], "../outside/.zarray": meta["metadata"]["temp/.zarray"]},
              record_size=3)

    rec0 = good / "temp" / "refs.0.parq"
    t = pq.read_table(rec0)
    assert t.num_rows == 3 and t.column("path").null_count == 0, t
    record("bad-pq-record-not-parquet", data=b"path,offset,size,raw\n" + b"compressed.nc,0,0,\n" * 3)
    record("bad-pq-record-truncated", data=rec0.read_bytes()[: rec0.stat().st_size // 2])
    # Not bad, as fsspec reads them: a record without a path column holds
    # inline chunks or none (here none: chunks 0-2 are fill); without a raw
    # column, references only.
    record("pq-no-path-column", t.drop_columns(["path"]))
    record("pq-no-raw-column", t.drop_columns(["raw"]))
    record("bad-pq-path-not-string", t.set_column(0, "path", pa.array([1, 2, 3], pa.int64())))
    record("bad-pq-raw-not-binary", t.set_column(3, "raw", pa.array([None, None, None], pa.int64())))
    record("bad-pq-short-record", t.slice(0, 1))
    paths = t.column("path").to_pylist()
    offsets = t.column("offset").to_pylist()
    sizes = t.column("size").to_pylist()
    record("bad-pq-missing-target",
           t.set_column(0, "path", pa.array([url_of("no-such-file.nc")] + paths[1:], pa.string())))
    record("bad-pq-range-past-end",
           t.set_column(1, "offset", pa.array([size - sizes[0] // 2] + offsets[1:], pa.int64())))
    d = copy("pq-absent-record")
    (d / "temp" / "refs.1.parq").unlink()
    # Chunk 1 (row 1 of refs.0.parq) a null path and a null raw: absent.
    record("pq-null-row", t.set_column(0, "path", pa.array([paths[0], None, paths[2]], pa.string())))
    assert {n for n, *_ in BAD_PARQUET} | set(GOOD_ODD_PARQUET) == set(made)
    return made


def build_local(directory):
    """The whole local corpus in one directory: the .nc files and every
    reference to them (targets as absolute paths), the hand-made and the
    bad ones. Returns (list of Ref, {bad name: file name})."""
    from obspec_utils.registry import ObjectStoreRegistry
    from obstore.store import LocalStore

    directory = build_files(directory)
    registry = ObjectStoreRegistry({"file://": LocalStore()})
    made = build_refs(directory, lambda n: str(directory / n), registry=registry, tag="local")
    # kerchunk given a file:// URL writes file:// URLs as targets.
    refs = _kerchunk_hdf(f"file://{directory / 'compressed.nc'}", {})
    _dump(directory / "compressed.kerchunk.fileurl.json", refs)
    made.append(Ref("compressed.kerchunk.fileurl.json", "kerchunk", ["compressed.nc"], missing=("cnt",)))
    made += build_handmade(directory, directory, lambda n: str(directory / n), tag="local")
    bad = build_bad(directory, directory, lambda n: str(directory / n), tag="local")
    return made, bad


def build_local_parquet(directory, refs):
    """The local Parquet references, beside the local corpus of
    build_local in `directory` (`refs` its list of Ref): returns ([PqRef],
    {bad name: directory name})."""
    from obspec_utils.registry import ObjectStoreRegistry
    from obstore.store import LocalStore

    directory = pathlib.Path(directory)
    registry = ObjectStoreRegistry({"file://": LocalStore()})
    url_of = lambda n: str(directory / n)  # noqa: E731
    made = build_parquet(directory, directory, refs, directory, url_of, registry=registry, tag="local")
    bad = build_bad_parquet(directory, directory / "compressed.kerchunk.rs3.local.parq", directory, url_of,
                            tag="local")
    return made, bad


if __name__ == "__main__":
    import os

    from verify import verify

    target = pathlib.Path(sys.argv[1]).resolve()
    refs, bad = build_local(target)
    os.chdir(target)  # fsspec resolves relative targets against the working directory
    for ref in refs:
        checked = verify(target / ref.name, ref, target)
        print(f"{ref.name}: {len(checked)} arrays equal to netcdf-c's read of {', '.join(ref.sources)}")
    print(f"bad references: {', '.join(sorted(bad.values()))}")
    pq_refs, pq_bad = build_local_parquet(target, refs)
    for ref in pq_refs:
        checked = verify(target / ref.name, ref, target)
        print(f"{ref.name}: {len(checked)} arrays equal to netcdf-c's read of {', '.join(ref.sources)}")
    print(f"bad Parquet references: {', '.join(sorted(pq_bad.values()))}")
