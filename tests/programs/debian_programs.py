"""Run Debian's programs that link libnetcdf.so.19 (NCO, CDO, GDAL,
python3-netcdf4, netcdf-c++4, netcdf-bin) over one of two libraries, and
prove which one each run really loaded:

- "debian": Debian's netcdf-c 4.9.0, /usr/lib/x86_64-linux-gnu/libnetcdf.so.19
  (no LD_LIBRARY_PATH);
- "ours": target/release/libnetcdf.so.19 (LD_LIBRARY_PATH=NCZARR_RS_LIBDIR),
  which serves .nc files by loading Debian's netcdf-c beside itself.

Every run happens with LD_DEBUG=libs writing into a private directory; the
dynamic loader's record of the objects it initialised is checked, so a test
can never compare Debian's library with itself because a path was wrong."""

import difflib
import itertools
import os
import pathlib
import re
import shutil
import subprocess

ROOT = pathlib.Path(__file__).resolve().parents[2]
HERE = pathlib.Path(__file__).resolve().parent
OUR_LIBDIR = pathlib.Path(os.environ.get("NCZARR_RS_LIBDIR", ROOT / "target" / "release")).resolve()
OUR_LIB = OUR_LIBDIR / "libnetcdf.so.19"
DEBIAN_LIB = pathlib.Path("/usr/lib/x86_64-linux-gnu/libnetcdf.so.19")
LIBS = ("debian", "ours")

# The programs and files the tests need; tests/programs/PACKAGES names the
# Debian packages that bring them. A missing one fails the session.
REQUIRED = [
    "/usr/bin/ncks", "/usr/bin/ncrename", "/usr/bin/ncatted", "/usr/bin/ncap2", "/usr/bin/ncra",
    "/usr/bin/ncrcat", "/usr/bin/cdo", "/usr/bin/gdalinfo", "/usr/bin/gdal_translate",
    "/usr/bin/ncdump", "/usr/bin/ncgen", "/usr/bin/nccopy", "/usr/bin/python3",
    "/usr/lib/python3/dist-packages/netCDF4/__init__.py",
    "/usr/lib/python3/dist-packages/xarray/__init__.py",
    "/usr/include/netcdf", "/usr/lib/x86_64-linux-gnu/libnetcdf_c++4.so",
    "/usr/include/hdf5/serial/hdf5.h", "/usr/bin/g++", "/usr/bin/gcc",
    str(DEBIAN_LIB),
]

# Variables that would change which library or plugin loads, or what a
# library reads at start-up; every run sets its own.
SCRUBBED = ("LD_LIBRARY_PATH", "LD_PRELOAD", "LD_DEBUG", "LD_DEBUG_OUTPUT", "HDF5_PLUGIN_PATH",
            "NETCDF_PLUGIN_PATH", "NCZARR_RS_NETCDF_C", "NCZARR_RS_PREFER_PLUGINS", "NCTRACING",
            "NCRCENV_IGNORE", "NCRCENV_RC", "NCRCENV_HOME", "DAPRCFILE", "PYTHONPATH", "PYTHONHOME",
            "VIRTUAL_ENV", "PYTHONSTARTUP", "GDAL_DATA", "CPL_DEBUG", "CDO_PCTL_NC4")

_INIT = re.compile(r"^\s*\d+:\s+calling init: (\S+)\s*$")
_counter = itertools.count()


def url(path, mode="file"):
    """The NCZarr URL of a local store (mode "file" or "zip")."""
    return f"file://{path}#mode=nczarr,{mode}"


def _env(lib, home, debug_dir, extra):
    env = {k: v for k, v in os.environ.items() if k not in SCRUBBED}
    env["HOME"] = str(home)  # no user .ncrc/.dodsrc changes either library
    env["LC_ALL"] = "C.UTF-8"
    env["TZ"] = "UTC"
    env["CDO_DISABLE_HISTORY"] = "1"  # no time stamps in what CDO writes
    env["OMP_NUM_THREADS"] = "1"
    if lib == "ours":
        env["LD_LIBRARY_PATH"] = str(OUR_LIBDIR)
    env["LD_DEBUG"] = "libs"
    env["LD_DEBUG_OUTPUT"] = str(debug_dir / "ld")
    env.update(extra or {})
    return env


def _loaded(debug_dir):
    out = set()
    for f in debug_dir.glob("ld.*"):
        for line in f.read_text(errors="replace").splitlines():
            m = _INIT.match(line)
            if m:
                out.add(os.path.realpath(m.group(1)))
    return out


def _check_loaded(lib, objects, what):
    netcdf = {o for o in objects if os.path.basename(o).startswith("libnetcdf.so")}
    ours = os.path.realpath(OUR_LIB)
    debian = os.path.realpath(DEBIAN_LIB)
    if lib == "ours":
        # Ours, and Debian's only as the delegate it loads for .nc files.
        assert ours in netcdf and netcdf <= {ours, debian}, (
            f"{what} over ours initialised {sorted(netcdf) or 'no libnetcdf'}, expected {ours}")
    else:
        assert netcdf == {debian}, (
            f"{what} over Debian's library initialised {sorted(netcdf) or 'no libnetcdf'}, "
            f"expected only {debian}")


class Runner:
    """Runs programs over one library or the other, with a clean HOME."""

    def __init__(self, work):
        self.work = pathlib.Path(work)
        self.home = self.work / "home"
        self.home.mkdir(parents=True, exist_ok=True)
        (self.work / "ld").mkdir(exist_ok=True)

    def run(self, lib, args, cwd, env=None, check=True, timeout=300):
        """Run args over lib in cwd; return the CompletedProcess (text)."""
        assert lib in LIBS
        debug_dir = self.work / "ld" / str(next(_counter))
        debug_dir.mkdir()
        args = [str(a) for a in args]
        what = " ".join(args)
        try:
            r = subprocess.run(args, cwd=cwd, env=_env(lib, self.home, debug_dir, env),
                               capture_output=True, timeout=timeout)
            _check_loaded(lib, _loaded(debug_dir), what)
        finally:
            shutil.rmtree(debug_dir, ignore_errors=True)
        r.stdout = r.stdout.decode("utf-8", "replace")
        r.stderr = r.stderr.decode("utf-8", "replace")
        if check:
            assert r.returncode == 0, (
                f"`{what}` (in {cwd}) over {lib} exited {r.returncode}:\n{r.stderr}{r.stdout[-2000:]}")
        return r

    def both(self, base, args, inputs=(), env=None, check=True):
        """Run the same command in base/debian over Debian's library and in
        base/ours over ours, each directory holding its own copy of the
        input files (some programs change them in place). Returns
        {lib: CompletedProcess}."""
        out = {}
        for lib in LIBS:
            d = pathlib.Path(base) / lib
            d.mkdir(parents=True, exist_ok=True)
            for f in inputs:
                shutil.copy(f, d / pathlib.Path(f).name)
            out[lib] = self.run(lib, args, cwd=d, env=env, check=check)
        return out

    def ncdump(self, path, *opts, lib="debian", check=True):
        """ncdump's CDL for a file (relative name, so the `netcdf NAME {`
        line does not depend on the directory) or a URL."""
        p = str(path)
        if p.startswith("file://"):
            return self.run(lib, ["/usr/bin/ncdump", *opts, p], cwd=self.work, check=check).stdout
        p = pathlib.Path(p)
        return self.run(lib, ["/usr/bin/ncdump", *opts, p.name], cwd=p.parent, check=check).stdout


def body(cdl):
    """A CDL dump without its first line (`netcdf NAME {`, which names the
    file or store)."""
    return cdl.split("\n", 1)[1] if "\n" in cdl else cdl


def assert_same_text(debian, ours, what):
    __tracebackhide__ = True
    if debian != ours:
        diff = "".join(difflib.unified_diff(
            debian.splitlines(True), ours.splitlines(True), "over Debian's library", "over ours"))
        raise AssertionError(f"{what} differs:\n{diff[:12000]}")


def assert_same_stdout(results, what, normalize=None):
    __tracebackhide__ = True
    for lib, r in results.items():
        assert r.returncode == 0, f"{what} over {lib} exited {r.returncode}:\n{r.stderr}{r.stdout[-3000:]}"
    d, o = results["debian"].stdout, results["ours"].stdout
    if normalize:
        d, o = normalize(d), normalize(o)
    assert_same_text(d, o, f"stdout of {what}")
    return d


class Inputs:
    """The .nc inputs, made on demand with Debian's /usr/bin/ncgen over
    Debian's library, in one test's tmp_path."""

    # name -> (CDL file in tests/programs, ncgen -k kind, text substitutions)
    RECIPES = {
        "classic_nc3.nc": ("classic.cdl", "nc3", ()),
        "classic_nc6.nc": ("classic.cdl", "nc6", ()),
        "classic_nc5.nc": ("classic.cdl", "nc5", ()),
        "classic_nc7.nc": ("classic.cdl", "nc7", ()),
        "nc4.nc": ("nc4.cdl", "nc4", ()),
        "udt.nc": ("udt.cdl", "nc4", ()),
        "grid.nc": ("grid.cdl", "nc4", ()),
        "grid_nc3.nc": ("grid.cdl", "nc3", ()),
        # The second record file for ncra/ncrcat: two later time steps.
        "grid2.nc": ("grid.cdl", "nc4", (("time = 15.5, 45 ;", "time = 74.5, 105 ;"),)),
        "grid2_nc3.nc": ("grid.cdl", "nc3", (("time = 15.5, 45 ;", "time = 74.5, 105 ;"),)),
    }

    def __init__(self, runner, directory):
        self.runner = runner
        self.dir = pathlib.Path(directory)
        self.dir.mkdir(parents=True, exist_ok=True)

    def __call__(self, name):
        path = self.dir / name
        if path.exists():
            return path
        if name == "cdf5.nc":
            # Debian's ncgen 4.9.0 writes CDF-5 int64 variables as int
            # (truncating the values), so the CDF-5 file is made as
            # netCDF-4 by ncgen and converted by Debian's nccopy.
            tmp = self.dir / "cdf5_as_nc4.nc"
            self.runner.run("debian", ["/usr/bin/ncgen", "-k", "nc4", "-o", tmp.name, HERE / "cdf5.cdl"],
                            cwd=self.dir)
            self.runner.run("debian", ["/usr/bin/nccopy", "-k", "nc5", tmp.name, name], cwd=self.dir)
            return path
        cdl, kind, subs = self.RECIPES[name]
        src = HERE / cdl
        if subs:
            text = src.read_text()
            for old, new in subs:
                assert old in text
                text = text.replace(old, new)
            src = self.dir / (path.stem + ".cdl")
            src.write_text(text)
        self.runner.run("debian", ["/usr/bin/ncgen", "-k", kind, "-o", name, src], cwd=self.dir)
        return path
