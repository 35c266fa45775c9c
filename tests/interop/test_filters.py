"""Compressed data across libraries: zarr-python (numcodecs) and netcdf-c
4.10.1 with its own plugin libraries read what our built-in codecs write;
we read what they write. Values are compared, not just opened."""

import os
import pathlib
import subprocess

import netCDF4
import numcodecs
import numpy as np
import pytest
import zarr

from conftest import run, url

EXPECTED = ((np.arange(600) % 37) * 0.5 - 3.0).astype("f4").reshape(20, 30)
OURS = ["deflate", "shuffle_deflate", "zstd", "bz2", "fletcher32", "lz4", "chain", "blosc", "blosc_bits", "blosclz"]


@pytest.fixture
def ours(tools, tmp_path):
    path = tmp_path / "filtered.zarr"
    run(tools["write_filtered"], url(path))
    return path


def test_zarr_python_reads_our_codecs(ours):
    g = zarr.open_group(ours, mode="r")
    for name in OURS:
        np.testing.assert_array_equal(g[name][:], EXPECTED, err_msg=name)
    meta = g["shuffle_deflate"].metadata
    # numcodecs decodes shuffle only with the right element size.
    assert meta.filters[0].get_config() == {"id": "shuffle", "elementsize": 4}
    assert meta.compressor.get_config()["level"] == 1


def netcdf_c_plugins():
    return pathlib.Path(netCDF4.__file__).resolve().parent / "plugins"


def test_netcdf_c_reads_our_codecs_with_its_plugins(tools, ours):
    env = dict(os.environ, HDF5_PLUGIN_PATH=str(netcdf_c_plugins()))
    theirs = subprocess.run([str(tools["describe_netcdf_c"]), url(ours)], capture_output=True, text=True, env=env)
    assert theirs.returncode == 0, theirs.stderr
    mine = run(tools["describe_ours"], url(ours))
    blocks = {}
    for text, who in [(mine, "ours"), (theirs.stdout, "netcdf-c")]:
        name = None
        for line in text.splitlines():
            if line.startswith("  var "):
                name = line.split()[1]
            elif line.startswith("    data") and name:
                blocks.setdefault(name, {})[who] = line
    # netcdf-c has no lz4 codec; everything else decodes to the same values.
    for name in ["deflate", "shuffle_deflate", "zstd", "bz2", "fletcher32", "chain", "blosc", "blosc_bits", "blosclz"]:
        assert blocks[name]["ours"] == blocks[name]["netcdf-c"], name
    assert blocks["lz4"]["netcdf-c"] == "    data error -136"
    assert blocks["deflate"]["ours"].startswith("    data [-3, -2.5, -2")


def test_we_read_zarr_python_codecs(tools, tmp_path):
    path = tmp_path / "zc.zarr"
    root = zarr.open_group(path, mode="w", zarr_format=2)
    cases = {
        "zlib": dict(compressors=numcodecs.Zlib(level=1)),
        "gzip": dict(compressors=numcodecs.GZip(level=5)),
        "bz2": dict(compressors=numcodecs.BZ2(level=9)),
        "zstd": dict(compressors=numcodecs.Zstd(level=3)),
        "lz4": dict(compressors=numcodecs.LZ4()),
        "shuffle_zlib": dict(filters=[numcodecs.Shuffle(elementsize=4)], compressors=numcodecs.Zlib(level=1)),
        "fletcher": dict(filters=[numcodecs.Fletcher32()], compressors=None),
        "blosc_default": dict(),  # zarr-python's default compressor: Blosc(lz4, shuffle)
        "blosc_zstd": dict(compressors=numcodecs.Blosc(cname="zstd", clevel=3, shuffle=numcodecs.Blosc.NOSHUFFLE)),
        "blosc_zlib": dict(compressors=numcodecs.Blosc(cname="zlib", clevel=1, shuffle=numcodecs.Blosc.SHUFFLE)),
        "blosclz": dict(compressors=numcodecs.Blosc(cname="blosclz", clevel=9, shuffle=numcodecs.Blosc.SHUFFLE)),
        "blosclz_plain": dict(compressors=numcodecs.Blosc(cname="blosclz", clevel=5, shuffle=numcodecs.Blosc.NOSHUFFLE)),
        "bitshuffle_lz4": dict(compressors=numcodecs.Blosc(cname="lz4", clevel=5, shuffle=numcodecs.Blosc.BITSHUFFLE)),
        "bitshuffle_zstd": dict(compressors=numcodecs.Blosc(cname="zstd", clevel=3, shuffle=numcodecs.Blosc.BITSHUFFLE)),
    }
    for name, kwargs in cases.items():
        a = root.create_array(name, shape=(20, 30), chunks=(8, 16), dtype="<f4", fill_value=0, **kwargs)
        a[:] = EXPECTED
        a.attrs["_ARRAY_DIMENSIONS"] = ["y", "x"]
    text = run(tools["describe_ours"], f"file://{path}#mode=zarr,file")
    data_lines = [line for line in text.splitlines() if line.startswith("    data")]
    assert len(data_lines) == len(cases)
    assert len(set(data_lines)) == 1, "every codec decodes to the same values"
    values = [float(v) for v in data_lines[0].removeprefix("    data [").removesuffix("]").split(", ")]
    np.testing.assert_array_equal(np.array(values, dtype="f4").reshape(20, 30), EXPECTED)


def test_we_read_blosclz_of_noisy_data(tools, tmp_path):
    """blosclz matches of every length and distance: noisy data, big chunks."""
    path = tmp_path / "noisy.zarr"
    noisy = (np.random.default_rng(1).standard_normal(40000) * 100).astype("f4")
    noisy[10000:12000] = 5.0  # a long run too
    root = zarr.open_group(path, mode="w", zarr_format=2)
    for name, shuffle in [("byte", numcodecs.Blosc.SHUFFLE), ("bit", numcodecs.Blosc.BITSHUFFLE)]:
        a = root.create_array(name, shape=(40000,), chunks=(39999,), dtype="<f4", fill_value=0,
                              compressors=numcodecs.Blosc(cname="blosclz", clevel=9, shuffle=shuffle))
        a[:] = noisy
    text = run(tools["describe_ours"], f"file://{path}#mode=zarr,file")
    lines = [line for line in text.splitlines() if line.startswith("    data")]
    assert len(lines) == 2
    for line in lines:
        values = np.array([float(v) for v in line.removeprefix("    data [").removesuffix("]").split(", ")], dtype="f4")
        np.testing.assert_array_equal(values, noisy)


def test_we_read_netcdf4_python_compression(tools, tmp_path):
    path = tmp_path / "nc4.zarr"
    with netCDF4.Dataset(url(path), "w") as ds:
        ds.createDimension("y", 20)
        ds.createDimension("x", 30)
        kinds = {
            "z": dict(zlib=True, complevel=4, shuffle=True),
            "zs": dict(compression="zstd", complevel=3),
            "bz": dict(compression="bzip2", complevel=9),
            "bl": dict(compression="blosc_lz4", complevel=5, blosc_shuffle=1),
        }
        for name, kwargs in kinds.items():
            v = ds.createVariable(name, "f4", ("y", "x"), chunksizes=(8, 16), **kwargs)
            v[:] = EXPECTED
    text = run(tools["describe_ours"], url(path))
    lines = [line for line in text.splitlines() if line.startswith("    data")]
    assert len(lines) == 4
    for line in lines:
        values = [float(v) for v in line.removeprefix("    data [").removesuffix("]").split(", ")]
        np.testing.assert_array_equal(np.array(values, dtype="f4").reshape(20, 30), EXPECTED)


def test_netcdf_c_plugin_libraries_work_in_our_library(tools, tmp_path):
    """netcdf-c's own plugin libraries (the wheel's netCDF4/plugins) load
    through HDF5_PLUGIN_PATH and do the filtering when plugins are
    preferred over the built-in codecs (NCZARR_RS_PREFER_PLUGINS=1)."""
    path = tmp_path / "via-plugins.zarr"
    env = dict(os.environ, HDF5_PLUGIN_PATH=str(netcdf_c_plugins()), NCZARR_RS_PREFER_PLUGINS="1")
    result = subprocess.run([str(tools["write_filtered"]), url(path)], env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    # netcdf-c's plugin wrote this codec JSON (its shuffle says elementsize 0).
    assert '"elementsize":0' in (path / "shuffle_deflate" / ".zarray").read_text()
    # Our built-in codecs decode what the plugins encoded, value for value.
    mine = run(tools["describe_ours"], url(path))
    data = [line for line in mine.splitlines() if line.startswith("    data")]
    assert len(data) == len(OURS) and len(set(data)) == 1
    assert data[0].startswith("    data [-3, -2.5, -2")


def test_netcdf_c_szip_plugin_works_in_our_library(tools, tmp_path):
    """netcdf-c's szip plugin (in the wheel's lib__nczhdf5filters.so) asks
    the library about the variable it is set up for: its type, dimension
    lengths, chunking and byte order. Those calls come while we hold the
    dataset's lock; they are answered, and the write does not wait forever
    (it once did, on nc_inq_dimlen). netcdf-c reads what it wrote, the same
    values."""
    import cbuild

    prog = cbuild.build(pathlib.Path(__file__).resolve().parents[1] / "s3" / "write_codecs.c", tmp_path / "write_codecs")
    path = tmp_path / "szip.zarr"
    env = dict(os.environ, HDF5_PLUGIN_PATH=str(netcdf_c_plugins()))
    written = subprocess.run([str(prog), url(path)], env=env, capture_output=True, text=True, timeout=60)
    assert written.returncode == 0, written.stderr
    assert written.stdout.strip() == "szip 0"
    assert '"id":"szip"' in (path / "szipped" / ".zarray").read_text()
    expected = "    data [-7, -6, -3, 2, 9, 18, 29, 42, 57, 74, 93, 114, 137, 162, 189, 218]"
    for describe in (tools["describe_ours"], tools["describe_netcdf_c"]):
        out = subprocess.run([str(describe), url(path)], env=env, capture_output=True, text=True, timeout=60)
        assert out.returncode == 0, out.stderr
        lines = out.stdout.splitlines()
        at = lines.index(next(line for line in lines if line.startswith("  var szipped ")))
        assert lines[at + 1] == expected, (describe.name, lines[at:at + 2])


def test_we_read_parts_of_zarr_python_blosc_chunks(tools, tmp_path):
    """Time series and single time steps of zarr-python's blosc chunks,
    which a read decodes only in part (the blosc blocks, and the streams'
    prefixes, it needs): every value as zarr-python wrote it, with blocks
    of 64 KiB and whole-chunk blocks, byte, bit and no shuffle, lz4,
    blosclz and zstd."""
    t, y, x = 32, 96, 256
    rng = np.random.default_rng(7)
    field = (280 + 20 * np.sin(np.arange(t)[:, None, None] / 5 + np.arange(y)[None, :, None] / 9)
             * np.cos(np.arange(x)[None, None, :] / 17) + rng.random((t, y, x))).astype("f4")
    path = tmp_path / "parts.zarr"
    root = zarr.open_group(path, mode="w", zarr_format=2)
    cases = {
        "lz4_blocks": numcodecs.Blosc(cname="lz4", clevel=5, shuffle=numcodecs.Blosc.SHUFFLE, blocksize=1 << 16),
        "lz4_whole": numcodecs.Blosc(cname="lz4", clevel=5, shuffle=numcodecs.Blosc.SHUFFLE),
        "lz4_plain": numcodecs.Blosc(cname="lz4", clevel=5, shuffle=numcodecs.Blosc.NOSHUFFLE, blocksize=1 << 16),
        "lz4_bits": numcodecs.Blosc(cname="lz4", clevel=5, shuffle=numcodecs.Blosc.BITSHUFFLE, blocksize=1 << 16),
        "blosclz": numcodecs.Blosc(cname="blosclz", clevel=5, shuffle=numcodecs.Blosc.SHUFFLE, blocksize=1 << 16),
        "zstd": numcodecs.Blosc(cname="zstd", clevel=3, shuffle=numcodecs.Blosc.SHUFFLE, blocksize=1 << 15),
    }
    for name, codec in cases.items():
        a = root.create_array(name, shape=(t, y, x), chunks=(16, 48, 128), dtype="<f4", fill_value=0, compressors=codec)
        a[:] = field
        a.attrs["_ARRAY_DIMENSIONS"] = ["t", "y", "x"]
    expected = [field[:, (p * 37) % y, (p * 53 + p) % x] for p in range(6)]
    expected += [field[(k * 5) % t].ravel() for k in range(t)]
    expected.append(field[t // 2, y // 3:y // 3 + y // 3, x // 5:x - 3].ravel())
    expected = np.concatenate(expected)
    for name in cases:
        out = tmp_path / f"{name}.bin"
        run(tools["read_parts"], f"file://{path}#mode=zarr,file", name, out)
        np.testing.assert_array_equal(np.fromfile(out, dtype="f4"), expected, err_msg=name)
