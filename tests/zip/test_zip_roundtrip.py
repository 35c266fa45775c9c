"""Round trips through our library: each tests/interop writer writes the
same dataset to a directory store and to a zip (netcdf-c's layout and the
root layout, NCZarr and pure Zarr modes); read back, the zip describes
exactly as the directory does (describe.c: structure, attributes, every
value) and Debian's ncdump -s over our library prints the same CDL, data
and special attributes included."""

import pytest

import ziputil
from conftest import WRITERS, describe, dir_url, ncdump, run, zip_url

CASES = [(w, m, layout) for w in WRITERS for m in ("nczarr", "zarr") for layout in ("default", "root")]
CASES += [("write_numeric", "xarray", "default"), ("write_numeric", "xarray", "root")]


@pytest.mark.parametrize("writer,mode,layout", CASES)
def test_zip_reads_like_directory(progs, ours, written, writer, mode, layout):
    directory = written(writer, mode, "dir")
    archive = written(writer, mode, layout)
    expected = describe(progs, dir_url(directory, mode))
    # Read without zip_layout: the layout is detected.
    got = describe(progs, zip_url(archive, mode))
    assert got == expected
    assert "    data " in got
    # Both are named d.*, so ncdump's first line agrees too.
    assert ncdump(ours, "-s", zip_url(archive, mode)) == ncdump(ours, "-s", dir_url(directory, mode))


def test_describe_has_the_written_values(progs, written):
    """The comparison above is of real data: spot values write_data.c and
    write_filtered.c wrote, read from zips."""
    text = describe(progs, zip_url(written("write_data", "nczarr", "default")))
    assert "    data [-1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 0.5, 1, 1.5, 2, -1, -1, 2.5, 3, 3.5, 4, 4.5, " \
           "-1, -1, 5, 5.5, 6, 6.5, 7, -1, -1, 7.5, 8, 8.5, 9, 9.5]\n" in text
    assert '    data ["short", "", "a rather longer string"]\n' in text
    assert "    data [0, 1, 2, 3, 4, 5, 65535]\n" in text
    text = describe(progs, zip_url(written("write_filtered", "zarr", "root"), "zarr"))
    # (i % 37) * 0.5 - 3 for each of the ten codecs.
    assert text.count("    data [-3, -2.5, -2, -1.5, -1, -0.5, 0, 0.5, 1, ") == 10


def test_plain_path_urls(progs, tmp_path):
    """A path with a fragment, no file://, writes and reads the same zip."""
    directory = tmp_path / "d.file"
    archive = tmp_path / "d.zip"
    run(progs["write_plain"], dir_url(directory))
    run(progs["write_plain"], f"{archive}#mode=nczarr,zip")
    expected = describe(progs, dir_url(directory))
    assert describe(progs, f"{archive}#mode=nczarr,zip") == expected
    assert describe(progs, zip_url(archive)) == expected
    root = tmp_path / "r" / "d.zip"
    root.parent.mkdir()
    run(progs["write_plain"], f"{root}#mode=zarr,zip&zip_layout=root")
    zarr_dir = tmp_path / "r" / "d.file"
    run(progs["write_plain"], dir_url(zarr_dir, "zarr"))
    assert describe(progs, f"{root}#mode=zarr,zip") == describe(progs, dir_url(zarr_dir, "zarr"))
    assert ".zgroup" in ziputil.names(root)


def test_clobber_replaces_an_existing_zip(progs, tmp_path):
    """NC_CLOBBER over a zip of another dataset: only the new one is left."""
    archive = tmp_path / "d.zip"
    run(progs["write_sample"], zip_url(archive))
    run(progs["write_plain"], zip_url(archive))
    directory = tmp_path / "d.file"
    run(progs["write_plain"], dir_url(directory))
    assert describe(progs, zip_url(archive)) == describe(progs, dir_url(directory))
    assert ziputil.strip_prefix(ziputil.contents(archive), "d/") == ziputil.tree(directory)
