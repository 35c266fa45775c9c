"""Zips in netcdf-c's layout, of stores netcdf-c wrote.

Neither Debian's netcdf-c 4.9.0 nor the netCDF4 wheel's 4.10.1 is built
with zip support, so netcdf-c 4.10.1 writes a directory store
(file://.../d.file#mode=nczarr,file) and the test zips it as netcdf-c's
zip driver lays a zip out (ziputil.zip_like_netcdf_c): entry 0 the
directory entry d/, where d is the zip's basename without extension, a
directory entry for each directory before what it holds, the objects
stored. Also deflated, with data descriptors (flag bit 3), with macOS junk
beside d/, and renamed after it was written (d/ then no longer matches the
zip's name).

Our library reads each zip exactly as netcdf-c reads the directory
(describe.c built both ways: structure, attributes, every value), and
Debian's ncdump over our library prints the same for zip and directory."""

import zipfile

import pytest

import ziputil
from conftest import (NETCDF_C_WRITERS, describe, dir_url, ncdump, netcdf_c_describe, run,
                      same_as_netcdf_c, zip_url)

VARIANTS = ["stored", "deflated", "descriptors", "descriptors_deflated", "junk", "renamed"]


@pytest.fixture(scope="session")
def netcdf_c_store(progs, tmp_path_factory):
    """writer -> (directory store netcdf-c 4.10.1 wrote, netcdf-c's
    description of it), memoised."""
    made = {}

    def get(writer):
        if writer not in made:
            path = tmp_path_factory.mktemp(f"netcdf-c-{writer}") / "d.file"
            run(progs["netcdf_c_" + writer], dir_url(path))
            made[writer] = path, netcdf_c_describe(progs, dir_url(path))
        return made[writer]
    return get


def make_zip(directory, workdir, variant):
    """Zip a store in netcdf-c's layout, one variant; returns the zip."""
    workdir.mkdir()
    if variant == "renamed":
        entries = ziputil.netcdf_c_entries(directory, "original")
        return ziputil.zip_entries(workdir / "d.zip", entries)
    archive = workdir / "d.zip"
    compression = zipfile.ZIP_DEFLATED if variant.endswith("deflated") else zipfile.ZIP_STORED
    entries = ziputil.netcdf_c_entries(directory, "d")
    if variant == "junk":
        entries += [("__MACOSX/", None), ("__MACOSX/d/", None), ("__MACOSX/d/._.zgroup", b"\0\5\26\7junk"),
                    ("__MACOSX/._x", b"\0\5\26\7junk")]
    return ziputil.zip_entries(archive, entries, compression, descriptors=variant.startswith("descriptors"))


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("writer", NETCDF_C_WRITERS)
def test_we_read_netcdf_c_layout(progs, ours, netcdf_c_store, tmp_path, writer, variant):
    directory, theirs = netcdf_c_store(writer)
    archive = make_zip(directory, tmp_path / variant, variant)
    infos = ziputil.infos(archive)
    # The variant is what it says.
    assert infos[0].is_dir()
    if variant.startswith("descriptors"):
        assert all(i.flag_bits & 0x08 for i in infos if not i.is_dir())
    if variant.endswith("deflated"):
        assert all(i.compress_type == zipfile.ZIP_DEFLATED for i in infos if not i.is_dir())
    same_as_netcdf_c(describe(progs, zip_url(archive)), theirs)
    assert "    data " in theirs
    assert ncdump(ours, "-s", zip_url(archive)) == ncdump(ours, "-s", dir_url(directory))


def test_netcdf_c_store_values(progs, netcdf_c_store, tmp_path):
    """A spot check that the comparison above is of real values."""
    directory, _ = netcdf_c_store("write_plain")
    archive = make_zip(directory, tmp_path / "stored", "stored")
    text = describe(progs, zip_url(archive))
    assert "    data [0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110]\n" in text
    assert '    data "wxyz"\n' in text
    assert "    data [0.5, 1.5, 2.5, 3.5, 4.5, 5.5]\n" in text
    assert "group /g\n" in text
