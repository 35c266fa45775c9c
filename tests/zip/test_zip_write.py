"""Opening zips for writing (NC_WRITE): a change is committed at nc_enddef,
nc_sync and nc_close by writing a new archive beside the old one and
renaming it over; entries left alone are copied as they were (deflated
ones stay deflated, byte for byte); duplicates zarr-python left are
dropped; the layout found is kept.

Each edit is also made to a directory store holding the same dataset: the
zip must then hold exactly the objects, byte for byte, that the directory
does. nc_abort leaves an opened zip byte-identical and a created one
absent; NC_NOCLOBBER refuses an existing zip; no temporary file is ever
left beside the zip."""

import collections
import os
import shutil
import subprocess
import zipfile

import pytest

import ziputil
from cbuild import wheel_libnetcdf
from conftest import NC_EEXIST, describe, dir_url, probe, run, same_as_netcdf_c, zip_url
from zarr_stores import open_zip, rewrite_v, snapshot, zarr_python_dir, zarr_python_zip

pytestmark = pytest.mark.filterwarnings("ignore:Duplicate name:UserWarning")

# Where the zip being edited comes from.
LAYOUTS = ["default", "root", "infozip", "descriptors"]
NEW_W = [str(x) for x in range(-5, 5)]


def make_pair(progs, request, tmp_path, layout):
    """The compressible dataset (zip_edit make) as a directory store
    ref/d.file and as z/d.zip in one layout; returns (directory, zip, the
    prefix of every key in the zip)."""
    ref = tmp_path / "ref" / "d.file"
    ref.parent.mkdir()
    run(progs["zip_edit"], "make", dir_url(ref))
    (tmp_path / "z").mkdir()
    archive = tmp_path / "z" / "d.zip"
    if layout == "default":
        run(progs["zip_edit"], "make", zip_url(archive))
        prefix = "d/"
    elif layout == "root":
        run(progs["zip_edit"], "make", zip_url(archive, layout="root"))
        prefix = ""
    elif layout == "infozip":
        infozip = request.getfixturevalue("infozip")
        shutil.copytree(ref, tmp_path / "src" / "d.file")
        subprocess.run([infozip, "-qr", str(archive), "d.file"], cwd=tmp_path / "src", check=True)
        prefix = "d.file/"
    else:
        # netcdf-c's layout, deflated, every entry with a data descriptor.
        ziputil.zip_like_netcdf_c(ref, archive, zipfile.ZIP_DEFLATED, descriptors=True)
        prefix = "d/"
    assert ziputil.strip_prefix(ziputil.contents(archive), prefix) == ziputil.tree(ref)
    return ref, archive, prefix


def netcdf_c_agrees(progs, text, ref):
    """netcdf-c 4.10.1 (with the wheel's filter plugins) describes the
    reference directory, which holds byte for byte the zip's objects, as
    we describe the zip: the edit checked with another implementation."""
    plugins = wheel_libnetcdf().parent.parent / "netCDF4" / "plugins"
    theirs = run(progs["netcdf_c_describe"], dir_url(ref), env=dict(os.environ, HDF5_PLUGIN_PATH=str(plugins)))
    same_as_netcdf_c(text, theirs.stdout)


def check_sound(archive):
    """No duplicate name, every CRC right, nothing left beside the zip."""
    counts = collections.Counter(ziputil.names(archive))
    assert [n for n, c in counts.items() if c > 1] == []
    with zipfile.ZipFile(archive) as z:
        assert z.testzip() is None
    assert ziputil.temp_leftovers(archive.parent, [archive.name]) == []


@pytest.mark.parametrize("layout", LAYOUTS)
def test_edit_one_variable(progs, request, tmp_path, layout):
    ref, archive, prefix = make_pair(progs, request, tmp_path, layout)
    before = ziputil.tree(ref)
    names_before = sorted(ziputil.names(archive))
    # A reader that has the zip open while it is rewritten keeps reading the
    # old archive, whole: the new one is renamed over it, not written into.
    with zipfile.ZipFile(archive) as old:
        run(progs["zip_edit"], "put", dir_url(ref), "w", *NEW_W)
        run(progs["zip_edit"], "put", zip_url(archive), "w", *NEW_W)
        assert old.testzip() is None
        assert old.read(prefix + "w/0") == before["w/0"]
    after = ziputil.tree(ref)
    # The reference edit changed w's chunk and nothing else...
    assert {k for k in before if before[k] != after[k]} == {"w/0"}
    # ...and the zip holds what the directory holds, in the layout it had.
    assert ziputil.strip_prefix(ziputil.contents(archive), prefix) == after
    assert sorted(ziputil.names(archive)) == names_before
    check_sound(archive)
    text = describe(progs, zip_url(archive))
    assert text == describe(progs, dir_url(ref))
    assert "    data [-5, -4, -3, -2, -1, 0, 1, 2, 3, 4]\n" in text
    assert "    data [100, 99, 98, 97, 96, 95, 94, 93, 92, 91]\n" in text
    netcdf_c_agrees(progs, text, ref)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_edit_metadata(progs, request, tmp_path, layout):
    """nc_redef + a new global attribute: .zattrs (and .zmetadata) change
    as they do in a directory store."""
    ref, archive, prefix = make_pair(progs, request, tmp_path, layout)
    run(progs["zip_edit"], "att", dir_url(ref), "history", "edited in a zip")
    run(progs["zip_edit"], "att", zip_url(archive), "history", "edited in a zip")
    assert ziputil.strip_prefix(ziputil.contents(archive), prefix) == ziputil.tree(ref)
    check_sound(archive)
    text = describe(progs, zip_url(archive))
    assert text == describe(progs, dir_url(ref))
    assert '  att history char 15 "edited in a zip"\n' in text
    netcdf_c_agrees(progs, text, ref)


@pytest.mark.parametrize("layout", ["infozip", "descriptors"])
def test_deflated_entries_stay_deflated(progs, request, tmp_path, layout):
    """Entries not changed are copied raw: the same method, CRC and
    compressed bytes."""
    _, archive, prefix = make_pair(progs, request, tmp_path, layout)

    def entries():
        return {i.filename: (i.compress_type, i.CRC, i.compress_size, ziputil.raw_entry(archive, i))
                for i in ziputil.infos(archive)}
    before = entries()
    assert sum(1 for v in before.values() if v[0] == zipfile.ZIP_DEFLATED) >= 4
    run(progs["zip_edit"], "put", zip_url(archive), "w", *NEW_W)
    after = entries()
    assert sorted(after) == sorted(before)
    changed = sorted(n for n in before if after[n] != before[n])
    assert changed == [prefix + "w/0"]
    for n in (f"{prefix}ramp/{k}" for k in range(4)):
        assert after[n][0] == zipfile.ZIP_DEFLATED, n
    check_sound(archive)


def test_unchanged_archive_is_not_rewritten(tmp_path, progs):
    """Opened for writing and closed with no change: the archive is not
    rewritten (its bytes, zarr-python's duplicates included, stay)."""
    archive = zarr_python_zip(tmp_path / "zp.zip")
    rewrite_v(archive)
    digest = ziputil.sha256(archive)
    run(progs["zip_edit"], "touch", zip_url(archive, "zarr"))
    assert ziputil.sha256(archive) == digest


@pytest.mark.parametrize("edit", ["put"])
def test_rewrite_drops_zarr_python_duplicates(progs, tmp_path, edit):
    """A zarr-python zip with duplicate entries, opened for writing and
    closed with v rewritten: no duplicate left, the same names, the
    values the last entries held, still readable by zarr-python."""
    (tmp_path / "z").mkdir()
    archive = zarr_python_zip(tmp_path / "z" / "zp.zip")
    directory = zarr_python_dir(tmp_path / "ref" / "zp.dir")
    rewrite_v(archive)
    rewrite_v(directory)
    counts = collections.Counter(ziputil.names(archive))
    assert counts["v/0"] == 2 and counts[".zattrs"] >= 2
    seen = snapshot(open_zip(archive))
    args = ["v", "1", "2", "3", "4"] if edit == "put" else []
    run(progs["zip_edit"], edit, dir_url(directory, "zarr"), *args)
    run(progs["zip_edit"], edit, zip_url(archive, "zarr"), *args)
    check_sound(archive)
    assert sorted(ziputil.names(archive)) == sorted(counts)
    assert ziputil.contents(archive) == ziputil.tree(directory)
    now = snapshot(open_zip(archive))
    assert list(now["/v"][-1]) == ([1, 2, 3, 4] if edit == "put" else [7, 7, 2, 3])
    assert now["/"] == seen["/"]
    assert dict(now["/"][1])["title"] == "from zarr-python"
    assert list(now["/sub/inner"][-1]) == [5, 4, 3, 2, 65535]


@pytest.mark.parametrize("layout", LAYOUTS)
def test_abort_leaves_zip_unchanged(progs, request, tmp_path, layout):
    _, archive, _ = make_pair(progs, request, tmp_path, layout)
    digest = ziputil.sha256(archive)
    out = run(progs["zip_edit"], "abort", zip_url(archive), "w", *NEW_W).stdout
    assert out == "abort 0\n"
    assert ziputil.sha256(archive) == digest
    assert ziputil.temp_leftovers(archive.parent, [archive.name]) == []
    assert "    data [0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5]\n" in describe(progs, zip_url(archive))


@pytest.mark.parametrize("when", ["define", "enddef"])
@pytest.mark.parametrize("layout", [None, "root"])
def test_abort_after_create_leaves_nothing(progs, tmp_path, when, layout):
    archive = tmp_path / "d.zip"
    args = ["enddef"] if when == "enddef" else []
    out = run(progs["zip_edit"], "create_abort", zip_url(archive, layout=layout), *args).stdout
    assert out == "abort 0\n"
    assert os.listdir(tmp_path) == []


def test_noclobber_refuses_an_existing_zip(progs, tmp_path):
    archive = tmp_path / "d.zip"
    run(progs["write_plain"], zip_url(archive))
    digest = ziputil.sha256(archive)
    for url in (zip_url(archive), zip_url(archive, "zarr"), zip_url(archive, layout="root")):
        assert run(progs["zip_edit"], "noclobber", url).stdout == f"create {NC_EEXIST}\n"
    assert ziputil.sha256(archive) == digest
    assert os.listdir(tmp_path) == ["d.zip"]


def values_of(progs, url, name):
    status, variables = probe(progs, url)
    assert status == 0, f"open {url}: {status}"
    code, values = variables[name]
    assert code == 0, f"read {name}: {code}"
    return values.split()


class Paused:
    """zip_edit running a command that stops for a line on stdin after a
    commit, so the test can look at the zip in between."""

    def __init__(self, progs, *args):
        self.proc = subprocess.Popen([str(progs["zip_edit"]), *map(str, args)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def wait_for(self, word):
        line = self.proc.stdout.readline()
        if line != word + "\n":
            self.proc.kill()
            _, err = self.proc.communicate()
            pytest.fail(f"zip_edit printed {line!r}, not {word!r}: {err}")

    def resume(self):
        out, err = self.proc.communicate("\n", timeout=60)
        assert self.proc.returncode == 0, err
        return out

    def stop(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.communicate()


@pytest.mark.parametrize("layout", ["default", "root"])
def test_sync_commits(progs, request, tmp_path, layout):
    """After nc_sync the zip on disk is complete and holds the new values
    (another process reads them) while the writer still has it open."""
    _, archive, _ = make_pair(progs, request, tmp_path, layout)
    paused = Paused(progs, "sync", zip_url(archive), "w", 7, 8)
    try:
        paused.wait_for("synced")
        check_sound(archive)
        assert values_of(progs, zip_url(archive), "w") == ["7"] * 10
        assert paused.resume() == "closed\n"
    finally:
        paused.stop()
    check_sound(archive)
    assert values_of(progs, zip_url(archive), "w") == ["8"] * 10
    assert values_of(progs, zip_url(archive), "g/gi") == [str(100 - i) for i in range(10)]


@pytest.mark.parametrize("layout", [None, "root"])
def test_enddef_commits_a_new_zip(progs, tmp_path, layout):
    """After nc_enddef of a created dataset the zip exists and holds its
    metadata; after nc_close, its data."""
    archive = tmp_path / "d.zip"
    prefix = "" if layout == "root" else "d/"
    paused = Paused(progs, "create_pause", zip_url(archive, layout=layout))
    try:
        paused.wait_for("enddef")
        check_sound(archive)
        names = set(ziputil.names(archive))
        assert {prefix + ".zgroup", prefix + "v/.zarray", prefix + "v/.zattrs"} <= names
        assert values_of(progs, zip_url(archive), "v") == ["-2147483647"] * 4
        assert paused.resume() == "closed\n"
    finally:
        paused.stop()
    check_sound(archive)
    assert values_of(progs, zip_url(archive), "v") == ["1", "2", "3", "4"]
