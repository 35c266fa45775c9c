"""Round trips through our library: each tests/interop writer writes the
same dataset to a directory store and to a zip (netcdf-c's layout and the
root layout, NCZarr and pure Zarr modes); read back, the zip describes
exactly as the directory does (describe.c: structure, attributes, every
value) and Debian's ncdump -s over our library prints the same CDL, data
and special attributes included."""

import os

import pytest

import ziputil
from cbuild import wheel_libnetcdf
from conftest import WRITERS, describe, dir_url, ncdump, run, same_as_netcdf_c, zip_url

# netcdf-c 4.10.1's filter plugins, beside its library in the netCDF4 wheel.
WHEEL_PLUGINS = wheel_libnetcdf().parent.parent / "netCDF4" / "plugins"

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


def without_lz4_data(text, expected):
    """The description with the data line of variable lz4 (write_filtered's)
    replaced, after checking it starts with `expected`: netcdf-c has no lz4
    codec (tests/interop/test_filters.py)."""
    lines = text.splitlines(keepends=True)
    i = next(i for i, line in enumerate(lines) if line.startswith("  var lz4 "))
    j = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("    data "))
    assert lines[j].startswith(expected), lines[j]
    return "".join(lines[:j] + ["    data (lz4)\n"] + lines[j + 1:])


@pytest.mark.parametrize("writer,layout", [(w, layout) for w in WRITERS for layout in ("default", "root")])
def test_netcdf_c_reads_what_the_zip_holds(progs, written, tmp_path, writer, layout):
    """The comparison above is of us with ourselves; here another
    implementation reads the zip's objects. Neither netcdf-c here reads
    zips (built without zip support), so the objects are taken out with
    Python's zipfile into a directory store, which netcdf-c 4.10.1 (with
    the wheel's filter plugins) must describe exactly as we describe the
    zip, every value included. NCZarr mode: netcdf-c's own format (pure
    Zarr zips are read by zarr-python in test_zip_zarr_python.py; netcdf-c
    reads pure Zarr its own way, 0-d arrays with a `_scalar_` dimension)."""
    archive = written(writer, "nczarr", layout)
    objects = ziputil.contents(archive)
    if layout == "default":
        objects = ziputil.strip_prefix(objects, "d/")
    store = tmp_path / "d.file"
    for name, data in objects.items():
        (store / name).parent.mkdir(parents=True, exist_ok=True)
        (store / name).write_bytes(data)
    theirs = run(progs["netcdf_c_describe"], dir_url(store),
                 env=dict(os.environ, HDF5_PLUGIN_PATH=str(WHEEL_PLUGINS))).stdout
    ours = describe(progs, zip_url(archive))
    if writer == "write_filtered":
        ours = without_lz4_data(ours, "    data [-3, -2.5, -2, ")
        theirs = without_lz4_data(theirs, "    data error -136\n")
    same_as_netcdf_c(ours, theirs)
    assert "    data [" in theirs


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
