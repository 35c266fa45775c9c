"""Check what ncdump prints for a store ctests/mpi/t_par_write wrote: the
length of "time" and every value of "field", "zfield" and "rec", as t_par_write
itself checks them (the formulas are repeated from there).

    check_dump.py NPROCS < ncdump-output
"""

import re
import sys

ROWS_PER_RANK = 3
NX = 8


def main():
    nprocs = int(sys.argv[1])
    text = sys.stdin.read()
    first_pass = nprocs * nprocs
    ntime = first_pass + nprocs
    m = re.search(r"^\s*time = (?:UNLIMITED ; // \((\d+) currently\)|(\d+) ;)", text, re.M)
    assert m, "no dimension time in the dump"
    assert int(m.group(1) or m.group(2)) == ntime, f"time has length {m.group(0)}, expected {ntime}"
    data = text.split("\ndata:\n", 1)[1]
    values = {}
    for name, body in re.findall(r"^\s*(\w+) =\s*(.*?);", data, re.M | re.S):
        values[name] = [v.strip() for v in body.replace("\n", " ").split(",")]
    want = [y * 100 + x + 0.5 for y in range(nprocs * ROWS_PER_RANK) for x in range(NX)]
    for name in ("field", "zfield"):
        got = [float(v) for v in values[name]]
        assert got == want, f"{name} is {got}, expected {want}"
    field = values["field"]
    rec = values["rec"]
    for t in range(ntime):
        written = t >= first_pass or t // nprocs <= t % nprocs
        want = str(t * 10 + 7) if written else "_"
        assert rec[t] == want, f"rec[{t}] is {rec[t]}, expected {want}"
    assert len(rec) == ntime, f"rec has {len(rec)} values, expected {ntime}"
    print(f"  {len(field)} values of field and zfield and {ntime} records as written")


main()
