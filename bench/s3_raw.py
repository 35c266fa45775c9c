"""Raw concurrent GETs of every object under a prefix (the baseline of
bench/s3_read.sh): list the keys, then GET them all with THREADS threads
(boto3, signed), ROUNDS times; print each round's milliseconds and bytes.

    python s3_raw.py ENDPOINT BUCKET PREFIX [THREADS=64] [ROUNDS=3]
"""
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import boto3
from botocore.config import Config

endpoint, bucket, prefix = sys.argv[1:4]
threads = int(sys.argv[4]) if len(sys.argv) > 4 else 64
rounds = int(sys.argv[5]) if len(sys.argv) > 5 else 3
s3 = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1",
                  config=Config(max_pool_connections=threads, retries={"max_attempts": 3}))
keys = [o["Key"] for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix)
        for o in page.get("Contents", []) if not o["Key"].rsplit("/", 1)[-1].startswith(".")]
for _ in range(rounds):
    start = time.perf_counter()
    with ThreadPoolExecutor(threads) as pool:
        total = sum(pool.map(lambda k: len(s3.get_object(Bucket=bucket, Key=k)["Body"].read()), keys))
    print(f"raw_ms {(time.perf_counter() - start) * 1e3:.1f} objects {len(keys)} bytes {total}")
