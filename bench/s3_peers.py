#!/usr/bin/env python3
"""The S3 side of bench/s3_suite.sh, in .venv-bench: the Python peers'
read_full and write_full on an S3 server, and the raw concurrent GETs and
PUTs of the same objects (the limit).

    s3_peers.py read  IMPL ENDPOINT BUCKET KEY [NT=.. NY=.. NX=.. reps=..]
    s3_peers.py write IMPL ENDPOINT BUCKET KEY --codec CODEC [keys...]
    s3_peers.py raw   ENDPOINT BUCKET PREFIX [reps=3 threads=64]
    s3_peers.py delete ENDPOINT BUCKET PREFIX        (every object under it)

IMPL: tensorstore (zarr driver, `s3` kvstore) or zarr (zarr-python 3 on
obstore's S3Store through zarr.storage.ObjectStore). KEY is the store's key
(the array is KEY/t2m, Zarr v2, as zarr_bench's stores). Credentials come
from AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY. Reads check every value
against zarr_bench's analytic field (verify_errors); writes are checked by
the caller (bench/s3_suite.sh reads each written store back with ncz_bench).

raw: the chunk objects under PREFIX (names not starting with '.'), all
fetched at once with `threads` requests in flight by obstore (Rust,
asyncio; bench/s3_raw.py does the same GETs with boto3), then PUT (the same bytes) under ".raw/" +
the key the same way (deleted after); one JSON line per client, operation and rep.

Output: JSON lines as zarr_bench's (workload, impl, seconds, verify_errors).
"""
import asyncio
import json
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import zarr_bench_ext as zbe  # noqa: E402  (imports the shared zarr_bench, as zb)

zb = zbe.zb
REGION = "us-east-1"


def creds():
    return os.environ.get("AWS_ACCESS_KEY_ID", "AK"), os.environ.get("AWS_SECRET_ACCESS_KEY", "SK")


def ts_kvstore(endpoint, bucket, key):
    return {"driver": "s3", "bucket": bucket, "path": key.rstrip("/") + "/t2m/", "endpoint": endpoint,
            "aws_region": REGION, "aws_credentials": {"type": "environment"}}


def ts_compressor(comp):
    """numcodecs' config as tensorstore's zarr v2 driver takes it (it refuses
    members it does not know, such as zstd's "checksum": false)."""
    if comp is None:
        return None
    c = comp.get_config()
    if c["id"] == "zstd":
        return {"id": "zstd", "level": c["level"]}
    return c


def obstore_store(endpoint, bucket, prefix):
    from obstore.store import S3Store
    ak, sk = creds()
    return S3Store(bucket, prefix=prefix, endpoint=endpoint, access_key_id=ak, secret_access_key=sk,
                   region=REGION, client_options={"allow_http": True})


def emit(wl, impl, url, rep, sec, nbytes, errors, **extra):
    d = dict(workload=wl, impl=impl, url=url, rep=rep, seconds=round(sec, 6), logical_MB=round(nbytes / 1e6, 3),
             MBps=round(nbytes / 1e6 / sec, 1), ops=1, verify_errors=errors)
    d.update(extra)
    print(json.dumps(d), flush=True)


def do_read(impl, endpoint, bucket, key, p):
    shape = (p["NT"], p["NY"], p["NX"])
    if impl == "tensorstore":
        import tensorstore as ts
    else:
        import zarr
    for rep in range(p["reps"]):
        t0 = time.perf_counter()
        if impl == "tensorstore":
            ctx = ts.Context({"cache_pool": {"total_bytes_limit": 0}})
            arr = ts.open({"driver": "zarr", "kvstore": ts_kvstore(endpoint, bucket, key)}, read=True,
                          context=ctx).result()
            b = arr[...].read().result()
        else:
            store = zarr.storage.ObjectStore(obstore_store(endpoint, bucket, key), read_only=True)
            b = zarr.open_array(store, path="t2m", mode="r")[...]
        sec = time.perf_counter() - t0
        errors = int(np.count_nonzero(zbe.Expected((0, 0, 0), shape) != b)) if p["verify"] else 0
        emit("read_full", impl, f"s3://{bucket}/{key}", rep, sec, b.nbytes, errors)
        del b


def do_write(impl, endpoint, bucket, key, p, codec):
    NT, NY, NX = p["NT"], p["NY"], p["NX"]
    full = zbe.lean_field(0, 0, 0, NT, NY, NX)
    comp, filt = zbe.codec_v2(codec)
    if impl == "tensorstore":
        import tensorstore as ts
        if filt:
            raise SystemExit("tensorstore's zarr v2 driver has no filters")
    else:
        import zarr
    for rep in range(p["reps"]):
        t0 = time.perf_counter()
        if impl == "tensorstore":
            meta = {"shape": [NT, NY, NX], "chunks": [p["ct"], p["cy"], p["cx"]], "dtype": "<f4",
                    "compressor": ts_compressor(comp), "fill_value": None, "order": "C",
                    "dimension_separator": "."}
            arr = ts.open({"driver": "zarr", "kvstore": ts_kvstore(endpoint, bucket, key), "metadata": meta},
                          create=True, delete_existing=True).result()
            arr[...].write(full).result()
            # _ARRAY_DIMENSIONS, so that ncz_bench (mode=zarr) can read it back to check it.
            attrs = json.dumps({"_ARRAY_DIMENSIONS": ["time", "lat", "lon"]}).encode()
            kv = ts.KvStore.open(ts_kvstore(endpoint, bucket, key)).result()
            kv.write(".zattrs", attrs).result()
            root = ts.KvStore.open(dict(ts_kvstore(endpoint, bucket, key), path=key.rstrip("/") + "/")).result()
            root.write(".zgroup", b'{"zarr_format": 2}').result()
        else:
            store = zarr.storage.ObjectStore(obstore_store(endpoint, bucket, key))
            g = zarr.open_group(store, mode="w", zarr_format=2)
            a = g.create_array("t2m", shape=(NT, NY, NX), chunks=(p["ct"], p["cy"], p["cx"]), dtype="<f4",
                               compressors=comp, filters=filt, fill_value=None,
                               chunk_key_encoding={"name": "v2", "separator": "."},
                               attributes={"_ARRAY_DIMENSIONS": ["time", "lat", "lon"], "units": "K"})
            a[...] = full
        sec = time.perf_counter() - t0
        emit("write_full", impl, f"s3://{bucket}/{key}", rep, sec, full.nbytes, 0, codec=codec)


def chunk_keys(store):
    import obstore
    return sorted(o["path"] for batch in obstore.list(store, chunk_size=1000) for o in batch
                  if not o["path"].rsplit("/", 1)[-1].startswith(".") and ".raw/" not in o["path"])


async def _obstore_all(store, keys, threads, put_prefix=None, bodies=None):
    import obstore
    sem = asyncio.Semaphore(threads)
    total = 0

    async def one(i, k):
        nonlocal total
        async with sem:
            if put_prefix is None:
                r = await obstore.get_async(store, k)
                data = await r.bytes_async()
                bodies[i] = data
                total += len(data)
            else:
                await obstore.put_async(store, put_prefix + k, bodies[i])
                total += len(bodies[i])

    await asyncio.gather(*(one(i, k) for i, k in enumerate(keys)))
    return total


def do_raw(endpoint, bucket, prefix, p):
    store = obstore_store(endpoint, bucket, None)
    keys = [k for k in chunk_keys(store) if k.startswith(prefix)]
    threads = p.get("threads", 64)
    bodies = [None] * len(keys)
    url = f"s3://{bucket}/{prefix}"
    for rep in range(p["reps"]):
        t0 = time.perf_counter()
        n = asyncio.run(_obstore_all(store, keys, threads, bodies=bodies))
        emit("raw_get", "obstore", url, rep, time.perf_counter() - t0, n, 0, objects=len(keys), threads=threads)
    for rep in range(p["reps"]):
        t0 = time.perf_counter()
        n = asyncio.run(_obstore_all(store, keys, threads, put_prefix=".raw/", bodies=bodies))
        emit("raw_put", "obstore", url, rep, time.perf_counter() - t0, n, 0, objects=len(keys), threads=threads)

    # The copies are not needed after.
    import obstore
    obstore.delete(store, [".raw/" + k for k in keys])


def main():
    args = [a for a in sys.argv[1:]]
    codec = "none"
    if "--codec" in args:
        i = args.index("--codec")
        codec = args[i + 1]
        del args[i:i + 2]
    kvs = [a for a in args if "=" in a]
    pos = [a for a in args if "=" not in a]
    p = zb.kv([a for a in kvs if a.split("=")[0] != "threads"])
    for a in kvs:
        if a.startswith("threads="):
            p["threads"] = int(a.split("=")[1])
    cmd = pos[0]
    if cmd == "read":
        do_read(pos[1], pos[2], pos[3], pos[4], p)
    elif cmd == "write":
        do_write(pos[1], pos[2], pos[3], pos[4], p, codec)
    elif cmd == "raw":
        do_raw(pos[1], pos[2], pos[3], p)
    elif cmd == "delete":
        import obstore
        store = obstore_store(pos[1], pos[2], None)
        paths = [o["path"] for batch in obstore.list(store, prefix=pos[3], chunk_size=1000) for o in batch]
        for i in range(0, len(paths), 1000):
            obstore.delete(store, paths[i:i + 1000])
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main()
