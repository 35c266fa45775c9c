"""Run Debian's netcdf-bin tools (ncdump, ncgen, nccopy, built for
libnetcdf.so.19) over one of three libraries, and prove which one each run
really loaded:

- "ours": our target/release/libnetcdf.so.19;
- "oracle": netcdf-c 4.10.1, the library inside the pinned netCDF4 wheel,
  reached through the shim in oracle/ (see oracle/shim.c), with the wheel's
  filter plugins;
- "system": Debian's own netcdf-c 4.9.0 (no LD_LIBRARY_PATH).

Every run happens with LD_DEBUG=libs writing to a private directory; the
dynamic loader's own record of the libraries it initialised is checked
against the library asked for, so a test can never compare the system
library with itself because a path or a symlink was wrong."""

import difflib
import glob
import os
import pathlib
import re
import subprocess

import netCDF4

ROOT = pathlib.Path(__file__).resolve().parents[2]
HERE = pathlib.Path(__file__).resolve().parent
OUR_LIBDIR = pathlib.Path(os.environ.get("NCZARR_RS_LIBDIR", ROOT / "target" / "release")).resolve()
# The oracle's libraries and loader logs, in the cargo target directory
# with every other build product.
WORK = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target")).resolve() / "tools-test"
ORACLE_DIR = WORK / "oracle"

TOOLS = {name: pathlib.Path("/usr/bin") / name for name in ("ncdump", "ncgen", "nccopy")}
SYSTEM_LIBNETCDF = pathlib.Path("/usr/lib/x86_64-linux-gnu/libnetcdf.so.19")
LIBNETCDFF = pathlib.Path("/usr/lib/x86_64-linux-gnu/libnetcdff.so.7")

# Environment variables that would change which library or plugin loads, or
# what a library reads at start-up; every run sets its own.
SCRUBBED = ("LD_LIBRARY_PATH", "LD_PRELOAD", "LD_DEBUG", "LD_DEBUG_OUTPUT", "HDF5_PLUGIN_PATH",
            "NETCDF_PLUGIN_PATH", "NCZARR_RS_PREFER_PLUGINS", "NCRCENV_IGNORE", "NCRCENV_RC",
            "NCRCENV_HOME", "DAPRCFILE")


def wheel_dir():
    """netCDF4's package and the directory of the libraries it bundles."""
    pkg = pathlib.Path(netCDF4.__file__).resolve().parent
    return pkg, pkg.parent / "netcdf4.libs"


def wheel_libnetcdf():
    """netcdf-c 4.10.1 as the netCDF4 wheel bundles it."""
    _, libs = wheel_dir()
    found = sorted(glob.glob(str(libs / "libnetcdf-*.so*")))
    if len(found) != 1:
        raise RuntimeError(f"expected one libnetcdf in {libs}, found {found}: "
                           "is netCDF4==1.7.5.1.post1 installed in .venv?")
    return pathlib.Path(found[0])


def wheel_plugins():
    pkg, _ = wheel_dir()
    return pkg / "plugins"


def build_oracle():
    """Compile oracle/ into ORACLE_DIR: libnetcdf.so.19 (the shim, NEEDing
    the wheel's library) and the libhdf5_serial.so.103 stub for ncgen."""
    ORACLE_DIR.mkdir(parents=True, exist_ok=True)
    lib = wheel_libnetcdf()
    cflags = ["cc", "-std=c99", "-Wall", "-Wextra", "-Werror", "-O2", "-shared", "-fPIC"]
    subprocess.run(cflags + [
        str(HERE / "oracle" / "shim.c"), "-o", str(ORACLE_DIR / "libnetcdf.so.19"),
        "-Wl,-soname,libnetcdf.so.19", "-Wl,--no-as-needed", str(lib), f"-Wl,-rpath,{lib.parent}",
    ], check=True)
    subprocess.run(cflags + [
        str(HERE / "oracle" / "h5stub.c"), "-o", str(ORACLE_DIR / "libhdf5_serial.so.103"),
        "-Wl,-soname,libhdf5_serial.so.103", f"-Wl,--version-script={HERE / 'oracle' / 'h5stub.map'}",
    ], check=True)
    return ORACLE_DIR


class Library:
    """One libnetcdf.so.19 the tools can run over."""

    def __init__(self, name, libdir, plugins, expect_netcdf, home):
        self.name = name
        self.libdir = libdir
        self.plugins = plugins
        # The real paths of the libnetcdf objects a run must load: all of
        # them, and nothing else named like libnetcdf.
        self.expect_netcdf = {os.path.realpath(p) for p in expect_netcdf}
        self.home = home

    def env(self, debug_dir):
        env = {k: v for k, v in os.environ.items() if k not in SCRUBBED}
        # A clean HOME: no user .ncrc/.dodsrc changes either library.
        env["HOME"] = str(self.home)
        env["LC_ALL"] = "C.UTF-8"
        env["TZ"] = "UTC"
        if self.libdir is not None:
            env["LD_LIBRARY_PATH"] = str(self.libdir)
        if self.plugins is not None:
            env["HDF5_PLUGIN_PATH"] = str(self.plugins)
        env["LD_DEBUG"] = "libs"
        env["LD_DEBUG_OUTPUT"] = str(debug_dir / "ld")
        return env

    def __repr__(self):
        return f"<library {self.name}>"


_INIT = re.compile(r"^\s*\d+:\s+calling init: (\S+)\s*$")
_runs = 0


def libraries(home):
    """The three libraries the tools run over: ours, the oracle (netcdf-c
    4.10.1) and the system's (Debian's netcdf-c 4.9.0)."""
    oracle_dir = build_oracle()
    ours = OUR_LIBDIR / "libnetcdf.so.19"
    assert ours.exists(), f"{ours} is missing: run `make build` first"
    return {
        "ours": Library("ours", OUR_LIBDIR, None, [ours], home),
        "oracle": Library("oracle", oracle_dir, wheel_plugins(),
                          [oracle_dir / "libnetcdf.so.19", wheel_libnetcdf()], home),
        "system": Library("system", None, None, [SYSTEM_LIBNETCDF], home),
    }


def loaded_objects(debug_dir):
    """The shared objects the dynamic loader initialised in one run."""
    out = set()
    for f in debug_dir.glob("ld.*"):
        for line in f.read_text(errors="replace").splitlines():
            m = _INIT.match(line)
            if m:
                out.add(os.path.realpath(m.group(1)))
    return out


def check_loaded(lib, objects, what):
    netcdf = {o for o in objects if re.match(r"libnetcdf[.-]", os.path.basename(o))}
    assert netcdf == lib.expect_netcdf, (
        f"{what} over {lib.name} loaded {sorted(netcdf) or 'no libnetcdf'}, "
        f"expected {sorted(lib.expect_netcdf)}")
    if lib.name == "oracle":
        # Debian's HDF5 next to the wheel's crashes; the stub stands in.
        debian = [o for o in objects if "hdf5" in os.path.basename(o) and str(ORACLE_DIR) not in o
                  and "netcdf4.libs" not in o and "netCDF4" not in o]
        assert not debian, f"{what} over the oracle loaded Debian's HDF5: {debian}"


def run(tool, lib, *args, cwd=None):
    """Run /usr/bin/<tool> over lib; return (exit status, stdout, stderr)
    as text, after checking the library the loader really used."""
    global _runs
    _runs += 1
    debug_dir = WORK / "ld-debug" / f"{os.getpid()}-{_runs}"
    debug_dir.mkdir(parents=True)
    try:
        cmd = [str(TOOLS[tool]), *map(str, args)]
        result = subprocess.run(cmd, env=lib.env(debug_dir), capture_output=True, cwd=cwd, timeout=60)
        check_loaded(lib, loaded_objects(debug_dir), " ".join(cmd))
    finally:
        for f in debug_dir.iterdir():
            f.unlink()
        debug_dir.rmdir()
    return (result.returncode, result.stdout.decode("utf-8", "replace"),
            result.stderr.decode("utf-8", "replace"))


def ok(tool, lib, *args, cwd=None):
    """Run a tool that must succeed; return its stdout."""
    code, out, err = run(tool, lib, *args, cwd=cwd)
    assert code == 0, f"{tool} {' '.join(map(str, args))} over {lib.name} exited {code}:\n{err}"
    return out


def url(path):
    """The NCZarr URL of a local store."""
    return f"file://{path}#mode=nczarr,file"


# ---------------------------------------------------------------------------
# The documented differences between what ncdump prints over our library
# and over netcdf-c 4.10.1. Each is a deliberate choice of ours; nothing
# else may be normalised.

_NCPROPERTIES = re.compile(r'^(\s*):_NCProperties = ".*" ;$', re.M)
_SHUFFLE = re.compile(r'(\\"id\\":\s*\\"shuffle\\",\s*\\"elementsize\\":\s*)\d+')
_NIL = re.compile(r'(^|[=,])(\s+)NIL(?=\s*[,;]|\s*$)', re.M)


def normalize(dump):
    # _NCProperties names the library that wrote the dataset: netcdf-c
    # writes "version=2,netcdf=4.10.1,nczarr=2.0.0", we write
    # "version=2,nczarr-rs=<version>,...".
    dump = _NCPROPERTIES.sub(r'\1:_NCProperties = "<library>" ;', dump)
    # The shuffle codec's element size in _Codecs: netcdf-c 4.10.1's plugin
    # records 0 (the size is only known to HDF5's filter pipeline); we
    # record the variable's type size, which numcodecs needs to unshuffle.
    dump = _SHUFFLE.sub(r"\1<n>", dump)
    # An empty NC_STRING value: netcdf-c 4.10.1's NCZarr hands it out as a
    # NULL pointer, which ncdump prints as NIL; we hand out "" (a NULL
    # crashes callers that strlen() it; see tests/interop/conftest.py), as
    # netcdf-c itself does for netCDF-4/HDF5 files.
    dump = _NIL.sub(r'\1\2""', dump)
    return dump


def assert_same(got, expected, got_label, expected_label):
    """Compare two (exit status, stdout, stderr) outcomes; on a difference
    fail with a unified diff of each part that differs."""
    __tracebackhide__ = True
    parts = []
    for name, g, e in zip(("exit status", "stdout", "stderr"), got, expected):
        if g == e:
            continue
        if isinstance(g, int):
            parts.append(f"{name}: {got_label} {g}, {expected_label} {e}")
            continue
        diff = difflib.unified_diff(e.splitlines(keepends=True), g.splitlines(keepends=True),
                                    fromfile=f"{expected_label} (expected)", tofile=got_label, n=2)
        parts.append(f"{name} differs:\n" + "".join(diff))
    assert not parts, "\n".join(parts)


def normalized(result):
    """An outcome with its stdout normalised (see normalize)."""
    code, out, err = result
    return code, normalize(out), err
