"""ncgen -> ncdump, cross-checked. The rich CDL is built into an NCZarr
store over our library and over netcdf-c 4.10.1 (the oracle); Debian's
ncdump then prints both stores over both libraries, and the four dumps of
each flag set must agree, up to the documented differences in
harness.normalize. Three comparisons make the four agree, and each failure
says which side is at fault:

- test_we_read_netcdf_c_store: ncdump over us and over the oracle, on the
  store netcdf-c wrote (our reader);
- test_netcdf_c_reads_our_store: the same on the store we wrote (that
  netcdf-c reads our store as we do);
- test_we_write_what_netcdf_c_writes: ncdump over the oracle, on both
  stores (our writer: defaults such as chunk sizes included, with -s).

Then the data and attributes are checked against Debian's netcdf-c 4.9.0
building the same CDL as a netCDF-4/HDF5 file."""

import pytest

from harness import assert_same, normalized, url

# ncdump flag sets; the dataset argument comes last.
FLAGS = {
    "default": [],
    "h-s": ["-h", "-s"],
    "s": ["-s"],
    "t": ["-t"],
    "i": ["-i"],
    "t-v": ["-t", "-v", "time,time_bnds,t360,/g1/g2/gw"],
    "v": ["-v", "temp,str,scalar_s,c,/g1/g2/gx"],
    "c": ["-c"],
    "k": ["-k"],
    "g": ["-g", "g1"],
    "g-nested": ["-g", "g2"],
    "h-g": ["-h", "-g", "g1"],
    # Not on scalars: for those ncdump 4.9.0 prints an index it reads out of
    # bounds (vardata.c, annotate()), which differs from run to run.
    "b-c": ["-b", "c", "-v", "temp,str,c,ub,/g1/g2/gx"],
    "f-f": ["-f", "f", "-v", "temp,str,c,ub,/g1/g2/gx"],
    "p": ["-p", "3,5"],
    "l": ["-l", "30"],
    "n": ["-n", "renamed"],
    # NcML is for the classic model only: an error, printed alike.
    "x": ["-x"],
}
PARAMS = pytest.mark.parametrize("flags", list(FLAGS.values()), ids=list(FLAGS))


@PARAMS
def test_we_read_netcdf_c_store(dump, ours, oracle, oracle_store, flags):
    assert_same(normalized(dump(ours, flags, url(oracle_store))),
                normalized(dump(oracle, flags, url(oracle_store))),
                "ncdump over us", "ncdump over netcdf-c 4.10.1")


@PARAMS
def test_netcdf_c_reads_our_store(dump, ours, oracle, our_store, flags):
    assert_same(normalized(dump(ours, flags, url(our_store))),
                normalized(dump(oracle, flags, url(our_store))),
                "ncdump over us", "ncdump over netcdf-c 4.10.1")


@PARAMS
def test_we_write_what_netcdf_c_writes(dump, oracle, our_store, oracle_store, flags):
    assert_same(normalized(dump(oracle, flags, url(our_store))),
                normalized(dump(oracle, flags, url(oracle_store))),
                "our store", "netcdf-c's store")


def test_oracle_dumps_are_real(dump, oracle, oracle_store):
    """The oracle's dumps are what the tests compare with: make sure they
    show the dataset (and -t the dates), not an error or garbage."""
    code, out, err = dump(oracle, [], url(oracle_store))
    assert code == 0 and err == "", err
    assert out.startswith("netcdf rich {\n") and "group: g2 {" in out
    assert " special = NaN, Infinity, -Infinity ;" in out
    code, out, _ = dump(oracle, ["-t"], url(oracle_store))
    assert ' time = "2000-01-01", "2000-01-02 12", "2001-01-01" ;' in out
    assert ' t360 = "1999-12-30 06", "2000-01-01 06", "2000-01-30 06" ;' in out
    assert '     gw = "1970-03-01", "1970-03-02" ;' in out
    code, out, _ = dump(oracle, ["-h", "-s"], url(oracle_store))
    assert ':_NCProperties = "version=2,netcdf=4.10.1,' in out
    for line in ['temp:_DeflateLevel = 4 ;', 'temp:_Shuffle = "true" ;', 's:_Fletcher32 = "true" ;',
                 's:_Endianness = "big" ;', 'i:_Filter = "32015,3" ;', 'ui:_Filter = "307,9" ;',
                 'blz:_Filter = "32001,', 'f:_NoFill = "true" ;', 'i:_ChunkSizes = 2, 3 ;']:
        assert line in out


# Debian's netcdf-c 4.9.0 on a netCDF-4/HDF5 file is the reference for the
# data model itself: dumps without special attributes must be identical.
HDF5_FLAGS = {"default": [], "t": ["-t"], "c": ["-c"], "v": FLAGS["v"]}


@pytest.mark.parametrize("flags", list(HDF5_FLAGS.values()), ids=list(HDF5_FLAGS))
def test_same_as_netcdf_c_on_hdf5(dump, ours, system, our_store, hdf5_file, flags):
    expected = dump(system, flags, hdf5_file)
    assert expected[0] == 0, expected[2]
    assert_same(dump(ours, flags, url(our_store)), expected,
                "ncdump over us", "netcdf-c 4.9.0 on HDF5")


@pytest.mark.parametrize("flags", list(HDF5_FLAGS.values()), ids=list(HDF5_FLAGS))
def test_oracle_same_as_netcdf_c_on_hdf5(dump, oracle, system, oracle_store, hdf5_file, flags):
    """The oracle agrees with netcdf-c 4.9.0 on HDF5, up to the documented
    differences: a check of the oracle, passing without our library."""
    assert_same(normalized(dump(oracle, flags, url(oracle_store))),
                normalized(dump(system, flags, hdf5_file)),
                "netcdf-c 4.10.1 on NCZarr", "netcdf-c 4.9.0 on HDF5")
