#!/usr/bin/env python3
"""The MPI benchmark's table, from bench/mpi/run's raw directory.

    report.py RAWDIR [--markdown FILE] [--results RESULTS.md] [--smoke]

Reads RAWDIR/meta.txt, limits.txt and cells.jsonl (par_bench's JSON lines
with the runner's target, binding, stored bytes and load added); prints
the section as markdown on stdout and to --markdown FILE; with --results,
replaces the "Parallel I/O (MPI)" section of that RESULTS.md (from its
marker to the end of the file) or appends it. --smoke: correctness only,
no ratios or targets. Exit status 1 when a cell failed or read a wrong
value.
"""
import json
import os
import sys

# bench/report_args.py, shared with the other reports.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from report_args import parse_args  # noqa: E402

MARKER = "<!-- bench/mpi/run writes this section to the end of the file; bench/run keeps it -->"
TARGETS = [("dir", "ours dir"), ("s3", "ours s3s-fs"), ("hdf5", "netcdf-c HDF5")]
# The binding that is not OpenMPI's default, for each np (see bench/mpi/run).
OTHER = {1: "none", 2: "none", 4: "core"}
BIND_WORDS = {"default": "OpenMPI's default", "none": "--bind-to none", "core": "--bind-to core:overload-allowed"}
WRITE_TARGET = 1.7   # 4 ranks / 1 rank, compressed writes
PEER_TARGET = 3.0    # ours / netcdf-c, compressed writes


def read_kv(path):
    out = {}
    if os.path.exists(path):
        for line in open(path):
            if "=" in line:
                k, v = line.rstrip("\n").split("=", 1)
                out[k] = v
    return out


def read_limits(path):
    lim = {"loads": []}
    if not os.path.exists(path):
        return lim
    for line in open(path):
        w = line.split()
        if not w:
            continue
        if w[0] == "load":
            lim["loads"].append(" ".join(w[1:]))
        elif w[0] == "memcpy":
            lim["memcpy"] = float(w[1])
        elif w[0].startswith("pagecache_write_"):
            lim[w[0]] = (float(w[1]), float(w[2]), float(w[3]), int(w[4]))
        elif w[0] == "ours_codec_zlib1_shuffle":
            lim["ours_zlib"] = (float(w[1]), float(w[2]), float(w[3]))
        elif w[0] == "zlib_shuffle_encode_1core":
            lim["sys_zlib"] = (float(w[1]), float(w[4]), line.split("(", 1)[1].rstrip(")\n"))
    return lim


def main():
    raw, opts, smoke = parse_args(sys.argv[1:], __doc__)
    meta = read_kv(os.path.join(raw, "meta.txt"))
    lim = read_limits(os.path.join(raw, "limits.txt"))
    reps = {}
    bad = []
    path = os.path.join(raw, "cells.jsonl")
    for line in open(path) if os.path.exists(path) else []:
        c = json.loads(line)
        key = (c["target"], c["op"], c["codec"], int(c["np"]), c["bind"])
        reps.setdefault(key, []).append(c)
        if "error" in c:
            bad.append(f"{c['target']} {c['op']} {c['codec']} np={c['np']} bind={c['bind']}: ERR ({c['error']})")
        elif c.get("verify_errors", 0):
            bad.append(f"{c['target']} {c['op']} {c['codec']} np={c['np']} bind={c['bind']}: "
                       f"WRONG ({c['verify_errors']} values or settings)")
    # Each cell: the rep of median time (a failed or wrong rep, if any,
    # so that it shows), with the spread of the reps' times beside it.
    cells = {}
    for key, runs in reps.items():
        broken = [c for c in runs if "error" in c or c.get("verify_errors")]
        if broken:
            cells[key] = broken[0]
            continue
        runs = sorted(runs, key=lambda c: c["s"])
        cells[key] = dict(runs[(len(runs) - 1) // 2], spread=(runs[0]["s"], runs[-1]["s"]), nreps=len(runs))
    nps = sorted({k[3] for k in cells})
    out = []
    md = out.append

    def sec(key):
        c = cells.get(key)
        return c["s"] if c and "s" in c and not c.get("verify_errors") else None

    def cell_text(key):
        c = cells.get(key)
        if c is None:
            return "-"
        if "error" in c:
            return "ERR"
        if c.get("verify_errors"):
            return "WRONG"
        return f"{c['mbps']:.0f}"

    def ratio(a, b):
        """time b / time a: how many times faster a is."""
        ta, tb = sec(a), sec(b)
        return tb / ta if ta and tb else None

    def fmt_ratio(r):
        return "?" if r is None else f"{r:.2f}x"

    md("## Parallel I/O (MPI)")
    md("")
    md(MARKER)
    md("")
    shape = dict(kv.split("=", 1) for kv in meta.get("shape", "").split())
    size = 1
    for k in ("nz", "ny", "nx"):
        size *= int(shape.get(k, 0))
    md(f"Written by `{meta.get('command', 'bench/mpi/run')}` (one run's numbers: rerun it, do not edit them). "
       f"A {shape.get('nz')} x {shape.get('ny')} x {shape.get('nx')} float field ({size * 4 / 2**20:.0f} MiB), "
       f"chunks {shape.get('cz')} x {shape.get('cy')} x {shape.get('cx')}, written then read by N ranks "
       f"(`mpirun --oversubscribe -np N`), rank r owning planes [r*nz/N, (r+1)*nz/N) and moving them in "
       f"calls of {shape.get('slab')} planes (chunk aligned), collective access (`NC_COLLECTIVE`) in every "
       "cell, `NC_NOFILL`, one program (bench/mpi/par_bench.c) linked to each library. "
       "zlib = shuffle + deflate level 1 (`nc_def_var_deflate(ncid, v, 1, 1, 1)`), the same for both. "
       "Timed from a barrier before create/open to the end of close on every rank (the slowest rank); "
       "the values (a smooth field plus 8 bits of noise, ncz_bench.c's) are made before the timing; "
       "every value read is checked, and the stored chunks and filter.")
    md("")
    md(f"- Date: {meta.get('date', '?')}; machine: {meta.get('cpu', '?')}; `{meta.get('uname', '?')}`")
    md(f"- Our commit: {meta.get('commit', '?')} (parallel build, library sha256 {meta.get('lib_sha256', '?')}…)")
    md(f"- netcdf-c: Debian {meta.get('lib_c490', '?')} (netCDF-4/HDF5 through MPI-IO), {meta.get('mpi', '?')}")
    md(f"- S3: {meta.get('s3s', '?')} on 127.0.0.1 (its data on the same disk), `#mode=nczarr,s3`")
    md(f"- Load average before {meta.get('load_before', '?')}, after {meta.get('load_after', '?')}; "
       f"took {int(meta.get('duration_s', 0)) // 60} min {int(meta.get('duration_s', 0)) % 60} s; "
       f"scratch {meta.get('scratch', '?')}; page cache warm, nothing synced (no library syncs at close)")
    md("")

    if not smoke and lim.get("memcpy"):
        md("### Machine limits (measured in this run)")
        md("")
        md("| what | rate |")
        md("|---|---:|")
        md(f"| memcpy, one core, 512 MiB | {lim['memcpy']:.2f} GB/s |")
        for t in (1, 2):
            w = lim.get(f"pagecache_write_{t}t")
            if w:
                md(f"| page-cache write of 512 MiB as new 2 MiB files, {t} thread{'s' if t > 1 else ''} "
                   f"(median of {w[3]}; min-max {w[1]:.2f}-{w[2]:.2f}) | {w[0]:.2f} GB/s |")
        if "ours_zlib" in lim:
            md(f"| shuffle+zlib1 encode, one core, ours (examples/codec_rates.rs; ratio {lim['ours_zlib'][2]:.2f}) "
               f"| {lim['ours_zlib'][1]:.3f} GB/s |")
        if "sys_zlib" in lim:
            md(f"| shuffle+zlib1 encode, one core, system zlib as HDF5's filter (par_bench codec; ratio "
               f"{lim['sys_zlib'][1]:.2f}; {lim['sys_zlib'][2]}) | {lim['sys_zlib'][0]:.3f} GB/s |")
        md("")
        bound = []
        if "ours_zlib" in lim:
            bound.append(f"ours {size * 4 / 1e9 / (2 * lim['ours_zlib'][1]):.2f} s "
                         f"({2 * lim['ours_zlib'][1] * 1e3:.0f} MB/s)")
        if "sys_zlib" in lim:
            bound.append(f"netcdf-c/HDF5 {size * 4 / 1e9 / (2 * lim['sys_zlib'][0]):.2f} s "
                         f"({2 * lim['sys_zlib'][0] * 1e3:.0f} MB/s)")
        md("Codec rates count the field's bytes (1e9 per second), on 8 of this run's chunks, one thread. "
           "The two-core bound of a compressed write, whatever the ranks: the field's bytes / (2 x one core's "
           f"encode rate): {'; '.join(bound)}. "
           f"Load average while measuring: {' -> '.join(lim['loads'])}.")
        md("")

    md(f"### MB/s (the field's bytes / the slowest rank's time; the median of {meta.get('reps', '1')} reps)")
    md("")
    md("Ours runs twice for each N: with OpenMPI's default binding (N <= 2: each rank bound to one core; "
       "N = 4 on 2 cores is oversubscribed, so unbound) and with the other (N <= 2: `--bind-to none`, each "
       "rank may use both cores; N = 4: `--bind-to core:overload-allowed`, one core a rank, two ranks a core). "
       "Our library sizes its encoding threads by the CPUs a rank may run on (src/zmap/mod.rs `cpus()`, "
       "`available_parallelism`), so the binding is its thread setting: there is no other. netcdf-c runs "
       "one thread a rank, with the default binding. ours / netcdf-c: netcdf-c's time / ours, both with the "
       "default binding (above 1x we are faster).")
    md("")
    md("| op | codec | N | ours dir | ours dir, other binding | ours s3s-fs | ours s3s-fs, other binding "
       "| netcdf-c HDF5 | dir / netcdf-c | s3s-fs / netcdf-c |")
    md("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for op in ("write", "read"):
        for codec in ("none", "zlib"):
            for n in nps:
                other = OTHER.get(n, "none")
                row = [op, codec, str(n),
                       cell_text(("dir", op, codec, n, "default")), cell_text(("dir", op, codec, n, other)),
                       cell_text(("s3", op, codec, n, "default")), cell_text(("s3", op, codec, n, other)),
                       cell_text(("hdf5", op, codec, n, "default")),
                       fmt_ratio(ratio(("dir", op, codec, n, "default"), ("hdf5", op, codec, n, "default"))),
                       fmt_ratio(ratio(("s3", op, codec, n, "default"), ("hdf5", op, codec, n, "default")))]
                md("| " + " | ".join(row) + " |")
    md("")

    if not smoke and 1 in nps and 4 in nps:
        md("### 4 ranks / 1 rank (time of 1 rank / time of 4 ranks)")
        md("")
        md("| op | codec | target | defaults (1 rank bound to a core, 4 unbound) | one core a rank (both) "
           "| unbound (both) |")
        md("|---|---|---|---:|---:|---:|")
        for op in ("write", "read"):
            for codec in ("none", "zlib"):
                for t, name in TARGETS:
                    if t == "hdf5":
                        row = [fmt_ratio(ratio((t, op, codec, 4, "default"), (t, op, codec, 1, "default"))), "", ""]
                    else:
                        row = [fmt_ratio(ratio((t, op, codec, 4, "default"), (t, op, codec, 1, "default"))),
                               fmt_ratio(ratio((t, op, codec, 4, "core"), (t, op, codec, 1, "default"))),
                               fmt_ratio(ratio((t, op, codec, 4, "default"), (t, op, codec, 1, "none")))]
                    md(f"| {op} | {codec} | {name} | " + " | ".join(row) + " |")
        md("")

    md("### Every run")
    md("")
    md("cpus: the CPUs each rank may run on (its affinity); cores busy: the ranks' CPU seconds in the timed "
       "part / its wall time; machine: the cores busy machine-wide meanwhile (/proc/stat: the ranks, the S3 "
       "server, the kernel's writeback, anyone else's work; jiffies, so coarse for runs under 0.1 s); workers: the most threads a rank had beyond its own, MPI's and the sampler's; "
       "nivcsw: involuntary context switches, all ranks (a core taken away); define / puts: seconds to the "
       "end of create+define (open) and of the last put (get), the rest is close; stored: the dataset's bytes; "
       "all from the rep of median time, its reps' fastest and slowest beside it; load: the 1-minute load "
       "average after it (the ranks' own included).")
    md("")
    md("| target | op | codec | N | binding | cpus | s | reps' s | MB/s | define s | puts s | cores busy | machine "
       "| workers | nivcsw | stored MiB | load |")
    md("|---|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    order = {t: i for i, (t, _) in enumerate(TARGETS)}
    for key in sorted(cells, key=lambda k: (k[1] != "write", k[2], k[3], order[k[0]], k[4] != "default")):
        c = cells[key]
        t, op, codec, n, bind = key
        if "error" in c:
            md(f"| {t} | {op} | {codec} | {n} | {bind} | | ERR: {c['error']} | | | | | | | | | | {c.get('load', '')} |")
            continue
        cpus = str(c["cpus_min"]) if c["cpus_min"] == c["cpus_max"] else f"{c['cpus_min']}-{c['cpus_max']}"
        status = "" if not c.get("verify_errors") else f" WRONG ({c['verify_errors']})"
        lo, hi = c.get("spread", (c["s"], c["s"]))
        md(f"| {t} | {op} | {codec} | {n} | {bind} | {cpus} | {c['s']:.3f}{status} | {lo:.3f}-{hi:.3f} "
           f"| {c['mbps']:.0f} "
           f"| {c['def_s']:.3f} | {c['io_s']:.3f} | {c['cpu_s'] / c['s']:.2f} | {c.get('machine_busy', 0):.2f} "
           f"| {c['threads_max']} "
           f"| {c['nivcsw']} | {c.get('stored_bytes', 0) / 2**20:.0f} | {c.get('load', '')} |")
    md("")

    if not smoke and 1 in nps and 4 in nps:
        md("### Targets")
        md("")
        for t, name in TARGETS[:2]:
            r_def = ratio((t, "write", "zlib", 4, "default"), (t, "write", "zlib", 1, "default"))
            r_core = ratio((t, "write", "zlib", 4, "core"), (t, "write", "zlib", 1, "default"))
            r_none = ratio((t, "write", "zlib", 4, "default"), (t, "write", "zlib", 1, "none"))
            verdict = "met" if r_def is not None and r_def >= WRITE_TARGET else "not met"
            md(f"- Compressed writes, {name}, 4 ranks at least {WRITE_TARGET}x one rank: {verdict} with the "
               f"defaults ({fmt_ratio(r_def)}); one core a rank in both {fmt_ratio(r_core)}; both unbound "
               f"{fmt_ratio(r_none)}.")
        for t, name in TARGETS[:2]:
            parts, all_met = [], True
            for n in nps:
                r = ratio((t, "write", "zlib", n, "default"), ("hdf5", "write", "zlib", n, "default"))
                r_other = ratio((t, "write", "zlib", n, OTHER.get(n, "none")), ("hdf5", "write", "zlib", n, "default"))
                all_met &= r is not None and r >= PEER_TARGET
                parts.append(f"N={n} {fmt_ratio(r)} (other binding {fmt_ratio(r_other)})")
            md(f"- Compressed writes, {name}, at least {PEER_TARGET:.0f}x netcdf-c's parallel HDF5 at every N "
               f"(defaults): {'met' if all_met else 'not met'}: " + "; ".join(parts) + ".")
        md("")
    if not smoke and "ours_zlib" in lim and "sys_zlib" in lim:
        md("### What limits the numbers (from this run's cells and limits)")
        md("")
        gb = size * 4 / 1e9
        ours_bound, c_bound = gb / (2 * lim["ours_zlib"][1]), gb / (2 * lim["sys_zlib"][0])
        cores = int(meta.get("cpu", "2 cores").split(" cores")[0].split()[-1])
        parts, needs = [], []
        for n in nps:
            o, h = cells.get(("dir", "write", "zlib", n, "default")), cells.get(("hdf5", "write", "zlib", n, "default"))
            if o and h and "s" in o and "s" in h:
                # The bound over the cores the ranks may use (one rank bound to a core has one).
                usable = min(cores, n * o["cpus_min"]) / cores
                parts.append(f"N={n} ({usable * cores:.0f} core{'s' if usable * cores > 1 else ''}): ours "
                             f"{o['s'] * usable / ours_bound:.2f}x its bound ({o['cpu_s'] / o['s']:.2f} cores busy), "
                             f"netcdf-c {h['s'] * usable / c_bound:.2f}x ({h['cpu_s'] / h['s']:.2f} cores busy)")
                need = h["s"] * usable / c_bound * lim["ours_zlib"][1] / lim["sys_zlib"][0] / PEER_TARGET
                needs.append(f"N={n} within {need:.2f}x (it is at {o['s'] * usable / ours_bound:.2f}x)")
        md(f"- Compressed writes are bound by the encoder. One core encodes shuffle+zlib1 at "
           f"{lim['ours_zlib'][1]:.3f} GB/s in our backend (zlib-rs) and at {lim['sys_zlib'][0]:.3f} GB/s in the "
           f"system zlib HDF5 calls, {lim['ours_zlib'][1] / lim['sys_zlib'][0]:.2f}x; once both keep the two cores "
           f"busy, ours / netcdf-c is about that times (netcdf-c's time / its bound) / (ours / our bound). "
           "Time / the bound over the cores the ranks may use (compressed writes, directory, default binding): " + "; ".join(parts) + ". "
           f"With netcdf-c where it is, {PEER_TARGET:.0f}x needs ours within this of its bound: "
           + "; ".join(needs) + ".")
        o, h = cells.get(("dir", "write", "zlib", 1, "default")), cells.get(("hdf5", "write", "zlib", 1, "default"))
        if o and h and o.get("stored_bytes") and h.get("stored_bytes"):
            md(f"- The same level is not the same work: zlib-rs's level 1 (deflate_quick) stores "
               f"{o['stored_bytes'] / 2**20:.0f} MiB where zlib 1.2.13's stores {h['stored_bytes'] / 2**20:.0f} MiB "
               f"({o['stored_bytes'] / h['stored_bytes']:.2f}x), as the one-core ratios say "
               f"({lim['ours_zlib'][2]:.2f} and {lim['sys_zlib'][1]:.2f}).")
        one, one_none = cells.get(("dir", "write", "zlib", 1, "default")), cells.get(("dir", "write", "zlib", 1, "none"))
        if one and one_none and "s" in one and "s" in one_none:
            md(f"- Threads: OpenMPI binds 1 and 2 ranks to a core each (`--report-bindings`), so one rank of ours "
               f"encodes on {one['cpus_min']} core ({one['s']:.2f} s, {one['cpu_s'] / one['s']:.2f} cores busy); "
               f"unbound, the same rank runs {one_none['threads_max']} workers on both cores "
               f"({one_none['s']:.2f} s, {one_none['cpu_s'] / one_none['s']:.2f} cores busy). So 4 ranks / 1 rank "
               "compares two cores with one under the defaults; against an unbound rank there is no core left to "
               "gain on this machine.")
        d4, c4 = cells.get(("dir", "write", "zlib", 4, "default")), cells.get(("dir", "write", "zlib", 4, "core"))
        r4, rc4 = cells.get(("dir", "read", "zlib", 4, "default")), cells.get(("dir", "read", "zlib", 4, "core"))
        if d4 and c4 and r4 and rc4 and all("s" in c for c in (d4, c4, r4, rc4)):
            md(f"- Oversubscription: 4 unbound ranks each size their CPU work to {d4['cpus_min']} cores (up to "
               f"{d4['threads_max']} workers a rank, {4 * max(d4['threads_max'], 1)} threads on 2 cores); one core "
               f"a rank instead: compressed write {d4['s']:.2f} s vs {c4['s']:.2f} s "
               f"({d4['s'] / c4['s']:.2f}x), compressed read {r4['s']:.2f} s vs {rc4['s']:.2f} s "
               f"({r4['s'] / rc4['s']:.2f}x); CPU seconds {d4['cpu_s']:.2f} vs {c4['cpu_s']:.2f} (write).")
        srv = [c for k, c in cells.items() if k[0] == "s3" and k[1] == "write" and k[2] == "zlib" and "s" in c]
        if srv:
            gap = sorted(c["machine_busy"] - c["cpu_s"] / c["s"] for c in srv)
            md(f"- S3: the server (s3s-fs: every request's signature checked, every object written to a file) "
               "shares the two "
               f"cores: in the compressed writes the machine was busy {gap[0]:.2f}-{gap[-1]:.2f} cores beyond the "
               "ranks (the machine column minus cores busy), which the encoder does not get; the uncompressed "
               "reads wait on it with the ranks nearly idle.")
        md("- Uncompressed writes are page-cache writes of 1 GiB of new files: the kernel's reclaim and writeback "
           "throttling decide them, and the same cell varies by several times from one rep to the next (the "
           "reps' spread); judge them by the spread, not the median. Nothing is synced in any cell.")
        h4, h2 = cells.get(("hdf5", "read", "none", 4, "default")), cells.get(("hdf5", "read", "none", 2, "default"))
        if h4 and h2 and "s" in h4 and "s" in h2:
            md(f"- netcdf-c's uncompressed read on 4 ranks ({h4['s']:.3f} s) against 2 ({h2['s']:.3f} s), with "
               f"{h4['nivcsw']} involuntary switches: 4 ranks on 2 cores taking turns in collective MPI-IO "
               "(not profiled); not ours to fix, but it makes N=4's uncompressed read ratio say little about "
               "netcdf-c on a machine with a core a rank.")
        md("")
    # Cells of ours on a directory and of netcdf-c run nothing else: what
    # the machine did beyond their ranks was someone else's (or writeback).
    noisy = sorted(f"{k[0]} {k[1]} {k[2]} N={k[3]} {k[4]} ({c['machine_busy'] - c['cpu_s'] / c['s']:.2f})"
                   for k, c in cells.items()
                   if k[0] != "s3" and "s" in c and c["s"] >= 0.5 and c["machine_busy"] - c["cpu_s"] / c["s"] > 0.3)
    if noisy:
        md(f"- Disturbed: in {len(noisy)} cells (directory or HDF5, 0.5 s or longer) the machine kept more than "
           "0.3 cores busy beyond the ranks (in parentheses; others' work, or for uncompressed writes the kernel's "
           "writeback): " + "; ".join(noisy) + ".")
        md("")
    if bad:
        md("### Failures")
        md("")
        for b in bad:
            md(f"- {b}")
        md("")

    text = "\n".join(out)
    sys.stdout.write(text)
    if "--markdown" in opts:
        with open(opts["--markdown"], "w") as f:
            f.write(text)
    if "--results" in opts:
        res = opts["--results"]
        old = open(res).read() if os.path.exists(res) else ""
        head = old.split("## Parallel I/O (MPI)\n\n" + MARKER)[0].rstrip("\n")
        with open(res, "w") as f:
            f.write((head + "\n\n" if head else "") + text)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
