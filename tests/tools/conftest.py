"""Fixtures for the tool tests: the three libraries, and the rich dataset
built by ncgen over our library, over netcdf-c 4.10.1 (NCZarr stores) and
over Debian's netcdf-c 4.9.0 (a netCDF-4/HDF5 file)."""

import functools
import re

import pytest

import harness
from harness import LIBNETCDFF, SYSTEM_LIBNETCDF, TOOLS, ok, run, url

CDL = harness.HERE / "rich.cdl"
# Filters Debian's HDF5 1.10 has no plugin for (it ships none: zstd, bzip2,
# blosc). They only show in `ncdump -s`, which the HDF5 comparison does
# not use, so the HDF5 file is built without them.
NO_HDF5_PLUGIN = re.compile(r'^\s*\w+:_Filter = "(32015|307|32001)[,"].*\n', re.M)


@pytest.fixture(scope="session", autouse=True)
def tools_installed():
    """A missing tool is a failure, never a skip (CI installs them)."""
    missing = [str(p) for p in [*TOOLS.values(), SYSTEM_LIBNETCDF, LIBNETCDFF] if not p.exists()]
    assert not missing, (f"missing {missing}: tools/install-test-deps.sh installs netcdf-bin "
                         "and libnetcdff-dev")
    harness.WORK.mkdir(parents=True, exist_ok=True)


@pytest.fixture(scope="session")
def libs(tools_installed):
    home = harness.WORK / "home"
    home.mkdir(parents=True, exist_ok=True)
    return harness.libraries(home)


@pytest.fixture(scope="session")
def ours(libs):
    return libs["ours"]


@pytest.fixture(scope="session")
def oracle(libs):
    return libs["oracle"]


@pytest.fixture(scope="session")
def system(libs):
    return libs["system"]


@pytest.fixture(scope="session")
def base(tmp_path_factory):
    return tmp_path_factory.mktemp("tools")


def ncgen_store(lib, directory):
    """ncgen -4 -lb the rich CDL into <directory>/rich.zarr over lib. Both
    stores are named rich.zarr, so ncdump's `netcdf rich {` line agrees."""
    directory.mkdir(parents=True, exist_ok=True)
    store = directory / "rich.zarr"
    ok("ncgen", lib, "-4", "-lb", "-o", url(store), CDL, cwd=directory)
    return store


@pytest.fixture(scope="session")
def oracle_store(oracle, base):
    return ncgen_store(oracle, base / "oracle")


@pytest.fixture(scope="session")
def our_store(ours, base):
    return ncgen_store(ours, base / "ours")


@pytest.fixture(scope="session")
def hdf5_file(system, base):
    """The rich CDL as a netCDF-4/HDF5 file, by Debian's pure netcdf-c 4.9.0."""
    d = base / "hdf5"
    d.mkdir()
    cdl = d / "rich.cdl"
    cdl.write_text(NO_HDF5_PLUGIN.sub("", CDL.read_text(encoding="utf-8")), encoding="utf-8")
    path = d / "rich.nc"
    ok("ncgen", system, "-4", "-lb", "-o", path, cdl, cwd=d)
    return path


@pytest.fixture(scope="session")
def dump():
    """ncdump over a library, memoised: (exit status, stdout, stderr)."""
    @functools.lru_cache(maxsize=None)
    def _dump(lib, flags, target):
        return run("ncdump", lib, *flags, target)
    return lambda lib, flags, target: _dump(lib, tuple(flags), str(target))
