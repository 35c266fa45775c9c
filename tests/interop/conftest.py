"""Shared fixtures for the interop tests: C helper programs built against
our library and against netcdf-c 4.10.1 (the library inside the pinned
netCDF4 wheel), so both can be run on the same dataset."""

import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT / "tests"))
import cbuild  # noqa: E402



def build(source, out, against_wheel):
    """Compile a C helper of this directory against our library or netcdf-c's."""
    return cbuild.build(HERE / source, out, against_wheel)


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
        "write_objects": build("write_objects.c", d / "write_objects", against_wheel=False),
        "read_parts": build("read_parts.c", d / "read_parts", against_wheel=False),
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
