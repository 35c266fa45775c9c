"""Compiling the C helper programs of the Python test suites (interop, s3,
zip, v3) against our library or against netcdf-c 4.10.1 (the library the
pinned netCDF4 wheel bundles), with one set of flags."""

import glob
import os
import pathlib
import subprocess

ROOT = pathlib.Path(__file__).resolve().parents[1]
OUR_LIBDIR = pathlib.Path(os.environ.get("NCZARR_RS_LIBDIR", ROOT / "target" / "release")).resolve()
FLAGS = ["-std=c99", "-D_DEFAULT_SOURCE", "-D_POSIX_C_SOURCE=200809L", "-Wall", "-Wextra", "-Werror"]


def wheel_libnetcdf():
    """The libnetcdf shared library bundled in the netCDF4 wheel. Found
    without importing netCDF4, whose import sets HDF5_PLUGIN_PATH for every
    program the suite runs afterwards."""
    import importlib.util

    spec = importlib.util.find_spec("netCDF4")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("no netCDF4 package: is netCDF4==1.7.5.1.post1 installed?")
    libs = pathlib.Path(spec.submodule_search_locations[0]).resolve().parent / "netcdf4.libs"
    found = sorted(glob.glob(str(libs / "libnetcdf-*.so*")))
    if not found:
        raise RuntimeError(f"no libnetcdf in {libs}: is netCDF4==1.7.5.1.post1 installed?")
    return pathlib.Path(found[0])


def build(source, out, against_wheel=False, extra=()):
    """Compile `source` to `out`, linked to our library or netcdf-c's."""
    cmd = ["cc", *FLAGS, f"-I{ROOT / 'include'}", str(source), "-o", str(out)]
    if against_wheel:
        lib = wheel_libnetcdf()
        cmd += [str(lib), f"-Wl,-rpath,{lib.parent}"]
    else:
        cmd += [f"-L{OUR_LIBDIR}", "-lnetcdf", f"-Wl,-rpath,{OUR_LIBDIR}"]
    subprocess.run([*cmd, *extra], check=True)
    return out
