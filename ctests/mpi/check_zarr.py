"""Check with zarr-python a store ctests/mpi/t_par_write wrote: every
value of the arrays "field", "zfield" (compressed) and "rec" (the formulas are repeated from
t_par_write.c); records no rank wrote read as the array's fill value.

    check_zarr.py NPROCS STORE_DIRECTORY ZARR_FORMAT
"""

import sys

import numpy as np
import zarr

ROWS_PER_RANK = 3
NX = 8


def main():
    nprocs, path, zarr_format = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    root = zarr.open_group(path, mode="r", zarr_format=zarr_format)
    want = np.array([[y * 100 + x + 0.5 for x in range(NX)] for y in range(nprocs * ROWS_PER_RANK)],
                    dtype=np.float32)
    for name in ("field", "zfield"):
        got = root[name][...]
        assert np.array_equal(got, want), f"{name} is {got}, expected {want}"
    field = root["field"]
    first_pass = nprocs * nprocs
    ntime = first_pass + nprocs
    rec_array = root["rec"]
    rec = rec_array[...]
    assert rec.shape == (ntime,), f"rec has shape {rec.shape}, expected ({ntime},)"
    fill = rec_array.fill_value
    for t in range(ntime):
        written = t >= first_pass or t // nprocs <= t % nprocs
        want_t = t * 10 + 7 if written else fill
        assert rec[t] == want_t, f"rec[{t}] is {rec[t]}, expected {want_t}"
    print(f"  zarr-python {zarr.__version__} (format {zarr_format}): {field.size} values of field and zfield and "
          f"{ntime} records as written")


main()
