"""Behaviour of netcdf-c after 4.10.1 (its main branch, where NCZarr is
going), which 4.10.1 itself does not have, so the oracle cannot check it:
the expected outputs are netcdf-c's own (nczarr_test's baselines), each
named where it comes from. Debian's ncgen and ncdump over our library.

- run_strings: a string longer than `_nczarr_maxstrlen` is cut to it
  (ref_string_zarr.baseline, ref_string_nczarr.baseline).
- run_corrupt: a store that is nothing but `.zmetadata` opens with
  `mode=zarr,file,consolidated`; its 0-d arrays are scalars."""

import json

import pytest

from harness import ok, run

REF_STRING = """netcdf ref_string {
dimensions:
\td2 = 2 ;
variables:
\tchar c(d2);
\tstring v(d2) ;
\tstring truncated ;
\t\ttruncated:_nczarr_maxstrlen = 4 ;

// global attributes:
\t\tstring :stringattr = "abc", "def" ;
\t\t:charattr = "ghi", "jkl" ;
\t\t:_nczarr_default_maxstrlen = 6 ;
data:

 c = "a", "b" ;

 v = "uvw", "xyz" ;

 truncated = "0123456789" ;
}
"""

# The data sections of netcdf-c's baselines (their headers differ from
# ours only in what the JSON attribute convention and char-as-string
# rules decide, which other tests check).
STRING_DATA = {
    "zarr": [' c = "a", "b" ;', ' truncated = "0123" ;', ' v = "uvw", "xyz" ;'],
    "nczarr": [' c = "ab" ;', ' v = "uvw", "xyz" ;', ' truncated = "0123" ;'],
}


@pytest.mark.parametrize("mode", ["zarr", "nczarr"])
def test_strings_longer_than_maxstrlen_are_cut(ours, base, mode):
    d = base / f"strings-{mode}"
    d.mkdir()
    cdl = d / "ref_string.cdl"
    cdl.write_text(REF_STRING)
    url = f"file://{d / 'tmp_string.zarr'}#mode={mode},file"
    ok("ncgen", ours, "-4", "-b", "-o", url, cdl, cwd=d)
    code, out, err = run("ncdump", ours, "-n", "ref_string", url)
    assert code == 0, err
    lines = [line.rstrip() for line in out.splitlines()]
    data = lines[lines.index("data:") + 1:]
    assert [line for line in data if line.strip() and line != "}"] == STRING_DATA[mode]
    assert "truncated:_nczarr_maxstrlen = 4 ;" in out


NUMPY_SCALARS = {
    "metadata": {
        ".zgroup": {"zarr_format": 2},
        "float_scalar/.zarray": {"chunks": [], "compressor": None, "dtype": "<f8", "fill_value": 0.0,
                                 "filters": None, "order": "C", "shape": [], "zarr_format": 2},
        "int_scalar/.zarray": {"chunks": [], "compressor": None, "dtype": "<i8", "fill_value": 0,
                               "filters": None, "order": "C", "shape": [], "zarr_format": 2},
    },
    "zarr_consolidated_format": 1,
}


def test_store_of_only_consolidated_metadata(ours, base):
    store = base / "numpy_scalars.zarr"
    store.mkdir()
    (store / ".zmetadata").write_text(json.dumps(NUMPY_SCALARS))
    code, out, err = run("ncdump", ours, "-h", f"file://{store}#mode=zarr,file,consolidated")
    assert code == 0, err
    assert "\tdouble float_scalar ;" in out and "\tint64 int_scalar ;" in out
    assert "dimensions:" not in out
    # Scalars never written read as their fill value.
    code, out, err = run("ncdump", ours, "-v", "float_scalar,int_scalar", f"file://{store}#mode=zarr,file,consolidated")
    assert code == 0, err
    assert " float_scalar = 0 ;" in out and " int_scalar = 0 ;" in out
    # Without `consolidated` a local store is its objects: here none.
    code, _, _ = run("ncdump", ours, "-h", f"file://{store}#mode=zarr,file")
    assert code != 0
