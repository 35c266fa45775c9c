#!/usr/bin/env python3
"""Write the routing layer between the C ABI and the two libraries that
serve datasets (this library's NCZarr engine and a netcdf-c loaded beside
it, src/delegate/):

* src/capi/route.rs: the exported `nc_*` entry point of every call that
  names a dataset by its first argument (an ncid). Each looks up which
  library serves that ncid (registry::route) and calls either our
  implementation (the function of the same name in src/capi/<module>.rs,
  which is not exported) or the delegate's, with the delegate's ncid.
* src/delegate/table.rs: the delegate's functions, looked up by name when
  it is loaded (the routed calls plus those the delegate module calls).

The routed calls are found, not listed: every `pub [unsafe] extern "C" fn`
in src/capi/*.rs that has no `#[unsafe(no_mangle)]` and whose first
parameter is an ncid. Calls whose routing needs more than a translated
ncid (group ids coming back, two datasets, closing) are written by hand in
src/capi/crossing.rs; they are named in SPECIAL below.

Run it after adding or changing an entry point and commit the result:
    python3 tools/gen_route.py
(tools/gen_data_api.py, which writes the typed data calls, runs it.)
"""
import pathlib
import re
import subprocess

ROOT = pathlib.Path(__file__).resolve().parent.parent
CAPI = ROOT / "src" / "capi"

# First parameters that name a dataset.
NCID_PARAMS = {"ncid", "ncid1", "ncid_in", "parent_ncid", "grpid"}
# Routed by hand in src/capi/crossing.rs (the delegate's versions are still
# in the table).
SPECIAL = {
    "nc_def_grp", "nc_inq_grps", "nc_inq_grp_parent", "nc_inq_ncid", "nc_inq_grp_ncid",
    "nc_inq_grp_full_ncid", "nc_copy_att", "nc_copy_var", "nc_inq_type_equal", "nc_close",
    "nc_abort", "nc_close_memio", "nc_inq_path",
}
# Exported calls that name no dataset but that src/delegate calls in the
# delegate (opens, creates, process-wide settings).
UNROUTED_IN_TABLE = [
    "nc_open", "nc_create", "nc__open", "nc__create", "nc_open_mem", "nc_create_mem",
    "nc_open_memio", "nc_delete", "nc_inq_libvers", "nc_strerror", "nc_set_chunk_cache",
    "nc_set_default_format", "nc_set_log_level", "nc_set_alignment", "nc_rc_set",
    "nc_initialize", "nc_finalize", "nc_def_user_format", "ncaux_type_alignment",
]
# Parameter types the table spells as untyped pointers (the delegate
# module does not depend on the C ABI's structs).
OPAQUE = {"*mut NcMemio": "*mut c_void", "*mut NcDispatch": "*mut c_void"}
SKIP_FILES = {"mod.rs", "route.rs", "crossing.rs"}

FN_RE = re.compile(
    r'(#\[unsafe\(no_mangle\)\]\n)?((?:#\[[^\]]*\]\n)*)pub (unsafe )?extern "C" fn (\w+)\s*\(([^)]*)\)\s*->\s*([^{]+?)\s*\{'
)


def params_of(text):
    out = []
    for p in text.split(","):
        p = " ".join(p.split())
        if p:
            name, ty = p.split(":", 1)
            out.append((name.strip().lstrip("_"), ty.strip()))
    return out


MACRO_RE = re.compile(r'macro_rules! (\w+) \{(.*?)\n\}', re.S)


def macro_functions(text):
    """Functions defined by invoking a macro of the file whose arm defines
    `pub unsafe extern "C" fn $name(ncid: c_int, ...)` (udt.rs): each
    invocation line `name(params);` is such a function."""
    found = []
    for m in MACRO_RE.finditer(text):
        macro, body = m.groups()
        if 'extern "C" fn $name(ncid: c_int' not in body or "no_mangle" in body:
            continue
        for block in re.finditer(macro + r"! \{(.*?)\n\}", text, re.S):
            for f in re.finditer(r"(\w+)\(([^)]*)\);", block.group(1)):
                found.append((f.group(1), [("ncid", "c_int")] + params_of(f.group(2)), "c_int", True))
    return found


def scan():
    routed, exported = [], {}
    for path in sorted(CAPI.rglob("*.rs")):
        if path.name in SKIP_FILES:
            continue
        if path.parent != CAPI:
            # The v2 API and the auxiliary functions are built over the
            # routed API, not routed themselves; only their signatures
            # are wanted (ncaux_type_alignment).
            for m in FN_RE.finditer(path.read_text()):
                if m.group(1):
                    exported[m.group(4)] = (path.stem, params_of(m.group(5)), m.group(6))
            continue
        for name, params, ret, unsafe in macro_functions(path.read_text()):
            routed.append((path.stem, name, params, ret, unsafe))
        for m in FN_RE.finditer(path.read_text()):
            no_mangle, _, unsafe, name, params, ret = m.groups()
            params = params_of(params)
            if no_mangle:
                exported[name] = (path.stem, params, ret)
            elif params and params[0][0] in NCID_PARAMS:
                routed.append((path.stem, name, params, ret, bool(unsafe)))
    return routed, exported


ROUTE_HEADER = '''//! The exported entry points of every call that names a dataset: each
//! asks the registry which library serves the ncid and calls that
//! library's function, ours (`super::<module>::<name>`) or the delegate's
//! (src/delegate), with the delegate's own ncid.
//!
//! GENERATED by tools/gen_route.py -- edit that script, not this file.
//!
//! # Safety (every function)
//! As the function of the same name in our implementation says: the
//! arguments are passed on unchanged (the ncid translated), so each
//! callee's contract is the caller's.
#![allow(clippy::missing_safety_doc)]
#![allow(clippy::undocumented_unsafe_blocks, reason = "arguments passed on, per the # Safety section above")]
#![allow(clippy::too_many_arguments)]

use std::ffi::{c_char, c_int, c_long, c_longlong, c_schar, c_short, c_uchar, c_uint, c_ulonglong, c_ushort, c_void};

use crate::registry::{Route, route};
'''

TABLE_HEADER = '''//! The delegate's functions, looked up by name when it is loaded; a
//! function it does not have (an older netcdf-c) is `None`, which a call
//! answers with NC_ENOTBUILT.
//!
//! GENERATED by tools/gen_route.py -- edit that script, not this file.
#![allow(clippy::type_complexity)]
#![allow(non_snake_case, reason = "netcdf-c's names (nc__open)")]

use std::ffi::{c_char, c_int, c_long, c_longlong, c_schar, c_short, c_uchar, c_uint, c_ulonglong, c_ushort, c_void};

use super::loader::Handle;
'''


def main():
    routed, exported = scan()
    route = [ROUTE_HEADER]
    for module, name, params, ret, unsafe in routed:
        if name in SPECIAL:
            continue
        decl = ", ".join(f"{n}: {t}" for n, t in params)
        ours = ", ".join(n for n, _ in params)
        theirs = ", ".join(["d.ncid"] + [n for n, _ in params[1:]])
        first = params[0][0]
        qualifier, ours_call = ("unsafe ", f"unsafe {{ super::{module}::{name}({ours}) }}") if unsafe else ("", f"super::{module}::{name}({ours})")
        route.append(
            f"\n#[unsafe(no_mangle)]\npub {qualifier}extern \"C\" fn {name}({decl}) -> {ret} {{\n"
            f"    match route({first}) {{\n"
            f"        Route::Ours => {ours_call},\n"
            f"        Route::Theirs(d) => d.call(|t| t.{name}.map(|f| unsafe {{ f({theirs}) }})),\n"
            f"    }}\n}}\n"
        )
    entries = [(name, params, ret) for _, name, params, ret, _ in routed]
    for name in UNROUTED_IN_TABLE:
        _, params, ret = exported[name]
        entries.append((name, params, ret))
    table = [TABLE_HEADER, "\npub struct Table {\n"]
    for name, params, ret in entries:
        types = ", ".join(OPAQUE.get(t, t) for _, t in params)
        table.append(f"    pub {name}: Option<unsafe extern \"C\" fn({types}) -> {ret}>,\n")
    table.append("}\n\nimpl Table {\n")
    table.append("    /// Look every function up in the loaded library.\n")
    table.append("    pub(super) fn load(lib: &Handle) -> Table {\n        Table {\n")
    for name, _, _ in entries:
        table.append(f"            {name}: lib.function(c\"{name}\"),\n")
    table.append("        }\n    }\n}\n")
    outputs = {CAPI / "route.rs": route, ROOT / "src" / "delegate" / "table.rs": table}
    for path, parts in outputs.items():
        path.write_text("".join(parts))
        subprocess.run(["rustfmt", "--edition", "2024", str(path)], check=True)


if __name__ == "__main__":
    main()
