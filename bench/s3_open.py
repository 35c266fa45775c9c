#!/usr/bin/env python3
"""Round trips of an open on S3: run a command through the test suite's
counting proxy (tests/s3/proxy.py) with LATENCY_MS added to every answer,
and count its requests and their sequential waves.

    python s3_open.py [--runs N] ENDPOINT LATENCY_MS CASE -- COMMAND ARGS...

Every {endpoint} in the arguments becomes the proxy's. A wave is one step
of the longest chain of requests each of which started after the one
before it had been answered (requests in flight together are one wave), so
waves x LATENCY_MS is the least time the latency alone costs the command.

The command runs N times (default 1), each in a new process. Prints one
JSON line: case, requests, waves, wave_sizes, gets, lists, puts, others
(of the first run), waves_max (of all), wall_ms (median; the whole command,
process start included), seconds (median of the command's own timing when
it prints ncz_bench's JSON: open + inquiry of every variable and attribute
+ close), verify_errors, rc.
"""
import json
import os
import statistics
import pathlib
import subprocess
import sys
import time
from urllib.parse import urlsplit

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tests" / "s3"))
from proxy import Proxy  # noqa: E402


def waves(records):
    """The requests of each wave: wave k holds the requests whose longest
    chain of earlier answered requests, themselves included, is k long."""
    rs = sorted(records, key=lambda r: r.start)
    depth = []
    for i, r in enumerate(rs):
        depth.append(1 + max((depth[j] for j in range(i) if rs[j].end <= r.start), default=0))
    out = [[] for _ in range(max(depth, default=0))]
    for r, d in zip(rs, depth):
        out[d - 1].append(r)
    return out


def main():
    args = sys.argv[1:]
    runs = 1
    if args[0] == "--runs":
        runs = int(args[1])
        args = args[2:]
    endpoint, latency_ms, case, sep, *command = args
    assert sep == "--" and command, __doc__
    proxy = Proxy(urlsplit(endpoint).port)
    results = []
    try:
        for _ in range(runs):
            proxy.reset()
            if float(latency_ms) > 0:
                proxy.fault("delay", count=None, seconds=float(latency_ms) / 1e3)
            t0 = time.perf_counter()
            p = subprocess.run([a.replace("{endpoint}", proxy.endpoint) for a in command], capture_output=True,
                               text=True)
            wall = time.perf_counter() - t0
            results.append((p, wall, proxy.snapshot()))
    finally:
        proxy.stop()
    p, wall, records = results[0]
    lists = [r for r in records if r.method == "GET" and (r.key == "" or "list-type" in r.query)]
    gets = [r for r in records if r.method == "GET" and r not in lists]
    puts = [r for r in records if r.method == "PUT"]
    ws = waves(records)
    out = dict(workload="open", case=case, latency_ms=float(latency_ms), runs=runs, requests=len(records),
               waves=len(ws), wave_sizes=[len(w) for w in ws],
               waves_max=max(len(waves(rec)) for _, _, rec in results),
               gets=len(gets), lists=len(lists), puts=len(puts), others=len(records) - len(gets) - len(lists) - len(puts),
               wall_ms=round(statistics.median(w for _, w, _ in results) * 1e3, 1),
               rc=max(q.returncode for q, _, _ in results))
    secs = []
    for q, _, _ in results:
        for line in q.stdout.splitlines():
            if line.startswith("{"):
                j = json.loads(line)
                secs.append(j.get("seconds"))
                out["verify_errors"] = max(out.get("verify_errors", 0), j.get("verify_errors", 0))
                break
    if secs:
        out["seconds"] = statistics.median(secs)
    if os.environ.get("S3_OPEN_DUMP"):  # each wave's size and first keys, on stderr
        for k, w in enumerate(ws):
            print(k + 1, len(w), sorted({r.method + " " + r.key + ("?list" if "list-type" in r.query else "")
                                         for r in w})[:4], file=sys.stderr)
    if out["rc"] != 0:
        out["error"] = next(q.stderr for q, _, _ in results if q.returncode).strip()[-300:]
    print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
