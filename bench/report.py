#!/usr/bin/env python3
"""The tables of one bench/run, from its raw results directory.

    report.py RAWDIR [--markdown FILE]

Prints plain-text tables on stdout and writes the same as markdown to FILE.
RAWDIR (bench/run writes it) holds meta.txt (key=value lines), limits.txt,
ncbench/CODEC.LIB.ROUND.{out,err,rc} and full/WORKLOAD.CODEC.IMPL.{out,err,rc}.
Exit status 1 when any library read a wrong value, or when ours failed.
Standard library only.
"""
import json
import os
import statistics
import sys

IMPLS = ["ours", "c4101", "c490", "tensorstore", "zarr", "zarrs"]
LABEL = {"ours": "ours", "c4101": "4.10.1", "c490": "4.9.0", "tensorstore": "tensorstore",
         "zarr": "zarr-python", "zarrs": "zarrs-python"}
SHORT = {"ours": "ours", "c4101": "4.10.1", "c490": "4.9.0", "tensorstore": "ts", "zarr": "zarr", "zarrs": "zarrs"}
C_LIBS = {"ours", "c4101", "c490"}
PYTHON = {"tensorstore", "zarr", "zarrs"}
READS = ["read_full", "read_slab", "read_series", "read_strided", "read_blocks"]
WRITES = ["write_full", "write_steps", "write_blocks"]
STORE_CODECS = ["none", "zlib1_shuffle", "zstd3", "blosc_lz4", "blosc_zstd"]
WRITE_CODECS = ["none", "zlib1_shuffle"]
NCBENCH_CODECS = ["none", "zlib", "zstd", "blosc"]
NCBENCH_LIBS = ["ours", "c4101", "c490"]
PHASES = ["write", "read_all", "series16", "slab8", "stride2"]
CODEC_LABEL = {"none": "none", "zlib1_shuffle": "shuffle+zlib1", "zstd3": "zstd3", "blosc_lz4": "blosc-lz4",
               "blosc_zstd": "blosc-zstd", "zlib": "shuffle+zlib1", "zstd": "zstd3", "blosc": "blosc-lz4"}


class Run:
    """One library's result for one cell: status "ok", "WRONG", "ERR" or
    "TIMEOUT"; seconds (median over reps), MB/s at that median, peak RSS."""

    def __init__(self, status, sec=None, mbps=None, rss=None, note=""):
        self.status, self.sec, self.mbps, self.rss, self.note = status, sec, mbps, rss, note

    @property
    def ok(self):
        return self.status == "ok"


def ok(run):
    return run is not None and run.ok


def read_text(path, default=""):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return default


def last_error_line(path):
    lines = [line.strip() for line in read_text(path).splitlines() if line.strip()]
    return lines[-1][:160] if lines else ""


def status_of(rc, nwrong, base, is_c):
    if nwrong or (is_c and rc == 3):
        return "WRONG", f"{nwrong} values read wrong" if nwrong else last_error_line(base + ".err")
    if rc in (124, 137):
        return "TIMEOUT", "over the time limit"
    if rc != 0:
        return "ERR", last_error_line(base + ".err") or f"exit {rc}"
    return "ok", ""


def load_full(raw, wl, codec, impl):
    """A full-suite run (ncz_bench.c or zarr_bench.py JSON lines), or None."""
    base = os.path.join(raw, "full", f"{wl}.{codec}.{impl}")
    if not os.path.exists(base + ".rc"):
        return None
    rc = int(read_text(base + ".rc", "1").strip() or 1)
    lines = []
    for line in read_text(base + ".out").splitlines():
        if line.startswith("{"):
            try:
                lines.append(json.loads(line))
            except ValueError:
                pass
    nwrong = sum(int(d.get("verify_errors", 0)) for d in lines)
    status, note = status_of(rc, nwrong, base, impl in C_LIBS)
    if status == "ok" and not lines:
        status, note = "ERR", "no results"
    if not lines:
        return Run(status, note=note)
    sec = statistics.median(d["seconds"] for d in lines)
    mb = lines[0].get("logical_MB") or 0
    # zarr_bench keeps a rep's result alive into the next rep, so a Python
    # peer's later reps hold two results: its first rep's peak is its own.
    rss = lines[0]["maxrss_MB"] if impl in PYTHON else max(d["maxrss_MB"] for d in lines)
    return Run(status, sec, mb / sec if mb else None, rss, note)


def load_ncbench(raw, codec, lib, checksums):
    """ncbench's rounds for one library and codec: median ms per phase."""
    phases, status, note, rounds = {}, "ok", "", 0
    r = 1
    while os.path.exists(os.path.join(raw, "ncbench", f"{codec}.{lib}.{r}.rc")):
        base = os.path.join(raw, "ncbench", f"{codec}.{lib}.{r}")
        rc = int(read_text(base + ".rc", "1").strip() or 1)
        out = read_text(base + ".out")
        err = read_text(base + ".err")
        rounds, r = rounds + 1, r + 1
        if rc != 0:
            st = "WRONG" if "differs" in err else "TIMEOUT" if rc in (124, 137) else "ERR"
            if status != "WRONG":
                status, note = st, last_error_line(base + ".err") or f"exit {rc}"
            continue
        for line in out.splitlines():
            f = line.split()
            if len(f) >= 5 and f[0] == "phase":
                ms, mbps = float(f[2]), float(f[4])
                phases.setdefault(f[1], []).append((ms, mbps * ms / 1e3 * 1e6))
            elif f[:1] == ["checksum"]:
                checksums.setdefault(" ".join(f[1:]), []).append(f"{lib} round {r - 1}")
                if len(f) != 3 or f[1] != f[2]:
                    status, note = "WRONG", f"checksum {' '.join(f[1:])}"
    if not rounds:
        return None
    result = {}
    for name, vals in phases.items():
        ms = statistics.median(v[0] for v in vals)
        nbytes = vals[0][1]
        result[name] = Run(status, ms / 1e3, nbytes / 1e6 / (ms / 1e3) if ms else None, None, note)
    if not result:
        return {p: Run(status, note=note) for p in PHASES}
    return result


# ------------------------------------------------------------------ formatting

def fms(sec):
    ms = sec * 1e3
    return f"{ms:.0f}" if ms >= 100 else f"{ms:.1f}" if ms >= 10 else f"{ms:.2f}"


def fmbps(v):
    return "-" if v is None else f"{v:.0f}" if v >= 10 else f"{v:.2f}"


def cell(run, ours, na):
    """A peer's cell: its time and its ratio to ours (peer / ours)."""
    if run is None:
        return "n/a" if na else "-"
    if not run.ok:
        return run.status
    if ok(ours):
        return f"{fms(run.sec)} ({run.sec / ours.sec:.2f}x)"
    return fms(run.sec)


def ratio(peer, ours):
    return peer.sec / ours.sec if ok(peer) and ok(ours) else None


def verdict(conds, ours):
    """yes when every condition holds; no when ours failed or one fails; ? when unknown."""
    if not ok(ours) or any(c is False for c in conds):
        return "no"
    return "yes" if conds and all(c is True for c in conds) else "?"


def ahead_of(ours, peers):
    """Ours faster than every peer that ran correctly; None if none did."""
    good = [p for p in peers if ok(p)]
    if not good or not ok(ours):
        return None
    return ours.sec < min(p.sec for p in good)


def at_least(r, x):
    return None if r is None else r >= x


def render_text(header, rows):
    widths = [max(len(str(r[i])) for r in [header] + rows) for i in range(len(header))]
    out = ["  ".join(h.ljust(w) for h, w in zip(header, widths)),
           "  ".join("-" * w for w in widths)]
    for r in rows:
        out.append("  ".join((str(c).ljust(w) if i < 2 or i >= len(header) - 2 else str(c).rjust(w))
                             for i, (c, w) in enumerate(zip(r, widths))))
    return "\n".join(out)


def render_md(header, rows):
    out = ["| " + " | ".join(header) + " |",
           "|" + "|".join("---" if i < 2 or i >= len(header) - 2 else "---:" for i in range(len(header))) + "|"]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


class Doc:
    """Collects sections, rendered both as text and as markdown."""

    def __init__(self):
        self.parts = []  # (kind, payload)

    def title(self, text):
        self.parts.append(("title", text))

    def para(self, text):
        self.parts.append(("para", text))

    def bullets(self, items):
        self.parts.append(("bullets", items))

    def table(self, header, rows):
        self.parts.append(("table", (header, rows)))

    def text(self):
        out = []
        for kind, p in self.parts:
            if kind == "title":
                out += ["", p, "=" * len(p)]
            elif kind == "para":
                out += [p, ""]
            elif kind == "bullets":
                out += [f"- {b}" for b in p] + [""]
            else:
                out += [render_text(*p), ""]
        return "\n".join(out).strip() + "\n"

    def markdown(self):
        out = ["# Benchmark results", ""]
        for kind, p in self.parts:
            if kind == "title":
                out += [f"## {p}", ""]
            elif kind == "para":
                out += [p, ""]
            elif kind == "bullets":
                out += [f"- {b}" for b in p] + [""]
            else:
                out += [render_md(*p), ""]
        return "\n".join(out).strip() + "\n"


# ------------------------------------------------------------------ sections

def header(doc, meta):
    doc.para("Written by `bench/run` (the numbers below are one run's; rerun it, do not edit them). "
             "Ratios are a peer's time divided by ours, so above 1 we are faster; only ratios "
             "measured in one run mean anything on a shared, noisy machine.")
    took = int(meta.get("duration_s", "0") or 0)
    doc.bullets([
        f"Date: {meta.get('date', '?')}",
        f"Machine: `{meta.get('uname', '?')}`",
        f"CPU: {meta.get('cpu', '?')}",
        f"Our commit: {meta.get('commit', '?')} (library sha256 {meta.get('lib_sha256', '?')}…, "
        f"nc_inq_libvers \"{meta.get('lib_ours', '?')}\")",
        f"netcdf-c 4.10.1: {meta.get('lib_c4101', '?')}; filters from the wheel's plugins (HDF5_PLUGIN_PATH)",
        f"netcdf-c 4.9.0: {meta.get('lib_c490', '?')}; it ignores filters, so it runs uncompressed only",
        f"Python peers: {meta.get('python_peers', '?')}",
        f"Command: `{meta.get('command', 'bench/run')}`",
        f"Scale: {meta.get('scale', '?')}; scratch {meta.get('scratch', '?')}",
        f"Took {took // 60} min {took % 60} s; load average before {meta.get('load_before', '?')}, "
        f"after {meta.get('load_after', '?')}",
        "Page cache: warm (every store is read once before its timed reads; dropping the cache needs root)",
    ])


def limits_section(doc, raw):
    lines = [l.split() for l in read_text(os.path.join(raw, "limits.txt")).splitlines() if l.strip()]
    if not lines:
        return
    doc.title("Machine limits (measured in this run)")
    rows = []
    for f in lines:
        if f[0] == "memcpy":
            rows.append(["memcpy, one core, 512 MiB", f"{f[1]} GB/s", "", ""])
        elif f[0] == "pagecache_read":
            rows.append(["read(2) of a cached 1 GiB file, 8 MiB reads", f"{f[1]} GB/s", "", ""])
        elif f[0].startswith("codec_") and len(f) >= 4:
            name = f[0][len("codec_"):]
            rows.append([f"{CODEC_LABEL.get(name, name)}, one core (numcodecs)", f"{f[1]} GB/s", f"{f[2]} GB/s",
                         f"{f[3]}"])
    doc.table(["what", "decode / copy / read", "encode", "ratio"], rows)
    doc.para("Codec rates count decoded bytes, on 2 MiB chunks (16 x 128 x 256 float32) of the full suite's "
             "own field, blosc with its own threads off. A library decoding on both cores can reach about "
             "twice these; nothing on this machine can read a compressed cube faster than 2 x decode.")


def ncbench_targets(codec, phase, ours, c4101):
    r = ratio(c4101, ours)
    if codec == "none":
        if phase == "write":
            return ">=1.5x 4.10.1", verdict([at_least(r, 1.5)], ours)
        if phase == "read_all":
            return ">=2.5x 4.10.1, >=3.5 GB/s", verdict(
                [at_least(r, 2.5), None if not ok(ours) else ours.mbps >= 3500], ours)
        return "", ""
    return ">=3x 4.10.1", verdict([at_least(r, 3)], ours)


def ncbench_section(doc, raw, failures):
    if not os.path.isdir(os.path.join(raw, "ncbench")):
        return
    doc.title("ncbench: 64 x 512 x 512 float32 (64 MiB), chunks 8 x 128 x 128, mode=nczarr,file")
    rows = []
    for codec in NCBENCH_CODECS:
        checksums = {}
        res = {lib: load_ncbench(raw, codec, lib, checksums) for lib in NCBENCH_LIBS}
        if len(checksums) > 1:
            failures.append(("all", "WRONG", f"ncbench {codec}: the checksums differ: {checksums}"))
        if all(v is None for v in res.values()):
            continue
        for phase in PHASES:
            run = {lib: (res[lib] or {}).get(phase) if res[lib] is not None else None for lib in NCBENCH_LIBS}
            o = run["ours"]
            target, met = ncbench_targets(codec, phase, o, run["c4101"])
            rows.append([CODEC_LABEL[codec], phase,
                         fms(o.sec) if ok(o) else (o.status if o else "-"),
                         fmbps(o.mbps) if ok(o) else "",
                         cell(run["c4101"], o, False), cell(run["c490"], o, codec != "none"),
                         target, met])
        for lib in NCBENCH_LIBS:
            some = next(iter((res[lib] or {}).values()), None)
            if some is not None and not some.ok:
                failures.append((lib, some.status, f"ncbench {codec} {LABEL[lib]}: {some.status}: {some.note}"))
    doc.para(CELLS)
    doc.table(["codec", "phase", "ours ms", "ours MB/s", "4.10.1", "4.9.0", "target", "met"], rows)
    doc.para("ncbench writes one time step per call (partial chunks), then reads on fresh opens: the whole "
             "cube, 16 time series, 8 fields, a stride-2 subset; every value is compared with what was "
             "written. Medians of the rounds (each library in turn, each run in a fresh directory).")


def na_by_design(wl, codec, impl):
    if impl == "c490" and codec != "none":
        return True  # 4.9.0 ignores filters: it would return the stored bytes
    if impl == "tensorstore" and codec == "zlib1_shuffle":
        return True  # its zarr v2 driver has no "filters"
    if impl in PYTHON and wl in ("write_blocks", "meta_create"):
        return True  # not in zarr_bench.py
    if impl in ("tensorstore", "zarrs") and wl == "meta_open":
        return True  # zarr_bench.py's meta_open is zarr-python's
    return False


def full_targets(wl, codec, runs, ours_write_full, caller_mb):
    o = runs["ours"]
    r = ratio(runs.get("c4101"), o)
    best_ts_zarrs = ahead_of(o, [runs.get("tensorstore"), runs.get("zarrs")])
    every = ahead_of(o, [runs.get(i) for i in IMPLS[1:]])
    compressed = codec != "none"
    if wl == "read_full":
        if compressed:
            return ">=3x 4.10.1, ahead of best of ts/zarrs", verdict([at_least(r, 3), best_ts_zarrs], o)
        return ">=2.5x 4.10.1, >=3.5 GB/s", verdict([at_least(r, 2.5), None if not ok(o) else o.mbps >= 3500], o)
    if wl in READS:
        if compressed:
            return ">=3x 4.10.1, ahead of every peer", verdict([at_least(r, 3), every], o)
        return "", ""
    if wl == "write_full":
        if compressed:
            return ">=3x 4.10.1, ahead of best of ts/zarrs", verdict([at_least(r, 3), best_ts_zarrs], o)
        return ">=1.5x 4.10.1", verdict([at_least(r, 1.5)], o)
    if wl == "write_steps":
        if not ok(o):
            return "<=1.2x write_full, <100 MB over buffers", "no"
        steps = o.sec / ours_write_full.sec if ok(ours_write_full) else None
        over = o.rss * 1.048576 - caller_mb  # maxrss_MB is MiB
        desc = (f"<=1.2x write_full ({steps:.2f}x)" if steps else "<=1.2x write_full") + \
            f", <100 MB over buffers ({over:+.0f} MB)"
        return desc, verdict([None if steps is None else steps <= 1.2, over < 100], o)
    if wl == "meta_open":
        return "<=15 ms", verdict([None if not ok(o) else o.sec * 1e3 <= 15], o)
    return "", ""


def full_rows(raw, workloads, codecs, failures, scale):
    rows = []
    ny, nx = scale.get("NY", 512), scale.get("NX", 1024)
    caller_steps_mb = ny * nx * 4 / 1e6  # write_steps fills one time step of its buffer
    for wl in workloads:
        for codec in codecs:
            runs = {impl: load_full(raw, wl, codec, impl) for impl in IMPLS}
            if all(v is None for v in runs.values()):
                continue
            o = runs["ours"]
            target, met = full_targets(wl, codec, runs, load_full(raw, "write_full", codec, "ours"),
                                       caller_steps_mb)
            rss = "/".join("-" if not (r and r.rss) else f"{r.rss:.0f}" for r in runs.values())
            rows.append([wl, CODEC_LABEL[codec],
                         fms(o.sec) if ok(o) else (o.status if o else "-"),
                         fmbps(o.mbps) if ok(o) else "",
                         *[cell(runs[i], o, na_by_design(wl, codec, i)) for i in IMPLS[1:]],
                         rss, target, met])
            for impl, r in runs.items():
                if r is not None and not r.ok:
                    failures.append((impl, r.status, f"{wl} {CODEC_LABEL[codec]} {LABEL[impl]}: {r.status}: {r.note}"))
    return rows


FULL_HEADER = ["workload", "codec", "ours ms", "ours MB/s", "4.10.1", "4.9.0", "tensorstore", "zarr-python",
               "zarrs-python", "RSS MiB ours/4.10.1/4.9.0/ts/zarr/zarrs", "target", "met"]
CELLS = "Peers' cells: their time in ms (their time / ours; above 1x we are faster)."


def full_section(doc, raw, failures, meta):
    if not os.path.isdir(os.path.join(raw, "full")):
        return
    scale = dict(kv.split("=", 1) for kv in meta.get("scale", "").split() if "=" in kv)
    scale = {k: int(v) for k, v in scale.items() if v.isdigit()}
    nt, ny, nx = scale.get("NT", 256), scale.get("NY", 512), scale.get("NX", 1024)
    mib = nt * ny * nx * 4 / 2 ** 20
    for codec in STORE_CODECS:
        gen = os.path.join(raw, "full", f"gen.{codec}")
        if os.path.exists(gen + ".rc") and read_text(gen + ".rc").strip() != "0":
            failures.append(("zarr", "ERR", f"generating the {codec} store failed: {last_error_line(gen + '.err')}"))
    doc.title(f"Full suite: reads of a {nt} x {ny} x {nx} float32 cube ({mib:.0f} MiB), chunks 16 x 128 x 256")
    doc.para("One Zarr v2 store per codec, written by zarr-python (zarr_bench.py gen); the C libraries read "
             "it as `file://STORE#mode=zarr,file`. read_slab: 16 time steps; read_series: 64 full time "
             "series; read_strided: stride 4 in every dimension; read_blocks: 64 unaligned 24 x 100 x 100 "
             "blocks. Median of the reps; every value checked. " + CELLS)
    doc.table(FULL_HEADER, full_rows(raw, READS, STORE_CODECS, failures, scale))
    doc.title("Full suite: writes")
    doc.para("The C libraries write `#mode=nczarr,file`: write_full is one call for the cube, write_steps "
             "one call per time step (partial chunks), write_blocks unaligned 24 x 100 x 100 blocks. The "
             "Python peers write Zarr v2 with zarr_bench.py (write_full, write_steps). " + CELLS)
    doc.table(FULL_HEADER, full_rows(raw, WRITES, WRITE_CODECS, failures, scale))
    doc.title("Full suite: metadata, 500 variables x 10 attributes")
    doc.para("meta_create defines and writes them; meta_open opens, inquires every variable and reads every "
             "attribute, closes. Each library opens the store it created; zarr-python opens its own "
             "(zarr_bench.py meta_create, then meta_open). " + CELLS)
    doc.table(FULL_HEADER, full_rows(raw, ["meta_create", "meta_open"], ["none"], failures, scale))


def s3_section(doc, raw):
    """bench/s3_suite.sh's tables (RAWDIR/s3/s3_rows.json), as it wrote them;
    returns failures (ours ERR or WRONG, anyone WRONG) as (impl, status, text)."""
    path = os.path.join(raw, "s3", "s3_rows.json")
    if not os.path.exists(path):
        return []
    failures = []
    with open(path) as f:
        for sec in json.load(f)["sections"]:
            doc.title(sec["title"])
            doc.para(sec["para"])
            doc.table(sec["header"], sec["rows"])
            for row in sec["rows"]:
                for name, value in zip(sec["header"], row):
                    if value in ("ERR", "WRONG", "UNCHECKED"):
                        impl = "ours" if name in ("ours ms", "ms") else name
                        failures.append((impl, "WRONG" if value == "WRONG" else "ERR",
                                         f"S3 {row[0]} {row[1]}: {name} {value}"))
    return failures


def notes(doc, failures, meta):
    scale = dict(kv.split("=", 1) for kv in meta.get("scale", "").split() if "=" in kv)
    cube_mib = int(scale.get("NT", 256)) * int(scale.get("NY", 512)) * int(scale.get("NX", 1024)) * 4 / 2 ** 20
    doc.title("Notes")
    doc.bullets([
        "n/a: not run by design. netcdf-c 4.9.0 ignores filters (it would return the stored bytes), so it "
        "runs uncompressed only; tensorstore's Zarr v2 driver has no `filters`, so no shuffle+zlib1; "
        "zarr_bench.py has no write_blocks or timed meta_create, and its meta_open is zarr-python's. "
        "-: not run (BENCH_ONLY).",
        "WRONG: the library read a value other than the one written (verify_errors > 0); ERR: it failed; "
        "TIMEOUT: it ran past BENCH_TIMEOUT.",
        "Peak RSS: ru_maxrss of the benchmark process, so it includes the caller's buffers (the whole "
        f"{cube_mib:.0f} MiB cube for read_full and write_full) and, for the Python peers, the interpreter and their "
        "imports. The C programs' value is the maximum over the reps; a Python peer's is its first rep's "
        "(zarr_bench.py keeps each rep's result alive into the next rep).",
        "Codecs: shuffle+zlib1 = byte shuffle then zlib level 1; zstd3 = zstd level 3; blosc-lz4 and "
        "blosc-zstd = blosc clevel 5 with byte shuffle.",
        "Targets (from the issue): compressed codecs: full read and full write >=3x netcdf-c 4.10.1 and ahead "
        "of the best of tensorstore and zarrs-python; series/slab/blocks/strided >=3x 4.10.1 and ahead of "
        "every peer (taken here as for the compressed codecs); uncompressed full read >=2.5x 4.10.1 and "
        ">=3.5 GB/s, full write >=1.5x; write_steps time <=1.2x write_full and peak memory under 100 MB "
        "beyond the caller's buffers (here: one time step, the part of its buffer write_steps fills); "
        "meta_open <=15 ms. ncbench's phases are held to the same ratios against 4.10.1 (its write is a "
        "write per time step). ?: a peer needed for the comparison did not give a result.",
        "The Python peers are imported before their first timed rep (bench/zarr_bench_ext.py), as a C "
        "program has its library loaded before it starts timing.",
    ])
    if failures:
        doc.title("Failures")
        doc.bullets([text for _, _, text in failures])


def main():
    args = sys.argv[1:]
    md = None
    if "--markdown" in args:
        i = args.index("--markdown")
        md = args[i + 1]
        del args[i:i + 2]
    if len(args) != 1:
        sys.exit("usage: report.py RAWDIR [--markdown FILE]")
    raw = args[0]
    meta = {}
    for line in read_text(os.path.join(raw, "meta.txt")).splitlines():
        if "=" in line:
            k, v = line.split("=", 1)
            meta[k] = v
    doc, failures = Doc(), []
    header(doc, meta)
    limits_section(doc, raw)
    ncbench_section(doc, raw, failures)
    full_section(doc, raw, failures, meta)
    failures += s3_section(doc, raw)
    notes(doc, failures, meta)
    sys.stdout.write(doc.text())
    if md:
        with open(md, "w") as f:
            f.write(doc.markdown())
    # A wrong value from anyone, or any failure of ours, fails the run.
    sys.exit(1 if any(status == "WRONG" or impl == "ours" for impl, status, _ in failures) else 0)


if __name__ == "__main__":
    main()
