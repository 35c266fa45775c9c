#!/usr/bin/env python3
"""The table of bench/reference/run (issue 25), from its raw directory.

    report.py RAWDIR [--markdown FILE] [--results RESULTS.md] [--smoke]

RAWDIR holds meta.txt, limits.txt (bench/codec_limits.py), CELL.jsonl
(ncz_bench.c's or refs.py's JSON lines, one per rep), cells.jsonl (per
cell: load, client and server CPU seconds), raw.CODEC.*.jsonl, counts.txt
(bench/s3_requests.py, one block per count) and ranges.CODEC.json.
Prints the section as markdown, writes it to --markdown FILE and, with
--results, puts it into that RESULTS.md: in place of its earlier version,
else before the MPI section bench/mpi/run keeps at the end, else at the
end (bench/report.py keeps it when bench/run rewrites the file). --smoke:
no ratios, no limits; only that every cell ran and read right. Exit status
1 when a cell failed or read a wrong value. Standard library only.
"""
import json
import os
import statistics
import sys

# bench/report_args.py, shared with the other reports.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from report_args import parse_args  # noqa: E402

TITLE = "## Reference files (kerchunk) on S3"
MARKER = "<!-- bench/reference/run writes this section; bench/run and bench/mpi/run keep it -->"
MPI_START = "## Parallel I/O (MPI)\n\n<!-- bench/mpi/run "
IMPLS = [("ours_refs", "ours, references"), ("ours_parq", "ours, Parquet references"),
         ("ours_zarr", "ours, Zarr copy"), ("ours_local", "ours, references to the .nc on local disk (no S3)"),
         ("xarray", "xarray + fsspec references"), ("xarray_parq", "xarray + fsspec Parquet references"),
         ("zarr", "zarr-python + fsspec references")]
CODEC_LABEL = {"zlib1": "shuffle + zlib 1", "none": "uncompressed"}


def read_text(path, default=""):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return default


def json_lines(path):
    out = []
    for line in read_text(path).splitlines():
        if line.startswith("{"):
            try:
                out.append(json.loads(line))
            except ValueError:
                pass
    return out


def key_values(path):
    d = {}
    for line in read_text(path).splitlines():
        if "=" in line:
            k, v = line.split("=", 1)
            d[k] = v
    return d


class Cell:
    """One cell's reps: median seconds, logical MB, errors, and what the
    machine did meanwhile (cells.jsonl)."""

    def __init__(self, raw, name, machine):
        self.name = name
        self.lines = [d for d in json_lines(os.path.join(raw, name + ".jsonl")) if "seconds" in d]
        self.m = machine.get(name, {})
        self.errors = sum(int(d.get("verify_errors", 0)) for d in self.lines)
        self.failed = self.m.get("rc", 0) != 0 or not self.lines or self.errors > 0
        self.sec = statistics.median(d["seconds"] for d in self.lines) if self.lines else None
        self.spread = (min(d["seconds"] for d in self.lines), max(d["seconds"] for d in self.lines)) \
            if self.lines else None
        self.mb = self.lines[0].get("logical_MB") if self.lines else None

    def per_rep(self, what):
        n = len(self.lines)
        return self.m[what] / n if n and what in self.m else None

    def status(self):
        if self.errors:
            return f"WRONG ({self.errors} values)"
        if self.failed:
            return "ERR"
        return ""


def fmt(x, spec=".0f", none="-"):
    return none if x is None else format(x, spec)


def cpu(c):
    """CPU seconds per rep: the client's / the S3 server's / everyone else's."""
    return " / ".join(fmt(c.per_rep(k), ".2f") for k in ("client_cpu_s", "server_cpu_s", "others_cpu_s"))


def counts(raw):
    """counts.txt: {name: {key: value}}."""
    out, cur = {}, None
    for line in read_text(os.path.join(raw, "counts.txt")).splitlines():
        if line.startswith("== "):
            cur = out.setdefault(line[3:].strip(), {})
        elif cur is not None and " " in line:
            k, v = line.split(" ", 1)
            cur[k] = v
    return out


def parquet_requests(name, c, codec, want):
    """What is wrong with the requests of ours on the Parquet references
    (NAME's counts C): open is one GET of .zmetadata, the reads one GET of
    the record file t2m/refs.0.parq and at most one GET per chunk (WANT,
    when known); anything else is named."""
    prefix = f"ref25/t2m_{codec}.parq/"
    expected = {f"GET {prefix}.zmetadata": 1, f"GET {prefix}t2m/refs.0.parq": 1}
    others = {}
    for item in c.get("other_requests", "none").split(", "):
        if item != "none":
            what, _, n = item.rpartition(" x")
            others[what] = int(n) if n.isdigit() else n
    wrong = [f"{k} x{others.get(k, 0)}, not x{n}" for k, n in expected.items() if others.get(k, 0) != n]
    wrong += [f"{k} x{n}, not expected" for k, n in others.items() if k not in expected]
    chunk_gets = int(c.get("chunk_gets", -1))
    if chunk_gets < 0 or (want and chunk_gets > want):
        wrong.append(f"{c.get('chunk_gets', '?')} chunk GETs for {want} chunks")
    return [f"{name}: requests: {w}" for w in wrong]


def limits(raw):
    """One core's shuffle+zlib1 decode GB/s: {"numcodecs": codec_limits.py's,
    "ours": examples/codec_rates.rs'}, those measured."""
    out = {}
    for line in read_text(os.path.join(raw, "limits.txt")).splitlines():
        for prefix, name in (("codec_zlib1_shuffle ", "numcodecs"), ("ours_codec_zlib1_shuffle ", "ours")):
            if line.startswith(prefix):
                out[name] = float(line.split()[1])
    return out


def main():
    raw, opts, smoke = parse_args(sys.argv[1:], __doc__)
    meta = key_values(os.path.join(raw, "meta.txt"))
    machine = {d["cell"]: d for d in json_lines(os.path.join(raw, "cells.jsonl"))}
    codecs = meta.get("shape", "").split("codecs=")[1].split(" smoke=")[0].split() if "codecs=" in meta.get(
        "shape", "") else ["zlib1"]
    zlib_core = limits(raw)
    cnt = counts(raw)
    bad = []
    out = [TITLE, "", MARKER, ""]
    md = out.append
    md(f"{meta.get('date', '?')}, {meta.get('cpu', '?')}; commit {meta.get('commit', '?')}, "
       f"library sha256 {meta.get('lib', '?').split('sha256=')[-1]}; {meta.get('server', '?')}; "
       f"{meta.get('netcdf_c', '?')}; {meta.get('python', '?')}. `{meta.get('command', '?')}`, "
       f"{meta.get('duration_s', '?')} s.")
    md("")
    md(f"t2m(time, lat, lon) float32, {meta.get('shape', '?').split(' reps=')[0]} (NT x NY x NX, chunks "
       "ct x cy x cx): ncz_bench.c's analytic field, written to a netCDF-4 file by netcdf-c 4.10.1; "
       "references by kerchunk's SingleHdf5ToZarr (version 1, targets `s3://BUCKET/ref25/t2m_C.nc`), "
       "the same references as Parquet by kerchunk's refs_to_dataframe (`ref25/t2m_C.parq`: fastparquet, "
       "the default record_size 100000, so all of t2m's chunk references are one record file "
       "`t2m/refs.0.parq`; ours fetches `.zmetadata` at open and the record file at the first chunk read) "
       "and the Zarr v2 copy (same chunks and codecs) by ours, all on s3s-fs on 127.0.0.1, whose page "
       "cache is warm. Every rep a fresh open (the reference file, or .zmetadata and the record file, fetched again), "
       f"every value checked; medians of {meta.get('shape', 'reps=?').split('reps=')[1].split()[0]} reps. "
       "MB/s: the variable's decoded bytes (1e6) per second. read_series: one time series (all of "
       "time) at one point, open included. CPU: seconds per rep of the client process (its checks of "
       "the values included), of the S3 server (both share the 2 cores) and of everyone else on the "
       "machine meanwhile (busy CPU machine-wide less those two: others' tests disturb a cell when "
       "this is not near 0). Load: 1-minute load average before / after the cell. Each cell waited "
       "for a quiet machine first (BENCH_QUIET).")
    md("")
    for codec in codecs:
        ranges = {}
        try:
            ranges = json.loads(read_text(os.path.join(raw, f"ranges.{codec}.json")) or "{}")
        except ValueError:
            pass
        cells = {(wl, impl): Cell(raw, f"{wl}.{codec}.{impl}", machine)
                 for wl in ("read_full", "read_series") for impl, _ in IMPLS}
        raws = {impl: Cell(raw, f"raw.{codec}.{impl}", machine) for impl in ("obstore", "boto3")}
        mb = next((c.mb for (wl, _), c in cells.items() if wl == "read_full" and c.mb), None)
        md(f"### {CODEC_LABEL.get(codec, codec)}")
        md("")
        if ranges:
            zc = meta.get(f"stored_{codec}", "").split("zarr_chunks_" + codec + "=")[-1].split()
            copy = f"; the Zarr copy's {zc[0]} chunks hold {int(zc[1]) / 1e6:.1f} MB" if len(zc) == 2 else ""
            pq = dict(f.rsplit(":", 1) for f in meta.get(f"parquet_{codec}", "").split() if ":" in f)
            pq = (f"; the Parquet references: {', '.join(f'`{k}` {int(v):,} bytes' for k, v in sorted(pq.items()))}"
                  if pq else "")
            md(f"{ranges['chunks']} chunks in one {ranges['span'] / 2**20:.1f} MiB stretch of the .nc, "
               f"{ranges['bytes'] / 1e6:.1f} MB stored (chunk {ranges['min']}..{ranges['max']} bytes, median "
               f"{ranges['median']}; largest gap between chunks {ranges['max_gap']} bytes){copy}{pq}.")
            md("")
        md("| reader | read_full s | MB/s | spread s | CPU client / server / others s | load | read_series ms | CPU client / server / others s | status |")
        md("|---|---:|---:|---:|---:|---:|---:|---:|---|")
        for impl, label in IMPLS:
            f, s = cells[("read_full", impl)], cells[("read_series", impl)]
            for c in (f, s):
                if c.lines or c.m:
                    if c.status():
                        bad.append(f"{c.name}: {c.status()}")
            st = " ".join(x for x in (f.status(), s.status()) if x) or "ok"
            md(f"| {label} | {fmt(f.sec, '.3f')} | {fmt(mb / f.sec if f.sec and mb else None)} | "
               f"{fmt(f.spread[0], '.3f') + '-' + fmt(f.spread[1], '.3f') if f.spread else '-'} | "
               f"{cpu(f)} | {f.m.get('load_before', '-')} / {f.m.get('load_after', '-')} | "
               f"{fmt(s.sec * 1e3 if s.sec else None, '.1f')} | {cpu(s)} | {st} |")
        for impl, label in (("obstore", "raw ranged GETs, obstore, 64 in flight"),
                            ("boto3", "raw ranged GETs, boto3, 64 threads")):
            c = raws[impl]
            md(f"| {label} | {fmt(c.sec, '.3f')} | {fmt(mb / c.sec if c.sec and mb else None)} | "
               f"{fmt(c.spread[0], '.3f') + '-' + fmt(c.spread[1], '.3f') if c.spread else '-'} | "
               f"{cpu(c)} | {c.m.get('load_before', '-')} / {c.m.get('load_after', '-')} | | | "
               f"{'no bytes decoded' if c.lines else 'not run'} |")
        bound = None
        for name, label in (("numcodecs", "numcodecs (zlib)"), ("ours", "our codec backend")):
            rate = zlib_core.get(name)
            if codec == "zlib1" and rate and mb:
                b = mb / 1e3 / (2 * rate)
                # The bound that binds ours is our own backend's, when measured.
                bound = b if name == "ours" or bound is None else bound
                md(f"| decode bound: 2 cores x {rate:.2f} GB/s (one core's shuffle+zlib1 decode, {label}) "
                   f"| {b:.3f} | {mb / b:.0f} | | | | | | limit |")
        md("")
        if not smoke:
            ours, zcopy = cells[("read_full", "ours_refs")], cells[("read_full", "ours_zarr")]
            xr, raw_best = cells[("read_full", "xarray")], min((c.sec for c in raws.values() if c.sec), default=None)
            ratios = []

            def ratio(name, other, mine=ours.sec):
                if other and mine:
                    ratios.append(f"{name} **{other / mine:.2f}x**")
            ratio("ours-refs / ours-Zarr-copy", zcopy.sec)
            ratio("ours-refs / xarray-fsspec", xr.sec)
            ratio("ours-refs / zarr-python-fsspec", cells[("read_full", "zarr")].sec)
            ratio("ours-refs / raw GETs (the faster client)", raw_best)
            ratio("ours-refs / ours-local-refs", cells[("read_full", "ours_local")].sec)
            if bound:
                ratio("ours-refs / decode bound (our backend's if measured)", bound)
            sr = cells[("read_series", "ours_refs")].sec
            if sr:
                for impl, name in (("ours_zarr", "ours-Zarr-copy"), ("xarray", "xarray-fsspec")):
                    o = cells[("read_series", impl)].sec
                    if o:
                        ratios.append(f"read_series ours-refs / {name} **{o / sr:.2f}x**")
            md("Speed ratios (the other's time / ours-refs' time; above 1: ours through the references is "
               "faster): " + "; ".join(ratios) + ".")
            md("")
            ratios = []
            for wl in ("read_full", "read_series"):
                mine = cells[(wl, "ours_parq")].sec
                pre = "" if wl == "read_full" else "read_series "
                ratio(f"{pre}ours-parq / ours-refs (JSON)", cells[(wl, "ours_refs")].sec, mine)
                ratio(f"{pre}ours-parq / xarray-fsspec-parq", cells[(wl, "xarray_parq")].sec, mine)
                ratio(f"{pre}xarray-fsspec-parq / xarray-fsspec (JSON)", cells[(wl, "xarray")].sec,
                      cells[(wl, "xarray_parq")].sec)
            if ratios:
                md("Parquet references (the other's time / the first's; above 1: the first is faster): "
                   + "; ".join(ratios) + ".")
                md("")
            # Client and server share the 2 cores: their CPU seconds over 2
            # is the least wall time that work can take here.
            notes = []
            for impl, label in (("ours_refs", "ours-refs"), ("ours_parq", "ours-parq"),
                                ("ours_zarr", "ours-Zarr-copy")):
                c = cells[("read_full", impl)]
                cl, sv = c.per_rep("client_cpu_s"), c.per_rep("server_cpu_s")
                if c.sec and cl is not None and sv is not None:
                    notes.append(f"{label} {cl:.2f} client + {sv:.2f} server CPU s per read, so at least "
                                 f"{(cl + sv) / 2:.3f} s on 2 cores (measured {c.sec:.3f} s)")
            if notes:
                md("CPU bound (client and server share the cores): " + "; ".join(notes) + ".")
                md("")
        rows = [(n, c) for n, c in cnt.items() if f".{codec}." in n]
        if rows:
            md("Requests of one open + read of ours (counting proxy, tests/s3/proxy.py):")
            md("")
            md("| read | requests | chunk GETs (chunks read) | ranged | bytes asked | largest GET | peak in flight | others |")
            md("|---|---:|---:|---:|---:|---:|---:|---|")
            nchunks = ranges.get("chunks")
            for n, c in rows:
                wl, _, impl = n.split(".")
                want = nchunks if wl == "read_full" else None
                if wl == "read_series" and ranges:
                    want = int(meta.get("shape", "NT=0").split("NT=")[1].split()[0])
                if impl == "ours_parq":
                    bad.extend(parquet_requests(n, c, codec, want))
                md(f"| {wl}, {dict(IMPLS).get(impl, impl)} | {c.get('requests', '?')} | {c.get('chunk_gets', '?')}"
                   f"{f' ({want})' if want else ''} | {c.get('ranged_gets', '?')} | "
                   f"{int(c.get('range_bytes', 0)) / 1e6:.1f} MB | {int(c.get('range_max_bytes', 0)) / 1e6:.2f} MB | "
                   f"{c.get('peak_in_flight', '?')} | {c.get('other_requests', '?')} |")
            md("")
            if any(n.endswith(".ours_parq") for n, _ in rows):
                md("Parquet references: expected one GET of `.zmetadata` (open), one of the record file "
                   "`t2m/refs.0.parq` and at most one per chunk; anything else is listed under Failures.")
                md("")
    if not smoke:
        md("Notes: the raw GETs decode nothing and copy nothing out, so they bound the transfer alone; "
           "the decode bound leaves out S3; the CPU bound counts both sides' CPU as measured (the client's "
           "includes ncz_bench.c's check of every value after its timer stops, so it is a little high). "
           "xarray opens with mask_and_scale=False and decode_times=False (t2m has no _FillValue or "
           "scale to apply; the values are compared raw, as nc_get_var returns them). read_series on "
           "uncompressed chunks: ours fetches only the 4 bytes of each chunk it needs (one ranged GET "
           "per chunk), fsspec's reference filesystem the whole chunk. The Parquet record file holds record_size "
           "(100000) rows however few the variable's chunks (256 here, the rest null), and every open reads all "
           "of them, ours and fsspec's alike: a cost per open the JSON references do not have.")
        md("")
    if bad:
        md("Failures: " + "; ".join(bad) + ".")
        md("")
    text = "\n".join(out) + "\n"
    sys.stdout.write(text)
    if "--markdown" in opts:
        with open(opts["--markdown"], "w") as f:
            f.write(text)
    if "--results" in opts:
        put_section(opts["--results"], text)
    sys.exit(1 if bad else 0)


def put_section(path, text):
    """TEXT in place of the earlier version of this section in PATH (from
    its title to the next level-2 title, or the end), else before the MPI
    section (bench/mpi/run replaces everything from its title to the end),
    else at the end."""
    old = read_text(path)
    at = old.find(TITLE + "\n\n" + MARKER)
    if at >= 0:
        end = old.find("\n## ", at + len(TITLE))
        new = old[:at] + text + ("\n" + old[end + 1:] if end >= 0 else "")
    else:
        mpi = old.find(MPI_START)
        if mpi >= 0:
            new = old[:mpi] + text + "\n" + old[mpi:]
        else:
            new = old.rstrip("\n") + ("\n\n" if old.strip() else "") + text
    with open(path, "w") as f:
        f.write(new)


if __name__ == "__main__":
    main()
