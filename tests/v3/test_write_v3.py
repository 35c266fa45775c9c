"""Zarr v3 writing (#mode=zarr,v3 and #mode=nczarr,v3): C programs write
through our library; zarr-python 3 and xarray must read every array right,
and our own reopen must give the same netCDF dataset as the v2 round trip.

The writers are the interop suite's (tests/interop/write_*.c: every type,
groups, unlimited growth, strings, filters, fill and NOFILL, scalars,
big-endian) plus edit_v3.c (a second session: appending, rewriting
variable-length strings, renames, a new variable), and put_values.c
writing into arrays zarr-python made (float16, shards inside shards, a
transpose before shards)."""

import copy
import json
import subprocess
import warnings
import zipfile

import numpy as np
import pytest
import xarray as xr
import zarr
import zarr.codecs as zc

import expected
from conftest import HERE, ROOT, dump, missing
from cbuild import OUR_LIBDIR, build

WRITERS = ["write_data", "write_sample", "write_filtered", "write_numeric", "write_plain"]


@pytest.fixture(scope="session")
def tools(tmp_path_factory, dumper):
    if not (OUR_LIBDIR / "libnetcdf.so").exists():
        missing(f"no {OUR_LIBDIR / 'libnetcdf.so'}: run make build")
    d = tmp_path_factory.mktemp("writers")
    out = {name: build(ROOT / "tests" / "interop" / f"{name}.c", d / name) for name in WRITERS}
    out["describe"] = build(ROOT / "tests" / "interop" / "describe.c", d / "describe")
    out["edit_v3"] = build(HERE / "edit_v3.c", d / "edit_v3")
    out["put_values"] = build(HERE / "put_values.c", d / "put_values")
    out["dump"] = dumper
    return out


def run(*args):
    result = subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, f"{args[0]} failed: {result.stderr}"
    return result.stdout


def url(path, mode):
    return f"file://{path}#mode={mode}"


def zarr_json(path):
    return json.loads((path / "zarr.json").read_text())


def zarr_python_view(path):
    """Every array of a store as zarr-python 3 reads it: path -> values."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = {}

        def walk(group, prefix):
            for name, arr in group.arrays():
                out[f"{prefix}/{name}"] = np.asarray(arr[...])
            for name, sub in group.groups():
                walk(sub, f"{prefix}/{name}")

        walk(zarr.open_group(path, mode="r"), "")
        return out


def data_problems(path, dumped):
    """Differences between the values zarr-python reads from a store and
    the values we read (types, attributes, dimensions and fills left
    aside: NCZarr keeps more of them than zarr-python sees)."""
    want = expected.expected_view(path, 3)
    for name, var in want["vars"].items():
        mine = dumped["vars"].get(name)
        if mine is None:
            continue
        if mine["type"] == "char" and var["type"] == "string" and "values" in var["data"]:
            # NCZarr's char is one-byte text for zarr-python.
            var["data"]["values"] = [ord(v) if v else 0 for v in var["data"]["values"]]
        var.update({k: copy.deepcopy(mine[k]) for k in ("type", "dims", "atts")}, fill=None)
    for g, group in want["groups"].items():
        if g in dumped["groups"]:
            group.update(copy.deepcopy(dumped["groups"][g]))
    return expected.compare(want, dumped)


@pytest.mark.parametrize("writer", WRITERS)
def test_pure_v3_reads_as_zarr_python_reads_it(tools, tmp_path, writer):
    """mode=zarr,v3: everything we read back (types, dimensions, fills,
    attributes, values) is what zarr-python sees in the store."""
    path = tmp_path / "d.zarr"
    run(tools[writer], url(path, "zarr,v3"))
    assert zarr_json(path)["zarr_format"] == 3 and not (path / ".zgroup").exists()
    want = expected.expected_view(path, 3)
    got = dump(tools["dump"], path)
    problems = expected.compare(want, got)
    assert not problems, "\n".join(problems) + "\n" + got["text"][:5000]


@pytest.mark.parametrize("writer", WRITERS)
def test_nczarr_v3_round_trip_is_the_v2_one(tools, tmp_path, writer):
    """mode=nczarr,v3: our reopen gives exactly what the v2 round trip
    gives, and zarr-python reads every value we read."""
    v3, v2 = tmp_path / "v3.zarr", tmp_path / "v2.zarr"
    run(tools[writer], url(v3, "nczarr,v3"))
    run(tools[writer], url(v2, "nczarr"))
    root = zarr_json(v3)
    assert root["attributes"]["_nczarr_superblock"] == {"version": "3.0.0"}
    assert run(tools["describe"], url(v3, "nczarr")) == run(tools["describe"], url(v2, "nczarr"))
    problems = data_problems(v3, dump(tools["dump"], v3))
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("mode", ["zarr", "nczarr"])
@pytest.mark.parametrize("writer", WRITERS)
def test_xarray_opens_and_decodes(tools, tmp_path, writer, mode):
    """xarray opens what we write (consolidated, dimension_names on every
    array) and its raw values are zarr-python's; a float _FillValue is the
    base64 xarray requires, so masking works."""
    path = tmp_path / "d.zarr"
    run(tools[writer], url(path, f"{mode},v3"))
    raw = zarr_python_view(path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ds = xr.open_zarr(path, mask_and_scale=False, decode_times=False, consolidated=True)
        masked = xr.open_zarr(path, decode_times=False, consolidated=True)
    top = {name.lstrip("/"): values for name, values in raw.items() if name.count("/") == 1}
    assert set(ds.variables) == set(top)
    for name, values in top.items():
        np.testing.assert_array_equal(ds[name].values, values, err_msg=name)
    if writer == "write_data":
        # grid: _FillValue -1 where nothing was written.
        assert ds["grid"].attrs["_FillValue"] == -1 and masked["grid"].encoding["_FillValue"] == -1
        assert np.isnan(masked["grid"].values[0, 0]) and masked["grid"].values[1, 3] == 0.5


def test_documents_are_what_zarr_python_writes(tools, tmp_path):
    """Key order, codecs, chunk keys, consolidated metadata: as zarr-python."""
    path = tmp_path / "d.zarr"
    run(tools["write_filtered"], url(path, "zarr,v3"))
    root = zarr_json(path)
    assert list(root) == ["attributes", "zarr_format", "consolidated_metadata", "node_type"]
    meta = root["consolidated_metadata"]
    assert meta["kind"] == "inline" and meta["must_understand"] is False
    array = zarr_json(path / "deflate")
    assert meta["metadata"]["deflate"] == array
    assert list(array)[:6] == ["shape", "data_type", "chunk_grid", "chunk_key_encoding", "fill_value", "codecs"]
    assert array["chunk_key_encoding"] == {"name": "default", "configuration": {"separator": "/"}}
    assert array["dimension_names"] == ["y", "x"]
    assert array["codecs"] == [
        {"name": "bytes", "configuration": {"endian": "little"}},
        {"name": "gzip", "configuration": {"level": 5}},
    ]
    names = {k: [c["name"] for c in v["codecs"]] for k, v in meta["metadata"].items()}
    assert names["chain"] == ["bytes", "numcodecs.shuffle", "numcodecs.fletcher32", "zstd"]
    assert names["blosc"] == ["bytes", "blosc"] and names["bz2"] == ["bytes", "numcodecs.bz2"]
    assert (path / "deflate" / "c" / "0" / "0").exists()
    # zarr-python reads the store without its consolidated metadata too.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        listed = zarr.open_group(path, mode="r", use_consolidated=False)
        assert sorted(listed.array_keys()) == sorted(meta["metadata"])


def test_strings_fills_and_nofill_for_zarr_python(tools, tmp_path):
    """NC_STRING is `string` with vlen-utf8, NC_CHAR one-byte text; a float
    _FillValue is base64; NOFILL writes a zero fill_value, never null."""
    path = tmp_path / "d.zarr"
    run(tools["write_data"], url(path, "nczarr,v3"))
    strs = zarr_json(path / "strs")
    assert strs["data_type"] == "string"
    assert strs["codecs"][0] == {"name": "vlen-utf8", "configuration": {}}
    chars = zarr_json(path / "chars")
    assert chars["data_type"] == {"name": "null_terminated_bytes", "configuration": {"length_bytes": 1}}
    assert chars["attributes"]["_nczarr_array"]["nczarr_type"] == "char"
    grid = zarr_json(path / "grid")
    assert grid["attributes"]["_FillValue"] == "AAAAAAAA8L8="  # -1.0 as xarray writes it
    assert grid["fill_value"] == -1.0
    path2 = tmp_path / "s.zarr"
    run(tools["write_sample"], url(path2, "nczarr,v3"))
    nofill = zarr_json(path2 / "nofill")
    assert nofill["fill_value"] == 0.0 and nofill["attributes"]["_nczarr_array"]["no_fill"] == 1


EDITED = {
    "/strs": [["a much longer string than before", "bb", "ccc", "dddd"],
              ["B", "f", "gg", "hhh"],
              ["record three", "\u00e9t\u00e9", "", "last"]],
    "/tas": [[1, 2, 3, -999], [4, 5, 6, -999], [9, 10, 11, 12]],
    "/zipped": [10, 20, 30, 40],
    "/nofill": [0, 7, 0, 0],
    "/late": [-1, -2, -3, -4],
    "/h/inner": [0.5, 1.5, 2.5, 3.5],
    "/tiles": [[0, 1, 2, 3], [4, -1, -2, 7], [8, -3, -4, 11], [12, -5, -6, 15], [16, 17, 18, 19]],
    "/names": ["n0", "n1", "third name", "n3"],
}


@pytest.mark.parametrize("mode", ["nczarr", "zarr"])
def test_second_session_edits(tools, tmp_path, mode):
    """Reopened for writing: appended records, rewritten strings (longer,
    shorter, non-ASCII, part of a chunk), renames and a new variable; what
    zarr-python reads and what we read agree with what was written."""
    path = tmp_path / "e.zarr"
    pure = mode == "zarr"
    run(tools["edit_v3"], url(path, f"{mode},v3"), *(["fixed"] if pure else []))
    want = copy.deepcopy(EDITED)
    if pure:
        # Pure Zarr has no unlimited dimension to append to.
        want["/strs"] = want["/strs"][:2]
        want["/tas"] = want["/tas"][:2]
    raw = zarr_python_view(path)
    assert set(raw) == set(want)
    for name, values in want.items():
        assert raw[name].tolist() == values, name
    assert not (path / "temp").exists() and not (path / "g").exists()
    # Read as written: `mode=zarr` reads even NCZarr as pure Zarr.
    ours = dump(tools["dump"], path, mode)
    assert not ours["errors"]
    for name, values in want.items():
        flat = np.asarray(values, dtype=object).reshape(-1).tolist()
        got = ours["vars"][name]["data"]["values"]
        assert got == flat, name
    if not pure:
        assert ours["groups"]["/"]["dims"] == {"time": 3, "x": 4, "y": 5}
        assert ours["vars"]["/nofill"]["fill"]["nofill"] == 1
    assert zarr_json(path)["attributes"]["history"] == "edited"
    # The sharded variables: one object per shard, zarr-python's index.
    tiles = zarr_json(path / "tiles")
    assert tiles["chunk_grid"]["configuration"]["chunk_shape"] == [4, 2]
    assert tiles["codecs"][0]["name"] == "sharding_indexed"
    assert tiles["codecs"][0]["configuration"]["chunk_shape"] == [2, 2]
    assert sorted(str(p.relative_to(path)) for p in (path / "tiles" / "c").rglob("*") if p.is_file()) == [
        "tiles/c/0/0", "tiles/c/0/1", "tiles/c/1/0", "tiles/c/1/1"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ds = xr.open_zarr(path)
    assert ds["tas"].attrs["units"] == "K" and np.isnan(ds["tas"].values[0, 3])


def test_v3_in_a_zip_archive(tools, tmp_path):
    """v3 goes through the same storage interface: a zip reads back as the
    directory does."""
    directory, archive = tmp_path / "d.zarr", tmp_path / "d.zip"
    run(tools["write_data"], url(directory, "nczarr,v3"))
    run(tools["write_data"], url(archive, "nczarr,zip,v3"))
    assert run(tools["describe"], url(archive, "nczarr,zip")) == run(tools["describe"], url(directory, "nczarr"))
    # Another implementation on the zip itself: it holds the directory's
    # objects (below netcdf-c's top directory d/), and zarr-python's
    # ZipStore reads every array as zarr-python reads the directory (whose
    # values test_nczarr_v3_round_trip_is_the_v2_one checks against ours).
    with zipfile.ZipFile(archive) as z:
        objects = {i.filename: z.read(i) for i in z.infolist() if not i.is_dir()}
    assert objects == {f"d/{p.relative_to(directory).as_posix()}": p.read_bytes()
                       for p in directory.rglob("*") if p.is_file()}
    want = zarr_python_view(directory)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        group = zarr.open_group(zarr.storage.ZipStore(archive, mode="r"), path="d", mode="r")
        got = {f"/{path}": np.asarray(arr[...]) for path, arr in group.arrays()}
        for name, sub in group.groups():
            got.update({f"/{name}/{path}": np.asarray(arr[...]) for path, arr in sub.arrays()})
    assert set(got) == set(want)
    for name, values in want.items():
        np.testing.assert_array_equal(got[name], values, err_msg=name)


NC_ERANGE = -60


def halves(values, via=np.float64):
    """numpy's half nearest each value (given as `via`), as bits."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # overflow to inf is expected
        return np.asarray(values, dtype=via).astype(np.float16).view(np.uint16)


def zarr_array(path, name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return np.asarray(zarr.open_array(path / name, mode="r")[...])


# Doubles whose half is easy to get wrong: ties (to even), a value just
# past a tie by less than the top 32 bits show, subnormals and their
# ties, the largest half (either sign), NaN, negative zero, underflow to
# zero. (Infinities are range errors: test_float16_range_errors.)
TRICKY = [0.1, 1 / 3, 1 + 2**-11, 1 + 2**-11 + 2**-40, 1 + 3 * 2**-11, 2**-24, 2**-25, 2**-25 * (1 + 2**-30),
          1.5 * 2**-24, -(2**-14 - 2**-25), 65504.0, 2049.0, float("nan"), -65504.0, -0.0, 1e-9]


@pytest.mark.parametrize("endian", ["little", "big"])
def test_float16_writes_read_as_numpy_rounds(tools, tmp_path, endian):
    """A float16 array zarr-python made, written through our C API from
    doubles, floats and ints: zarr-python reads, bit for bit, numpy's
    rounding of each value; ours reads the same values back; what was
    not written keeps zarr-python's values and fill."""
    path = tmp_path / "h.zarr"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        root = zarr.open_group(path, mode="w")
        a = root.create_array("h", shape=(5, 8), chunks=(2, 4), dtype="float16", fill_value=-1.5,
                              serializer=zc.BytesCodec(endian=endian), dimension_names=["y", "x"])
        a[0, :] = np.arange(8) / 8
    target = url(path, "zarr")
    assert run(tools["put_values"], target, "/h", "1,0", "2,8", "double", *map(repr, TRICKY)).strip() == "0"
    floats = [0.1, 3.14159, 2049.0, 1e-6]
    assert run(tools["put_values"], target, "/h", "3,0", "1,4", "float", *map(repr, floats)).strip() == "0"
    ints = [2049, 2051, -4097, 65504]
    assert run(tools["put_values"], target, "/h", "3,4", "1,4", "int", *map(str, ints)).strip() == "0"
    got = zarr_array(path, "h")
    assert got.dtype == np.float16
    bits = got.view(np.uint16)
    np.testing.assert_array_equal(bits[0], halves(np.arange(8) / 8))
    np.testing.assert_array_equal(bits[1:3].reshape(-1), halves(TRICKY))
    np.testing.assert_array_equal(bits[3, :4], halves(np.float32(floats), via=np.float32))
    np.testing.assert_array_equal(bits[3, 4:], halves(ints))
    np.testing.assert_array_equal(bits[4], halves([-1.5] * 8), "never written: the fill value")
    # Our own reading (as NC_FLOAT) gives the same halves, widened.
    ours = dump(tools["dump"], path)["vars"]["/h"]["data"]["values"]
    want = got.astype(np.float64).reshape(-1)
    for k, (mine, theirs) in enumerate(zip(ours, want)):
        assert mine == theirs or (np.isnan(theirs) and np.isnan(mine)), (k, mine, theirs)


def test_float16_range_errors(tools, tmp_path):
    """Beyond the largest half (65504) a value is NC_ERANGE, as netcdf-c's
    narrowing conversions are; the call still writes every value, the
    out-of-range ones as the half they round to (infinity), as netcdf-c
    writes its out-of-range values."""
    path = tmp_path / "h.zarr"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        root = zarr.open_group(path, mode="w")
        root.create_array("h", shape=(6,), chunks=(4,), dtype="float16", fill_value=0, dimension_names=["x"])
    target = url(path, "zarr")
    values = ["1.5", "70000.0", "-70000.0", "65519", "inf", "nan"]
    assert int(run(tools["put_values"], target, "/h", "0", "6", "double", *values)) == NC_ERANGE
    bits = zarr_array(path, "h").view(np.uint16)
    np.testing.assert_array_equal(bits, halves([1.5, np.inf, -np.inf, 65504.0, np.inf, np.nan]))
    # 70000 is ERANGE from every memory type; 65504 is not.
    assert int(run(tools["put_values"], target, "/h", "0", "1", "int", "70000")) == NC_ERANGE
    assert int(run(tools["put_values"], target, "/h", "0", "1", "float", "70000.0")) == NC_ERANGE
    assert int(run(tools["put_values"], target, "/h", "1", "1", "int", "65504")) == 0
    assert zarr_array(path, "h")[:2].tolist() == [np.inf, 65504.0]


def test_writes_into_zarr_python_shards(tools, tmp_path):
    """Shards inside shards and a transpose before shards, as zarr-python
    writes them: we write into them (a block across inner shards and
    shards, part of one inner chunk), and zarr-python reads everything,
    what we wrote and what it wrote before."""
    path = tmp_path / "s.zarr"
    nested_data = np.arange(48, dtype="<i2").reshape(6, 8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        root = zarr.open_group(path, mode="w")
        n = root.create_array("nested", shape=(6, 8), chunks=(4, 4), dtype="<i2", fill_value=-1, compressors=None,
                              serializer=zc.ShardingCodec(chunk_shape=(2, 4), index_location="start", codecs=[
                                  zc.ShardingCodec(chunk_shape=(1, 2), codecs=[zc.BytesCodec(), zc.GzipCodec()])]),
                              dimension_names=["y", "x"])
        n[:3, :] = nested_data[:3]
        t = root.create_array("transposed", shape=(5, 6), chunks=(4, 6), dtype="<i4", fill_value=7,
                              filters=[zc.TransposeCodec(order=(1, 0))], compressors=None,
                              serializer=zc.ShardingCodec(chunk_shape=(2, 1), codecs=[zc.BytesCodec()]),
                              dimension_names=["r", "c"])
        t[1:, :] = np.arange(24, dtype="<i4").reshape(4, 6) * 10
    target = url(path, "zarr")
    block = [100 + k for k in range(12)]
    assert run(tools["put_values"], target, "/nested", "2,3", "3,4", "int", *map(str, block)).strip() == "0"
    assert run(tools["put_values"], target, "/transposed", "3,1", "2,4", "int", *map(str, block[:8])).strip() == "0"
    want_nested = np.full((6, 8), -1, dtype="<i2")
    want_nested[:3] = nested_data[:3]
    want_nested[2:5, 3:7] = np.reshape(block, (3, 4))
    np.testing.assert_array_equal(zarr_array(path, "nested"), want_nested)
    want_t = np.full((5, 6), 7, dtype="<i4")
    want_t[1:] = np.arange(24).reshape(4, 6) * 10
    want_t[3:5, 1:5] = np.reshape(block[:8], (2, 4))
    np.testing.assert_array_equal(zarr_array(path, "transposed"), want_t)
    ours = dump(tools["dump"], path)["vars"]
    assert ours["/nested"]["data"]["values"] == want_nested.reshape(-1).tolist()
    assert ours["/transposed"]["data"]["values"] == want_t.reshape(-1).tolist()
