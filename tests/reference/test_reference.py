"""Reference files (kerchunk, VirtualiZarr, by hand) read through our
library as `...refs.json#mode=zarr,reference`, on disk and on S3 (moto and
s3s-fs; the reference file and its targets on the server), compared with
netcdf-c's read of the original .nc files: every value, byte for byte
(refdump.c over both libraries), and the header (ncdump -h, normalised:
see normalize_header). Then what it costs in requests (the counting proxy
of tests/s3), bad references (netCDF errors, never a crash or wrong
bytes) and writing (refused with NC_EPERM)."""

import os
import re
import subprocess
import sys

import numpy as np
import pytest

from conftest import BUCKET, OUR_LIBDIR, PREFIX, s3_options
from make_corpus import BAD
from verify import verify

NCDUMP = "/usr/bin/ncdump"
NC_EPERM = -37
METADATA = (".zgroup", ".zattrs", ".zarray", ".zmetadata")

# netCDF type numbers (netcdf.h) -> numpy dtypes, for the concatenation of
# a multi-file series.
DTYPES = {1: "i1", 2: "S1", 3: "<i2", 4: "<i4", 5: "<f4", 6: "<f8", 7: "u1", 8: "<u2", 9: "<u4", 10: "<i8",
          11: "<u8"}


def ref_url(path):
    return f"file://{path}#mode=zarr,reference"


def run_refdump(prog, *args, env=None):
    r = subprocess.run([str(prog), *map(str, args)], capture_output=True, text=True, env=env, timeout=120)
    # A negative code is a signal: the library crashed.
    assert r.returncode == 0, f"refdump {' '.join(map(str, args))} exited {r.returncode}: {r.stderr[-2000:]}"
    return r.stdout


def parse_dump(out):
    """refdump's output -> (open status, {path: (xtype, dims, shape, bytes or error status)})."""
    lines = out.splitlines()
    status = int(lines[0].split()[1])
    vars_ = {}
    for line in lines[1:]:
        tag, *f = line.split("\t")
        if tag == "var":
            if f[1] == "error":
                vars_[f[0]] = ("error", int(f[2]))
                continue
            dims = tuple(f[2].split(",")) if f[2] else ()
            shape = tuple(int(n) for n in f[3].split(",")) if f[3] else ()
            vars_[f[0]] = [int(f[1]), dims, shape, None]
        elif tag == "data":
            v = vars_.setdefault(f[0], [None, (), (), None])
            if f[1] == "error":
                v[3] = int(f[2])
            elif f[1] == "skipped":
                v[3] = "skipped"
            elif f[1] == "strings":
                v[3] = [None if h == "-" else bytes.fromhex(h) for h in f[2].split(",")] if f[2] else []
            else:
                v[3] = bytes.fromhex(f[1])
    return status, {k: tuple(v) for k, v in vars_.items()}


def expected_view(progs, files, ref):
    """What netcdf-c 4.10.1 reads from the original file(s), as refdump
    prints it: relative to the reference's group, without the variables the
    tool left out, concatenated along ref.concat for a series."""
    parts = []
    for name in ref.sources:
        status, vars_ = parse_dump(run_refdump(progs["netcdf_c"], "read", files / name))
        assert status == 0
        prefix = ref.group.strip("/") + "/" if ref.group != "/" else ""
        parts.append({p[len(prefix):]: v for p, v in vars_.items() if p.startswith(prefix)})
    view = {p: v for p, v in parts[0].items() if p not in ref.missing}
    if ref.concat:
        for p, (xtype, dims, shape, data) in list(view.items()):
            if ref.concat in dims:
                axis = dims.index(ref.concat)
                arrays = [np.frombuffer(part[p][3], DTYPES[xtype]).reshape(part[p][2]) for part in parts]
                whole = np.concatenate(arrays, axis=axis)
                view[p] = (xtype, dims, whole.shape, whole.tobytes())
    return view


NC_CHAR, NC_STRING = 2, 12
# netcdf-c's default fill values (netcdf.h), by type, as native bytes.
DEFAULT_FILL = {1: np.int8(-127), 3: np.int16(-32767), 4: np.int32(-2147483647), 5: np.float32(9.969209968386869e36),
                6: np.float64(9.969209968386869e36), 7: np.uint8(255), 8: np.uint16(65535),
                9: np.uint32(4294967295), 10: np.int64(-9223372036854775806), 11: np.uint64(18446744073709551614)}


def zarray(ref_file, path):
    """The .zarray of array `path` in a reference file (v0 or v1, a string
    or a JSON object), or None."""
    import json

    doc = json.loads(pathlib_read(ref_file))
    refs = doc.get("refs", {}) if "version" in doc else doc
    value = refs.get(f"{path}/.zarray")
    if value is None:
        return None
    return json.loads(value) if isinstance(value, str) else value


def pathlib_read(path):
    with open(path) as f:
        return f.read()


def value_problems(p, got, expected, null_fill):
    """How our read of variable p differs from netcdf-c's, allowing for
    what the Zarr mapping changes (as netcdf-c's own NCZarr reads the same
    Zarr, checked with Debian's 4.9.0):
    - NC_CHAR is "|S1" in Zarr, which NCZarr reads as NC_STRING: either
      type passes, NC_STRING as one-character strings equal to the chars;
    - a Zarr fill_value null (kerchunk's, for a variable without
      _FillValue) reads as 0 where a chunk is absent, where netcdf-c reads
      the default fill value from the file: 0 passes in place of it."""
    xtype, dims, shape, data = expected
    if got[0] == "error":
        return [f"{p}: nc_inq_var returned {got[1]}"]
    gtype, _, gshape, gdata = got
    if gshape != shape:
        return [f"{p} has shape {gshape}, netcdf-c reads {shape}"]
    if isinstance(gdata, int):
        return [f"reading {p} returned {gdata}"]
    if xtype == NC_CHAR and gtype == NC_STRING:
        if gdata != [bytes([c]) if c else b"" for c in data]:
            return [f"{p}'s strings {gdata[:8]} are not netcdf-c's characters {data[:8]}"]
        return []
    if gtype != xtype:
        return [f"{p} is of type {gtype}, netcdf-c reads type {xtype}"]
    if gdata == data:
        return []
    if null_fill and xtype in DEFAULT_FILL:
        dt = DEFAULT_FILL[xtype].dtype
        g, e = np.frombuffer(gdata, dt), np.frombuffer(data, dt)
        same = g.view(f"u{dt.itemsize}") == e.view(f"u{dt.itemsize}")
        if np.all(same | ((e == DEFAULT_FILL[xtype]) & (g == 0))):
            return []
    return [f"{p}'s values differ from netcdf-c's read of the original"]


def assert_same_values(got, expected, what, ref_file=None):
    status, vars_ = got
    assert status == 0, f"{what}: nc_open returned {status}"
    problems = []
    if sorted(vars_) != sorted(expected):
        problems.append(f"variables {sorted(vars_)}, expected {sorted(expected)}")
    for p in sorted(set(expected) & set(vars_)):
        za = zarray(ref_file, p) if ref_file else None
        problems += value_problems(p, vars_[p], expected[p], za is not None and za.get("fill_value") is None)
    assert not problems, f"{what}:\n" + "\n".join(problems)


def ids(refs):
    return [r.name for r in refs]


def local_refs():
    """The local references, known at collection time without building the
    corpus: make_corpus.build_local's names (checked by test_corpus_names)."""
    names = []
    for case in ("plain", "compressed", "groups", "classic"):
        names += [f"{case}.kerchunk.v1.local.json", f"{case}.kerchunk.v0.local.json"]
    names += ["plain.kerchunk.inline.local.json", "series.kerchunk.v1.local.json",
              "plain.virtualizarr.local.json", "compressed.virtualizarr.local.json",
              "groups-obs.virtualizarr.local.json", "classic.virtualizarr.local.json",
              "series.virtualizarr.local.json", "compressed.kerchunk.fileurl.json", "plain.gen.local.json",
              "plain.relative.json"]
    return names


LOCAL = local_refs()
S3_REFS = [n.replace(".local.", ".s3.") for n in LOCAL if ".local." in n]


def find(refs, name):
    return next(r for r in refs if r.name == name)


def test_corpus_names(corpus):
    _, refs, bad = corpus
    assert sorted(ids(refs)) == sorted(LOCAL)
    assert sorted(bad) == sorted(n for n, _ in BAD)


# ---------------------------------------------------------------------------
# The corpus itself, through fsspec + zarr-python.


@pytest.mark.parametrize("name", LOCAL)
def test_fsspec_reads_local_reference(corpus, name, monkeypatch):
    files, refs, _ = corpus
    monkeypatch.chdir(files)  # fsspec resolves relative targets against the working directory
    assert verify(files / name, find(refs, name), files)


@pytest.mark.parametrize("name", S3_REFS)
def test_fsspec_reads_s3_reference(corpus, s3_corpus, moto_server, name):
    files = corpus[0]
    out, refs, _, _ = s3_corpus
    assert verify(out / name, find(refs, name), files, remote_protocol="s3",
                  remote_options=s3_options(moto_server.endpoint))


def test_s3_references_name_s3_targets(s3_corpus):
    """The S3 references were made by the tools reading the files on S3:
    every target they name is an s3:// URL of the bucket."""
    import json

    out, refs, _, _ = s3_corpus
    for ref in refs:
        doc = json.loads((out / ref.name).read_text())
        refs = doc.get("refs", doc) if "version" in doc else doc  # version 0: the refs alone
        targets = {v[0] for v in refs.values() if isinstance(v, list)}
        targets |= set(doc.get("templates", {}).values())
        targets -= {"{{u}}", "{{lonbin}}"}
        assert targets and all(t.startswith(f"s3://{BUCKET}/{PREFIX}/") for t in targets), (ref.name, targets)


# ---------------------------------------------------------------------------
# Values through our library.


@pytest.mark.parametrize("name", LOCAL)
def test_values_local(progs, corpus, env, name):
    files, refs, _ = corpus
    ref = find(refs, name)
    got = parse_dump(run_refdump(progs["ours"], "read", ref_url(files / name), env=env))
    assert_same_values(got, expected_view(progs, files, ref), name, files / name)


@pytest.mark.parametrize("name", S3_REFS)
def test_values_s3(progs, corpus, s3_corpus, server, env, name):
    """The reference file on S3 as s3://bucket/key with AWS_ENDPOINT_URL,
    its targets s3:// URLs (the same endpoint and keys)."""
    files = corpus[0]
    ref = find(s3_corpus[1], name)
    e = dict(env, AWS_ENDPOINT_URL=server.endpoint)
    url = f"s3://{BUCKET}/{PREFIX}/{name}#mode=zarr,reference"
    got = parse_dump(run_refdump(progs["ours"], "read", url, env=e))
    assert_same_values(got, expected_view(progs, files, ref), url, s3_corpus[0] / name)


@pytest.mark.parametrize("name", ["compressed.kerchunk.v1.s3.json", "series.virtualizarr.s3.json"])
def test_values_http_url(progs, corpus, s3_corpus, server, env, name):
    """The reference file named by the server's path-style http:// URL
    (http://127.0.0.1:PORT/bucket/key): read as the S3 object it is, with
    the test keys (the bucket is private: an unsigned GET is refused)."""
    files = corpus[0]
    ref = find(s3_corpus[1], name)
    e = dict(env, AWS_ENDPOINT_URL=server.endpoint)
    url = f"{server.endpoint}/{BUCKET}/{PREFIX}/{name}#mode=zarr,reference"
    got = parse_dump(run_refdump(progs["ours"], "read", url, env=e))
    assert_same_values(got, expected_view(progs, files, ref), url, s3_corpus[0] / name)


# ---------------------------------------------------------------------------
# Headers: ncdump -h over us on the reference, over Debian's netcdf-c on
# the original.

_ATT = re.compile(r'^\s*(?:(?:string|char|byte|ubyte|short|ushort|int|uint|int64|uint64|float|double)\s+)?'
                  r'([\w.+-]*):(\S+) = (.*) ;$')
_VAR = re.compile(r"^\s*(\w+) ([\w.+-]+)(\(.*\))? ;$")
_DIM = re.compile(r"^\s*([\w.+-/]+) = (UNLIMITED|\d+) ;(?: // \((\d+) currently\))?$")
_NUM = re.compile(r"^(-?(?:\d+\.?\d*(?:e[+-]?\d+)?|NaN|Infinity|-Infinity|nan|inf))[a-zA-Z]*$")


def _att_value(text):
    """An attribute's value as ncdump prints it: a string, or a tuple of
    numbers (type suffixes dropped: JSON attributes have no netCDF type)."""
    text = text.strip()
    if text.startswith('"'):
        return "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', text))
    out = []
    for item in text.split(","):
        m = _NUM.match(item.strip())
        assert m, f"cannot parse attribute value {text!r}"
        out.append(float(m.group(1).replace("Infinity", "inf")))
    return tuple(out)


def parse_header(text):
    """ncdump -h output -> {"dims", "vars", "atts", "groups"} per group."""
    root = {"dims": {}, "vars": {}, "atts": {}, "groups": {}}
    stack = [root]
    section = None
    for line in text.splitlines()[1:]:
        s = line.strip()
        if not s or s.startswith("//") and "global attributes" not in s:
            continue
        if s.startswith("group: "):
            g = {"dims": {}, "vars": {}, "atts": {}, "groups": {}}
            stack[-1]["groups"][s.split()[1]] = g
            stack.append(g)
            section = None
            continue
        if s.startswith("}"):
            stack.pop()
            continue
        if s in ("dimensions:", "variables:", "types:"):
            section = s
            continue
        if "global attributes" in s:
            section = "global"
            continue
        cur = stack[-1]
        if section == "dimensions:":
            m = _DIM.match(s)
            assert m, s
            # Zarr has no unlimited dimension: compare lengths.
            cur["dims"][m.group(1)] = int(m.group(3) if m.group(2) == "UNLIMITED" else m.group(2))
            continue
        m = _ATT.match(s)
        if m:
            owner, name, value = m.groups()
            atts = cur["atts"] if owner == "" else cur["vars"][owner]["atts"]
            atts[name] = _att_value(value)
            continue
        m = _VAR.match(s)
        assert m, f"cannot parse {s!r}"
        dims = tuple(d.strip() for d in m.group(3)[1:-1].split(",")) if m.group(3) else ()
        cur["vars"][m.group(2)] = {"type": m.group(1), "dims": dims, "atts": {}}
    return root


def _same_number(a, b):
    return a == b or (np.isnan(a) and np.isnan(b)) or np.float32(a) == np.float32(b)


def same_att(a, b):
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(_same_number(x, y) for x, y in zip(a, b))
    return a == b


def normalize_header(h, ref, expected_side):
    """What is not compared, and why:
    - _FillValue: kerchunk writes none where the file has none, VirtualiZarr
      writes netCDF's default fill as Zarr fill_value and NaN for the
      coordinates it loads; what a fill does is checked by the values;
    - attribute types (JSON attributes have none; numbers compare as
      numbers, equal as float32 at least);
    - the order of dimensions, variables and attributes (Zarr keys have no
      order), and UNLIMITED (Zarr has none: lengths compare);
    - the tools' own losses, per reference:
        kerchunk's NetCDF3ToZarr (and VirtualiZarr's NetCDF3Parser, which is
        it) writes numeric global attributes of a classic file as strings
        ("3", "[1999 2000 2001]"): global attribute values are not compared;
        VirtualiZarr re-encodes the coordinates it loads with xarray, which
        writes CF time units without a midnight time ("days since
        2000-01-01 00:00:00" -> "days since 2000-01-01").
    """
    def walk(g):
        for v in g["vars"].values():
            v["atts"].pop("_FillValue", None)
            if ref.tool == "virtualizarr" and isinstance(v["atts"].get("units"), str):
                v["atts"]["units"] = v["atts"]["units"].replace(" 00:00:00", "")
        if "classic" in ref.name:
            g["atts"] = {k: None for k in g["atts"]}
        for sub in g["groups"].values():
            walk(sub)

    walk(h)
    if expected_side:
        for p in ref.missing:
            *groups, var = p.split("/")
            g = h
            for name in groups:
                g = g["groups"].get(name, {"vars": {}})  # a subgroup left out already
            g["vars"].pop(var, None)
        if ref.concat:
            h["dims"][ref.concat] *= len(ref.sources)
    return h


def compare_headers(got, expected, where="/", got_scope=None, expected_scope=None):
    """Differences between two parsed headers. Dimensions compare as each
    variable sees them (name and length, looked up from its group up):
    which group defines a dimension is the Zarr mapping's choice (Zarr has
    no dimensions), and a char variable may read as string ("|S1": see
    value_problems)."""
    got_scope = {**(got_scope or {}), **got["dims"]}
    expected_scope = {**(expected_scope or {}), **expected["dims"]}
    problems = []
    if sorted(got["vars"]) != sorted(expected["vars"]):
        problems.append(f"{where}: variables {sorted(got['vars'])}, expected {sorted(expected['vars'])}")
    for name in sorted(set(got["vars"]) & set(expected["vars"])):
        g, e = got["vars"][name], expected["vars"][name]
        gdims = [(d, got_scope.get(d)) for d in g["dims"]]
        edims = [(d, expected_scope.get(d)) for d in e["dims"]]
        if g["type"] != e["type"] and (g["type"], e["type"]) != ("string", "char"):
            problems.append(f"{where}{name}: type {g['type']}, expected {e['type']}")
        if gdims != edims:
            problems.append(f"{where}{name}: dimensions {gdims}, expected {edims}")
        if sorted(g["atts"]) != sorted(e["atts"]) or not all(same_att(g["atts"][k], e["atts"][k]) for k in e["atts"]):
            problems.append(f"{where}{name}: attributes {g['atts']}, expected {e['atts']}")
    if sorted(got["atts"]) != sorted(expected["atts"]) or not all(same_att(got["atts"][k], expected["atts"][k])
                                                                  for k in expected["atts"]):
        problems.append(f"{where}: global attributes {got['atts']}, expected {expected['atts']}")
    if sorted(got["groups"]) != sorted(expected["groups"]):
        problems.append(f"{where}: groups {sorted(got['groups'])}, expected {sorted(expected['groups'])}")
    for name in set(got["groups"]) & set(expected["groups"]):
        problems += compare_headers(got["groups"][name], expected["groups"][name], f"{where}{name}/", got_scope,
                                    expected_scope)
    return problems


def ncdump(target, env, *opts, ours=True):
    e = dict(env)
    if ours:
        e["LD_LIBRARY_PATH"] = str(OUR_LIBDIR)
    return subprocess.run([NCDUMP, *opts, str(target)], capture_output=True, text=True, env=e, timeout=120)


@pytest.mark.parametrize("name", LOCAL)
def test_header_local(corpus, env, name):
    files, refs, _ = corpus
    problems = header_problems(ref_url(files / name), find(refs, name), files, env)
    assert not problems, "\n".join(problems)


def header_problems(url, ref, files, env):
    """How ncdump -h over us on the reference at `url` differs from
    Debian's ncdump -h of the original (both normalised)."""
    r = ncdump(url, env, "-h")
    assert r.returncode == 0, f"ncdump -h over us exited {r.returncode}: {r.stderr}"
    got = normalize_header(parse_header(r.stdout), ref, False)
    orig = ncdump(files / ref.sources[0], env, "-h", ours=False)
    assert orig.returncode == 0, orig.stderr
    expected = parse_header(orig.stdout)
    for name_ in [p for p in ref.group.split("/") if p]:
        # A reference rooted in a group: that group, without its
        # subgroups (VirtualiZarr takes one group), and the dimensions it
        # uses from its parents.
        parent_dims = expected["dims"]
        expected = expected["groups"][name_]
        expected["groups"] = {}
        used = {d for v in expected["vars"].values() for d in v["dims"]}
        expected["dims"] = {**{d: n for d, n in parent_dims.items() if d in used}, **expected["dims"]}
    expected = normalize_header(expected, ref, True)
    return compare_headers(got, expected)


# ---------------------------------------------------------------------------
# Requests.


def test_open_costs_one_get_of_the_reference(progs, s3_corpus, server, proxy_for, env):
    """Opening (nc_open, nc_close) reads the reference file only: no
    request to its targets."""
    proxy = proxy_for(server)
    e = dict(env, AWS_ENDPOINT_URL=proxy.endpoint)
    name = "compressed.kerchunk.v1.s3.json"
    out = run_refdump(progs["ours"], "open", f"s3://{BUCKET}/{PREFIX}/{name}#mode=zarr,reference", env=e)
    assert out.split() == ["open", "0", "close", "0"], out
    gets = proxy.object_gets()
    assert [r.key for r in gets] == [f"{PREFIX}/{name}"], [(r.method, r.key, r.range) for r in proxy.requests()]
    others = [r for r in proxy.requests() if r.method not in ("GET", "HEAD") or not r.key.endswith(name)]
    assert not others, [(r.method, r.key) for r in others]


@pytest.mark.parametrize("name,var,start,count,chunks,target", [
    # temp's chunks are 2x3x5: time 0-1, all y and x = 4 chunks.
    ("compressed.kerchunk.v1.s3.json", "temp", "0x0x0", "2x6x10", 4, "compressed.nc"),
    # One chunk, part of it.
    ("compressed.virtualizarr.s3.json", "temp", "6x3x5", "1x2x2", 1, "compressed.nc"),
    # grid's chunks (1x5x8) through gen: 3 of them.
    ("plain.gen.s3.json", "grid", "1x0x0", "3x5x8", 3, "plain.nc"),
    # A classic file's record variable: a chunk per record.
    ("classic.kerchunk.v1.s3.json", "temp", "1x0x0", "2x3x4", 2, "classic.nc"),
    # The series: 12 steps in 6 chunks of 2 over 3 files.
    ("series.virtualizarr.s3.json", "temp", "0x0", "12x3", 6, None),
])
def test_read_costs_at_most_a_ranged_get_per_chunk(progs, corpus, s3_corpus, server, proxy_for, env, name, var,
                                                     start, count, chunks, target):
    proxy = proxy_for(server)
    e = dict(env, AWS_ENDPOINT_URL=proxy.endpoint)
    url = f"s3://{BUCKET}/{PREFIX}/{name}#mode=zarr,reference"
    out = run_refdump(progs["ours"], "slab", url, var, start, count, env=e)
    status, vars_ = parse_dump(out)
    assert status == 0, out
    # The values are netcdf-c's, read the same way from the original.
    ref = find(s3_corpus[1], name)
    files = corpus[0]
    if ref.concat:
        exp = expected_view(progs, files, ref)[var][3]
        n = int(np.prod([int(c) for c in count.split("x")]))
        assert vars_[var][3] == exp[: n * 4], out[:300]
    else:
        exp = parse_dump(run_refdump(progs["netcdf_c"], "slab", files / target, var, start, count))[1]
        assert vars_[var][3] == exp[var][3], out[:300]
    gets = [r for r in proxy.object_gets() if r.key.endswith(".nc")]
    assert len(gets) <= chunks, [(r.key, r.range) for r in gets]
    assert all(r.range and re.fullmatch(r"bytes=\d+-\d+", r.range) for r in gets), [(r.key, r.range) for r in gets]
    ref_gets = [r for r in proxy.object_gets() if r.key.endswith(".json")]
    assert len(ref_gets) == 1, [(r.key, r.range) for r in ref_gets]


# ---------------------------------------------------------------------------
# Bad references and writing.


def assert_reference_mode_works(progs, url, env):
    """The good reference the bad ones are made from reads: so a bad one
    failing says something (a library that refuses the mode fails here)."""
    status, vars_ = parse_dump(run_refdump(progs["ours"], "read", url, env=env))
    assert status == 0, f"the good reference {url} does not open: {status}"
    assert isinstance(vars_["temp"][3], bytes), f"reading temp of the good reference {url}: {vars_['temp'][3]}"


def assert_fails_cleanly(progs, url, env, what):
    # ncdump over us: a nonzero exit, not a signal (a crash), in time.
    r = ncdump(url, env)
    assert r.returncode > 0, f"{what}: ncdump over us exited {r.returncode} (a negative exit is a signal)"
    # The C API: nc_open fails, or reading temp does, with a netCDF error.
    status, vars_ = parse_dump(run_refdump(progs["ours"], "read", url, env=env))
    if status == 0:
        assert "temp" in vars_, f"{what}: no temp after an nc_open that succeeded"
        assert isinstance(vars_["temp"][3], int) and vars_["temp"][3] < 0, (
            f"{what}: nc_open and reading temp succeeded")
    else:
        assert status < 0, status


@pytest.mark.parametrize("name", [n for n, _ in BAD])
def test_bad_reference_local(progs, corpus, env, name):
    files, _, bad = corpus
    assert_reference_mode_works(progs, ref_url(files / "plain.kerchunk.v1.local.json"), env)
    assert_fails_cleanly(progs, ref_url(files / bad[name]), env, dict(BAD)[name])


@pytest.mark.parametrize("name", ["bad-range-past-end", "bad-missing-target", "bad-absurd-length",
                                  "bad-malformed-json", "bad-short-chunk"])
def test_bad_reference_s3(progs, s3_corpus, server, env, name):
    bad = s3_corpus[2]
    e = dict(env, AWS_ENDPOINT_URL=server.endpoint)
    assert_reference_mode_works(progs, f"s3://{BUCKET}/{PREFIX}/plain.kerchunk.v1.s3.json#mode=zarr,reference", e)
    assert_fails_cleanly(progs, f"s3://{BUCKET}/{PREFIX}/{bad[name]}#mode=zarr,reference", e, dict(BAD)[name])


def test_missing_reference_file(progs, corpus, env):
    assert_reference_mode_works(progs, ref_url(corpus[0] / "plain.kerchunk.v1.local.json"), env)
    status, _ = parse_dump(run_refdump(progs["ours"], "read", ref_url(corpus[0] / "no-such.json"), env=env))
    assert status < 0


@pytest.mark.parametrize("name", ["plain.kerchunk.v1.local.json", "plain.gen.local.json"])
def test_write_is_refused(progs, corpus, env, name):
    """Read only: nc_open with NC_WRITE gives NC_EPERM, and the reference
    file is left as it was."""
    path = corpus[0] / name
    before = path.read_bytes()
    out = run_refdump(progs["ours"], "write", ref_url(path), env=env)
    assert out.split() == ["open", str(NC_EPERM)], out
    assert path.read_bytes() == before
