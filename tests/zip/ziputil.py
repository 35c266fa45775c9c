"""Zip archives for the zip tests, made and taken apart with Python's
zipfile and struct only (no binary fixture is committed): the layouts
netcdf-c, zarr-python and Info-ZIP produce, and byte-level surgery on local
headers and central directory records for the hostile inputs."""

import hashlib
import io
import json
import os
import pathlib
import struct
import zipfile
import zlib

LOCAL_SIG = b"PK\x03\x04"
CENTRAL_SIG = b"PK\x01\x02"
EOCD_SIG = b"PK\x05\x06"


# ---------------------------------------------------------------------------
# Reading what an archive holds.

def infos(path):
    """Every entry of an archive, in order (duplicates included)."""
    with zipfile.ZipFile(path) as z:
        return z.infolist()


def names(path):
    return [i.filename for i in infos(path)]


def contents(path):
    """name -> bytes of each file entry (not directory entries). With
    duplicate names, the last entry wins, as zipfile's getinfo does."""
    out = {}
    with zipfile.ZipFile(path) as z:
        for info in z.infolist():
            if not info.is_dir():
                out[info.filename] = z.read(info)
    return out


def tree(directory):
    """relative path -> bytes of every file under a directory store."""
    directory = pathlib.Path(directory)
    return {p.relative_to(directory).as_posix(): p.read_bytes()
            for p in sorted(directory.rglob("*")) if p.is_file()}


def strip_prefix(mapping, prefix):
    """Keys of a zip's contents() under prefix, with the prefix removed;
    fails if any key lies outside it."""
    outside = [k for k in mapping if not k.startswith(prefix)]
    assert not outside, f"entries outside {prefix!r}: {outside}"
    return {k[len(prefix):]: v for k, v in mapping.items()}


def sha256(path):
    return hashlib.sha256(pathlib.Path(path).read_bytes()).hexdigest()


def raw_entry(path, info):
    """The stored (possibly compressed) bytes of one entry."""
    data = pathlib.Path(path).read_bytes()
    off = info.header_offset
    assert data[off:off + 4] == LOCAL_SIG
    n, m = struct.unpack_from("<HH", data, off + 26)
    start = off + 30 + n + m
    return data[start:start + info.compress_size]


# ---------------------------------------------------------------------------
# Writing archives.

class Unseekable(io.RawIOBase):
    """A write-only stream without tell/seek: zipfile then writes every file
    entry with a data descriptor (general purpose flag bit 3)."""

    def __init__(self, f):
        self.f = f

    def writable(self):
        return True

    def write(self, b):
        return self.f.write(b)

    def flush(self):
        self.f.flush()


def zip_entries(path, entries, compression=zipfile.ZIP_STORED, descriptors=False):
    """Write (name, bytes) pairs in order; a name ending in '/' with bytes
    None is a directory entry. With descriptors, through an unseekable
    stream so that file entries carry data descriptors."""
    with open(path, "wb") as f:
        target = Unseekable(f) if descriptors else f
        with zipfile.ZipFile(target, "w", compression=compression) as z:
            for name, data in entries:
                if data is None:
                    z.mkdir(name.rstrip("/"))
                else:
                    z.writestr(name, data)
    return path


def netcdf_c_entries(directory, top):
    """The entries netcdf-c's zip driver (libzip) lays out for a store: the
    directory entry top/ first, then the tree depth first, each directory's
    entry before what it holds, objects stored under top/."""
    directory = pathlib.Path(directory)
    out = [(top + "/", None)]

    def walk(d, prefix):
        for p in sorted(d.iterdir()):
            if p.is_dir():
                out.append((f"{prefix}{p.name}/", None))
                walk(p, f"{prefix}{p.name}/")
            else:
                out.append((prefix + p.name, p.read_bytes()))
    walk(directory, top + "/")
    return out


def zip_like_netcdf_c(directory, zip_path, compression=zipfile.ZIP_STORED, descriptors=False):
    """Zip a directory store as netcdf-c would have written it to zip_path:
    every key under the zip's basename cut at its last '.'."""
    zip_path = pathlib.Path(zip_path)
    top = zip_path.name.rsplit(".", 1)[0]
    return zip_entries(zip_path, netcdf_c_entries(directory, top), compression, descriptors)


# ---------------------------------------------------------------------------
# A small Zarr v2 store (root layout), for the hostile inputs.

V = [0, 1, 2, 3]
W = [10, 20, 30, 40]


def small_store():
    """(name, bytes) of a root-layout Zarr v2 group with two int32 arrays
    v = V and w = W over dimension x, one chunk each; w comes last, so that
    v's chunk is followed by other entries."""
    def zarray():
        return json.dumps({"zarr_format": 2, "shape": [4], "chunks": [4], "dtype": "<i4",
                           "compressor": None, "fill_value": 0, "order": "C", "filters": None}).encode()
    dims = json.dumps({"_ARRAY_DIMENSIONS": ["x"]}).encode()
    return [
        (".zgroup", b'{"zarr_format": 2}'),
        (".zattrs", b'{"title": "small"}'),
        ("v/.zarray", zarray()),
        ("v/.zattrs", dims),
        ("v/0", struct.pack("<4i", *V)),
        ("w/.zarray", zarray()),
        ("w/.zattrs", dims),
        ("w/0", struct.pack("<4i", *W)),
    ]


# ---------------------------------------------------------------------------
# Archives byte by byte, for the hostile inputs: each entry's headers say
# what a test wants them to, true or not.

class Raw:
    """One entry as it will be written: `payload` is the bytes stored in
    the archive; crc, sizes, method and flags are written as given, in both
    headers, but for what `local` (a dict of crc, csize, usize) says the
    local header says instead."""

    def __init__(self, name, payload, method=0, crc=0, csize=None, usize=None, flags=0, local=None):
        self.name = name.encode() if isinstance(name, str) else name
        self.payload = payload
        self.method = method
        self.crc = crc
        self.csize = len(payload) if csize is None else csize
        self.usize = len(payload) if usize is None else usize
        self.flags = flags
        self.local = local or {}


def deflate(data):
    c = zlib.compressobj(6, zlib.DEFLATED, -15)
    return c.compress(data) + c.flush()


def raw(name, content, method=0, **override):
    """A truthful entry holding `content`, stored (0) or deflated (8);
    keyword arguments override what its headers say."""
    payload = deflate(content) if method == 8 else content
    fields = dict(method=method, crc=zlib.crc32(content), csize=len(payload), usize=len(content))
    fields.update(override)
    return Raw(name, payload, **fields)


def build(entries):
    """The bytes of an archive of Raw entries, in order: local headers and
    data, the central directory, the end record."""
    out, central = bytearray(), bytearray()
    for e in entries:
        offset = len(out)
        fixed = struct.pack("<HHHHHIIIHH", 20, e.flags, e.method, 0, 0x21, e.local.get("crc", e.crc),
                            e.local.get("csize", e.csize), e.local.get("usize", e.usize), len(e.name), 0)
        out += LOCAL_SIG + fixed + e.name + e.payload
        central += CENTRAL_SIG + struct.pack("<HHHHHHIIIHHHHHII", 20, 20, e.flags, e.method, 0, 0x21,
                                             e.crc, e.csize, e.usize, len(e.name), 0, 0, 0, 0, 0o644 << 16,
                                             offset) + e.name
    start = len(out)
    out += central
    out += EOCD_SIG + struct.pack("<HHHHIIH", 0, 0, len(entries), len(entries), len(central), start, 0)
    return bytes(out)


def bomb_deflate(total):
    """A raw deflate stream of `total` zero bytes (a multiple of 1 MiB),
    one fully flushed 1 MiB segment repeated, so that a large bomb costs
    little to make; and the CRC-32 of what it inflates to."""
    mib = 1 << 20
    assert total % mib == 0
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    segment = c.compress(b"\0" * mib) + c.flush(zlib.Z_FULL_FLUSH)
    end = zlib.compressobj(9, zlib.DEFLATED, -15).flush()
    crc, block = 0, b"\0" * mib
    for _ in range(total // mib):
        crc = zlib.crc32(block, crc)
    return segment * (total // mib) + end, crc


def write(path, data):
    pathlib.Path(path).write_bytes(data)
    return path


def temp_leftovers(directory, expected):
    """Files in a directory other than the expected names (e.g. a temporary
    archive a writer left behind)."""
    return sorted(set(os.listdir(directory)) - set(expected))
