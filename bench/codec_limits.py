#!/usr/bin/env python3
"""Single-core encode and decode throughput of each benchmarked codec.

    codec_limits.py [ct cy cx] [--save DIR]   (chunk shape; default 16 128 256, ncz_bench's)

On the full suite's own data: 8 chunks of ncz_bench's analytic field taken
across the cube, encoded and decoded with numcodecs on one thread (blosc's
own threads off). Prints "codec_<name> <decode GB/s> <encode GB/s> <ratio>"
lines, GB/s counting the decoded bytes (1e9 per second), ratio = raw/encoded.
These are what one core can do; a library reading with N threads can do at
most N times as much, and a 2-core machine shares its cores with everything.
--save DIR writes the encoded chunks to DIR/<name>.<i>: the bytes the full
suite's read stores hold (zarr-python encodes them with numcodecs), which
examples/codec_rates.rs decodes with our backends for the read bound.
"""
import argparse
import os
import sys
import time

import numcodecs
import numcodecs.blosc
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import zarr_bench_ext  # noqa: E402  (finds and patches the shared zarr_bench)
import zarr_bench as zb  # noqa: E402

numcodecs.blosc.use_threads = False
numcodecs.blosc.set_nthreads(1)

SHUFFLE4 = numcodecs.Shuffle(elementsize=4)
CODECS = {
    # name: (compressor, filters), as zarr_bench / zarr_bench_ext write the stores
    "zlib1_shuffle": (numcodecs.Zlib(level=1), [SHUFFLE4]),
    "zstd3": (numcodecs.Zstd(level=3), []),
    "blosc_lz4": (numcodecs.Blosc(cname="lz4", clevel=5, shuffle=numcodecs.Blosc.SHUFFLE), []),
    "blosc_zstd": (numcodecs.Blosc(cname="zstd", clevel=5, shuffle=numcodecs.Blosc.SHUFFLE), []),
}


def encode(comp, filters, raw):
    for f in filters:
        raw = f.encode(raw)
    return comp.encode(raw)


def decode(comp, filters, enc):
    out = comp.decode(enc)
    for f in reversed(filters):
        out = f.decode(out)
    return out


def rate(fn, items, nbytes, min_seconds=0.5):
    """GB/s of fn over all items, repeated until min_seconds; best of 3 such runs."""
    best = 0.0
    for _ in range(3):
        n, t0 = 0, time.perf_counter()
        while True:
            for it in items:
                fn(it)
            n += 1
            sec = time.perf_counter() - t0
            if sec >= min_seconds:
                break
        best = max(best, n * nbytes / sec / 1e9)
    return best


def main():
    ap = argparse.ArgumentParser(description="single-core rates of the benchmarked codecs")
    ap.add_argument("shape", nargs="*", type=int, help="chunk shape ct cy cx (default 16 128 256)")
    ap.add_argument("--save", help="write the encoded chunks here, as NAME.I")
    args = ap.parse_args()
    save = args.save
    if save:
        os.makedirs(save, exist_ok=True)
    ct, cy, cx = args.shape[:3] if len(args.shape) >= 3 else (16, 128, 256)
    # 8 chunks spread over ncz_bench's cube (256 x 512 x 1024)
    origins = [(t, y, x) for t in (0, 128) for y in (0, 256) for x in (0, 512)]
    chunks = [zb.field(t, y, x, ct, cy, cx) for (t, y, x) in origins]
    raw_bytes = sum(c.nbytes for c in chunks)
    for name, (comp, filters) in CODECS.items():
        encoded = [encode(comp, filters, c) for c in chunks]
        if save:
            for i, e in enumerate(encoded):
                with open(os.path.join(save, f"{name}.{i}"), "wb") as f:
                    f.write(bytes(e))
        for c, e in zip(chunks, encoded):  # a codec that does not round-trip is no limit
            assert (np.frombuffer(decode(comp, filters, e), "<f4") == c.ravel()).all(), name
        dec = rate(lambda e: decode(comp, filters, e), encoded, raw_bytes)
        enc = rate(lambda c: encode(comp, filters, c), chunks, raw_bytes)
        ratio = raw_bytes / sum(len(e) for e in encoded)
        print(f"codec_{name} {dec:.2f} {enc:.2f} {ratio:.2f}", flush=True)


if __name__ == "__main__":
    main()
