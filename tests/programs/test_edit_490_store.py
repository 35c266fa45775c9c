"""Stores netcdf-c 4.9.0 wrote (Debian's and Ubuntu's netcdf-c, whose
NCZarr layout keeps its metadata in `_NCZARR_*` keys of `.zgroup` and
`.zarray`) are editable over our library, and stay in that layout, so
that 4.9.0 still reads them (it cannot read the current layout). Each
edit is made over Debian's netcdf-c and over ours, on copies of the same
store, and the two results must be the same store to Debian's ncdump."""

import json
import shutil
import subprocess

import pytest

from debian_programs import HERE, url

CDL = """netcdf e {
dimensions:
  time = 2 ;
  x = 3 ;
variables:
  float temp(time, x) ;
    temp:units = "K" ;
  int time(time) ;
  :title = "t" ;
data:
  temp = 1, 2, 3, 4, 5, 6 ;
  time = 10, 20 ;
}
"""


@pytest.fixture
def store_490(runner, tmp_path):
    """The CDL as Debian's ncgen (netcdf-c 4.9.0) writes it to a directory."""
    cdl = tmp_path / "e.cdl"
    cdl.write_text(CDL)
    store = tmp_path / "e490.zarr"
    runner.run("debian", ["/usr/bin/ncgen", "-4", "-b", "-o", url(store), cdl], cwd=tmp_path)
    zgroup = json.loads((store / ".zgroup").read_text())
    assert "_NCZARR_SUPERBLOCK" in zgroup, zgroup
    return store


def copies(store, tmp_path):
    out = {}
    for lib in ("debian", "ours"):
        out[lib] = tmp_path / lib / store.name
        shutil.copytree(store, out[lib])
    return out


def assert_same_and_490(runner, stores):
    """Debian's ncdump over Debian's library prints the same for both
    stores (so 4.9.0 still reads ours), and ours is still in 4.9.0's
    layout; returns that CDL."""
    dumps = {lib: runner.ncdump(url(s), lib="debian").replace(f"netcdf {s.name.split('.')[0]}", "netcdf X")
             for lib, s in stores.items()}
    assert dumps["ours"] == dumps["debian"]
    assert "_NCZARR_SUPERBLOCK" in json.loads((stores["ours"] / ".zgroup").read_text())
    assert not (stores["ours"] / ".zmetadata").exists()
    return dumps["ours"]


def test_ncatted_edits_a_490_store(runner, store_490, tmp_path):
    stores = copies(store_490, tmp_path)
    for lib, s in stores.items():
        runner.run(lib, ["ncatted", "-h", "-a", "units,temp,o,c,kelvin", "-a", "added,global,c,c,hello",
                         "-a", "valid_max,temp,c,f,350", url(s)], cwd=tmp_path)
    cdl = assert_same_and_490(runner, stores)
    assert 'temp:units = "kelvin" ;' in cdl and ':added = "hello" ;' in cdl and "temp:valid_max = 350.f ;" in cdl


def test_ncks_appends_to_a_490_store(runner, store_490, tmp_path):
    """`ncks -A` into a store: NCO can only append in place (--no_tmp_fl:
    its temporary copy is made with `cp`, which copies no directory) and
    only to a plain path (for a URL it cannot tell that the output exists
    and creates it anew: Debian's netcdf-c then replaces the store, ours
    refuses with NC_EEXIST). netcdf-c 4.9.0 opens no directory by a plain
    path, so this runs over ours only; Debian's ncdump reads the result."""
    extra_cdl = tmp_path / "extra.cdl"
    extra_cdl.write_text("netcdf extra {\ndimensions:\n  x = 3 ;\nvariables:\n  double w(x) ;\n"
                         "    w:units = \"m s-1\" ;\ndata:\n  w = 0.5, 1.5, 2.5 ;\n}\n")
    extra = tmp_path / "extra.nc"
    runner.run("debian", ["/usr/bin/ncgen", "-4", "-b", "-o", extra, extra_cdl], cwd=tmp_path)
    before = runner.ncdump(url(store_490), lib="debian")
    runner.run("ours", ["ncks", "-A", "--no_tmp_fl", "-h", "-v", "w", extra, store_490.name], cwd=tmp_path)
    after = runner.ncdump(url(store_490), lib="debian")
    assert "double w(x) ;" in after and " w = 0.5, 1.5, 2.5 ;" in after
    for line in ("float temp(time, x) ;", " time = 10, 20 ;", "  4, 5, 6 ;", ':title = "t" ;'):
        assert line in before and line in after, line
    assert "_NCZARR_SUPERBLOCK" in json.loads((store_490 / ".zgroup").read_text())


def test_c_program_adds_to_a_490_store(runner, store_490, tmp_path):
    exe = tmp_path / "edit_store"
    subprocess.run(["cc", "-std=c99", "-Wall", "-Werror", "-O1", "-o", str(exe), str(HERE / "edit_store.c"),
                    "-lnetcdf"], check=True)
    stores = copies(store_490, tmp_path)
    out = {lib: runner.run(lib, [exe, url(s)], cwd=tmp_path).stdout for lib, s in stores.items()}
    # No unlimited dimension in 4.9.0's layout: refused alike (NC_EDIMSIZE).
    assert out["ours"] == out["debian"] == "unlimited -63\nok\n"
    # Debian's netcdf-c 4.9.0 itself loses temp:units and the new value of
    # temp here (its own reopened store), so ours is checked against what
    # was written, read back by 4.9.0.
    cdl = runner.ncdump(url(stores["ours"]), lib="debian")
    assert "int added(y) ;" in cdl and " added = 7, 8, 9, 10 ;" in cdl
    assert 'added:long_name = "added later" ;' in cdl and 'temp:units = "K" ;' in cdl
    assert "  1, 2, 3,\n  4, 5, 99.5 ;" in cdl and " time = 10, 20 ;" in cdl
    assert "_NCZARR_SUPERBLOCK" in json.loads((stores["ours"] / ".zgroup").read_text())
    assert not (stores["ours"] / ".zmetadata").exists()
