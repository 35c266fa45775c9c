"""Raw concurrent GETs of every object under a prefix (the baseline of
bench/s3_read.sh): list the keys, then GET them all with THREADS threads
(boto3, signed), ROUNDS times; print each round's milliseconds and bytes.

    python s3_raw.py ENDPOINT BUCKET PREFIX [THREADS=64] [ROUNDS=3]
    python s3_raw.py ENDPOINT BUCKET --refs REFS.json VAR [THREADS=64] [ROUNDS=3]

With --refs (bench/reference/run), the GETs are instead one ranged GET per
[url, offset, length] chunk reference of VAR in the kerchunk reference file
REFS.json (version 1, targets s3://BUCKET/...): exactly the bytes a reader
of VAR through the references needs, one request per chunk.
"""
import json
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import boto3
from botocore.config import Config

endpoint, bucket = sys.argv[1:3]
refs = sys.argv[3] == "--refs"
rest = sys.argv[6:] if refs else sys.argv[4:]
threads = int(rest[0]) if len(rest) > 0 else 64
rounds = int(rest[1]) if len(rest) > 1 else 3
s3 = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1",
                  config=Config(max_pool_connections=threads, retries={"max_attempts": 3}))
if refs:
    with open(sys.argv[4]) as f:
        table = json.load(f)["refs"]
    var, prefix = sys.argv[5], f"s3://{bucket}/"
    jobs = [(v[0][len(prefix):], f"bytes={v[1]}-{v[1] + v[2] - 1}") for k, v in sorted(table.items())
            if k.startswith(var + "/") and isinstance(v, list) and len(v) == 3 and v[0].startswith(prefix)]

    def fetch(job):
        return len(s3.get_object(Bucket=bucket, Key=job[0], Range=job[1])["Body"].read())
else:
    prefix = sys.argv[3]
    jobs = [o["Key"] for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix)
            for o in page.get("Contents", []) if not o["Key"].rsplit("/", 1)[-1].startswith(".")]

    def fetch(key):
        return len(s3.get_object(Bucket=bucket, Key=key)["Body"].read())
for _ in range(rounds):
    start = time.perf_counter()
    with ThreadPoolExecutor(threads) as pool:
        total = sum(pool.map(fetch, jobs))
    print(f"raw_ms {(time.perf_counter() - start) * 1e3:.1f} objects {len(jobs)} bytes {total}")
