"""Fixtures for the tests of Debian's programs over our library."""

import os
import pathlib
import subprocess

import pytest

import debian_programs as dp


@pytest.fixture(scope="session", autouse=True)
def programs_installed():
    """A missing program is a failure, never a skip (CI installs them)."""
    missing = [p for p in dp.REQUIRED if not os.path.exists(p)]
    assert not missing, (f"missing {missing}: install the Debian packages listed in "
                         f"{dp.HERE / 'PACKAGES'}")
    assert dp.OUR_LIB.exists(), f"{dp.OUR_LIB} is missing: run `make build` first"


@pytest.fixture
def runner(tmp_path):
    return dp.Runner(tmp_path / "run")


@pytest.fixture
def inputs(runner, tmp_path):
    return dp.Inputs(runner, tmp_path / "inputs")


@pytest.fixture(scope="session")
def built(tmp_path_factory):
    """The C and C++ programs in tests/programs, compiled once per session
    against Debian's headers and linked with -lnetcdf (the library is picked
    at run time by LD_LIBRARY_PATH)."""
    out = tmp_path_factory.mktemp("programs")
    cxx = out / "cxx4_roundtrip"
    subprocess.run(["g++", "-std=c++11", "-Wall", "-Werror", "-O1", "-o", str(cxx),
                    str(dp.HERE / "cxx4_roundtrip.cpp"), "-lnetcdf_c++4", "-lnetcdf"], check=True)
    h5 = out / "h5_copy_reloc"
    subprocess.run(["gcc", "-std=c99", "-Wall", "-Werror", "-O1", "-I/usr/include/hdf5/serial",
                    "-o", str(h5), str(dp.HERE / "h5_copy_reloc.c"), "-lnetcdf",
                    "-L/usr/lib/x86_64-linux-gnu/hdf5/serial", "-lhdf5"], check=True)
    return {"cxx4_roundtrip": cxx, "h5_copy_reloc": h5}
