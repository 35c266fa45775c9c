#!/usr/bin/env python3
"""The tables of bench/s3_suite.sh's results.

    s3_report.py OUT_DIR

Reads OUT_DIR/*.jsonl, prints the tables, and writes OUT_DIR/S3.md (the
markdown section) and OUT_DIR/s3_rows.json ({"sections": [{"title",
"para", "header", "rows"}]}, what bench/report.py's s3_section renders).
Exit status 1 when any value read back was wrong or a run of ours failed.
"""
import glob
import json
import os
import statistics
import sys

PEERS = ["tensorstore", "zarr"]
PEER_NAMES = {"tensorstore": "tensorstore", "zarr": "zarr-python"}


def load(path):
    rows = []
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                line = line.strip()
                if line.startswith("{"):
                    rows.append(json.loads(line))
    return rows


def median_ms(rows, **match):
    secs = [r["seconds"] for r in rows if all(r.get(k) == v for k, v in match.items()) and "seconds" in r]
    return statistics.median(secs) * 1e3 if secs else None


class Cell:
    """A time, or why there is none (ERR: the run failed; WRONG: a value read
    back differs)."""

    def __init__(self, ms=None, status="ok"):
        self.ms, self.status = ms, status if ms is not None or status != "ok" else "ERR"

    def text(self):
        return f"{self.ms:.0f}" if self.status == "ok" else self.status


def cell(out, name, verify_name=None, **match):
    rows = load(os.path.join(out, name + ".jsonl"))
    if not rows or any("failed" in r for r in rows):
        return Cell(status="ERR")
    checks = rows + (load(os.path.join(out, verify_name + ".jsonl")) if verify_name else [])
    if verify_name and (not load(os.path.join(out, verify_name + ".jsonl"))
                        or any("failed" in r for r in load(os.path.join(out, verify_name + ".jsonl")))):
        return Cell(status="UNCHECKED")
    if any(r.get("verify_errors", 0) != 0 for r in checks):
        return Cell(status="WRONG")
    return Cell(median_ms(rows, **match))


def ratio(a, b):
    return f"{a.ms / b.ms:.2f}" if a.status == "ok" and b.status == "ok" and b.ms else "-"


def main():
    out = sys.argv[1]
    meta = {}
    if os.path.exists(os.path.join(out, "meta.txt")):
        for line in open(os.path.join(out, "meta.txt")):
            if "=" in line:
                k, v = line.rstrip("\n").split("=", 1)
                meta[k] = v
    codecs = sorted({os.path.basename(p).split(".")[1] for p in glob.glob(os.path.join(out, "read_full.*.jsonl"))},
                    key=lambda c: (c != "none", c))
    bad = False
    header = ["workload", "codec", "ours ms"]
    for p in PEERS:
        header += [f"{PEER_NAMES[p]} ms", f"{PEER_NAMES[p]}/ours"]
    header += ["raw ms", "ours/raw", "target", "met"]
    rows = []
    for wl in ("read_full", "write_full"):
        for codec in codecs:
            verify = (lambda impl: f"verify_write.{codec}.{impl}") if wl == "write_full" else (lambda impl: None)
            ours = cell(out, f"{wl}.{codec}.ours", verify("ours"))
            peers = {p: cell(out, f"{wl}.{codec}.{p}", verify(p)) for p in PEERS}
            raw_rows = load(os.path.join(out, f"raw.{codec}.jsonl"))
            op = "raw_get" if wl == "read_full" else "raw_put"
            raws = [m for m in (median_ms(raw_rows, workload=op, impl=c) for c in ("obstore", "boto3")) if m]
            raw = Cell(min(raws)) if raws else Cell(status="ERR")
            bad |= ours.status != "ok" or any(c.status == "WRONG" for c in peers.values())
            row = [wl, codec, ours.text()]
            for p in PEERS:
                row += [peers[p].text(), ratio(peers[p], ours)]
            okpeers = [c.ms for c in peers.values() if c.status == "ok"]
            met = "-"
            if ours.status == "ok" and raw.status == "ok":
                met = "yes" if (not okpeers or ours.ms <= min(okpeers)) and ours.ms <= 2 * raw.ms else "no"
            row += [raw.text(), ratio(ours, raw), ">= best peer, <= 2x raw", met]
            rows.append(row)

    oheader = ["open (500 vars x 10 atts)", "requests", "waves", "requests per wave", "ms", "target", "met"]
    orows = []
    for r in load(os.path.join(out, "open.jsonl")):
        if "failed" in r:
            continue
        ms = r["seconds"] * 1e3 if r.get("seconds") is not None else r["wall_ms"]
        status = "ERR" if r.get("rc") else ("WRONG" if r.get("verify_errors") else "ok")
        bad |= status != "ok"
        sizes = r.get("wave_sizes", [])
        shown = " ".join(map(str, sizes)) if len(sizes) <= 8 else " ".join(map(str, sizes[:6])) + f" ... ({len(sizes)})"
        waves = max(r["waves"], r.get("waves_max", 0))
        orows.append([r["case"], str(r["requests"]), str(waves), shown,
                      f"{ms:.0f}" if status == "ok" else status, "<= 3 waves",
                      "yes" if status == "ok" and waves <= 3 else "no"])

    mheader = ["meta_create (500 vars x 10 atts)", "ms", "note"]
    mrows = []
    for path in sorted(glob.glob(os.path.join(out, "meta_create.*.jsonl"))):
        mode = os.path.basename(path).split(".")[1].replace("_", ",")
        c = cell(out, os.path.basename(path)[:-len(".jsonl")])
        bad |= c.status != "ok"
        mrows.append([f"#mode={mode},s3", c.text(), "ours, one run; NC_CLOBBER first"])

    lat = meta.get("scale", "").split("latency_ms=")[-1] if "latency_ms=" in meta.get("scale", "") else "20"
    sections = [
        dict(title="S3: full read and write against s3s-fs on 127.0.0.1",
             para=(f"{meta.get('scale', '')}; {meta.get('server', 's3s-fs')}; {meta.get('python_peers', '')}. "
                   "Medians in ms, open + whole cube + close. Reads: one Zarr v2 store per codec written by "
                   "zarr-python and uploaded, read by ours (ncz_bench.c, `#mode=zarr,s3`), tensorstore (zarr "
                   "driver, `s3` kvstore) and zarr-python 3 (obstore's S3Store); every value checked. Writes: ours "
                   "`#mode=nczarr,s3` (zstd3 through ncz_bench's deflate call, bench/s3_codec_shim.h), the peers "
                   "Zarr v2; every written store read back whole by ncz_bench and checked (UNCHECKED/WRONG "
                   "otherwise). peer/ours > 1: we are faster. raw: the same chunk objects fetched (GET) or stored "
                   "(PUT) 64 at a time, the best of obstore and boto3 (PUT: obstore), without any codec work."),
             header=header, rows=rows),
        dict(title=f"S3: opening 500 variables x 10 attributes with {lat} ms added per request",
             para=("Through the counting proxy (tests/s3/proxy.py), which delays every answer; a wave is one "
                   "step of the longest chain of requests each started after the one before was answered "
                   "(bench/s3_open.py); requests of the first of the runs, waves the most of any. ms (median of the "
                   "runs, each a new process): ncz_bench meta_open's own time (open, every variable and attribute "
                   "inquired, close), or the whole `ncdump -h` process. Stores written by ours (meta_create) with "
                   "the mode named; `noconsolidated` opens them without the consolidated metadata (NCZarr names "
                   "its members; pure Zarr is listed): there the waves count the 500-1500 GETs at s3.concurrency (64) "
                   "a wave at best, and the proxy's own pace on this machine, not the open's structure."),
             header=oheader, rows=orows),
        dict(title="S3: creating the 500-variable dataset",
             para=("ncz_bench meta_create by ours, one run each, in this order, to the same server (the stores the "
                   "opens above read). Each costs a LIST per new variable (the commit clears a new variable's "
                   "prefix of leftovers) beside its PUTs, and a LIST on s3s-fs costs more as the bucket fills."),
             header=mheader, rows=mrows),
    ]
    with open(os.path.join(out, "s3_rows.json"), "w") as f:
        json.dump({"sections": sections}, f, indent=1)
    md, text = [], []
    for s in sections:
        md += [f"## {s['title']}", "", s["para"], "", "| " + " | ".join(s["header"]) + " |",
               "|" + "---|" * len(s["header"])]
        md += ["| " + " | ".join(r) + " |" for r in s["rows"]]
        md.append("")
        widths = [max(len(x) for x in col) for col in zip(s["header"], *s["rows"])]
        text += [s["title"], "  ".join(h.ljust(w) for h, w in zip(s["header"], widths))]
        text += ["  ".join(x.ljust(w) for x, w in zip(r, widths)) for r in s["rows"]]
        text.append("")
    with open(os.path.join(out, "S3.md"), "w") as f:
        f.write("\n".join(md))
    print("\n".join(text))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
