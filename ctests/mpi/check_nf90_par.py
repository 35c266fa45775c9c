"""Check a store ctests/mpi/nf90_par wrote on NPROCS ranks, twice: what
ncdump (over the serial build) prints of it, read from stdin, and the
store itself through zarr-python (Zarr v2, as NCZarr writes it). The
dimensions, attributes, every value of "temp", "count" and "rec", and
temp's chunks and filters (the formulas are repeated from nf90_par.f90,
in C order: temp[y][x], counted from 0).

    check_nf90_par.py NPROCS STORE_DIRECTORY < ncdump-output
"""

import re
import sys

import numpy as np
import zarr

NX = 6
ROWS = 3
RECS = 2
TITLE = "nczarr-rs nf90 parallel test"


def expected(nprocs):
    ny = ROWS * nprocs
    temp = np.array([[100 * y + x + 0.25 for x in range(NX)] for y in range(ny)], dtype=np.float32)
    count = np.array([[10000 * (y // ROWS) + 100 * y + x for x in range(NX)] for y in range(ny)], dtype=np.int32)
    rec = np.array([10 * t + 0.5 for t in range(RECS * nprocs)], dtype=np.float64)
    return temp, count, rec


def check_dump(text, nprocs, temp, count, rec):
    dims = dict(re.findall(r"^\s*(\w+) = (\d+ ;|UNLIMITED ; // \(\d+ currently\))$", text, re.M))
    want_dims = {"x": f"{NX} ;", "y": f"{ROWS * nprocs} ;", "t": f"UNLIMITED ; // ({RECS * nprocs} currently)"}
    assert dims == want_dims, f"dimensions {dims}, expected {want_dims}"
    for line in (
        "float temp(y, x) ;",
        "int count(y, x) ;",
        "double rec(t) ;",
        'temp:units = "K" ;',
        "temp:valid_range = -1.5f, 10000.f ;",
        f':title = "{TITLE}" ;',
        f":nranks = {nprocs} ;",
    ):
        assert re.search(r"^\s*" + re.escape(line) + "$", text, re.M), f"no line {line!r} in the dump"
    data = text.split("\ndata:\n", 1)[1]
    values = {}
    for name, body in re.findall(r"^\s*(\w+) =\s*(.*?);", data, re.M | re.S):
        values[name] = [v.strip() for v in body.replace("\n", " ").split(",")]
    for name, want, conv in (("temp", temp, float), ("count", count, int), ("rec", rec, float)):
        got = [conv(v) for v in values[name]]
        assert got == want.ravel().tolist(), f"ncdump: {name} is {got}, expected {want.ravel().tolist()}"
    print(f"  ncdump over the serial nczarr-rs: dimensions, attributes and {temp.size} + {count.size} + "
          f"{rec.size} values as written")


def check_zarr(path, nprocs, temp, count, rec):
    root = zarr.open_group(path, mode="r", zarr_format=2)
    assert root.attrs["title"] == TITLE and root.attrs["nranks"] == nprocs, f"group attributes {dict(root.attrs)}"
    for name, want in (("temp", temp), ("count", count), ("rec", rec)):
        got = root[name][...]
        assert got.dtype == want.dtype and np.array_equal(got, want), f"zarr: {name} is {got!r}, expected {want!r}"
    t = root["temp"]
    assert t.attrs["units"] == "K" and list(t.attrs["valid_range"]) == [-1.5, 10000.0], f"temp attrs {dict(t.attrs)}"
    assert t.chunks == (4, 3), f"temp chunks {t.chunks}"
    meta = t.metadata.to_dict()
    assert meta["compressor"] == {"id": "zlib", "level": 4}, f"temp compressor {meta['compressor']}"
    assert meta["filters"] == [{"id": "shuffle", "elementsize": 4}], f"temp filters {meta['filters']}"
    print(f"  zarr-python {zarr.__version__}: every value, temp's chunks (4, 3), zlib level 4 and shuffle")


def main():
    nprocs, path = int(sys.argv[1]), sys.argv[2]
    temp, count, rec = expected(nprocs)
    check_dump(sys.stdin.read(), nprocs, temp, count, rec)
    check_zarr(path, nprocs, temp, count, rec)


main()
