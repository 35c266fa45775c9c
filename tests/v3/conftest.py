"""Fixtures for the Zarr v3 reading tests: dump_values.c built against our
library, run on a store, its output parsed.

In CI (CI=true) a missing compiler or library is a failure; elsewhere
the tests that need it are skipped."""

import json
import logging
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT / "tests"))
from cbuild import OUR_LIBDIR, build  # noqa: E402
IN_CI = os.environ.get("CI") == "true"

# zarr-python, asked to list a store with hand-edited documents it refuses
# (expected.self_check), leaves its failed asyncio tasks to be logged at
# exit; the refusals are expected.
logging.getLogger("asyncio").setLevel(logging.CRITICAL)


def missing(what):
    """A tool is not there: fail in CI, skip elsewhere."""
    if IN_CI:
        pytest.fail(f"{what} (CI=true: the v3 tests need it)")
    pytest.skip(what)


@pytest.fixture(scope="session")
def dumper(tmp_path_factory):
    if shutil.which("cc") is None:
        missing("no C compiler (cc)")
    if not (OUR_LIBDIR / "libnetcdf.so").exists():
        missing(f"no {OUR_LIBDIR / 'libnetcdf.so'}: run make build")
    return build(HERE / "dump_values.c", tmp_path_factory.mktemp("tools") / "dump_values")


def zarr_url(path, mode="zarr"):
    return f"file://{path}#mode={mode},file"


def dump(dumper, path, mode="zarr"):
    """Run dump_values on a store and parse what it prints (see its header):
    {"open_error", "errors", "groups": {path: {"dims", "atts"}},
     "vars": {path: {"type", "dims", "fill", "atts", "data"}}}."""
    result = subprocess.run([str(dumper), zarr_url(path, mode)], capture_output=True, timeout=60)
    assert result.returncode == 0, f"dump_values exited {result.returncode}: {result.stderr.decode(errors='replace')}"
    text = result.stdout.decode("utf-8", "surrogateescape")
    view = {"open_error": None, "errors": [], "groups": {}, "vars": {}, "text": text}
    for line in text.splitlines():
        tag, *fields = line.split("\t")
        if tag == "open":
            if fields[0] == "error":
                view["open_error"] = int(fields[1])
        elif tag == "error":
            view["errors"].append(" ".join(fields))
        elif tag == "group":
            view["groups"][fields[0]] = {"dims": {}, "atts": {}}
        elif tag == "dim":
            view["groups"][fields[0]]["dims"][json.loads(fields[1])] = int(fields[2])
        elif tag == "gatt":
            view["groups"][fields[0]]["atts"][json.loads(fields[1])] = (fields[2], json.loads(fields[3]))
        elif tag == "var":
            view["vars"][fields[0]] = {"type": fields[1], "dims": [], "fill": None, "atts": {}, "data": None}
        elif tag == "dims":
            view["vars"][fields[0]]["dims"] = [tuple(d) for d in json.loads(fields[1])]
        elif tag == "fill":
            if fields[1] == "error":
                fill = {"error": int(fields[2])}
            else:
                fill = {"nofill": int(fields[1]), "value": json.loads(fields[2])}
                if len(fields) > 3:
                    fill["bits"] = fields[3]
            view["vars"][fields[0]]["fill"] = fill
        elif tag == "vatt":
            view["vars"][fields[0]]["atts"][json.loads(fields[1])] = (fields[2], json.loads(fields[3]))
        elif tag == "data":
            if fields[1] == "error":
                view["vars"][fields[0]]["data"] = {"error": int(fields[2])}
            else:
                view["vars"][fields[0]]["data"] = {"values": json.loads(fields[1])}
        else:
            raise AssertionError(f"unknown dump line {line!r}")
    return view
