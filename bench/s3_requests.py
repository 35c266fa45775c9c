"""Count the requests a command makes of an S3 server: put the test
suite's counting proxy (tests/s3/proxy.py) in front of ENDPOINT, run the
command with every {endpoint} in its arguments replaced by the proxy's,
and print what went through it.

    python s3_requests.py ENDPOINT CHUNK_REGEX -- COMMAND ARGS...

Prints `requests N`, `chunk_gets M` (object GETs whose path matches
CHUNK_REGEX), `chunk_objects K` (distinct ones) and `peak_in_flight P`;
then, of those chunk GETs, `ranged_gets R` (with a Range header),
`range_bytes B` (the bytes their ranges ask for), `range_max_bytes X` (the
largest) and `other_requests O` (every request not a chunk GET, as
"METHOD key" counts): bench/reference/run reads a kerchunk reference's
targets, several chunks to an object, where the ranges tell the story.
"""
import pathlib
import re
import subprocess
import sys
from urllib.parse import urlsplit

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tests" / "s3"))
from proxy import Proxy  # noqa: E402

endpoint, chunk_re, sep, *command = sys.argv[1:]
assert sep == "--" and command, __doc__
proxy = Proxy(urlsplit(endpoint).port)
try:
    subprocess.run([a.replace("{endpoint}", proxy.endpoint) for a in command], check=True,
                   stdout=subprocess.DEVNULL)
    records = proxy.snapshot()
finally:
    proxy.stop()
gets = [r for r in records if r.method == "GET" and re.search(chunk_re, r.path)]
print(f"requests {len(records)}")
print(f"chunk_gets {len(gets)}")
print(f"chunk_objects {len({r.key for r in gets})}")
print(f"peak_in_flight {proxy.max_in_flight}")


def range_len(header):
    """Bytes a `bytes=A-B` Range asks for (0 for other forms)."""
    m = re.fullmatch(r"bytes=(\d+)-(\d+)", header or "")
    return int(m.group(2)) - int(m.group(1)) + 1 if m else 0


ranged = [range_len(r.range) for r in gets if r.range]
print(f"ranged_gets {len(ranged)}")
print(f"range_bytes {sum(ranged)}")
print(f"range_max_bytes {max(ranged, default=0)}")
others, chunk_ids = {}, {id(r) for r in gets}
for r in records:
    if id(r) not in chunk_ids:
        what = f"{r.method} {r.key or '/'}{'?list' if 'list-type' in r.query else ''}"
        others[what] = others.get(what, 0) + 1
print("other_requests " + (", ".join(f"{k} x{n}" for k, n in sorted(others.items())) or "none"))
