#!/usr/bin/env python3
"""Compare what badid_all.inc expects (what our library gives; t_badid)
with what netcdf-c 4.9.0 (Debian's) and 4.10.1 (the netCDF4 wheel's) give
for the same calls, as ctests/badid_netcdf_c.c prints them. Run by
ctests/t_badid_netcdf_c.sh.

Usage: badid_compare.py OURS DEBIAN_4_9_0 WHEEL_4_10_1

Over our library every call must give what badid_all.inc says (the driver
reproduces t_badid). Over netcdf-c, every call that does not give the
expected result must be one of the allowed differences below, each with
its reason; anything else fails, and so does an entry of EXPLAINED that no
longer differs (remove it). The README's rule is the yardstick: an id is
checked before any other argument (NC_EBADID, as netcdf-c); NULL pointers
are accepted where netcdf-c accepts them and are errors where netcdf-c
would crash.
"""

import collections
import sys

EBADID = "-33"
LIBS = ("netcdf-c 4.9.0", "netcdf-c 4.10.1")

# Functions netcdf-c exports only in some builds: neither netcdf-c here
# has them, so they are compared with nothing.
NOT_IN_NETCDF_C = {
    "nc_inq_compound_field_f": "netcdf_f.h's Fortran helpers: exported by netcdf-c only when built for "
                               "netcdf-fortran's old layout; neither Debian's nor the wheel's build has them",
    "nc_inq_dimids_f": "same",
    "nc_inq_varids_f": "same",
    "nc_insert_array_compound_f": "same",
}

# Calls where netcdf-c crashes and we return success rather than an error
# (the generic rule wants an error where netcdf-c crashes).
CRASH_BUT_NOERR = {
    "null:nc_free_string": "nc_free_string(1, NULL): nothing to free; like free(NULL) (netcdf-c dereferences it)",
    "null:nc_def_var_chunking_ints": "a NULL chunk-size vector means the default chunking, as for "
                                     "nc_def_var_chunking (netcdf-c's _ints variant converts it without looking)",
    "null:strlcat": "strlcat(NULL, NULL, 1) returns a length, not an error code: 0 (netcdf-c 4.9.0 crashes)",
}

# Differences explained one by one: call -> (netcdf-c's results it may
# give, reason). Both versions may give any of the results listed.
EXPLAINED = {
    "null:nc_get_var_string": ({"-45"}, "both refuse: netcdf-c checks the int->string conversion (NC_EBADTYPE) "
                                        "before the NULL buffer; we refuse the NULL buffer first (NC_EINVAL)"),
    "null:nc_put_var_string": ({"-45"}, "as nc_get_var_string"),
    "null:nc_get_var_text": ({"-56"}, "both refuse: netcdf-c checks the int<->text conversion (NC_ECHAR) "
                                      "before the NULL buffer; we refuse the NULL buffer first (NC_EINVAL)"),
    "null:nc_put_var_text": ({"-56"}, "as nc_get_var_text"),
    "null:nc_rename_grp": ({"-116"}, "both refuse: netcdf-c refuses renaming the root group (NC_EBADGRPID) "
                                     "before the NULL name; we refuse the NULL name first (NC_EINVAL)"),
    "null:ncaux_readfile": ({"14"}, "both refuse a NULL path: netcdf-c passes errno EFAULT on, we say NC_EINVAL"),
    "null:ncaux_writefile": ({"14"}, "as ncaux_readfile"),
    "null:nc_copy_att": ({"0"}, "nc_copy_att(ncid, v, NULL, ncid, v): netcdf-c returns NC_NOERR for a copy onto "
                                "itself before looking at the name; we refuse the NULL name (NC_EINVAL)"),
    "null:ncattcopy": ({"0"}, "nc_copy_att's difference through the netCDF-2 API (-1 with ncerr NC_EINVAL here)"),
    "null:ncattcopy:ncerr": ({"0"}, "as ncattcopy"),
    "null:nc_copy_data_all": ({"0"}, "nc_copy_data_all(.., NULL memory, 1, NULL copyp): netcdf-c's nc_copy_data "
                                     "says NC_EINVAL, then nc_copy_data_all overwrites that with "
                                     "nc_reclaim_data_all's NC_NOERR (dinstance.c); we keep the NC_EINVAL"),
    "bad:nc_copy_data_all": ({"0", EBADID}, "as null:nc_copy_data_all for 4.9.0 (it never looks at the id of "
                                            "an atomic type); 4.10.1 looks the type up through the id first "
                                            "(NC_EBADID); nc_copy_data, which checks its pointers first, is "
                                            "NC_EINVAL in both, and so is ours for both"),
    "null:nc_set_var_chunk_cache_ints": ({"-101"}, "netcdf-c's _ints variant calls HDF5-only code on a Zarr "
                                                   "dataset (NC_EHDFERR); nc_set_var_chunk_cache works, as ours "
                                                   "does for both"),
    "null:nc_def_var_szip": ({"0"}, "4.10.1 runs with the wheel's szip plugin; we have no built-in szip and "
                                    "run.sh's plugin path has none (NC_ENOFILTER, as 4.10.1 without it)"),
}


def load(path):
    rows = {}
    for line in open(path, encoding="utf-8", errors="replace"):
        ids, what, kind, expected, got = line.rstrip("\n").split("\t")
        rows[(ids, what)] = (kind, expected, got)
    return rows


def is_error(kind, expected):
    """Does our expected result signal an error (or, for void functions,
    just return)?"""
    if kind == "void":
        return expected == "returns"
    if kind == "ptr":
        return expected == "0"
    return expected not in ("0", "?")


def name_of(what):
    return what.split(":")[1]


def main():
    ours, *theirs = (load(p) for p in sys.argv[1:4])
    wrong = [f"{ids} {what}: expected {e}, got {g}" for (ids, what), (_, e, g) in ours.items() if g != e]
    if wrong:
        sys.exit("FAIL: over our library the driver does not reproduce badid_all.inc:\n  " + "\n  ".join(wrong[:40]))
    for lib, rows in zip(LIBS, theirs):
        if rows.keys() != ours.keys():
            sys.exit(f"FAIL: {lib}: the calls differ from ours (the driver stopped early?)")

    unexplained, used, counts, which = [], set(), collections.Counter(), collections.defaultdict(set)
    present_somewhere = {name_of(w) for rows in theirs for (_, w), (_, _, g) in rows.items() if g != "absent"}
    for key, (kind, expected, _) in sorted(ours.items()):
        ids, what = key
        results = [rows[key][2] for rows in theirs]
        crashed = any(r.startswith("crash:") for r in results)
        for lib, got, other in zip(LIBS, results, reversed(results)):
            if got == expected:
                counts[lib, "same"] += 1
                continue
            if got == "absent" or (got == "none" and what.endswith(":ncerr")):
                rule = None
                if name_of(what) in present_somewhere:
                    rule = "absent from this version (the other has it)"
                elif name_of(what) in NOT_IN_NETCDF_C:
                    rule = "absent from both (NOT_IN_NETCDF_C)"
                    used.add(name_of(what))
            elif crashed and (is_error(kind, expected) or what in CRASH_BUT_NOERR):
                rule = "netcdf-c crashes; we refuse (an error code, NULL, or a void function returns)"
                if what in CRASH_BUT_NOERR:
                    rule = "netcdf-c crashes; we succeed (CRASH_BUT_NOERR)"
                    used.add(what)
            elif other == expected:
                rule = "the other netcdf-c version gives our result"
            elif ids == "open+5" and expected in (EBADID, "-1"):
                # With a real out-pointer netcdf-c says NC_EBADID too (nc_inq_ndims).
                rule = ("a group number past the last of an open dataset, NULL pointers: netcdf-c checks the "
                        "file part of the id only, then returns early (NC_NOERR for nothing to store) or "
                        "reports another argument")
            elif what in EXPLAINED and got in EXPLAINED[what][0]:
                rule = "EXPLAINED"
                used.add(what)
            else:
                rule = None
            if rule is None:
                unexplained.append(f"{lib}: ids {ids}: {what} ({kind}) gives {got}, badid_all.inc expects {expected}")
            else:
                counts[lib, rule] += 1
                which[lib, rule].add(what)
    stale = sorted(k for k in {*EXPLAINED, *CRASH_BUT_NOERR, *NOT_IN_NETCDF_C} if k not in used)
    for lib in LIBS:
        print(f"{lib}:")
        for (l, rule), n in sorted(counts.items()):
            if l == lib:
                print(f"  {n:5d} {rule}")
                if rule != "same":
                    print("          " + " ".join(sorted(which[lib, rule])))
    print("explained one by one:")
    for what in sorted(used & set(EXPLAINED)):
        print(f"  {what}: {EXPLAINED[what][1]}")
    status = 0
    if unexplained:
        print(f"FAIL: {len(unexplained)} results differ from badid_all.inc without an allowed reason "
              "(a wrong expectation, or a new difference to explain in ctests/badid_compare.py):")
        print("  " + "\n  ".join(unexplained[:80]))
        status = 1
    if stale:
        print("FAIL: allowed differences that no longer occur (remove them from ctests/badid_compare.py): "
              + ", ".join(stale))
        status = 1
    if status == 0:
        print(f"PASS: {len(ours)} calls of badid_all.inc: ours as expected; every difference from netcdf-c "
              "4.9.0 and 4.10.1 allowed above")
    return status


if __name__ == "__main__":
    sys.exit(main())
