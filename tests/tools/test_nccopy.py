"""nccopy over us: our store copied to new NCZarr stores with and without
compression, shuffling, chunking and filter options. The copy holds the
source's values (dumped over us and over netcdf-c 4.10.1), has the filters
and chunking asked for, and its special attributes are those of the same
copy made by nccopy over netcdf-c 4.10.1."""

import shutil

import pytest

from harness import assert_same, normalized, ok, url

OPTIONS = {
    "plain": [],
    "d5": ["-d", "5"],
    "s": ["-s"],
    "d5-s": ["-d", "5", "-s"],
    "c": ["-c", "x/2,y/3"],
    # -M 1: no minimum chunk size, so small fixed-size variables are chunked
    # by -c too (nccopy stores those contiguously by default).
    "c-M": ["-c", "x/2,y/3", "-M", "1"],
    "F": ["-F", "u64,32015,3"],
}
# Lines `ncdump -h -s` must print for a copy made with each option set.
EXPECTED = {
    "plain": ['i:_Filter = "32015,3" ;', 'blz:_Filter = "32001,', 's:_Fletcher32 = "true" ;'],
    "d5": ["ub:_DeflateLevel = 5 ;", "temp:_DeflateLevel = 5 ;", "str:_DeflateLevel = 5 ;"],
    "s": ['temp:_Shuffle = "true" ;'],
    "d5-s": ['ub:_Shuffle = "true" ;', "ub:_DeflateLevel = 5 ;", 'temp:_Shuffle = "true" ;'],
    "c": ["temp:_ChunkSizes = 1, 2, 3 ;"],
    "c-M": ["temp:_ChunkSizes = 1, 2, 3 ;", "s:_ChunkSizes = 2, 3 ;", "t360:_ChunkSizes = 2 ;"],
    "F": ['u64:_Filter = "32015,3" ;'],
}
PARAMS = pytest.mark.parametrize("option", list(OPTIONS))


@pytest.fixture(scope="module")
def copies(base):
    """Copies made on demand, memoised: (library name, option) -> store."""
    made = {}

    def copy(lib, source, option):
        key = (lib.name, option)
        if key not in made:
            d = base / "copies" / option / lib.name
            shutil.rmtree(d, ignore_errors=True)  # a failed earlier try
            d.mkdir(parents=True)
            # Named like the source, so ncdump's first line is the same.
            dest = d / "rich.zarr"
            ok("nccopy", lib, *OPTIONS[option], url(source), url(dest))
            made[key] = dest
        return made[key]
    return copy


@PARAMS
def test_copy_has_the_source_values(dump, copies, ours, oracle, our_store, option):
    copy = copies(ours, our_store, option)
    for lib in (ours, oracle):
        expected = dump(lib, [], url(our_store))
        assert expected[0] == 0, expected[2]
        assert_same(dump(lib, [], url(copy)), expected,
                    f"the copy over {lib.name}", f"the source over {lib.name}")


@PARAMS
def test_copy_has_what_was_asked(dump, copies, ours, oracle, our_store, option):
    copy = copies(ours, our_store, option)
    code, out, err = dump(oracle, ["-h", "-s"], url(copy))
    assert code == 0, err
    missing = [line for line in EXPECTED[option] if f"\t\t{line}" not in out]
    assert not missing, f"missing {missing} in:\n{out}"


@PARAMS
def test_copy_is_netcdf_c_copy(dump, copies, ours, oracle, our_store, option):
    """Our copy and netcdf-c's copy of the same store: the same special
    attributes (read over netcdf-c, and over us)."""
    theirs = copies(oracle, our_store, option)
    mine = copies(ours, our_store, option)
    for lib in (oracle, ours):
        expected = normalized(dump(oracle, ["-h", "-s"], url(theirs)))
        assert expected[0] == 0, expected[2]
        assert_same(normalized(dump(lib, ["-h", "-s"], url(mine))), expected,
                    f"our copy over {lib.name}", "netcdf-c's copy over netcdf-c")
