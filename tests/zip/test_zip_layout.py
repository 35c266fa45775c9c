"""What our zips hold, read with Python's zipfile: netcdf-c's layout by
default (every key under one top directory named after the zip's basename
cut at its last '.', entry 0 that directory's entry, a directory entry for
every directory, before what it holds), the root layout with
zip_layout=root (keys at the root, as zarr-python's ZipStore writes them,
no directory entries); in both, every entry stored, no name twice, sound
CRCs, and exactly the objects, byte for byte, the same writer puts in a
directory store. No temporary file is left beside the zip."""

import collections
import posixpath
import zipfile

import pytest

import ziputil
from conftest import WRITERS, run, zip_url

CASES = [(w, m) for w in WRITERS for m in ("nczarr", "zarr")]


def check_sound(archive):
    """Every entry stored, no duplicate name, every CRC right."""
    infos = ziputil.infos(archive)
    dups = [n for n, c in collections.Counter(i.filename for i in infos).items() if c > 1]
    assert not dups, f"duplicate entries {dups}"
    assert [i.filename for i in infos if i.compress_type != zipfile.ZIP_STORED] == []
    with zipfile.ZipFile(archive) as z:
        assert z.testzip() is None
    assert ziputil.temp_leftovers(archive.parent, [archive.name]) == []
    return infos


def check_directory_entries(infos, top):
    """Entry 0 is top/; every directory holding an object has its own entry,
    empty, before any entry below it."""
    assert infos[0].filename == top + "/"
    position = {i.filename: k for k, i in enumerate(infos)}
    for k, info in enumerate(infos):
        if info.is_dir():
            assert info.file_size == 0 and info.compress_size == 0, info.filename
        parent = posixpath.dirname(info.filename.rstrip("/"))
        while parent:
            assert parent + "/" in position, f"no directory entry {parent}/ for {info.filename}"
            assert position[parent + "/"] < k, f"{parent}/ comes after {info.filename}"
            parent = posixpath.dirname(parent)


@pytest.mark.parametrize("writer,mode", CASES)
def test_default_layout_is_netcdf_c(written, writer, mode):
    archive = written(writer, mode, "default")
    infos = check_sound(archive)
    check_directory_entries(infos, "d")
    assert all(i.filename.startswith("d/") for i in infos)
    assert ziputil.strip_prefix(ziputil.contents(archive), "d/") == ziputil.tree(written(writer, mode, "dir"))


@pytest.mark.parametrize("writer,mode", CASES)
def test_root_layout_is_zarr_python(written, writer, mode):
    archive = written(writer, mode, "root")
    infos = check_sound(archive)
    assert [i.filename for i in infos if i.is_dir()] == []
    assert ".zgroup" in {i.filename for i in infos}
    assert ziputil.contents(archive) == ziputil.tree(written(writer, mode, "dir"))


@pytest.mark.parametrize("name,top", [("a.b.zip", "a.b"), ("x.zarr.zip", "x.zarr"), ("plain.zip", "plain")])
def test_top_directory_is_basename_cut_at_last_dot(progs, tmp_path, name, top):
    archive = tmp_path / name
    run(progs["write_plain"], zip_url(archive))
    infos = check_sound(archive)
    check_directory_entries(infos, top)
    assert f"{top}/.zgroup" in {i.filename for i in infos}
    assert f"{top}/g/w/0.0" in {i.filename for i in infos}
