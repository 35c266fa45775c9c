"""Hostile and damaged zips, made at test time from a small root-layout
Zarr v2 store (ziputil.small_store: arrays v = 0 1 2 3 and w = 10 20 30 40)
with each entry's headers saying what the case wants (ziputil.build).

Opening one must fail with NC_ENCZARR or NC_ENOTNC, or, when the damage is
in one chunk only, reading that variable must fail: never a crash, a hang,
wrong values or the memory a zip bomb asks for. zip_edit probe does the
open and the reads in a process of its own; its peak memory is measured."""

import bz2
import os
import signal
import subprocess
import tempfile
import threading
import zlib

import pytest

import ziputil
from conftest import NC_ENCZARR, NC_ENOTNC, parse_probe, probe, zip_url
from ziputil import raw

OPEN_ERRORS = {NC_ENCZARR, NC_ENOTNC}
MIB = 1 << 20
V_BYTES = ziputil.small_store()[4][1]


def entries(**replace):
    """small_store as truthful stored Raw entries, with some replaced:
    replace maps a name to a Raw entry, or to a list of entries to put
    there (for extra entries) or to None to drop it."""
    out = []
    for name, content in ziputil.small_store():
        if name in replace:
            r = replace[name]
            out += r if isinstance(r, list) else [r] if r is not None else []
        else:
            out.append(raw(name, content))
    return out


def good():
    return ziputil.build(entries())


def bomb(name, size):
    stream, crc = ziputil.bomb_deflate(size)
    return ziputil.Raw(name, stream, method=8, crc=crc, usize=size)


def lie_deflate(claimed):
    big = b"\0" * MIB
    return ziputil.Raw("v/0", ziputil.deflate(big), method=8, crc=zlib.crc32(big), usize=claimed)


def flipped(content):
    return bytes([content[0] ^ 1]) + content[1:]


# Damage the whole archive: opening must fail.
WHOLE = {
    "not_zip": lambda: b"hello world, not a zip" * 10,
    "empty": lambda: b"",
    "truncated_half": lambda: good()[:len(good()) // 2],
    "eocd_cut": lambda: good()[:-10],
    "only_local_header": lambda: good()[:30],
    "cd_offset_past_end": lambda: good()[:-6] + (10 ** 6).to_bytes(4, "little") + b"\0\0",
    "entry_count_lies": lambda: good()[:-14] + (1000).to_bytes(2, "little") * 2 + good()[-10:],
    "metadata_bad_crc": lambda: ziputil.build(entries(**{
        ".zattrs": raw(".zattrs", b'{"title": "small"}', crc=zlib.crc32(b'{"title": "smalm"}'))})),
    "metadata_lying_size": lambda: ziputil.build(entries(**{
        "v/.zarray": raw("v/.zarray", ziputil.small_store()[2][1], csize=4000, usize=4000)})),
    "metadata_encrypted": lambda: ziputil.build(entries(**{
        ".zgroup": raw(".zgroup", b'{"zarr_format": 2}', flags=0x01)})),
    "metadata_method_12": lambda: ziputil.build(entries(**{
        ".zattrs": ziputil.Raw(".zattrs", bz2.compress(b'{"title": "small"}'), method=12,
                               crc=zlib.crc32(b'{"title": "small"}'), usize=18)})),
    "metadata_method_99": lambda: ziputil.build(entries(**{
        ".zgroup": ziputil.Raw(".zgroup", b'{"zarr_format": 2}', method=99, crc=zlib.crc32(b'{"zarr_format": 2}'))})),
    "metadata_bomb": lambda: ziputil.build(entries(**{".zattrs": bomb(".zattrs", 1024 * MIB)})),
    "escape_dotdot": lambda: ziputil.build(entries(**{"w/0": [raw("w/0", ziputil.small_store()[7][1]),
                                                              raw("../x", b"1")]})),
    "escape_absolute": lambda: ziputil.build(entries(**{"w/0": [raw("w/0", ziputil.small_store()[7][1]),
                                                                raw("/abs", b"2")]})),
    "escape_inner_dotdot": lambda: ziputil.build(entries(**{"w/0": [raw("w/0", ziputil.small_store()[7][1]),
                                                                    raw("v/../../x", b"3")]})),
}

# Damage one chunk, v/0: opening may fail; if it does not, reading v must.
CHUNK = {
    "bad_crc": lambda: ziputil.build(entries(**{"v/0": raw("v/0", flipped(V_BYTES), crc=zlib.crc32(V_BYTES))})),
    "stored_size_runs_into_next_header": lambda: ziputil.build(entries(**{
        "v/0": raw("v/0", V_BYTES, csize=40, usize=40)})),
    "central_sizes_disagree_with_local": lambda: ziputil.build(entries(**{
        "v/0": raw("v/0", V_BYTES, csize=40, usize=40, local={"csize": 16, "usize": 16})})),
    "local_sizes_disagree_with_central": lambda: ziputil.build(entries(**{
        "v/0": raw("v/0", V_BYTES, local={"csize": 40, "usize": 40})})),
    "stored_size_past_end_of_file": lambda: ziputil.build(entries(**{
        "v/0": raw("v/0", V_BYTES, csize=10 ** 9, usize=10 ** 9)})),
    "deflate_claims_chunk_size_inflates_1mib": lambda: ziputil.build(entries(**{"v/0": lie_deflate(16)})),
    "deflate_claims_1000_inflates_1mib": lambda: ziputil.build(entries(**{"v/0": lie_deflate(1000)})),
    "deflate_corrupt_stream": lambda: ziputil.build(entries(**{
        "v/0": ziputil.Raw("v/0", b"\xff" * 12, method=8, crc=zlib.crc32(V_BYTES), usize=16)})),
    "encrypted": lambda: ziputil.build(entries(**{"v/0": raw("v/0", V_BYTES, flags=0x01)})),
    "method_12_bzip2": lambda: ziputil.build(entries(**{
        "v/0": ziputil.Raw("v/0", bz2.compress(V_BYTES), method=12, crc=zlib.crc32(V_BYTES), usize=16)})),
    "bomb_1gib": lambda: ziputil.build(entries(**{"v/0": bomb("v/0", 1024 * MIB)})),
}

# Cases where the central directory alone is right, so a reader that goes
# by it may also read v's true values.
TRUE_VALUES_ALLOWED = {"local_sizes_disagree_with_central"}

# Peak memory a probe may reach (KiB); a bomb inflated in memory is 1 GiB.
MAX_RSS_KIB = 256 * 1024


def probe_measured(progs, url, timeout=60):
    """zip_edit probe in a child process: (stdout, peak RSS in KiB);
    fails on a signal or a hang."""
    with tempfile.TemporaryFile() as errfile:
        proc = subprocess.Popen([str(progs["zip_edit"]), "probe", url], stdout=subprocess.PIPE, stderr=errfile)
        timer = threading.Timer(timeout, proc.kill)
        timer.start()
        try:
            out = proc.stdout.read()
            # Reaped here, not by Popen, for the child's own resource usage.
            _, status, usage = os.wait4(proc.pid, 0)
        finally:
            timer.cancel()
        proc.returncode = os.waitstatus_to_exitcode(status)
        proc.stdout.close()
        errfile.seek(0)
        err = errfile.read().decode(errors="replace")
    if proc.returncode < 0:
        name = signal.Signals(-proc.returncode).name
        pytest.fail(f"probe {url} died of {name} (killed after {timeout} s if SIGKILL): {err[-2000:]!r}")
    assert proc.returncode == 0, err
    return out.decode(), usage.ru_maxrss


def test_control_reads(progs, tmp_path):
    """The undamaged archive opens and reads: the cases below differ from it
    only in their damage."""
    archive = ziputil.write(tmp_path / "d.zip", good())
    status, variables = probe(progs, zip_url(archive, "zarr"))
    assert status == 0
    assert variables == {"v": (0, "0 1 2 3"), "w": (0, "10 20 30 40")}


@pytest.mark.parametrize("case", list(WHOLE))
def test_damaged_archive_does_not_open(progs, tmp_path, case):
    archive = ziputil.write(tmp_path / "d.zip", WHOLE[case]())
    out, rss = probe_measured(progs, zip_url(archive, "zarr"))
    status, variables = parse_probe(out)
    assert status in OPEN_ERRORS, f"open gave {status}, reads {variables}"
    assert rss < MAX_RSS_KIB, f"peak memory {rss} KiB"


def test_not_a_zip_is_enotnc(progs, tmp_path):
    archive = ziputil.write(tmp_path / "d.zip", WHOLE["not_zip"]())
    for mode in ("nczarr", "zarr"):
        assert probe(progs, zip_url(archive, mode))[0] == NC_ENOTNC


@pytest.mark.parametrize("case", list(CHUNK))
def test_damaged_chunk_does_not_read(progs, tmp_path, case):
    archive = ziputil.write(tmp_path / "d.zip", CHUNK[case]())
    out, rss = probe_measured(progs, zip_url(archive, "zarr"))
    status, variables = parse_probe(out)
    assert rss < MAX_RSS_KIB, f"peak memory {rss} KiB"
    if status != 0:
        assert status in OPEN_ERRORS, f"open gave {status}"
        return
    code, values = variables["v"]
    if case in TRUE_VALUES_ALLOWED and (code, values) == (0, "0 1 2 3"):
        return
    assert code < 0, f"v read with status {code} as {values!r}; expected a failure"


def test_missing_file(progs, tmp_path):
    for url in (zip_url(tmp_path / "absent.zip"), zip_url(tmp_path / "absent.zip", "zarr"),
                f"{tmp_path / 'absent.zip'}#mode=nczarr,zip"):
        assert probe(progs, url)[0] != 0
    assert os.listdir(tmp_path) == []


def test_directory_named_zip(progs, tmp_path):
    """A directory where the zip should be is not a zip."""
    (tmp_path / "d.zip").mkdir()
    status, _ = probe(progs, zip_url(tmp_path / "d.zip"))
    assert status != 0
