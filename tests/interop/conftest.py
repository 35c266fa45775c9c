"""Shared fixtures for the interop tests: C helper programs built against
our library and against netcdf-c 4.10.1 (the library inside the pinned
netCDF4 wheel), so both can be run on the same dataset."""

import glob
import os
import pathlib
import subprocess

import netCDF4
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
HERE = pathlib.Path(__file__).resolve().parent
OUR_LIBDIR = pathlib.Path(os.environ.get("NCZARR_RS_LIBDIR", ROOT / "target" / "release"))


def wheel_libnetcdf():
    """The libnetcdf shared library bundled in the netCDF4 wheel."""
    libs = pathlib.Path(netCDF4.__file__).resolve().parent.parent / "netcdf4.libs"
    found = sorted(glob.glob(str(libs / "libnetcdf-*.so*")))
    if not found:
        raise RuntimeError(f"no libnetcdf in {libs}: is netCDF4==1.7.5.1.post1 installed?")
    return pathlib.Path(found[0])


def build(source, out, against_wheel):
    """Compile a C helper against our library or netcdf-c's."""
    cmd = ["cc", "-std=c99", "-Wall", "-Werror", f"-I{ROOT / 'include'}", str(HERE / source), "-o", str(out)]
    if against_wheel:
        lib = wheel_libnetcdf()
        cmd += [str(lib), f"-Wl,-rpath,{lib.parent}"]
    else:
        cmd += [f"-L{OUR_LIBDIR}", "-lnetcdf", f"-Wl,-rpath,{OUR_LIBDIR}"]
    subprocess.run(cmd, check=True)
    return out


@pytest.fixture(scope="session")
def tools(tmp_path_factory):
    d = tmp_path_factory.mktemp("tools")
    return {
        "describe_ours": build("describe.c", d / "describe_ours", against_wheel=False),
        "describe_netcdf_c": build("describe.c", d / "describe_netcdf_c", against_wheel=True),
        "write_sample": build("write_sample.c", d / "write_sample", against_wheel=False),
        "write_data": build("write_data.c", d / "write_data", against_wheel=False),
        "write_sample_numeric": build("write_numeric.c", d / "write_numeric", against_wheel=False),
        "write_plain": build("write_plain.c", d / "write_plain", against_wheel=False),
        "write_filtered": build("write_filtered.c", d / "write_filtered", against_wheel=False),
    }


def run(tool, *args):
    """Run a helper; return its stdout, failing the test on a non-zero exit."""
    result = subprocess.run([str(tool), *map(str, args)], capture_output=True, text=True)
    assert result.returncode == 0, f"{tool.name} failed: {result.stderr}"
    return result.stdout


def assert_lines(text, expected):
    """Every expected line appears, whole, in a description."""
    lines = set(text.splitlines())
    missing = [line for line in expected if line not in lines]
    assert not missing, f"missing lines {missing!r} in:\n{text}"


def same_as_netcdf_c(ours, theirs):
    """Compare two descriptions. netcdf-c hands out an empty NC_STRING value
    as a NULL pointer; we hand out "" (a NULL crashes C callers that
    strlen() it), so that one difference is expected."""
    assert ours == theirs.replace("NULL", '""')


def url(path):
    return f"file://{path}#mode=nczarr,file"
