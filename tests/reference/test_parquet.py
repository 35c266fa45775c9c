"""Parquet references (fsspec's LazyReferenceMapper layout: a directory
NAME.parq holding .zmetadata and ARRAY/refs.R.parq record files) read
through our library as `NAME.parq#mode=zarr,reference`, on disk and on S3
(moto and s3s-fs), as test_reference.py reads the JSON ones: every value
equal to netcdf-c's read of the original files, the header, what it costs
in requests (the counting proxy of tests/s3), the bad ones (the exact
netCDF error, never fill or other bytes), absent record files (fill) and
writing (NC_EPERM). The corpus is make_corpus.build_parquet's, checked
first through fsspec."""

import hashlib
import itertools
import json
import math

import numpy as np
import pytest

from conftest import BUCKET, DOT_PARQUET, PREFIX, UNSUFFIXED, s3_options
from make_corpus import (BAD_PARQUET, GOOD_ODD_PARQUET, NC_ENCZARR, NC_ENOOBJECT, PARQUET, PARQUET_VIRTUALIZARR, _hand_refs,
                         chunk_grid, chunk_number)
from test_reference import (NC_EPERM, assert_same_values, expected_view, find, header_problems, ncdump, parse_dump,
                            ref_url, run_refdump)
from verify import Pandas3LazyReferenceMapper, verify

pytestmark = [pytest.mark.filterwarnings("ignore:The .fastparquet. engine is deprecated"),
              pytest.mark.filterwarnings("ignore:The .future.infer_string. option is deprecated")]

STEMS = [p[0] for p in PARQUET] + [p[0] for p in PARQUET_VIRTUALIZARR]
LOCAL_PQ = [f"{s}.local.parq" for s in STEMS]
S3_PQ = [f"{s}.s3.parq" for s in STEMS]
BAD_OPEN = [(n, code) for n, _, code, when in BAD_PARQUET if when == "open"]
BAD_READ = [(n, code) for n, _, code, when in BAD_PARQUET if when == "read"]
WHAT = {n: what for n, what, *_ in BAD_PARQUET}
NC_FLOAT = 5


def s3_url(name, suffix="#mode=zarr,reference"):
    return f"s3://{BUCKET}/{PREFIX}/{name}{suffix}"


def zmetadata(directory):
    return json.loads((directory / ".zmetadata").read_text())


def test_parquet_corpus_names(pq_corpus, pq_s3_corpus):
    _, refs, bad = pq_corpus
    assert sorted(r.name for r in refs) == sorted(LOCAL_PQ)
    assert sorted(r.name for r in pq_s3_corpus[1]) == sorted(S3_PQ)
    assert sorted(bad) == sorted([n for n, *_ in BAD_PARQUET] + GOOD_ODD_PARQUET)
    assert sorted(pq_s3_corpus[2]) == sorted(bad)


# ---------------------------------------------------------------------------
# The corpus itself: the layout the tools wrote, and fsspec's reading of it.


@pytest.mark.parametrize("name", LOCAL_PQ)
def test_parquet_layout(pq_corpus, name):
    """What each writer wrote: .zmetadata's record_size; per array, record
    files refs.R.parq of record_size rows each (a last record partly used:
    rows past the last chunk null), R < ceil(chunks / record_size), written
    by the writer named (fastparquet or pyarrow: the file's created_by)."""
    import pyarrow.parquet as pq

    files, refs, _ = pq_corpus
    ref = find(refs, name)
    d = files / name
    meta = zmetadata(d)
    assert meta["record_size"] == ref.record_size
    arrays = [k[: -len("/.zarray")] for k in meta["metadata"] if k.endswith("/.zarray")]
    assert arrays
    seen = partial = 0
    for a in arrays:
        n = math.prod(chunk_grid(meta["metadata"][f"{a}/.zarray"]))
        records = sorted(int(p.name.split(".")[1]) for p in (d / a).glob("refs.*.parq")) if (d / a).is_dir() else []
        assert all(r < math.ceil(n / ref.record_size) for r in records), (a, n, records)
        for r in records:
            md = pq.read_metadata(d / a / f"refs.{r}.parq")
            assert md.num_rows == ref.record_size, (a, r, md.num_rows)
            assert ("fastparquet" if ref.writer == "fastparquet" else "parquet-cpp-arrow") in md.created_by
            assert {"path", "offset", "size", "raw"} <= set(md.schema.names)
            seen += 1
            used = n - r * ref.record_size
            if used < ref.record_size:  # the last record, partly used
                t = pq.read_table(d / a / f"refs.{r}.parq")
                tail = [t.column(c).to_pylist()[used:] for c in ("path", "raw")]
                assert tail == [[None] * (ref.record_size - used)] * 2, (a, r, tail)
                partial += 1
    assert seen
    # compressed.kerchunk.pyarrow.rs2 has none (every count even).
    assert partial or name.startswith("compressed.kerchunk.pyarrow.rs2")
    if ref.record_size <= 4:
        assert any(len(list((d / a).glob("refs.*.parq"))) > 1 for a in arrays if (d / a).is_dir()), name


def _chunk_value(v):
    """A reference as fsspec's mapper returns it: bytes, [url] or
    [url, offset, size]."""
    if isinstance(v, str):
        import base64

        return base64.b64decode(v[7:]) if v.startswith("base64:") else v.encode()
    if isinstance(v, (bytes, np.bytes_)):
        return bytes(v)
    return [str(v[0])] + [int(x) for x in v[1:]]


@pytest.mark.parametrize("name", LOCAL_PQ)
def test_parquet_holds_the_json_references(pq_corpus, name):
    """Key by key through fsspec's LazyReferenceMapper: the Parquet
    directory holds the references of the JSON it was made from (plain.hand:
    as modified), and every other chunk key of every array is absent
    (a null row or a record file not written)."""
    files, refs, _ = pq_corpus
    ref = find(refs, name)
    src = json.loads((files / ref.json).read_text())["refs"]
    if name.startswith("plain.hand"):
        src = _hand_refs(src, lambda n: str(files / n), files)
    m = Pandas3LazyReferenceMapper(str(files / name))
    arrays = set()
    for key, value in src.items():
        if key.rsplit("/", 1)[-1].startswith(".z"):
            assert json.loads(m[key]) == (json.loads(value) if isinstance(value, str) else value), key
            if key.endswith("/.zarray"):
                arrays.add(key[: -len("/.zarray")])
        else:
            assert _chunk_value(m[key]) == _chunk_value(value), key
    absent = 0
    for a in arrays:
        for key in m._keys_in_field(a):
            if key not in src:
                with pytest.raises(KeyError):
                    m[key]
                absent += 1
    if name.startswith("compressed"):
        assert absent > 0  # temp's unwritten chunks, empty's


@pytest.mark.parametrize("name", LOCAL_PQ)
def test_fsspec_reads_local_parquet(pq_corpus, name, monkeypatch):
    files, refs, _ = pq_corpus
    monkeypatch.chdir(files)
    assert verify(files / name, find(refs, name), files)


@pytest.mark.parametrize("name", S3_PQ)
def test_fsspec_reads_s3_parquet(corpus, pq_s3_corpus, moto_server, name):
    out, refs = pq_s3_corpus[:2]
    assert verify(out / name, find(refs, name), corpus[0], remote_protocol="s3",
                  remote_options=s3_options(moto_server.endpoint))


def test_s3_parquet_names_s3_targets(pq_s3_corpus):
    import pyarrow.parquet as pq

    out = pq_s3_corpus[0]
    for ref in pq_s3_corpus[1]:
        paths = set()
        for f in (out / ref.name).rglob("refs.*.parq"):
            paths |= {p for p in pq.read_table(f, columns=["path"]).column("path").to_pylist() if p}
        assert paths and all(p.startswith(f"s3://{BUCKET}/{PREFIX}/") for p in paths), (ref.name, paths)


# temp of compressed.nc: 8x6x10 in 2x3x5 chunks (a 4x2x2 grid); records of 3
# chunks in compressed.kerchunk.rs3, so pq-absent-record (its refs.1.parq
# deleted) has chunks 3, 4 and 5 absent.
TEMP_GRID, TEMP_CHUNK, TEMP_FILL = (4, 2, 2), (2, 3, 5), np.float32(-999.0)


def chunk_region(n, grid=TEMP_GRID, chunk=TEMP_CHUNK):
    index = np.unravel_index(n, grid)
    return tuple(slice(i * c, (i + 1) * c) for i, c in zip(index, chunk))


def absent_record_temp(expected_temp, chunks=(3, 4, 5)):
    t = np.array(expected_temp, dtype=np.float32).reshape(8, 6, 10)
    for n in chunks:
        t[chunk_region(n)] = TEMP_FILL
    return t


def test_fsspec_reads_absent_record_as_fill(pq_corpus, monkeypatch):
    """fsspec's reading of a record file that is not there: its chunks
    are fill (the semantics our library must have too)."""
    from expected import expected_arrays
    from verify import open_reference

    files, refs, bad = pq_corpus
    monkeypatch.chdir(files)
    got = open_reference(files / bad["pq-absent-record"])["temp"][...]
    exp = expected_arrays(files, find(refs, "compressed.kerchunk.rs3.local.parq"))["temp"]
    assert not np.array_equal(exp, absent_record_temp(exp))
    np.testing.assert_array_equal(got, absent_record_temp(exp))


# ---------------------------------------------------------------------------
# Values and headers through our library.


@pytest.mark.parametrize("name", LOCAL_PQ)
def test_parquet_values_local(progs, pq_corpus, env, name):
    files, refs, _ = pq_corpus
    ref = find(refs, name)
    got = parse_dump(run_refdump(progs["ours"], "read", ref_url(files / name), env=env))
    # The Zarr metadata (fill_value) is the JSON reference's it was made from.
    assert_same_values(got, expected_view(progs, files, ref), name, files / ref.json)


@pytest.mark.parametrize("form", [UNSUFFIXED, DOT_PARQUET])
def test_parquet_values_local_other_names(progs, pq_corpus, env, form):
    """A directory named NAME.parquet, or without .parq, is Parquet too."""
    files, refs, _ = pq_corpus
    ref = find(refs, "compressed.kerchunk.rs3.local.parq")
    name = form.format(tag="local")
    got = parse_dump(run_refdump(progs["ours"], "read", ref_url(files / name), env=env))
    assert_same_values(got, expected_view(progs, files, ref), name, files / ref.json)


@pytest.mark.parametrize("name", LOCAL_PQ)
def test_parquet_header_local(pq_corpus, env, name):
    files, refs, _ = pq_corpus
    problems = header_problems(ref_url(files / name), find(refs, name), files, env)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("name", S3_PQ)
def test_parquet_values_s3(progs, corpus, pq_s3_corpus, pq_server, env, name):
    """The Parquet directory on S3 (s3://bucket/PREFIX/NAME.parq, keys
    below it), its targets s3:// URLs on the same server."""
    files = corpus[0]
    ref = find(pq_s3_corpus[1], name)
    e = dict(env, AWS_ENDPOINT_URL=pq_server.endpoint)
    got = parse_dump(run_refdump(progs["ours"], "read", s3_url(name), env=e))
    assert_same_values(got, expected_view(progs, files, ref), s3_url(name), pq_s3_corpus[4] / ref.json)


@pytest.mark.parametrize("name", ["compressed.kerchunk.rs3.s3.parq", "series.virtualizarr.rs100000.s3.parq"])
def test_parquet_values_http_url(progs, corpus, pq_s3_corpus, pq_server, env, name):
    """Named by the server's path-style http:// URL (signed with the test
    keys)."""
    files = corpus[0]
    ref = find(pq_s3_corpus[1], name)
    e = dict(env, AWS_ENDPOINT_URL=pq_server.endpoint)
    url = f"{pq_server.endpoint}/{BUCKET}/{PREFIX}/{name}#mode=zarr,reference"
    got = parse_dump(run_refdump(progs["ours"], "read", url, env=e))
    assert_same_values(got, expected_view(progs, files, ref), url, pq_s3_corpus[4] / ref.json)


# A name without .parq on S3 is first tried as a JSON object: S3 (and moto)
# answer 404 NoSuchKey for a key that is only a prefix; s3s-fs answers 500
# InternalError (its key is a directory of its file tree), which is not S3's
# behaviour, so these run on moto only.


@pytest.mark.parametrize("form", ["s3", "http"])
def test_parquet_values_s3_unsuffixed(progs, corpus, pq_s3_corpus, moto_server, env, form):
    files = corpus[0]
    ref = find(pq_s3_corpus[1], "compressed.kerchunk.rs3.s3.parq")
    e = dict(env, AWS_ENDPOINT_URL=moto_server.endpoint)
    name = UNSUFFIXED.format(tag="s3")
    url = s3_url(name) if form == "s3" else f"{moto_server.endpoint}/{BUCKET}/{PREFIX}/{name}#mode=zarr,reference"
    got = parse_dump(run_refdump(progs["ours"], "read", url, env=e))
    assert_same_values(got, expected_view(progs, files, ref), url, pq_s3_corpus[4] / ref.json)


def test_parquet_target_endpoint(progs, corpus, pq_s3_corpus, pq_server, proxy_for, env):
    """The Parquet directory on disk, its targets s3:// URLs, no endpoint in
    the environment: the fragment's target.endpoint names the server (here
    through the proxy, which sees the targets' GETs and nothing else)."""
    proxy = proxy_for(pq_server)
    files = corpus[0]
    name = "compressed.kerchunk.rs3.s3.parq"
    ref = find(pq_s3_corpus[1], name)
    url = f"file://{pq_s3_corpus[0] / name}#mode=zarr,reference&target.endpoint={proxy.endpoint}"
    got = parse_dump(run_refdump(progs["ours"], "read", url, env=env))
    assert_same_values(got, expected_view(progs, files, ref), url, pq_s3_corpus[4] / ref.json)
    keys = {r.key for r in proxy.object_gets()}
    assert keys == {f"{PREFIX}/compressed.nc"}, keys


# ---------------------------------------------------------------------------
# Requests.


def records_of(meta, var, start, count):
    """The record files a hyperslab of `var` touches: {refs.R.parq}, and the
    chunk numbers it covers."""
    za = meta["metadata"][f"{var}/.zarray"]
    grid, chunks = chunk_grid(za), za["chunks"]
    ranges = [range(s // c, (s + n - 1) // c + 1) for s, n, c in zip(start, count, chunks)]
    numbers = [chunk_number(index, grid) for index in itertools.product(*ranges)]
    return {f"refs.{n // meta['record_size']}.parq" for n in numbers}, numbers


@pytest.mark.parametrize("name", ["compressed.kerchunk.rs3.s3.parq", "series.virtualizarr.rs100000.s3.parq",
                                  DOT_PARQUET.format(tag="s3")])
def test_parquet_open_costs_one_get(progs, pq_s3_corpus, pq_server, proxy_for, env, name):
    """Opening a NAME.parq (nc_open, nc_close) reads NAME.parq/.zmetadata
    only: no record file, no target."""
    proxy = proxy_for(pq_server)
    e = dict(env, AWS_ENDPOINT_URL=proxy.endpoint)
    out = run_refdump(progs["ours"], "open", s3_url(name), env=e)
    assert out.split() == ["open", "0", "close", "0"], out
    reqs = proxy.requests()
    assert [(r.method, r.key) for r in reqs] == [("GET", f"{PREFIX}/{name}/.zmetadata")], (
        [(r.method, r.key, r.query, r.range) for r in reqs])


def test_parquet_open_unsuffixed_costs_two_gets(progs, pq_s3_corpus, moto_server, proxy_for, env):
    """A name not ending in .parq is first tried as a JSON file (no such
    object: a prefix), then as a Parquet directory: two requests, no
    listing. (On moto only: see test_parquet_values_s3_unsuffixed.)"""
    proxy = proxy_for(moto_server)
    e = dict(env, AWS_ENDPOINT_URL=proxy.endpoint)
    name = UNSUFFIXED.format(tag="s3")
    out = run_refdump(progs["ours"], "open", s3_url(name), env=e)
    assert out.split() == ["open", "0", "close", "0"], out
    reqs = proxy.requests()
    assert len(reqs) == 2 and reqs[0].key == f"{PREFIX}/{name}" and (reqs[1].method, reqs[1].key) == (
        "GET", f"{PREFIX}/{name}/.zmetadata"), [(r.method, r.key, r.query, r.range, r.status) for r in reqs]


@pytest.mark.parametrize("name,var,start,count,target,most", [
    # temp: time 0-1, all y and x: chunks 0-3, records 0 and 1 (of 3).
    ("compressed.kerchunk.rs3.s3.parq", "temp", (0, 0, 0), (2, 6, 10), "compressed.nc", None),
    # One chunk, part of it: chunk 15, record 7 (of 2).
    ("compressed.kerchunk.pyarrow.rs2.s3.parq", "temp", (6, 3, 5), (1, 2, 2), "compressed.nc", None),
    # Chunks 6, 7, 10, 11, 14 and 15 of 16: records 3, 5 and 7, record 5
    # not written (time 4-5 never written: fill).
    ("compressed.kerchunk.pyarrow.rs2.s3.parq", "temp", (2, 3, 0), (5, 3, 10), "compressed.nc", 4),
    # A classic file's record variable, a chunk per record.
    ("classic.kerchunk.pyarrow.rs3.s3.parq", "temp", (1, 0, 0), (4, 3, 4), "classic.nc", None),
    # A variable in a group: obs/value's record files are under obs/value/.
    ("groups.kerchunk.rs2.s3.parq", "obs/value", (1, 0), (4, 4), "groups.nc", None),
    # grid's 6 chunks, each inline (raw): no GET of a target.
    ("plain.kerchunk.inline.rs3.s3.parq", "grid", (0, 0, 0), (6, 5, 8), "plain.nc", 0),
    # The series: 12 steps in 6 chunks of 2 over 3 files, records of 2.
    ("series.kerchunk.rs2.s3.parq", "temp", (0, 0), (12, 3), None, None),
    # One record of 100000 rows for all.
    ("series.virtualizarr.rs100000.s3.parq", "temp", (2, 0), (7, 3), None, None),
])
def test_parquet_read_costs(progs, corpus, pq_s3_corpus, pq_server, proxy_for, env, name, var, start, count, target,
                            most):
    """A read of N chunks: the .zmetadata, each record file it touches once
    (and no other), at most N ranged GETs of the targets (at most `most`
    where some chunks are absent or inline); values as netcdf-c's."""
    proxy = proxy_for(pq_server)
    e = dict(env, AWS_ENDPOINT_URL=proxy.endpoint)
    joined = lambda v: "x".join(map(str, v))  # noqa: E731
    out = run_refdump(progs["ours"], "slab", s3_url(name), var, joined(start), joined(count), env=e)
    status, vars_ = parse_dump(out)
    assert status == 0, out
    files = corpus[0]
    ref = find(pq_s3_corpus[1], name)
    if ref.concat:
        whole = expected_view(progs, files, ref)[var]
        arr = np.frombuffer(whole[3], "<f4").reshape(whole[2])
        exp = arr[tuple(slice(s, s + n) for s, n in zip(start, count))].tobytes()
    else:
        exp = parse_dump(run_refdump(progs["netcdf_c"], "slab", files / target, var, joined(start),
                                     joined(count)))[1][var][3]
    assert vars_[var][3] == exp, out[:300]

    meta = zmetadata(pq_s3_corpus[0] / name)
    touched, numbers = records_of(meta, var, start, count)
    base = f"{PREFIX}/{name}/"
    gets = proxy.object_gets()
    keys = [r.key for r in gets]
    record_gets = [k[len(base):] for k in keys if k.startswith(base) and k.endswith(".parq")]
    assert len(record_gets) == len(set(record_gets)), f"a record file read twice: {record_gets}"
    assert set(record_gets) <= {f"{var}/{r}" for r in touched}, (record_gets, touched)
    assert keys.count(base + ".zmetadata") == 1, keys
    target_gets = [r for r in gets if not r.key.startswith(base)]
    assert all(r.key.endswith(".nc") for r in target_gets), keys
    assert len(target_gets) <= (len(numbers) if most is None else most), [(r.key, r.range) for r in target_gets]
    assert all(r.range and r.range.startswith("bytes=") for r in target_gets), [(r.key, r.range) for r in target_gets]


def test_parquet_record_files_kept_per_open(progs, corpus, pq_s3_corpus, pq_server, proxy_for, env):
    """Four reads on one open dataset (refdump slab with four hyperslabs),
    of chunks 0, 1, 0 again and 2 of temp, all in refs.0.parq (records of
    3): that record file is fetched once; at most a ranged GET per read
    chunk; each read's values netcdf-c's."""
    proxy = proxy_for(pq_server)
    e = dict(env, AWS_ENDPOINT_URL=proxy.endpoint)
    name = "compressed.kerchunk.rs3.s3.parq"
    slabs = [("0x0x0", "2x3x5"), ("0x0x5", "2x3x5"), ("0x0x0", "2x3x5"), ("0x3x0", "2x3x5")]
    out = run_refdump(progs["ours"], "slab", s3_url(name), "temp", *[a for pair in slabs for a in pair], env=e)
    lines = out.splitlines()
    assert lines[0] == "open 0" and lines[-1] == "close 0", out[:300]
    data = [line.split("\t") for line in lines[1:-1]]
    assert len(data) == 4, out[:300]
    temp = np.frombuffer(expected_view(progs, corpus[0], find(pq_s3_corpus[1], name))["temp"][3], "<f4")
    temp = temp.reshape(8, 6, 10)
    for (start, count), fields, n in zip(slabs, data, (0, 1, 0, 2)):
        assert fields[:2] == ["data", "temp"] and bytes.fromhex(fields[2]) == temp[chunk_region(n)].tobytes(), (
            start, fields[:4])
    keys = [r.key for r in proxy.object_gets()]
    base = f"{PREFIX}/{name}/"
    assert sorted(k for k in keys if k.startswith(base)) == [base + ".zmetadata", base + "temp/refs.0.parq"], keys
    targets = [r for r in proxy.object_gets() if not r.key.startswith(base)]
    assert len(targets) <= 4, [(r.key, r.range) for r in targets]


def test_parquet_full_read_reads_each_record_file_once(progs, corpus, pq_s3_corpus, pq_server, proxy_for, env):
    """Every variable of compressed.kerchunk.pyarrow.rs2 (records of 2: temp
    in 8 record files, 2 of them absent, empty in none): each record file
    (present or not) fetched at most once, at most a ranged GET per chunk
    present."""
    proxy = proxy_for(pq_server)
    e = dict(env, AWS_ENDPOINT_URL=proxy.endpoint)
    name = "compressed.kerchunk.pyarrow.rs2.s3.parq"
    ref = find(pq_s3_corpus[1], name)
    got = parse_dump(run_refdump(progs["ours"], "read", s3_url(name), env=e))
    assert_same_values(got, expected_view(progs, corpus[0], ref), name, pq_s3_corpus[4] / ref.json)
    base = f"{PREFIX}/{name}/"
    keys = [r.key for r in proxy.object_gets()]
    records = [k for k in keys if k.startswith(base) and k.endswith(".parq")]
    assert len(records) == len(set(records)), sorted(records)
    present = {base + p.relative_to(pq_s3_corpus[0] / name).as_posix()
               for p in (pq_s3_corpus[0] / name).rglob("refs.*.parq")}
    assert present <= set(records), sorted(present - set(records))
    src = json.loads((pq_s3_corpus[4] / ref.json).read_text())["refs"]
    chunks = sum(1 for k, v in src.items() if isinstance(v, list))
    targets = [k for k in keys if not k.startswith(base)]
    assert len(targets) <= chunks, targets


# ---------------------------------------------------------------------------
# Bad Parquet references, absent records, writing.


def dump(progs, url, env):
    return parse_dump(run_refdump(progs["ours"], "read", url, env=env))


def slab(progs, url, var, start, count, env):
    out = run_refdump(progs["ours"], "slab", url, var, start, count, env=env)
    status, vars_ = parse_dump(out)
    assert status == 0, out
    return vars_[var][3]


def good_view(progs, files, refs):
    return expected_view(progs, files, find(refs, "compressed.kerchunk.rs3.local.parq"))


@pytest.mark.parametrize("name,code", BAD_OPEN)
def test_parquet_bad_at_open_local(progs, pq_corpus, env, name, code):
    files, _, bad = pq_corpus
    assert dump(progs, ref_url(files / "compressed.kerchunk.rs3.local.parq"), env)[0] == 0
    url = ref_url(files / bad[name])
    status, _ = dump(progs, url, env)
    assert status == code, f"{WHAT[name]}: nc_open returned {status}, expected {code}"
    r = ncdump(url, env)
    assert r.returncode > 0, f"{WHAT[name]}: ncdump over us exited {r.returncode}"


def assert_bad_read(progs, url, env, name, code, expected, json_file):
    """nc_open succeeds; reading temp gives `code`; the other variables
    read netcdf-c's values; a chunk of temp in another record (chunk 15,
    record 5) reads right."""
    status, vars_ = dump(progs, url, env)
    assert status == 0, f"{WHAT[name]}: nc_open returned {status}"
    assert vars_["temp"][3] == code, f"{WHAT[name]}: reading temp gave {vars_['temp'][3]!r:.80}, expected {code}"
    others = {p: v for p, v in vars_.items() if p != "temp"}
    assert_same_values((0, others), {p: v for p, v in expected.items() if p != "temp"}, name, json_file)
    temp = np.frombuffer(expected["temp"][3], "<f4").reshape(8, 6, 10)
    assert slab(progs, url, "temp", "6x3x5", "2x3x5", env) == temp[chunk_region(15)].tobytes()


@pytest.mark.parametrize("name,code", BAD_READ)
def test_parquet_bad_at_read_local(progs, pq_corpus, env, name, code):
    files, refs, bad = pq_corpus
    assert_bad_read(progs, ref_url(files / bad[name]), env, name, code, good_view(progs, files, refs),
                    files / "compressed.kerchunk.v1.local.json")


def test_parquet_short_record_rows(progs, pq_corpus, env):
    """temp/refs.0.parq of one row: chunk 0 (row 0) reads, chunk 1 (row 1,
    past the end) is NC_ENCZARR."""
    files, refs, bad = pq_corpus
    url = ref_url(files / bad["bad-pq-short-record"])
    temp = np.frombuffer(good_view(progs, files, refs)["temp"][3], "<f4").reshape(8, 6, 10)
    assert slab(progs, url, "temp", "0x0x0", "2x3x5", env) == temp[chunk_region(0)].tobytes()
    assert slab(progs, url, "temp", "0x0x5", "2x3x5", env) == NC_ENCZARR


@pytest.mark.parametrize("name", ["bad-pq-zmetadata-not-json", "bad-pq-record-not-parquet", "bad-pq-short-record",
                                  "bad-pq-missing-target", "bad-pq-range-past-end"])
def test_parquet_bad_s3(progs, corpus, pq_s3_corpus, pq_server, env, name):
    files = corpus[0]
    bad = pq_s3_corpus[2]
    code, when = next((c, w) for n, _, c, w in BAD_PARQUET if n == name)
    e = dict(env, AWS_ENDPOINT_URL=pq_server.endpoint)
    url = s3_url(bad[name])
    if when == "open":
        assert dump(progs, url, e)[0] == code
    else:
        expected = expected_view(progs, files, find(pq_s3_corpus[1], "compressed.kerchunk.rs3.s3.parq"))
        assert_bad_read(progs, url, e, name, code, expected, pq_s3_corpus[4] / "compressed.kerchunk.v1.s3.json")


def assert_absent_record_fill(progs, url, env, expected, json_file, chunks=(3, 4, 5)):
    """temp reads with its `chunks` fill (-999), the rest netcdf-c's; the
    other variables as netcdf-c's."""
    status, vars_ = dump(progs, url, env)
    assert status == 0, status
    want = absent_record_temp(np.frombuffer(expected["temp"][3], "<f4"), chunks)
    assert vars_["temp"][:3] == (NC_FLOAT, ("time", "y", "x"), (8, 6, 10)), vars_["temp"][:3]
    got = vars_["temp"][3]
    assert isinstance(got, bytes), f"reading temp gave {got}"
    np.testing.assert_array_equal(np.frombuffer(got, "<f4").reshape(8, 6, 10), want)
    assert_same_values((0, {p: v for p, v in vars_.items() if p != "temp"}),
                       {p: v for p, v in expected.items() if p != "temp"}, url, json_file)


def test_parquet_absent_record_reads_as_fill_local(progs, pq_corpus, env):
    files, refs, bad = pq_corpus
    assert_absent_record_fill(progs, ref_url(files / bad["pq-absent-record"]), env, good_view(progs, files, refs),
                              files / "compressed.kerchunk.v1.local.json")


def test_parquet_null_row_reads_as_fill_local(progs, pq_corpus, env):
    files, refs, bad = pq_corpus
    assert_absent_record_fill(progs, ref_url(files / bad["pq-null-row"]), env, good_view(progs, files, refs),
                              files / "compressed.kerchunk.v1.local.json", chunks=(1,))


def test_parquet_record_without_path_column_reads_as_fill_local(progs, pq_corpus, env):
    """fsspec: a record without a path column holds inline chunks or none;
    here none, so chunks 0-2 are fill."""
    files, refs, bad = pq_corpus
    assert_absent_record_fill(progs, ref_url(files / bad["pq-no-path-column"]), env, good_view(progs, files, refs),
                              files / "compressed.kerchunk.v1.local.json", chunks=(0, 1, 2))


def test_parquet_record_without_raw_column_reads_local(progs, pq_corpus, env):
    """fsspec: a record without a raw column holds references only: every
    value as the good references give it."""
    files, refs, bad = pq_corpus
    assert_absent_record_fill(progs, ref_url(files / bad["pq-no-raw-column"]), env, good_view(progs, files, refs),
                              files / "compressed.kerchunk.v1.local.json", chunks=())


def test_parquet_absent_record_reads_as_fill_s3(progs, corpus, pq_s3_corpus, pq_server, env):
    e = dict(env, AWS_ENDPOINT_URL=pq_server.endpoint)
    expected = expected_view(progs, corpus[0], find(pq_s3_corpus[1], "compressed.kerchunk.rs3.s3.parq"))
    assert_absent_record_fill(progs, s3_url(pq_s3_corpus[2]["pq-absent-record"]), e, expected,
                              pq_s3_corpus[4] / "compressed.kerchunk.v1.s3.json")


def test_parquet_directory_without_zmetadata(progs, pq_corpus, env, tmp_path):
    """A directory without .zmetadata is not a reference: nc_open fails
    (and a missing NAME.parq too)."""
    import shutil

    files = pq_corpus[0]
    d = tmp_path / "nometa.parq"
    shutil.copytree(files / "compressed.kerchunk.rs3.local.parq", d)
    (d / ".zmetadata").unlink()
    assert dump(progs, ref_url(d), env)[0] < 0
    assert dump(progs, ref_url(tmp_path / "no-such.parq"), env)[0] < 0


def tree_digest(d):
    return {p.relative_to(d).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(d.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("name", ["compressed.kerchunk.rs3.local.parq", "plain.hand.rs3.local.parq"])
def test_parquet_write_is_refused(progs, pq_corpus, env, name):
    d = pq_corpus[0] / name
    before = tree_digest(d)
    out = run_refdump(progs["ours"], "write", ref_url(d), env=env)
    assert out.split() == ["open", str(NC_EPERM)], out
    assert tree_digest(d) == before


def test_parquet_write_is_refused_s3(progs, pq_s3_corpus, pq_server, proxy_for, env):
    proxy = proxy_for(pq_server)
    e = dict(env, AWS_ENDPOINT_URL=proxy.endpoint)
    out = run_refdump(progs["ours"], "write", s3_url("compressed.kerchunk.rs3.s3.parq"), env=e)
    assert out.split() == ["open", str(NC_EPERM)], out
    assert not [r for r in proxy.requests() if r.method not in ("GET", "HEAD")]
