"""Round trips through both S3 servers: the same C program writes a dataset
to S3 and to a local directory, describe.c reads both back, and the two
descriptions (every group, dimension, attribute, variable, fill value,
chunking and every value) must be identical. Covers the whole data model
(write_sample.c, write_data.c), every codec (write_filtered.c) and NOFILL,
szip and unlimited growth over a reopen (write_codecs.c); plus the URL
forms and the error codes of opening and creating.

Those compare us with ourselves; netcdf-c 4.10.1 (the netCDF4 wheel's,
built without S3: NC_ENOTBUILT for an S3 URL) reads the objects of each
NCZarr store we put in the bucket, fetched into a directory, and we read
over S3 the stores netcdf-c writes (uploaded): both must describe alike.
(zarr-python reads our pure Zarr and v3 stores over S3 in
test_zarr_python.py.)"""

import os

import pytest

from cbuild import build, wheel_libnetcdf
from conftest import (BUCKET, HERE, INTEROP, NC_EEXIST, NC_ENOOBJECT, NC_ENOTFOUND, local_url, run, s3_url,
                      status_of)

WRITERS = ["write_sample", "write_data", "write_filtered", "write_codecs"]
# netcdf-c 4.10.1's filter plugins, beside its library in the netCDF4 wheel.
WHEEL_PLUGINS = wheel_libnetcdf().parent.parent / "netCDF4" / "plugins"


@pytest.fixture(scope="module")
def netcdf_c(tmp_path_factory):
    """describe.c and two writers built against netcdf-c 4.10.1."""
    d = tmp_path_factory.mktemp("netcdf_c")
    return {name: build(src, d / name, against_wheel=True)
            for name, src in [("describe", INTEROP / "describe.c"), ("write_sample", INTEROP / "write_sample.c"),
                              ("write_data", INTEROP / "write_data.c"), ("write_codecs", HERE / "write_codecs.c")]}


def fetch(server, key, directory):
    """The objects below `key` in the bucket, as a directory store."""
    for k in server.keys(BUCKET, key + "/"):
        path = directory / k[len(key) + 1:]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(server.get(BUCKET, k))
    return directory


def put(server, directory, key):
    for path in sorted(directory.rglob("*")):
        if path.is_file():
            server.put(BUCKET, f"{key}/{path.relative_to(directory).as_posix()}", path.read_bytes())


def same_as_netcdf_c(ours, theirs):
    """As tests/interop/conftest.py's: netcdf-c hands out an empty
    NC_STRING value as NULL, we hand out ""."""
    assert ours == theirs.replace("NULL", '""')


def without_data_of(text, var, expected):
    """`text` with the data line of variable `var` (of the root group)
    replaced by a mark, after checking it starts with `expected`."""
    lines = text.splitlines(keepends=True)
    i = lines.index(next(line for line in lines if line.startswith(f"  var {var} ")))
    j = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("    data "))
    assert lines[j].startswith(expected), lines[j]
    return "".join(lines[:j] + [f"    data ({var})\n"] + lines[j + 1:])


def write_both(progs, writer, server, prefix, env, tmp_path, mode="nczarr"):
    """Write with `writer` to S3 and locally; return both descriptions."""
    remote = s3_url(server.endpoint, BUCKET, f"{prefix}/d.zarr", mode)
    local = local_url(tmp_path / "d.zarr", mode)
    w_remote = run(progs[writer], remote, env=env)
    w_local = run(progs[writer], local, env=env)
    assert w_remote.stdout == w_local.stdout
    ours = run(progs["describe"], remote, env=env).stdout
    expected = run(progs["describe"], local, env=env).stdout
    return ours, expected


@pytest.mark.parametrize("writer", WRITERS)
def test_round_trip(progs, server, prefix, env, tmp_path, writer):
    ours, expected = write_both(progs, writer, server, prefix, env, tmp_path)
    assert ours == expected
    assert "data error" not in ours
    # The objects are really in the bucket, in the NCZarr layout.
    keys = server.keys(BUCKET, prefix + "/")
    assert f"{prefix}/d.zarr/.zgroup" in keys
    assert f"{prefix}/d.zarr/.zmetadata" in keys


@pytest.mark.parametrize("writer", ["write_data", "write_filtered"])
def test_round_trip_pure_zarr(progs, server, prefix, env, tmp_path, writer):
    ours, expected = write_both(progs, writer, server, prefix, env, tmp_path, mode="zarr")
    assert ours == expected


@pytest.mark.parametrize("mode", ["nczarr,v3", "zarr,v3"])
def test_round_trip_v3(progs, server, prefix, env, tmp_path, mode):
    ours, expected = write_both(progs, "write_data", server, prefix, env, tmp_path, mode=mode)
    assert ours == expected
    keys = server.keys(BUCKET, prefix + "/")
    assert f"{prefix}/d.zarr/zarr.json" in keys and f"{prefix}/d.zarr/strs/zarr.json" in keys
    assert not any(k.endswith((".zgroup", ".zarray", ".zmetadata")) for k in keys)


def test_same_objects_as_local(progs, server, prefix, env, tmp_path):
    """The objects written to S3 are byte for byte the files written locally."""
    run(progs["write_data"], s3_url(server.endpoint, BUCKET, f"{prefix}/d.zarr"), env=env)
    run(progs["write_data"], local_url(tmp_path / "d.zarr"), env=env)
    local_files = sorted(str(p.relative_to(tmp_path / "d.zarr")) for p in (tmp_path / "d.zarr").rglob("*")
                         if p.is_file())
    keys = [k[len(prefix) + len("/d.zarr/"):] for k in server.keys(BUCKET, prefix + "/")]
    assert keys == local_files
    for name in local_files:
        remote = server.get(BUCKET, f"{prefix}/d.zarr/{name}")
        assert remote == (tmp_path / "d.zarr" / name).read_bytes(), name


@pytest.mark.parametrize("writer", WRITERS)
def test_netcdf_c_reads_what_we_put_on_s3(progs, netcdf_c, server, prefix, env, tmp_path, writer):
    url = s3_url(server.endpoint, BUCKET, f"{prefix}/d.zarr")
    run(progs[writer], url, env=env)
    ours = run(progs["describe"], url, env=env).stdout
    store = fetch(server, f"{prefix}/d.zarr", tmp_path / "fetched.zarr")
    theirs = run(netcdf_c["describe"], local_url(store), env=dict(env, HDF5_PLUGIN_PATH=str(WHEEL_PLUGINS))).stdout
    if writer == "write_filtered":
        # netcdf-c has no lz4 codec (tests/interop/test_filters.py).
        ours = without_data_of(ours, "lz4", "    data [-3, -2.5, -2, ")
        theirs = without_data_of(theirs, "lz4", "    data error -136\n")
    same_as_netcdf_c(ours, theirs)
    assert "    data [" in ours and "data error" not in ours


@pytest.mark.parametrize("writer", ["write_sample", "write_data", "write_codecs"])
def test_we_read_netcdf_c_stores_on_s3(progs, netcdf_c, server, prefix, env, tmp_path, writer):
    # netcdf-c needs its plugins for any filter (write_codecs: deflate and
    # szip); we read its szip through the same plugin library.
    env = dict(env, HDF5_PLUGIN_PATH=str(WHEEL_PLUGINS))
    store = tmp_path / "nc.zarr"
    run(netcdf_c[writer], local_url(store), env=env)
    theirs = run(netcdf_c["describe"], local_url(store), env=env).stdout
    put(server, store, f"{prefix}/nc.zarr")
    ours = run(progs["describe"], s3_url(server.endpoint, BUCKET, f"{prefix}/nc.zarr"), env=env).stdout
    same_as_netcdf_c(ours, theirs)
    assert "    data [" in ours and "data error" not in ours


def test_s3_scheme_with_endpoint_variable(progs, server, prefix, env, tmp_path):
    for var in ("AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL"):
        e = dict(env)
        e[var] = server.endpoint
        url = f"s3://{BUCKET}/{prefix}/{var}/d.zarr#mode=nczarr,s3"
        run(progs["write_data"], url, env=e)
        ours = run(progs["describe"], url, env=e).stdout
        run(progs["write_data"], local_url(tmp_path / f"{var}.zarr"), env=e)
        assert ours == run(progs["describe"], local_url(tmp_path / f"{var}.zarr"), env=e).stdout
        # The endpoint form names the same objects.
        assert run(progs["describe"], s3_url(server.endpoint, BUCKET, f"{prefix}/{var}/d.zarr"), env=e).stdout == ours


def test_noclobber_on_existing_dataset(progs, server, prefix, env):
    url = s3_url(server.endpoint, BUCKET, f"{prefix}/d.zarr")
    run(progs["write_sample"], url, env=env)
    out = run(progs["s3probe"], "noclobber", url, env=env).stdout
    assert status_of(out, "create") == NC_EEXIST
    # ...and the dataset is untouched.
    assert status_of(run(progs["s3probe"], "open", url, env=env).stdout, "open") == 0
    # NC_NOCLOBBER on a fresh key creates it.
    fresh = s3_url(server.endpoint, BUCKET, f"{prefix}/fresh.zarr")
    out = run(progs["s3probe"], "noclobber", fresh, env=env).stdout
    assert status_of(out, "create") == 0 and status_of(out, "close") == 0
    assert status_of(run(progs["s3probe"], "open", fresh, env=env).stdout, "open") == 0


def test_no_dataset_at_key(progs, server, prefix, env):
    out = run(progs["s3probe"], "open", s3_url(server.endpoint, BUCKET, f"{prefix}/nothing.zarr"), env=env).stdout
    assert status_of(out, "open") == NC_ENOOBJECT


def test_missing_bucket(progs, server, prefix, env):
    out = run(progs["s3probe"], "open", s3_url(server.endpoint, "no-such-bucket", f"{prefix}/d.zarr"),
              env=env).stdout
    assert status_of(out, "open") == NC_ENOTFOUND


def test_big_variable_round_trip(progs, server, prefix, env):
    """A variable of 200 chunks, rewritten in place, read back whole."""
    url = s3_url(server.endpoint, BUCKET, f"{prefix}/big.zarr")
    out = run(progs["s3probe"], "writebig", url, 200, 100, 5, env=env).stdout
    assert status_of(out, "close") == 0
    assert run(progs["s3probe"], "readbig", url, env=env).stdout.strip() == "values offset 5"
    out = run(progs["s3probe"], "rewrite", url, 77, env=env).stdout
    assert status_of(out, "close") == 0
    assert run(progs["s3probe"], "readbig", url, env=env).stdout.strip() == "values offset 77"
