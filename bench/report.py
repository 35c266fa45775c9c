#!/usr/bin/env python3
"""The tables of one bench/run, from its raw results directory.

    report.py RAWDIR [--markdown FILE]

Prints plain-text tables on stdout and writes the same as markdown to FILE.
RAWDIR (bench/run writes it) holds meta.txt (key=value lines), limits.txt,
ncbench/CODEC.LIB.ROUND.{out,err,rc} and full/WORKLOAD.CODEC.IMPL.{out,err,rc}
(IMPL-malloc: the caller's buffers from plain malloc; ours-fsync1: with
NCZARR_RS_FSYNC=1). Every cell is judged against issue 23's targets (see
TARGETS). Exit status 1 when any library read a wrong value, or when ours
failed. Standard library only.
"""
import json
import os
import statistics
import sys

IMPLS = ["ours", "c4101", "c490", "tensorstore", "zarr", "zarrs"]
PEERS = IMPLS[1:]
LABEL = {"ours": "ours", "c4101": "4.10.1", "c490": "4.9.0", "tensorstore": "tensorstore",
         "zarr": "zarr-python", "zarrs": "zarrs-python", "ours-malloc": "ours (malloc)",
         "c4101-malloc": "4.10.1 (malloc)", "ours-fsync1": "ours (NCZARR_RS_FSYNC=1)",
         "ours-malloc-hp0": "ours (malloc, NCZARR_RS_HUGEPAGES=0)"}
SHORT = {"ours": "ours", "c4101": "4.10.1", "c490": "4.9.0", "tensorstore": "ts", "zarr": "zarr", "zarrs": "zarrs"}
C_LIBS = {"ours", "c4101", "c490"}
PYTHON = {"tensorstore", "zarr", "zarrs"}
READS = ["read_full", "read_slab", "read_series", "read_strided", "read_blocks"]
WRITES = ["write_full", "write_steps", "write_blocks"]
STORE_CODECS = ["none", "zlib1_shuffle", "zstd3", "blosc_lz4", "blosc_zstd"]
WRITE_CODECS = STORE_CODECS
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
    lib = impl.split("-")[0]  # ours-malloc, c4101-malloc, ours-fsync1: their library
    status, note = status_of(rc, nwrong, base, lib in C_LIBS)
    if status == "ok" and not lines:
        status, note = "ERR", "no results"
    if not lines:
        return Run(status, note=note)
    sec = statistics.median(d["seconds"] for d in lines)
    mb = lines[0].get("logical_MB") or 0
    # zarr_bench keeps a rep's result alive into the next rep, so a Python
    # peer's later reps hold two results: its first rep's peak is its own.
    rss = lines[0]["maxrss_MB"] if lib in PYTHON else max(d["maxrss_MB"] for d in lines)
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


def ratio(peer, ours):
    return peer.sec / ours.sec if ok(peer) and ok(ours) else None


def best_of(runs, impls):
    """The fastest of impls that ran correctly: (impl, run), or (None, None)."""
    good = [(i, runs.get(i)) for i in impls if ok(runs.get(i))]
    return min(good, key=lambda p: p[1].sec) if good else (None, None)


def judge(checks, ours):
    """The met column: yes when every check holds; no, naming the ones that
    fail; ? when one could not be judged (a result missing)."""
    if not ok(ours):
        return "no"
    failed = [name for name, c in checks if c is False]
    if failed:
        return "no: " + ", ".join(failed)
    if not checks or any(c is None for _, c in checks):
        return "?"
    return "yes"


def yes_no(c):
    return "?" if c is None else "yes" if c else "no"


# The columns a table shows left-aligned (the others are numbers).
LEFT = {"workload", "codec", "phase", "what", "best peer", "aim 1.2x", "met", "library"}


def render_text(header, rows):
    widths = [max(len(str(r[i])) for r in [header] + rows) for i in range(len(header))]
    out = ["  ".join(h.ljust(w) for h, w in zip(header, widths)),
           "  ".join("-" * w for w in widths)]
    for r in rows:
        out.append("  ".join((str(c).ljust(w) if header[i] in LEFT else str(c).rjust(w))
                             for i, (c, w) in enumerate(zip(r, widths))))
    return "\n".join(out)


def render_md(header, rows):
    out = ["| " + " | ".join(header) + " |",
           "|" + "|".join("---" if h in LEFT else "---:" for h in header) + "|"]
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


def read_limits(raw):
    """limits.txt as a dict: memcpy and pagecache_read (GB/s), pw1 and pw2
    (median, min, max GB/s, trials), numcodecs and ours ({codec: (decode
    GB/s, encode GB/s, ratio)})."""
    lim = {"numcodecs": {}, "ours": {}, "ours_of_numcodecs": {}}
    for line in read_text(os.path.join(raw, "limits.txt")).splitlines():
        f = line.split()
        try:
            if f[:1] in (["memcpy"], ["pagecache_read"], ["generate_steps"]):
                lim[f[0]] = float(f[1])
            elif f and f[0].startswith("pagecache_write_") and len(f) >= 5:
                lim["pw" + f[0][len("pagecache_write_")]] = (float(f[1]), float(f[2]), float(f[3]), int(f[4]))
            elif f and f[0].startswith("ours_decode_numcodecs_") and len(f) >= 2:
                lim["ours_of_numcodecs"][f[0][len("ours_decode_numcodecs_"):]] = float(f[1])
            elif f and f[0].startswith("ours_codec_") and len(f) >= 4:
                lim["ours"][f[0][len("ours_codec_"):]] = tuple(float(v) for v in f[1:4])
            elif f and f[0].startswith("codec_") and len(f) >= 4:
                lim["numcodecs"][f[0][len("codec_"):]] = tuple(float(v) for v in f[1:4])
        except ValueError:
            pass
    return lim


def limits_section(doc, lim):
    if not any(lim.get(k) for k in ("memcpy", "pagecache_read", "pw1", "pw2", "numcodecs", "ours")):
        return
    doc.title("Machine limits (measured in this run)")
    rows = []
    if "memcpy" in lim:
        rows.append(["memcpy, one core, 512 MiB", f"{lim['memcpy']:.2f} GB/s", "", ""])
    if "pagecache_read" in lim:
        rows.append(["read(2) of a cached 1 GiB file, 8 MiB reads", f"{lim['pagecache_read']:.2f} GB/s", "", ""])
    if "generate_steps" in lim:
        rows.append(["ncz_bench write_steps' own making of its values (inside its timing), median of 5",
                     f"{lim['generate_steps']:.0f} ms", "", ""])
    for n in ("1", "2"):
        if "pw" + n in lim:
            med, lo, hi, trials = lim["pw" + n]
            rows.append([f"write of 512 MiB as new 2 MiB files, {n} thread{'s' if n == '2' else ''} "
                         f"(median of {trials}; min-max {lo:.2f}-{hi:.2f})", "", f"{med:.2f} GB/s", ""])
    for who, label in (("numcodecs", "numcodecs"), ("ours", "ours: examples/codec_rates.rs")):
        for name, (dec, enc, r) in lim[who].items():
            rows.append([f"{CODEC_LABEL.get(name, name)}, one core ({label})", f"{dec:.2f} GB/s", f"{enc:.2f} GB/s",
                         f"{r:.2f}"])
    for name, dec in lim.get("ours_of_numcodecs", {}).items():
        rows.append([f"{CODEC_LABEL.get(name, name)}, one core (ours decoding numcodecs' chunks)",
                     f"{dec:.2f} GB/s", "", ""])
    doc.table(["what", "decode / copy / read", "encode / write", "ratio"], rows)
    doc.para("Codec rates count decoded bytes, on 2 MiB chunks (16 x 128 x 256 float32) of the full suite's "
             "own field, on one thread (blosc's own threads off). A library decoding on both cores can reach "
             "about twice these: the two-core bound of a compressed full read is the cube's bytes / "
             "(2 x our one-core rate decoding numcodecs' chunks, which is what the read stores hold), of a "
             "compressed full write the cube's bytes / (2 x our one-core encode rate), and of an "
             "uncompressed full write the cube's bytes / the two-thread new-file write rate. The write rates are of the page cache (nothing synced, "
             "files unlinked between trials); throttled writeback makes single trials noisy, hence the "
             "median and the spread.")


def peer_cell(run, ours, na):
    """A peer's cell: its time and its ratio to ours (peer / ours)."""
    if run is None:
        return "n/a" if na else "-"
    if not run.ok:
        return run.status
    if ok(ours):
        return f"{fms(run.sec)} ({run.sec / ours.sec:.2f}x)"
    return fms(run.sec)


def best_cells(runs, peers, o):
    """best peer, vs best, aim 1.2x, and the target-1 check."""
    bi, b = best_of(runs, peers)
    if b is None:
        return "-", "", "?", ("best", None)
    r = ratio(b, o)
    return (f"{SHORT[bi]} {fms(b.sec)}", "" if r is None else f"{r:.2f}x",
            yes_no(None if r is None else r >= 1.2), ("best", None if r is None else r >= 1.0))


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
            best, vs, aim, check = best_cells(run, NCBENCH_LIBS[1:], o)
            rows.append([CODEC_LABEL[codec], phase,
                         fms(o.sec) if ok(o) else (o.status if o else "-"),
                         fmbps(o.mbps) if ok(o) else "",
                         peer_cell(run["c4101"], o, False), peer_cell(run["c490"], o, codec != "none"),
                         best, vs, aim, judge([check], o)])
        for lib in NCBENCH_LIBS:
            some = next(iter((res[lib] or {}).values()), None)
            if some is not None and not some.ok:
                failures.append((lib, some.status, f"ncbench {codec} {LABEL[lib]}: {some.status}: {some.note}"))
    doc.para(CELLS)
    doc.table(["codec", "phase", "ours ms", "ours MB/s", "4.10.1", "4.9.0", "best peer", "vs best", "aim 1.2x",
               "met"], rows)
    doc.para("ncbench writes one time step per call (partial chunks), then reads on fresh opens: the whole "
             "cube, 16 time series, 8 fields, a stride-2 subset; every value is compared with what was "
             "written. Medians of the rounds (each library in turn, each run in a fresh directory). Judged "
             "against the best of the C libraries in the same run (target 1); the Python peers do not run it.")


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


def limit_of(wl, codec, lim, cube_bytes):
    """The machine's bound for a cell: (seconds, what, judged) or None."""
    if wl == "read_full" and codec == "none":
        r = lim.get("pagecache_read")
        return (cube_bytes / (r * 1e9), "read(2), 1 thread", False) if r else None
    if wl not in ("read_full", "write_full"):
        return None
    if codec == "none":
        pw = lim.get("pw2")
        return (cube_bytes / (pw[0] * 1e9), "new files, 2 threads", True) if pw else None
    rates = lim["ours"].get(codec)
    # A read decodes what zarr-python wrote: our decode rate of numcodecs'
    # chunks when measured, else of our own.
    theirs = lim.get("ours_of_numcodecs", {}).get(codec)
    if wl == "read_full" and theirs:
        return cube_bytes / (2 * theirs * 1e9), "2 x our decode", True
    if not rates:
        return None
    rate = rates[0] if wl == "read_full" else rates[1]
    return cube_bytes / (2 * rate * 1e9), f"2 x our {'decode' if wl == 'read_full' else 'encode'}", True


def full_checks(wl, codec, runs, o, ours_write_full, caller_mb, lim_sec, lim_gen_sec=None):
    """Targets 2 and 3 of a cell (target 1 is best_cells'), with the text shown."""
    checks = []
    if lim_sec is not None:
        checks.append(("limit", None if not ok(o) else o.sec <= 1.25 * lim_sec))
    if wl == "write_steps" and ok(o):
        steps = o.sec / ours_write_full.sec if ok(ours_write_full) else None
        # write_steps times the benchmark's own making of each step's
        # values too (write_full makes them before its timing starts):
        # judged without it, and both shown.
        gen = lim_gen_sec
        net = (o.sec - gen) / ours_write_full.sec if ok(ours_write_full) and gen is not None else None
        over = o.rss * 1.048576 - caller_mb  # maxrss_MB is MiB
        judged = net if net is not None else steps
        checks.append(("steps", None if judged is None else judged <= 1.2))
        checks.append(("memory", over < 100))
        text = f"{steps:.2f}x write_full" if steps else ""
        if net is not None:
            text += f" ({net:.2f}x without its {gen * 1e3:.0f} ms of making values)"
        return checks, (text + ", " if text else "") + f"{over:+.0f} MB over buffers"
    if wl == "meta_create":
        r = ratio(runs.get("c490"), o)
        checks.append(("4.9.0", None if r is None else r >= 1.0))
    return checks, ""


def full_rows(raw, workloads, codecs, failures, scale, lim):
    rows = []
    nt, ny, nx = scale.get("NT", 256), scale.get("NY", 512), scale.get("NX", 1024)
    cube_bytes = nt * ny * nx * 4
    caller_steps_mb = ny * nx * 4 / 1e6  # write_steps fills one time step of its buffer
    for wl in workloads:
        for codec in codecs:
            runs = {impl: load_full(raw, wl, codec, impl) for impl in IMPLS}
            if all(v is None for v in runs.values()):
                continue
            o = runs["ours"]
            best, vs, aim, check1 = best_cells(runs, PEERS, o)
            limit = limit_of(wl, codec, lim, cube_bytes)
            judged_limit = limit[0] if limit and limit[2] else None
            gen = lim.get("generate_steps")
            checks, extra = full_checks(wl, codec, runs, o, load_full(raw, "write_full", codec, "ours"),
                                        caller_steps_mb, judged_limit, None if gen is None else gen / 1e3)
            if limit is None:
                lim_cell = lim_ratio = ""
            else:
                lim_cell = f"{fms(limit[0])} ({limit[1]}{'' if limit[2] else ', not judged'})"
                lim_ratio = f"{o.sec / limit[0]:.2f}x" if ok(o) else ""
            rss = "/".join("-" if not (r and r.rss) else f"{r.rss:.0f}" for r in runs.values())
            met = judge([check1] + checks, o)
            rows.append([wl, CODEC_LABEL[codec],
                         fms(o.sec) if ok(o) else (o.status if o else "-"),
                         fmbps(o.mbps) if ok(o) else "",
                         *[peer_cell(runs[i], o, na_by_design(wl, codec, i)) for i in PEERS],
                         best, vs, lim_cell, lim_ratio, rss, aim, met + (f" ({extra})" if extra else "")])
            for impl, r in runs.items():
                if r is not None and not r.ok:
                    failures.append((impl, r.status, f"{wl} {CODEC_LABEL[codec]} {LABEL[impl]}: {r.status}: {r.note}"))
    return rows


FULL_HEADER = ["workload", "codec", "ours ms", "ours MB/s", "4.10.1", "4.9.0", "tensorstore", "zarr-python",
               "zarrs-python", "best peer", "vs best", "limit ms", "ours / limit",
               "RSS MiB ours/4.10.1/4.9.0/ts/zarr/zarrs", "aim 1.2x", "met"]
CELLS = ("Peers' cells: their time in ms (their time / ours; above 1x we are faster). best peer: the fastest "
         "peer in this run; vs best: its time / ours (target 1: at least 1.00x; aim 1.2x). limit: the "
         "machine's bound for the cell (target 2: ours within 1.25x of it). met: every target of the cell "
         "met, else the ones missed.")


def variant_rows(raw, workloads, codecs, variants, failures):
    """Ours (and 4.10.1) under a variant beside their default runs."""
    rows = []
    for wl in workloads:
        for codec in codecs:
            runs = {impl: load_full(raw, wl, codec, impl) for impl in IMPLS}
            var = {v: load_full(raw, wl, codec, v) for v in variants}
            if all(v is None for v in var.values()):
                continue
            bi, b = best_of(runs, PEERS)
            row = [wl, CODEC_LABEL[codec]]
            for v in variants:
                base = runs[v.split("-")[0]]
                r = var[v]
                row += [fms(base.sec) if ok(base) else (base.status if base else "-"),
                        fms(r.sec) if ok(r) else (r.status if r else "-"),
                        f"{r.sec / base.sec:.2f}x" if ok(r) and ok(base) else ""]
            o = var[variants[0]]
            row += [f"{SHORT[bi]} {fms(b.sec)}" if b else "-",
                    f"{b.sec / o.sec:.2f}x" if b and ok(o) else ""]
            rows.append(row)
            for v, r in var.items():
                if r is not None and not r.ok:
                    failures.append((v, r.status, f"{wl} {CODEC_LABEL[codec]} {LABEL[v]}: {r.status}: {r.note}"))
    return rows


def hugepage_rows(raw, workloads, codecs, failures):
    """Ours with plain malloc, huge-page advice on (the default) and off."""
    rows = []
    for wl in workloads:
        for codec in codecs:
            on, off = load_full(raw, wl, codec, "ours-malloc"), load_full(raw, wl, codec, "ours-malloc-hp0")
            if off is None:
                continue
            rows.append([wl, CODEC_LABEL[codec], fms(on.sec) if ok(on) else (on.status if on else "-"),
                         fms(off.sec) if ok(off) else off.status,
                         f"{off.sec / on.sec:.2f}x" if ok(on) and ok(off) else ""])
            if not off.ok:
                failures.append(("ours-malloc-hp0", off.status, f"{wl} {CODEC_LABEL[codec]}: {off.status}: {off.note}"))
    return rows


def full_section(doc, raw, failures, meta, lim):
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
             "blocks. Median of the reps; every value checked. The C programs' buffers are allocated as "
             "numpy allocates (bench/numpy_alloc.so); plain malloc below. " + CELLS)
    doc.table(FULL_HEADER, full_rows(raw, READS, STORE_CODECS, failures, scale, lim))
    doc.title("Full suite: writes")
    doc.para("The C libraries write `#mode=nczarr,file`: write_full is one call for the cube, write_steps "
             "one call per time step (partial chunks), write_blocks unaligned 24 x 100 x 100 blocks; "
             "ncz_bench.c writes none and shuffle+zlib1, bench/ncz_write.c the other codecs (the same cube, "
             "field, chunks and timing; the filter and every value checked after the last rep). The Python "
             "peers write Zarr v2 with zarr_bench.py (write_full, write_steps). " + CELLS)
    doc.table(FULL_HEADER, full_rows(raw, WRITES, WRITE_CODECS, failures, scale, lim))
    doc.title("Full suite: metadata, 500 variables x 10 attributes")
    doc.para("meta_create defines and writes them; meta_open opens, inquires every variable and reads every "
             "attribute, closes. Each library opens the store it created; zarr-python opens its own "
             "(zarr_bench.py meta_create, then meta_open). The C libraries run in turn, one rep a round, "
             "each in a fresh directory after `sync` and a 6 s pause (ext4 scans past inodes freed in the "
             "last seconds when it allocates one, which made creation times depend on the benchmark's own "
             "deletions just before); medians of the rounds. " + CELLS)
    doc.table(FULL_HEADER, full_rows(raw, ["meta_create", "meta_open"], ["none"], failures, scale, lim))
    rows = variant_rows(raw, READS + WRITES, STORE_CODECS, ["ours-malloc", "c4101-malloc"], failures)
    if rows:
        doc.title("The caller's buffers from plain malloc (not judged)")
        doc.para("The same programs without bench/numpy_alloc.so: buffers of 4 MiB or more fault 4 KiB at "
                 "a time instead of 2 MiB. Only the workloads whose large buffer is touched while timed "
                 "or read by the library (read_full, read_strided, write_full). numpy-like: the run in the "
                 "tables above; malloc / numpy-like: above 1x the plain-malloc run is slower; best peer: "
                 "the peers' best above, and its time / ours with plain malloc.")
        doc.table(["workload", "codec", "ours numpy-like", "ours malloc", "malloc / numpy-like",
                   "4.10.1 numpy-like", "4.10.1 malloc", "malloc / numpy-like (4.10.1)", "best peer",
                   "vs best (ours malloc)"], rows)
    rows = hugepage_rows(raw, READS, STORE_CODECS, failures)
    if rows:
        doc.title("Our huge-page advice, plain malloc (not judged)")
        doc.para("A read of 16 MiB or more into a buffer nobody has touched advises it for transparent huge "
                 "pages, as numpy does for its arrays (src/io/hugepages.rs); NCZARR_RS_HUGEPAGES=0 turns it "
                 "off. Both with the caller's buffer from plain malloc; above 1x, off is slower.")
        doc.table(["workload", "codec", "ours malloc (advice on)", "advice off", "off / on"], rows)
    rows = variant_rows(raw, WRITES, STORE_CODECS, ["ours-fsync1"], failures)
    if rows:
        doc.title("Durable writes: NCZARR_RS_FSYNC=1 (not judged)")
        doc.para("Our default makes no fsync at nc_close (crash-consistent on process death; nc_sync makes "
                 "what it commits durable), as netcdf-c, zarr-python and zarrs; NCZARR_RS_FSYNC=1 makes "
                 "every commit durable (fsync before it is published). The peers never sync (tensorstore "
                 "syncs each chunk it writes), so these rows are shown, not judged.")
        doc.table(["workload", "codec", "ours default", "ours FSYNC=1", "FSYNC=1 / default", "best peer",
                   "vs best (FSYNC=1)"], rows)


TARGETS = [
    "1. Every cell at least even with the best peer in the same run (zarrs-python, tensorstore, "
    "zarr-python, netcdf-c 4.10.1 and 4.9.0; ncbench: the C libraries), reads and writes, every codec, "
    "every library with its defaults: vs best >= 1.00x (`best`); aim for 1.2x (the aim 1.2x column, "
    "not part of met).",
    "2. Close to the machine: each compressed full read and full write within 1.25x of its two-core bound, "
    "the cube's bytes / (2 x the one-core rate of our codec backend: decode for reads, encode for writes); "
    "the uncompressed full write within 1.25x of the cube's bytes / the two-thread new-file page-cache "
    "write rate (`limit`). The uncompressed full read shows one thread's page-cache read, not judged.",
    "3. write_steps at most 1.2x write_full of the same codec (`steps`; write_steps' time less the "
    "benchmark's own making of its values, which ncz_bench times inside write_steps only, measured in "
    "the machine limits) and peak memory under 100 MB "
    "beyond the caller's buffers (`memory`; here: one time step, the part of its buffer write_steps "
    "fills); meta_create at least even with netcdf-c 4.9.0 (`4.9.0`).",
]


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
    doc.title("Targets (issue 23)")
    doc.bullets(TARGETS + ["?: a result needed to judge the cell is missing. The S3 targets (item 4) are "
                           "not measured by bench/run."])
    doc.title("Notes")
    doc.bullets([
        "n/a: not run by design. netcdf-c 4.9.0 ignores filters (it would return the stored bytes), so it "
        "runs uncompressed only; tensorstore's Zarr v2 driver has no `filters`, so no shuffle+zlib1; "
        "zarr_bench.py has no write_blocks or timed meta_create, and its meta_open is zarr-python's. "
        "-: not run (BENCH_ONLY).",
        "WRONG: the library read a value other than the one written (verify_errors > 0); ERR: it failed; "
        "TIMEOUT: it ran past BENCH_TIMEOUT.",
        "Allocation: numpy asks for transparent huge pages (madvise MADV_HUGEPAGE) on arrays of 4 MiB or "
        "more, so the Python peers read into buffers that fault 2 MiB at a time; the C programs run with "
        "bench/numpy_alloc.so preloaded, which gives their own allocations of 4 MiB or more the same advice "
        "(the libraries' own allocations are untouched, as under Python), so the judged cells compare like "
        "with like. The plain-malloc table shows what a C program that does not do this sees.",
        "Peak RSS: ru_maxrss of the benchmark process, so it includes the caller's buffers (the whole "
        f"{cube_mib:.0f} MiB cube for read_full and write_full) and, for the Python peers, the interpreter and their "
        "imports. The C programs' value is the maximum over the reps; a Python peer's is its first rep's "
        "(zarr_bench.py keeps each rep's result alive into the next rep).",
        "Reps: medians of BENCH_REPS; the Python peers' write_steps runs BENCH_PEER_STEPS_REPS times "
        "(default 1: zarr-python takes up to a minute per rep there).",
        "Codecs: shuffle+zlib1 = byte shuffle then zlib level 1; zstd3 = zstd level 3; blosc-lz4 and "
        "blosc-zstd = blosc clevel 5 with byte shuffle.",
        "Durability: every library runs with its default; ours closes without fsync (see the "
        "NCZARR_RS_FSYNC=1 rows for every commit durable).",
        "The Python peers are imported before their first timed rep (bench/zarr_bench_ext.py), as a C "
        "program has its library loaded before it starts timing.",
    ])
    if failures:
        doc.title("Failures")
        doc.bullets([text for _, _, text in failures])


# The sections other runners write at the end of RESULTS.md, each a separate
# benchmark (its own build or servers, up to an hour's rerunning): the title
# and the marker line that starts each. bench/reference/run puts its section
# before the MPI one, because bench/mpi/run replaces from its title to the end.
KEPT_SECTIONS = ["## Reference files (kerchunk) on S3\n\n<!-- bench/reference/run ",
                 "## Parallel I/O (MPI)\n\n<!-- bench/mpi/run "]


def kept_sections(path):
    """The sections bench/reference/run and bench/mpi/run wrote to the end
    of PATH, if any (from the first of them to the end), kept when this
    one rewrites the file."""
    old = read_text(path)
    found = [at for at in (old.find(start) for start in KEPT_SECTIONS) if at >= 0]
    return "\n" + old[min(found):] if found else ""


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
    lim = read_limits(raw)
    limits_section(doc, lim)
    ncbench_section(doc, raw, failures)
    full_section(doc, raw, failures, meta, lim)
    failures += s3_section(doc, raw)
    notes(doc, failures, meta)
    sys.stdout.write(doc.text())
    if md:
        kept = kept_sections(md)
        with open(md, "w") as f:
            f.write(doc.markdown() + kept)
    # A wrong value from anyone, or any failure of ours, fails the run.
    sys.exit(1 if any(status == "WRONG" or impl.startswith("ours") for impl, status, _ in failures) else 0)


if __name__ == "__main__":
    main()
