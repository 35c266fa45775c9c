"""Check with zarr-python a store ctests/mpi/t_par_shared wrote: every
value of its ten 8 x 8 arrays (five ways of writing chunks, each plain
and compressed) and of its records (the formulas are repeated from
t_par_shared.c).

    check_shared.py STORE_DIRECTORY ZARR_FORMAT
"""

import sys

import numpy as np
import zarr

NY = NX = 8
NREC = 8
KINDS = ["rows", "cols", "cells", "coll", "slabs"]


def main():
    path, zarr_format = sys.argv[1], int(sys.argv[2])
    root = zarr.open_group(path, mode="r", zarr_format=zarr_format)
    for k, kind in enumerate(KINDS):
        want = np.array([[1000 * (k + 1) + i * NX + j for j in range(NX)] for i in range(NY)], dtype=np.int32)
        for name in (kind, "z" + kind):
            got = root[name][...]
            assert np.array_equal(got, want), f"{name} is {got}, expected {want}"
    rec = root["rec"][...]
    assert rec.tolist() == [100 + r for r in range(NREC)], f"rec is {rec}"
    print(f"  zarr-python {zarr.__version__} (format {zarr_format}): every value of {2 * len(KINDS)} arrays and {NREC} records")


main()
