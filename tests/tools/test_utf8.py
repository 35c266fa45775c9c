"""UTF-8 names, attributes and data, built by ncgen over us: ncdump over
us prints what Debian's netcdf-c 4.9.0 prints for the same CDL built as a
netCDF-4/HDF5 file, and netcdf-c 4.10.1 reads our store as we do. (Not
compared with a store netcdf-c 4.10.1 writes: see utf8.cdl.)"""

import pytest

from harness import HERE, assert_same, normalized, ok, url

CDL = HERE / "utf8.cdl"


@pytest.fixture(scope="module")
def our_utf8_store(ours, base):
    d = base / "utf8-ours"
    d.mkdir()
    store = d / "utf8.zarr"
    ok("ncgen", ours, "-4", "-lb", "-o", url(store), CDL, cwd=d)
    return store


@pytest.fixture(scope="module")
def hdf5_utf8_file(system, base):
    d = base / "utf8-hdf5"
    d.mkdir()
    path = d / "utf8.nc"
    ok("ncgen", system, "-4", "-lb", "-o", path, CDL, cwd=d)
    return path


def test_utf8_same_as_netcdf_c_on_hdf5(dump, ours, system, our_utf8_store, hdf5_utf8_file):
    expected = dump(system, [], hdf5_utf8_file)
    assert expected[0] == 0, expected[2]
    assert '\t\t:greeting = "café ☃" ;' in expected[1]
    assert_same(dump(ours, [], url(our_utf8_store)), expected, "ncdump over us", "netcdf-c 4.9.0 on HDF5")


@pytest.mark.parametrize("flags", [[], ["-h", "-s"]], ids=["default", "h-s"])
def test_netcdf_c_reads_our_utf8_store(dump, ours, oracle, our_utf8_store, flags):
    assert_same(normalized(dump(ours, flags, url(our_utf8_store))),
                normalized(dump(oracle, flags, url(our_utf8_store))),
                "ncdump over us", "ncdump over netcdf-c 4.10.1")
