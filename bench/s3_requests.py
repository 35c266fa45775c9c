"""Count the requests a command makes of an S3 server: put the test
suite's counting proxy (tests/s3/proxy.py) in front of ENDPOINT, run the
command with every {endpoint} in its arguments replaced by the proxy's,
and print what went through it.

    python s3_requests.py ENDPOINT CHUNK_REGEX -- COMMAND ARGS...

Prints `requests N`, `chunk_gets M` (object GETs whose path matches
CHUNK_REGEX), `chunk_objects K` (distinct ones) and `peak_in_flight P`.
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
