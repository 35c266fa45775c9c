#!/usr/bin/env python3
"""The Python side of bench/reference/run (issue 25), in the reference test
venv (tests/requirements.txt: kerchunk, xarray, zarr-python, fsspec, s3fs,
obstore, boto3):

    refs.py make   ENDPOINT BUCKET NC_KEY OUT.json
        kerchunk's SingleHdf5ToZarr over s3fs on the .nc at s3://BUCKET/NC_KEY
        (nothing inlined), written as a version 1 reference file; its
        targets are s3://BUCKET/NC_KEY, as kerchunk writes them.
    refs.py parquet REFS.json OUT.parq
        The same references as Parquet: kerchunk's refs_to_dataframe
        (fsspec's LazyReferenceMapper, fastparquet engine, its default
        record_size of 100000 references a record file), a directory of
        .zmetadata and VAR/refs.N.parq.
    refs.py read   IMPL ENDPOINT BUCKET REFS_KEY WORKLOAD [NT=.. NY=.. NX=.. reps=.. npts=..]
        IMPL xarray: xr.open_dataset("reference://", engine="zarr") with
        fsspec's reference filesystem (fo = s3://BUCKET/REFS_KEY, targets
        through s3fs; REFS_KEY a .parq directory: fsspec's lazy Parquet
        references, the record files fetched as chunks need them), then .load() of t2m (read_full) or of npts time
        series (read_series, the points ncz_bench.c's seed=1 picks);
        IMPL zarr: zarr-python 3 directly on the same reference filesystem
        (FsspecStore). Each rep opens anew (the reference file is fetched
        again, as ours opens anew each rep); every value is checked against
        ncz_bench.c's analytic field. JSON lines as zarr_bench.py's.
    refs.py raw    ENDPOINT BUCKET REFS.json VAR [reps=3 threads=64]
        The limit: every [url, offset, length] chunk range of VAR in the
        reference file fetched by its own ranged GET, `threads` in flight
        (obstore, Rust + asyncio; bench/s3_raw.py --refs does the same with
        boto3 threads), nothing decoded.
    refs.py ranges REFS.json VAR
        How VAR's chunk ranges lie in their target: count, sizes, gaps.
    refs.py localize REFS.json TARGET_URL OUT.json
        The same references with every target replaced by TARGET_URL (the
        .nc on local disk: ours read without S3, the CPU side alone).

Credentials: AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY (s3s-fs: AK / SK).
"""
import asyncio
import json
import os
import sys
import time
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import zarr_bench_ext as zbe  # noqa: E402  (imports the shared zarr_bench, as zb)

zb = zbe.zb
REGION = "us-east-1"


def creds():
    return os.environ.get("AWS_ACCESS_KEY_ID", "AK"), os.environ.get("AWS_SECRET_ACCESS_KEY", "SK")


def s3fs_options(endpoint):
    ak, sk = creds()
    return {"key": ak, "secret": sk, "endpoint_url": endpoint, "client_kwargs": {"region_name": REGION}}


def make(endpoint, bucket, nc_key, out):
    from kerchunk.hdf import SingleHdf5ToZarr

    url = f"s3://{bucket}/{nc_key}"
    with warnings.catch_warnings():  # kerchunk warns of each dimension scale it makes an array of
        warnings.simplefilter("ignore")
        refs = SingleHdf5ToZarr(url, storage_options=s3fs_options(endpoint), inline_threshold=0).translate()
    assert refs.get("version") == 1, "kerchunk 0.2.10 writes version 1"
    with open(out, "w") as f:
        json.dump(refs, f)


def parquet(path, out):
    import fastparquet  # noqa: F401  (LazyReferenceMapper's default engine, which refs_to_dataframe keeps)
    import kerchunk.df

    kerchunk.df.refs_to_dataframe(path, out)  # record_size: the default, 100000
    with open(os.path.join(out, ".zmetadata")) as f:
        assert json.load(f)["record_size"] == 100000, "kerchunk 0.2.10's default record_size"


def chunk_ranges(path, var):
    """VAR's [url, offset, length] chunk references, in key order."""
    with open(path) as f:
        refs = json.load(f)["refs"]
    out = [(k, v) for k, v in sorted(refs.items())
           if k.startswith(var + "/") and not k.rsplit("/", 1)[1].startswith(".") and isinstance(v, list)]
    assert out and all(len(v) == 3 for _, v in out), f"no [url, offset, length] chunks of {var} in {path}"
    return out


def ranges(path, var):
    rs = sorted((v[1], v[2]) for _, v in chunk_ranges(path, var))
    sizes = [n for _, n in rs]
    gaps = [b[0] - (a[0] + a[1]) for a, b in zip(rs, rs[1:])]
    print(json.dumps(dict(var=var, chunks=len(rs), targets=len({v[0] for _, v in chunk_ranges(path, var)}),
                          bytes=sum(sizes), min=min(sizes), median=int(np.median(sizes)), max=max(sizes),
                          span=rs[-1][0] + rs[-1][1] - rs[0][0], max_gap=max(gaps, default=0),
                          gaps_over_0=sum(g > 0 for g in gaps))))


def localize(path, target, out):
    with open(path) as f:
        doc = json.load(f)
    doc["refs"] = {k: [target, *v[1:]] if isinstance(v, list) else v for k, v in doc["refs"].items()}
    with open(out, "w") as f:
        json.dump(doc, f)


def obstore_store(endpoint, bucket):
    from obstore.store import S3Store

    ak, sk = creds()
    return S3Store(bucket, endpoint=endpoint, access_key_id=ak, secret_access_key=sk, region=REGION,
                   client_options={"allow_http": True}, virtual_hosted_style_request=False)


def raw(endpoint, bucket, path, var, p):
    import obstore

    store = obstore_store(endpoint, bucket)
    prefix = f"s3://{bucket}/"
    rs = [(v[0][len(prefix):], v[1], v[2]) for _, v in chunk_ranges(path, var)]
    assert all(v[0].startswith(prefix) for _, v in chunk_ranges(path, var)), f"targets outside {prefix}"
    threads = p.get("threads", 64)

    async def all_ranges():
        sem = asyncio.Semaphore(threads)

        async def one(key, off, n):
            async with sem:
                # get_range, not get_ranges: the latter merges nearby ranges,
                # and the limit wanted is one GET per chunk.
                return len(await obstore.get_range_async(store, key, start=off, length=n))

        return sum(await asyncio.gather(*(one(*r) for r in rs)))

    for rep in range(p["reps"]):
        t0 = time.perf_counter()
        n = asyncio.run(all_ranges())
        sec = time.perf_counter() - t0
        assert n == sum(r[2] for r in rs), "short ranges"
        print(json.dumps(dict(workload="raw_ranges", impl="obstore", rep=rep, seconds=round(sec, 6),
                              stored_MB=round(n / 1e6, 3), gets=len(rs), threads=threads, verify_errors=0)),
              flush=True)


def reference_fs(endpoint, bucket, refs_key, asynchronous):
    import fsspec

    # The targets' s3fs must be as asynchronous as the reference filesystem
    # over it (zarr-python's FsspecStore wants an asynchronous one).
    so = dict(s3fs_options(endpoint), asynchronous=asynchronous)
    # skip_instance_cache: a fresh reference filesystem each rep, so each
    # fetches and parses the reference file again, as each of our opens does.
    return fsspec.filesystem("reference", fo=f"s3://{bucket}/{refs_key}", target_protocol="s3",
                             target_options=s3fs_options(endpoint), remote_protocol="s3", remote_options=so,
                             asynchronous=asynchronous, skip_instance_cache=True)


def opener(impl, endpoint, bucket, refs_key):
    if impl == "xarray":
        import xarray as xr

        # zarr-python (under xarray) makes the reference filesystem
        # asynchronous, so the targets' s3fs must be too.
        so = dict(s3fs_options(endpoint), asynchronous=True)
        # mask_and_scale=False: the raw stored values, as nc_get_var returns
        # them (t2m has no _FillValue or scale here, so xarray would change
        # nothing but the dtype check); decode_times off for the same reason.
        ds = xr.open_dataset("reference://", engine="zarr", mask_and_scale=False, decode_times=False,
                             backend_kwargs={"consolidated": False, "storage_options": {
                                 "fo": f"s3://{bucket}/{refs_key}", "target_protocol": "s3",
                                 "target_options": s3fs_options(endpoint), "remote_protocol": "s3", "remote_options": so,
                                 "skip_instance_cache": True}})
        v = ds["t2m"]
        return lambda sl: v[sl].values if sl != (slice(None),) * 3 else v.load().values
    import zarr

    store = zarr.storage.FsspecStore(reference_fs(endpoint, bucket, refs_key, True), read_only=True, path="")
    arr = zarr.open_array(store, path="t2m", mode="r", zarr_format=2)
    return lambda sl: arr[sl]


def read(impl, endpoint, bucket, refs_key, wl, p):
    NT, NY, NX = p["NT"], p["NY"], p["NX"]
    if impl == "xarray":  # imported before the timer, as a C program has its library loaded
        import xarray  # noqa: F401
        import zarr  # noqa: F401
    else:
        import zarr  # noqa: F401
    import fsspec.implementations.reference  # noqa: F401
    import s3fs  # noqa: F401
    for rep in range(p["reps"]):
        rnd = zb.XorShift(p["seed"])
        checks = []
        t0 = time.perf_counter()
        get = opener(impl, endpoint, bucket, refs_key)
        if wl == "read_full":
            b = get((slice(None),) * 3)
            ops, nbytes = 1, b.nbytes
            checks.append(((0, 0, 0), b))
        elif wl == "read_series":
            ops, nbytes = p["npts"], 0
            for _ in range(ops):
                y, x = rnd() % NY, rnd() % NX
                b = get((slice(None), slice(y, y + 1), slice(x, x + 1)))
                nbytes += b.nbytes
                checks.append(((0, y, x), b))
        else:
            raise SystemExit(f"unknown workload {wl}")
        sec = time.perf_counter() - t0
        errors = 0
        if p["verify"]:
            for o, b in checks:
                exp = zbe.Expected(o, b.shape) if b.size > zbe.BLOCK else zb.field(*o, *b.shape)
                errors += int(np.count_nonzero(exp != b))
        zb.emit(wl, impl, f"s3://{bucket}/{refs_key}", rep, sec, nbytes, ops, errors)
        del checks, b


def main():
    args = sys.argv[1:]
    kvs = [a for a in args if "=" in a and not a.startswith(("http", "s3:"))]
    pos = [a for a in args if a not in kvs]
    p = zb.kv([a for a in kvs if not a.startswith("threads=")])
    for a in kvs:
        if a.startswith("threads="):
            p["threads"] = int(a.split("=")[1])
    if not pos:
        raise SystemExit(__doc__)
    cmd = pos[0]
    if cmd == "make":
        make(*pos[1:5])
    elif cmd == "parquet":
        parquet(pos[1], pos[2])
    elif cmd == "read":
        read(pos[1], pos[2], pos[3], pos[4], pos[5], p)
    elif cmd == "raw":
        raw(pos[1], pos[2], pos[3], pos[4], p)
        # obstore's runtime sometimes aborts (SIGABRT) while the interpreter
        # shuts down, after every result is out; do not let that fail the cell.
        sys.stdout.flush()
        os._exit(0)
    elif cmd == "ranges":
        ranges(pos[1], pos[2])
    elif cmd == "localize":
        localize(pos[1], pos[2], pos[3])
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main()
