"""netCDF files (not Zarr stores) on S3 and web servers, served by the
netcdf-c beside us through memory (src/delegate/remote.rs): Debian's
ncdump and nccopy over our library read what netcdf-c wrote and write
what netcdf-c reads, in every URL form; the requests are counted by the
proxy (concurrent ranged GETs to read, one PUT or one multipart upload to
write); a writer killed before closing leaves no object; too large an
object is refused before it is read."""

import os
import re
import signal
import subprocess

import pytest

from conftest import BUCKET, OUR_LIBDIR, PUBLIC_BUCKET

NCGEN, NCDUMP, NCCOPY = "/usr/bin/ncgen", "/usr/bin/ncdump", "/usr/bin/nccopy"
NC_EEXIST = -35
NC_ENOMEM = -61
NC_EPERM = -37

CDL = """netcdf sample {
dimensions: t = UNLIMITED; x = %(n)d;
variables:
  float v(t, x); v:units = "m"; v:_DeflateLevel = 1; v:_ChunkSizes = 1, %(n)d;
  string s(x);
  :title = "on S3";
data:
  v = %(v)s;
group: g { variables: int k; k:a = 1; data: k = 7; }
}
"""


def make_nc(tmp_path, n=4, rows=2, name="in.nc", kind="nc4", cdl=None):
    """A netCDF file written by Debian's netcdf-c (ncgen over its own
    library); with n large it is big, its values incompressible enough."""
    text = cdl or CDL % {"n": n, "v": ", ".join(str((i * 7919) % 10007 + 0.25) for i in range(n * rows))}
    if kind != "nc4":
        text = text.replace("string s(x);", "").replace('v:_DeflateLevel = 1; v:_ChunkSizes = 1, %d;' % n, "")
        text = text[: text.index("group:")] + "}\n"
    (tmp_path / "in.cdl").write_text(text)
    out = tmp_path / name
    subprocess.run([NCGEN, "-k", kind, "-o", str(out), str(tmp_path / "in.cdl")], check=True,
                   env={k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"})
    return out


def ours(env):
    e = dict(env)
    e["LD_LIBRARY_PATH"] = str(OUR_LIBDIR)
    return e


def debian(env):
    return {k: v for k, v in env.items() if k != "LD_LIBRARY_PATH"}


def dump(target, env, *opts, check=True):
    r = subprocess.run([NCDUMP, *opts, str(target)], capture_output=True, text=True, env=env, timeout=120)
    if check:
        assert r.returncode == 0, r.stderr
    return r


def body(cdl):
    """A dump without its first line (which names the dataset after its path)."""
    return cdl.split("\n", 1)[1]


def bytes_url(endpoint, key, bucket=BUCKET):
    return f"{endpoint}/{bucket}/{key}#mode=bytes,s3"


@pytest.mark.parametrize("kind", ["nc4", "classic", "64-bit offset", "cdf5"])
def test_read_what_netcdf_c_wrote(server, prefix, env, tmp_path, kind):
    local = make_nc(tmp_path, kind={"nc4": "nc4", "classic": "nc3", "64-bit offset": "nc6", "cdf5": "nc5"}[kind])
    server.put(BUCKET, f"{prefix}/in.nc", local.read_bytes())
    expected = body(dump(local, debian(env)).stdout)
    # netcdf-c's spelling, and the s3:// form sent to AWS_ENDPOINT_URL.
    assert body(dump(bytes_url(server.endpoint, f"{prefix}/in.nc"), ours(env)).stdout) == expected
    e = ours(env)
    e["AWS_ENDPOINT_URL"] = server.endpoint
    assert body(dump(f"s3://{BUCKET}/{prefix}/in.nc", e).stdout) == expected
    assert dump(f"s3://{BUCKET}/{prefix}/in.nc", e, "-k").stdout.strip() == dump(local, debian(env), "-k").stdout.strip()


def test_read_is_concurrent_ranged_gets(server, prefix, env, tmp_path, proxy_for):
    """A 26 MB file in parts of 5 MiB: one GET of its first byte (the size),
    then every part once, several in flight; nothing else."""
    local = make_nc(tmp_path, n=1_000_000, rows=10)
    size = local.stat().st_size
    assert size > 20_000_000
    server.put(BUCKET, f"{prefix}/big.nc", local.read_bytes())
    proxy = proxy_for(server)
    url = f"{proxy.endpoint}/{BUCKET}/{prefix}/big.nc#mode=bytes,s3&s3.multipart_partsize=5242880"
    got = dump(url, ours(env), "-v", "k", check=True).stdout
    assert "k = 7" in got
    gets = proxy.object_gets()
    part = 5 * 1024 * 1024
    ranges = sorted(g.range for g in gets)
    expected = ["bytes=0-0"] + sorted(f"bytes={o}-{min(o + part, size) - 1}" for o in range(0, size, part))
    assert ranges == sorted(expected)
    assert all(g.key == f"{prefix}/big.nc" for g in gets)
    assert proxy.max_in_flight >= 2


def test_write_what_netcdf_c_reads(server, prefix, env, tmp_path, proxy_for):
    """nccopy over us writes an S3 object in one PUT at close; Debian's
    netcdf-c reads the downloaded object as the original."""
    local = make_nc(tmp_path)
    proxy = proxy_for(server)
    url = bytes_url(proxy.endpoint, f"{prefix}/out.nc")
    r = subprocess.run([NCCOPY, str(local), url], capture_output=True, text=True, env=ours(env), timeout=120)
    assert r.returncode == 0, r.stderr
    puts = proxy.requests("PUT")
    assert [p.key for p in puts] == [f"{prefix}/out.nc"]
    (tmp_path / "down.nc").write_bytes(server.get(BUCKET, f"{prefix}/out.nc"))
    assert body(dump(tmp_path / "down.nc", debian(env)).stdout) == body(dump(local, debian(env)).stdout)
    # netcdf-c can write it again (a netCDF-4 file made in its memory could
    # not be: NC_ECANTWRITE).
    r = subprocess.run([NCCOPY, str(local), url], capture_output=True, text=True, env=ours(env), timeout=120)
    assert r.returncode == 0, r.stderr


def test_large_write_is_one_multipart_upload(server, prefix, env, tmp_path, proxy_for):
    local = make_nc(tmp_path, n=1_000_000, rows=4)
    proxy = proxy_for(server)
    url = (f"{proxy.endpoint}/{BUCKET}/{prefix}/big.nc#mode=bytes,s3"
           "&s3.multipart_threshold=5242880&s3.multipart_partsize=5242880")
    r = subprocess.run([NCCOPY, str(local), url], capture_output=True, text=True, env=ours(env), timeout=300)
    assert r.returncode == 0, r.stderr
    reqs = proxy.requests()
    creates = [q for q in reqs if q.method == "POST" and "uploads" in q.query]
    completes = [q for q in reqs if q.method == "POST" and "uploadId" in q.query]
    parts = [q for q in reqs if q.method == "PUT" and "partNumber" in q.query]
    size = len(server.get(BUCKET, f"{prefix}/big.nc"))
    assert len(creates) == 1 and len(completes) == 1
    assert len(parts) == -(-size // (5 * 1024 * 1024))
    assert not [q for q in reqs if q.method == "PUT" and "partNumber" not in q.query]
    (tmp_path / "down.nc").write_bytes(server.get(BUCKET, f"{prefix}/big.nc"))
    assert dump(tmp_path / "down.nc", debian(env), "-v", "k").stdout.count("k = 7") == 1


WRITER = r"""
import ctypes, os, signal, sys
lib = ctypes.CDLL(sys.argv[1])
url, how = sys.argv[2].encode(), sys.argv[3]
ncid, dim, var = ctypes.c_int(), ctypes.c_int(), ctypes.c_int()
if how == "modify":
    s = lib.nc_open(url, 0x0001, ctypes.byref(ncid))
    print("open", s, flush=True)
    if s: sys.exit(0)
    assert lib.nc_inq_varid(ncid, b"v", ctypes.byref(var)) == 0
    assert lib.nc_put_var_int(ncid, var, (ctypes.c_int * 3)(7, 8, 9)) == 0
    path = ctypes.create_string_buffer(4096)
    assert lib.nc_inq_path(ncid, None, path) == 0
    print("path", path.value.decode(), flush=True)
    print("close", lib.nc_close(ncid), flush=True)
    sys.exit(0)
mode = 0x1000 | (0x0004 if how == "noclobber" else 0)
s = lib.nc_create(url, mode, ctypes.byref(ncid))
print("create", s, flush=True)
if s: sys.exit(0)
assert lib.nc_def_dim(ncid, b"x", 3, ctypes.byref(dim)) == 0
assert lib.nc_def_var(ncid, b"v", 4, 1, ctypes.byref(dim), ctypes.byref(var)) == 0
assert lib.nc_enddef(ncid) == 0
assert lib.nc_put_var_int(ncid, var, (ctypes.c_int * 3)(4, 5, 6)) == 0
if how == "kill":
    os.kill(os.getpid(), signal.SIGKILL)
print("close", lib.nc_close(ncid), flush=True)
"""


def write_with(env, url, how, tmp_path):
    script = tmp_path / "writer.py"
    script.write_text(WRITER)
    import sys
    return subprocess.run([sys.executable, str(script), str(OUR_LIBDIR / "libnetcdf.so"), url, how],
                          capture_output=True, text=True, env=env, timeout=120)


def test_killed_writer_leaves_no_object(server, prefix, env, tmp_path):
    url = bytes_url(server.endpoint, f"{prefix}/killed.nc")
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    e = dict(env, TMPDIR=str(tmp))
    r = write_with(e, url, "kill", tmp_path)
    assert r.returncode == -signal.SIGKILL and "create 0" in r.stdout
    assert server.keys(BUCKET, prefix) == []
    # Its scratch file is all it left, in TMPDIR; a writer that closes
    # leaves none.
    assert len(list(tmp.iterdir())) == 1
    for d in tmp.iterdir():
        import shutil
        shutil.rmtree(d)
    # Written to the end: the object is there, whole.
    r = write_with(e, url, "close", tmp_path)
    assert list(tmp.iterdir()) == []
    assert "close 0" in r.stdout, r.stderr
    (tmp_path / "k.nc").write_bytes(server.get(BUCKET, f"{prefix}/killed.nc"))
    assert re.search(r"v = 4, 5, 6", dump(tmp_path / "k.nc", debian(env)).stdout)
    # NC_NOCLOBBER on an existing object.
    r = write_with(env, url, "noclobber", tmp_path)
    assert f"create {NC_EEXIST}" in r.stdout
    # Opened for writing: changed in memory, uploaded whole at close.
    r = write_with(env, url, "modify", tmp_path)
    assert "open 0" in r.stdout and "close 0" in r.stdout, r.stdout + r.stderr
    assert f"path {url}\n" in r.stdout
    (tmp_path / "m.nc").write_bytes(server.get(BUCKET, f"{prefix}/killed.nc"))
    assert re.search(r"v = 7, 8, 9", dump(tmp_path / "m.nc", debian(env)).stdout)
    # An object that is not netCDF, opened for writing: netcdf-c's error.
    server.put(BUCKET, f"{prefix}/junk.nc", b"not a netCDF file at all")
    r = write_with(env, bytes_url(server.endpoint, f"{prefix}/junk.nc"), "modify", tmp_path)
    assert "open -51" in r.stdout, r.stdout + r.stderr


def test_too_large_is_refused_before_reading(server, prefix, env, tmp_path, proxy_for):
    local = make_nc(tmp_path)
    server.put(BUCKET, f"{prefix}/in.nc", local.read_bytes())
    proxy = proxy_for(server)
    url = f"{proxy.endpoint}/{BUCKET}/{prefix}/in.nc#mode=bytes,s3&bytes.max_size=100"
    r = dump(url, ours(env), check=False)
    assert r.returncode != 0 and "Memory allocation" in r.stderr
    assert [g.range for g in proxy.object_gets()] == ["bytes=0-0"]


def test_web_server_read(moto_server, prefix, env, tmp_path):
    """A plain web server (a public bucket, unsigned GETs): `#mode=bytes`;
    writing there is NC_EPERM."""
    local = make_nc(tmp_path)
    moto_server.put(PUBLIC_BUCKET, f"{prefix}/in.nc", local.read_bytes(), acl="public-read")
    url = f"{moto_server.endpoint}/{PUBLIC_BUCKET}/{prefix}/in.nc#mode=bytes"
    e = {k: v for k, v in env.items() if not k.startswith("AWS_")}
    assert body(dump(url, ours(e)).stdout) == body(dump(local, debian(env)).stdout)
    r = write_with(e, url, "close", tmp_path)
    assert f"create {NC_EPERM}" in r.stdout


def test_convert_netcdf4_file_to_nczarr_on_s3_and_back(server, prefix, env, tmp_path):
    """The conversion users want: a netCDF-4 file (groups, strings, an
    unlimited dimension, compression) to an NCZarr store on S3 and back,
    nccopy over us both ways; the result dumps as the original."""
    local = make_nc(tmp_path)
    store = f"{server.endpoint}/{BUCKET}/{prefix}/out.zarr#mode=nczarr,s3"
    for src, dst in ((local, store), (store, tmp_path / "back.nc")):
        r = subprocess.run([NCCOPY, str(src), str(dst)], capture_output=True, text=True, env=ours(env), timeout=120)
        assert r.returncode == 0, r.stderr
    assert any(k.endswith("/v/.zarray") for k in server.keys(BUCKET, prefix))
    assert body(dump(tmp_path / "back.nc", debian(env)).stdout) == body(dump(local, debian(env)).stdout)
    assert body(dump(store, ours(env)).stdout) == body(dump(local, debian(env)).stdout)
