"""Several plain processes (no MPI) writing one store at the same time,
as xarray's region= writes and job arrays do: each opens the existing
store with NC_WRITE, adds a global attribute of its own, appends its own
records along the unlimited dimension and writes its own rows of a
fixed-size variable (ctests/many_writers.c). Every value, every attribute
and the largest record count must be stored at the end: commits merge
with what other writers stored (src/format/merge.rs) under the store's
commit lock (a flock of the directory; on S3 an object created with
If-None-Match).

On a directory and on moto. Not on s3s-fs: its conditional PUT is not
atomic (it checks for the object, then writes it), so two writers can
both take the lock; measured with six concurrent If-None-Match PUTs of
one key, 15 of 20 trials had more than one winner (none on moto; S3
itself, MinIO and R2 make the check and the write one step).
"""

import pathlib
import subprocess

import pytest

from cbuild import build
from conftest import BUCKET, local_url, run, s3_url

CTESTS = pathlib.Path(__file__).resolve().parents[2] / "ctests"
WRITERS = 4
# The four layouts a writer can have; 4.9.0's layout has no unlimited
# dimension, so it has no records to append.
MODES = ["nczarr", "zarr", "nczarr,v3", "zarr,v3", "nczarr,noconsolidated"]


@pytest.fixture(scope="module")
def many_writers(tmp_path_factory):
    d = tmp_path_factory.mktemp("many_writers")
    return {
        "ours": build(CTESTS / "many_writers.c", d / "many_writers"),
        # The same program over netcdf-c 4.10.1 (the netCDF4 wheel's),
        # to check what the writers left.
        "netcdf_c": build(CTESTS / "many_writers.c", d / "many_writers_netcdf_c", against_wheel=True),
    }


def write_concurrently(prog, url, env, ordered):
    """Four writers at once. `ordered`: writer K waits (3-K)*150 ms before
    its close, so the writer that saw the fewest records commits last."""
    procs = [
        subprocess.Popen([str(prog), "write", url, str(k), str((WRITERS - 1 - k) * 150 if ordered else 0)],
                         env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for k in range(WRITERS)
    ]
    for k, p in enumerate(procs):
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, f"writer {k} exited {p.returncode}: {err[-2000:]}"


def rounds(progs, url, env, netcdf_c_reads):
    for ordered in (True, False, False):
        run(progs["ours"], "create", url, env=env)
        write_concurrently(progs["ours"], url, env, ordered)
        out = run(progs["ours"], "check", url, WRITERS, env=env).stdout
        assert f"ok: {WRITERS * 3} records, {WRITERS} writers" in out
        if netcdf_c_reads:
            out = run(progs["netcdf_c"], "check", url, WRITERS, env=env).stdout
            assert f"ok: {WRITERS * 3} records, {WRITERS} writers" in out


@pytest.mark.parametrize("mode", MODES)
def test_many_writers_on_a_directory(many_writers, tmp_path, env, mode):
    url = local_url(tmp_path / "d.zarr", mode)
    # netcdf-c 4.10.1 reads the v2 stores (its v3 support is a draft).
    rounds(many_writers, url, env, netcdf_c_reads="v3" not in mode)


@pytest.mark.parametrize("mode", MODES)
def test_many_writers_on_s3(many_writers, moto_server, prefix, env, mode):
    url = s3_url(moto_server.endpoint, BUCKET, prefix, mode)
    rounds(many_writers, url, env, netcdf_c_reads=False)
    # The commit lock is gone once every writer closed.
    assert not [k for k in moto_server.keys(BUCKET, prefix) if k.endswith(".nczarr_rs_commit_lock")]
