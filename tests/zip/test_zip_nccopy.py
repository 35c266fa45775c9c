"""Debian's nccopy and ncgen over our library (tests/tools/harness.py, which
checks the loader used it), with zips on either side: a directory store
copied to a zip and back, zip to zip, to a pure Zarr zip in either layout;
ncgen straight into a zip. ncdump -s over our library prints the same for
every copy as for its source."""

import pytest

import harness
import ziputil
from conftest import dir_url, ncdump, zip_url

SOURCES = ["write_data", "write_plain", "write_sample"]


@pytest.mark.parametrize("source", SOURCES)
def test_nccopy_to_zip_and_back(ours, written, tmp_path, source):
    """Directory -> zip -> directory, and zip -> zip: the values of the
    source (plain ncdump: nccopy does not carry chunking or _NoFill over);
    each copy the same, special attributes included, as the same copy
    between directories."""
    src = written(source, "nczarr", "dir")
    for sub in ("ref", "ref2", "zip", "zip2", "back"):
        (tmp_path / sub).mkdir()
    ref, ref2 = tmp_path / "ref" / "d.file", tmp_path / "ref2" / "d.file"
    archive, archive2 = tmp_path / "zip" / "d.zip", tmp_path / "zip2" / "d.zip"
    back = tmp_path / "back" / "d.file"
    harness.ok("nccopy", ours, dir_url(src), dir_url(ref))
    harness.ok("nccopy", ours, dir_url(ref), dir_url(ref2))
    harness.ok("nccopy", ours, dir_url(src), zip_url(archive))
    harness.ok("nccopy", ours, zip_url(archive), dir_url(back))
    harness.ok("nccopy", ours, zip_url(archive), zip_url(archive2))
    expected = ncdump(ours, dir_url(src))
    assert "data:" in expected
    for url in (zip_url(archive), dir_url(back), zip_url(archive2)):
        assert ncdump(ours, url) == expected, url
    assert ncdump(ours, "-s", zip_url(archive)) == ncdump(ours, "-s", dir_url(ref))
    assert ncdump(ours, "-s", zip_url(archive2)) == ncdump(ours, "-s", dir_url(ref2))
    assert ncdump(ours, "-s", dir_url(back)) == ncdump(ours, "-s", dir_url(ref2))
    # The zips are in netcdf-c's layout, with the objects nccopy writes to
    # a directory.
    assert ziputil.names(archive)[0] == "d/"
    assert ziputil.strip_prefix(ziputil.contents(archive), "d/") == ziputil.tree(ref)
    assert ziputil.strip_prefix(ziputil.contents(archive2), "d/") == ziputil.tree(ref2)


@pytest.mark.parametrize("layout", [None, "root"])
@pytest.mark.parametrize("source", SOURCES)
def test_nccopy_to_zarr_zip(ours, written, tmp_path, source, layout):
    """A copy to mode=zarr,zip is the copy to mode=zarr,file, zipped."""
    src = written(source, "nczarr", "dir")
    (tmp_path / "zip").mkdir()
    (tmp_path / "dir").mkdir()
    archive = tmp_path / "zip" / "d.zip"
    directory = tmp_path / "dir" / "d.file"
    harness.ok("nccopy", ours, dir_url(src), zip_url(archive, "zarr", layout))
    harness.ok("nccopy", ours, dir_url(src), dir_url(directory, "zarr"))
    expected = ncdump(ours, "-s", dir_url(directory, "zarr"))
    assert "data:" in expected
    assert ncdump(ours, "-s", zip_url(archive, "zarr")) == expected
    prefix = "" if layout == "root" else "d/"
    assert ziputil.strip_prefix(ziputil.contents(archive), prefix) == ziputil.tree(directory)


def test_ncgen_into_zip(ours, tmp_path):
    """ncgen -4 -lb writes tests/tools/rich.cdl into a zip as into a
    directory."""
    cdl = harness.HERE / "rich.cdl"
    for sub, url in (("dir", dir_url(tmp_path / "dir" / "rich.file")),
                     ("zip", zip_url(tmp_path / "zip" / "rich.zip"))):
        (tmp_path / sub).mkdir()
        harness.ok("ncgen", ours, "-4", "-lb", "-o", url, cdl, cwd=tmp_path / sub)
    expected = ncdump(ours, "-s", dir_url(tmp_path / "dir" / "rich.file"))
    assert ncdump(ours, "-s", zip_url(tmp_path / "zip" / "rich.zip")) == expected
    assert ziputil.strip_prefix(ziputil.contents(tmp_path / "zip" / "rich.zip"), "rich/") == \
        ziputil.tree(tmp_path / "dir" / "rich.file")
