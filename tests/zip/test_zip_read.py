"""The zip features a reader meets in the wild, on the small Zarr v2 store
(ziputil.small_store): stored and deflated entries, data descriptors (flag
bit 3), zip64 records, an archive comment, the UTF-8 name flag, duplicate
names (the last entry wins), the store below a top directory with or
without directory entries. Each reads exactly as the same objects in a
directory store."""

import pathlib
import zipfile

import pytest

import ziputil
from conftest import describe, dir_url, probe, zip_url
from ziputil import raw

STORE = ziputil.small_store()


@pytest.fixture(scope="module")
def expected(progs, tmp_path_factory):
    """describe.c's account of the small store as a directory."""
    d = tmp_path_factory.mktemp("small") / "d.file"
    for name, content in STORE:
        path = d / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)
    text = describe(progs, dir_url(d, "zarr"))
    assert '  att title char 5 "small"\n' in text
    assert "    data [0, 1, 2, 3]\n" in text
    assert "    data [10, 20, 30, 40]\n" in text
    return text


def zip64(path, monkeypatch):
    """Every record zip64: tiny limits make zipfile write zip64 local and
    central extra fields and the zip64 end records."""
    monkeypatch.setattr(zipfile, "ZIP64_LIMIT", 100)
    monkeypatch.setattr(zipfile, "ZIP_FILECOUNT_LIMIT", 3)
    with zipfile.ZipFile(path, "w") as z:
        for name, content in STORE:
            with z.open(name, "w", force_zip64=True) as f:
                f.write(content)
    monkeypatch.undo()
    data = pathlib.Path(path).read_bytes()
    assert b"PK\x06\x06" in data and b"PK\x06\x07" in data
    return path


def with_comment(path):
    ziputil.zip_entries(path, STORE)
    with zipfile.ZipFile(path, "a") as z:
        z.comment = b"an archive comment" * 3
    return path


VARIANTS = {
    "stored": lambda p, mp: ziputil.write(p, ziputil.build([raw(n, c) for n, c in STORE])),
    "deflated": lambda p, mp: ziputil.write(p, ziputil.build([raw(n, c, 8) for n, c in STORE])),
    "mixed": lambda p, mp: ziputil.write(p, ziputil.build([raw(n, c, 8 * (k % 2)) for k, (n, c) in
                                                           enumerate(STORE)])),
    "descriptors_stored": lambda p, mp: ziputil.zip_entries(p, STORE, descriptors=True),
    "descriptors_deflated": lambda p, mp: ziputil.zip_entries(p, STORE, zipfile.ZIP_DEFLATED, descriptors=True),
    "zip64": lambda p, mp: zip64(p, mp),
    "comment": lambda p, mp: with_comment(p),
    "utf8_flag": lambda p, mp: ziputil.write(p, ziputil.build([raw(n, c, flags=0x800) for n, c in STORE])),
    "duplicates": lambda p, mp: ziputil.write(p, ziputil.build(
        [raw(".zattrs", b'{"title": "older"}'), raw("v/0", b"\x09\0\0\0" * 4)]
        + [raw(n, c) for n, c in STORE] + [raw("w/0", b"\x07\0\0\0" * 4), raw("w/0", STORE[7][1])])),
    "top_dir_entries": lambda p, mp: ziputil.zip_entries(p, [("d/", None), ("d/v/", None), ("d/w/", None)]
                                                         + [("d/" + n, c) for n, c in STORE]),
    "top_no_dir_entries": lambda p, mp: ziputil.zip_entries(p, [("store.zarr/" + n, c) for n, c in STORE]),
    "deep_top": lambda p, mp: ziputil.zip_entries(p, [("a/b/c.zarr/" + n, c) for n, c in STORE]),
}


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_variant_reads_like_directory(progs, expected, tmp_path, monkeypatch, variant):
    archive = VARIANTS[variant](tmp_path / "d.zip", monkeypatch)
    with zipfile.ZipFile(archive) as z:
        assert z.testzip() is None
        if variant.startswith("descriptors"):
            assert all(i.flag_bits & 0x08 for i in z.infolist())
    assert describe(progs, zip_url(archive, "zarr")) == expected
    status, variables = probe(progs, zip_url(archive, "zarr"))
    assert (status, variables) == (0, {"v": (0, "0 1 2 3"), "w": (0, "10 20 30 40")})
