#!/usr/bin/env python3
"""Write ctests/badid_all.inc: every function the library exports, called
with ids that are not open (where it takes a dataset or group id) and with
NULL for every pointer argument, each with the result it must give.

The expected results are kept from the current badid_all.inc; a function
new to the library gets PROBE, which makes t_badid fail and print what the
call returned, to be reviewed and written into the file (or kept in the
table below by rerunning this script after editing the .inc).

Usage: ctests/gen_badid_all.py [--fill LOG] [LIBRARY]
  (default target/release/libnetcdf.so). With --fill, the results t_badid
  printed as "PROBE <what> <result>" in LOG (target/ctests/t_badid.log)
  replace the PROBE marks, written as netCDF error names: review them.
"""

import json
import pathlib
import re
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
ARGS = sys.argv[1:]
FILL = None
if ARGS[:1] == ["--fill"]:
    FILL, ARGS = pathlib.Path(ARGS[1]), ARGS[2:]
LIB = pathlib.Path(ARGS[0]) if ARGS else ROOT / "target" / "release" / "libnetcdf.so"
OUT = HERE / "badid_all.inc"

HEADERS = ["netcdf.h", "netcdf_filter.h", "netcdf_f.h", "netcdf_mem.h", "netcdf_aux.h"]

# Parameters that are dataset or group ids, types, and counts.
NCID = {"ncid", "ncid1", "ncid2", "ncid_in", "ncid_out", "grpid", "parent_ncid"}
TYPE = {"xtype", "datatype", "base_typeid", "field_type", "field_typeid", "typeid1", "typeid2", "xtypeid"}
ONE = {"len", "nelems", "count", "size", "nparams", "dsize", "level", "deflate_level", "id", "initialsize",
       "initialsz"}
# Functions whose result is some earlier state: only called.
STATEFUL = {"ncsetlogging", "cdSetErrOpts"}
# Functions whose non-NULL result the caller owns: checked, then freed
# with this function (so the memory checkers see no leak).
OWNED = {"nclistnew": "nclistfree"}
# The netCDF-2 API: functions return -1 and leave the code in ncerr.
V2_PREFIXES = ("ncaux", "ncuri", "nclist", "nclog", "ncsetlogging", "nctypelen")


def exported():
    out = subprocess.run(["nm", "-D", "--defined-only", str(LIB)], capture_output=True, text=True, check=True).stdout
    return {f[2] for f in (line.split() for line in out.splitlines())
            if len(f) == 3 and f[1] == "T" and not f[2].startswith("nczrs_")}


def prototypes(names):
    src = "".join(f"#include <{h}>\n" for h in HEADERS) + '#include "tools_abi.h"\n'
    text = subprocess.run(["cc", "-E", "-P", f"-I{ROOT / 'include'}", f"-I{HERE / 'abi'}", "-"], input=src,
                          capture_output=True, text=True, check=True).stdout
    flat = re.sub(r"\s+", " ", text)
    stmts, depth, cur = [], 0, ""
    for ch in flat:
        depth += (ch == "{") - (ch == "}")
        cur += ch
        if ch == ";" and depth == 0:
            stmts.append(cur.strip())
            cur = ""
    found = {}
    for st in stmts:
        m = re.match(r"^(?:extern )?(.*?)\b([A-Za-z_]\w*)\s*\((.*)\)\s*;$", st)
        if m and not st.startswith("typedef") and m.group(2) in names:
            found[m.group(2)] = (m.group(1).strip(), split_args(m.group(3)))
    return found


def split_args(text):
    out, depth, cur = [], 0, ""
    for ch in text:
        depth += (ch == "(") - (ch == ")")
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return [a for a in out if a not in ("void", "...")]


def argname(arg):
    m = re.match(r"(.*?)(\w+)\s*(\[\])?$", arg)
    return m.group(2) if m else arg


def is_ptr(arg):
    return "*" in arg or "[" in arg


def value(arg, ncid):
    if is_ptr(arg):
        return "NULL"
    n = argname(arg)
    if n in NCID:
        return ncid
    if n in TYPE:
        return "NC_INT"
    if n in ONE:
        return "1"
    if n == "timetype":
        return "(cdCalenType)0x1111"
    if n == "timeType":
        return "(CdTimeType)4369"
    if n == "format":
        return "NC_FORMAT_NETCDF4"
    return "0"


def is_v2(name):
    return name.startswith("nc") and not name.startswith("nc_") and "_" not in name and \
        not name.startswith(V2_PREFIXES)


def old_expectations():
    """(mode, name) -> expected result text, from the current file."""
    if not OUT.exists():
        return {}
    found = {}
    for m in re.finditer(r'(RC|PTR)\(MODE, "([^"]+)", .*, ([^;]*)\);', OUT.read_text()):
        found[m.group(2)] = m.group(3)
    return found


def error_names():
    """Error code -> its first macro name in netcdf.h."""
    names = {0: "NC_NOERR"}
    for m in re.finditer(r"#define\s+(NC_E\w+)\s+\((-\d+)\)", (ROOT / "include" / "netcdf.h").read_text()):
        code, name = int(m.group(2)), m.group(1)
        # NC_EURL rather than its older alias NC_EDAPURL, and so on.
        if code not in names or "DAP" in names[code]:
            names[code] = name
    return names


def probed(log):
    """what -> result text, from the PROBE lines of a t_badid log."""
    codes = error_names()
    found = {}
    for m in re.finditer(r"PROBE (\S+) (-?\d+)", log.read_text()):
        what, n = m.group(1), int(m.group(2))
        ptr = what.split(":")[1] in POINTER_RESULTS
        found[what] = ("NONNULL" if n else "0") if ptr else codes.get(n, str(n))
    return found


POINTER_RESULTS = set()


def main():
    names = exported()
    protos = prototypes(names)
    missing = sorted(names - set(protos))
    if missing:
        sys.exit(f"no prototype for {missing}")
    POINTER_RESULTS.update(n for n, (ret, _) in protos.items() if "*" in ret)
    keep = old_expectations()
    if FILL:
        keep.update({k: v for k, v in probed(FILL).items() if keep.get(k, "PROBE") == "PROBE"})
    lines = ["/* Generated by ctests/gen_badid_all.py, then reviewed: every exported",
             " * function called with ids that are not open (bad_ids, for the functions",
             " * taking a dataset or group id) and with NULL for every pointer argument",
             " * (null_args, on a fresh dataset). Each line states the result. */", ""]
    for mode in ("bad", "null"):
        lines += ["static void bad_ids(int id)\n{" if mode == "bad" else "static void null_args(void)\n{",
                  f'#define MODE "{mode}"']
        if mode == "null":
            lines.append("    int ncid;")
        for name in sorted(protos):
            ret, args = protos[name]
            takes_id = any(not is_ptr(a) and argname(a) in NCID for a in args)
            if mode == "bad" and not takes_id:
                continue
            ncid = "id" if mode == "bad" else "ncid"
            call = f"{name}({', '.join(value(a, ncid) for a in args)})"
            if mode == "null":
                lines.append("    ncid = fresh();")
            key = lambda suffix="": keep.get(f"{mode}:{name}{suffix}", "PROBE")
            if ret == "void" or name in STATEFUL:
                lines.append(f"    (void){call};")
            elif "*" in ret and name in OWNED:
                lines.append(f'    {{ void *owned = (void *){call};')
                lines.append(f'      PTR(MODE, "{mode}:{name}", (const void *)owned, {key()});')
                lines.append(f'      if (owned) {OWNED[name]}(owned); }}')
            elif "*" in ret:
                lines.append(f'    PTR(MODE, "{mode}:{name}", (const void *){call}, {key()});')
            elif is_v2(name):
                lines.append(f'    ncerr = 0;')
                lines.append(f'    RC(MODE, "{mode}:{name}", (int){call}, {key()});')
                lines.append(f'    RC(MODE, "{mode}:{name}:ncerr", ncerr, {key(":ncerr")});')
            else:
                lines.append(f'    RC(MODE, "{mode}:{name}", (int){call}, {key()});')
            if mode == "null":
                lines.append("    done(ncid);")
        lines += ["#undef MODE", "}", ""]
    OUT.write_text("\n".join(lines))
    print(f"wrote {OUT}: {len(protos)} functions")


if __name__ == "__main__":
    main()
