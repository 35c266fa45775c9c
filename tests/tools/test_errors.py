"""Bad usage: ncdump fails as over netcdf-c 4.10.1, with the same message
and a non-zero exit status."""

import pytest

from harness import assert_same, run, url


def cases(base, oracle_store):
    notdataset = base / "not-a-dataset"
    notdataset.mkdir(exist_ok=True)
    (notdataset / "README").write_text("a directory, not a dataset\n")
    empty = base / "empty-dir"
    empty.mkdir(exist_ok=True)
    return {
        "missing-store": [url(base / "missing.zarr")],
        "missing-path": [base / "missing.nc"],
        "not-a-dataset": [url(notdataset)],
        "empty-dir": [url(empty)],
        "not-a-dataset-path": [notdataset],
        "missing-variable": ["-v", "nosuchvar", url(oracle_store)],
        "missing-group": ["-g", "nosuchgroup", url(oracle_store)],
    }


CASES = ["missing-store", "missing-path", "not-a-dataset", "empty-dir", "not-a-dataset-path",
         "missing-variable", "missing-group"]


@pytest.mark.parametrize("case", CASES)
def test_ncdump_fails_alike(ours, oracle, base, oracle_store, case):
    args = cases(base, oracle_store)[case]
    expected = run("ncdump", oracle, *args)
    assert expected[0] != 0 and expected[2], f"the oracle did not fail: {expected}"
    assert_same(run("ncdump", ours, *args), expected, "ncdump over us", "ncdump over netcdf-c 4.10.1")
