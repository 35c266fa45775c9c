"""Shared fixtures for the zip store tests: the C helpers built against our
library (and some against netcdf-c 4.10.1, the netCDF4 wheel's library,
which writes the directory stores the netcdf-c layout tests zip), Debian's
ncdump and nccopy run over our library through tests/tools/harness.py, and
URL helpers.

In CI (CI=true) a missing tool (Info-ZIP zip, Debian's netcdf-bin) is a
failure; elsewhere the tests that need it are skipped."""

import os
import pathlib
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
HERE = pathlib.Path(__file__).resolve().parent
INTEROP = ROOT / "tests" / "interop"
IN_CI = os.environ.get("CI") == "true"

sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "tests" / "tools"))
import harness  # noqa: E402

sys.path.insert(0, str(ROOT / "tests"))
from cbuild import build  # noqa: E402

OUR_LIBDIR = harness.OUR_LIBDIR

NC_EEXIST = -35
NC_ENOTNC = -51
NC_ENCZARR = -137

# The writers of tests/interop and what each writes (their usage comments).
WRITERS = ["write_sample", "write_data", "write_numeric", "write_plain", "write_filtered"]
# netcdf-c 4.10.1 has no lz4 codec, so it cannot run write_filtered.
NETCDF_C_WRITERS = ["write_sample", "write_data", "write_numeric", "write_plain"]


def missing(what):
    """A tool is not installed: fail in CI, skip elsewhere."""
    if IN_CI:
        pytest.fail(f"{what} (CI=true: tools/install-test-deps.sh installs every tool the zip tests use)")
    pytest.skip(what)


@pytest.fixture(scope="session")
def progs(tmp_path_factory):
    """name -> program: describe and the writers against our library,
    netcdf_c_<name> against netcdf-c 4.10.1, and zip_edit."""
    d = tmp_path_factory.mktemp("progs")
    out = {"zip_edit": build(HERE / "zip_edit.c", d / "zip_edit"),
           "describe": build(INTEROP / "describe.c", d / "describe"),
           "netcdf_c_describe": build(INTEROP / "describe.c", d / "netcdf_c_describe", against_wheel=True)}
    sources = {"write_sample": "write_sample.c", "write_data": "write_data.c",
               "write_numeric": "write_numeric.c", "write_plain": "write_plain.c",
               "write_filtered": "write_filtered.c"}
    for name, source in sources.items():
        out[name] = build(INTEROP / source, d / name)
        if name in NETCDF_C_WRITERS:
            out["netcdf_c_" + name] = build(INTEROP / source, d / ("netcdf_c_" + name), against_wheel=True)
    return out


def run(prog, *args, check=True, timeout=60, env=None, input=None):
    """Run a helper program; returns the CompletedProcess. With check, a
    non-zero exit fails the test with its stderr. A signal (a crash) or a
    hang always fails it."""
    try:
        result = subprocess.run([str(prog), *map(str, args)], capture_output=True, text=True, timeout=timeout,
                                env=env, input=input)
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"{pathlib.Path(prog).name} {' '.join(map(str, args))} did not return in {timeout} s "
                    f"(stderr: {e.stderr!r})")
    assert result.returncode >= 0, (f"{pathlib.Path(prog).name} {' '.join(map(str, args))} died of signal "
                                    f"{-result.returncode}: {result.stderr[-3000:]}")
    if check:
        assert result.returncode == 0, (f"{pathlib.Path(prog).name} {' '.join(map(str, args))} exited "
                                        f"{result.returncode}: {result.stderr[-3000:]}")
    return result


def describe(progs, url):
    """describe.c's account of a dataset through our library."""
    return run(progs["describe"], url).stdout


def netcdf_c_describe(progs, url):
    return run(progs["netcdf_c_describe"], url).stdout


def parse_probe(out):
    """What zip_edit probe printed: (open status, {variable path: (read
    status, values as text)})."""
    lines = out.splitlines()
    assert lines and lines[0].startswith("open "), f"no open status in {out!r}"
    status = int(lines[0].split()[1])
    variables = {}
    for line in lines[1:]:
        if line.startswith("var "):
            words = line.split(" ", 3)
            variables[words[1]] = (int(words[2]) if words[2] != "skipped" else 0,
                                   words[3] if len(words) > 3 else "")
    return status, variables


def probe(progs, url):
    """Open a dataset and read each variable (zip_edit probe)."""
    return parse_probe(run(progs["zip_edit"], "probe", url).stdout)


def dir_url(path, mode="nczarr"):
    return f"file://{path}#mode={mode},file"


def zip_url(path, mode="nczarr", layout=None):
    url = f"file://{path}#mode={mode},zip"
    return url + f"&zip_layout={layout}" if layout else url


def same_as_netcdf_c(ours, theirs):
    """netcdf-c hands out an empty NC_STRING value as a NULL pointer, we
    hand out "" (tests/interop/conftest.py); that one difference is
    expected."""
    assert ours == theirs.replace("NULL", '""')


@pytest.fixture(scope="session")
def ours(tmp_path_factory):
    """Debian's tools over our libnetcdf.so.19 (tests/tools/harness.py, which
    checks the loader really used it)."""
    tools = [p for p in harness.TOOLS.values() if not p.exists()]
    if tools:
        missing(f"no {tools}: tools/install-test-deps.sh installs netcdf-bin")
    lib = OUR_LIBDIR / "libnetcdf.so.19"
    assert lib.exists(), f"{lib} is missing: run `make build` first"
    harness.WORK.mkdir(parents=True, exist_ok=True)
    home = tmp_path_factory.mktemp("home")
    return harness.Library("ours", OUR_LIBDIR, None, [lib], home)


def ncdump(lib, *args):
    """ncdump's output over a library; fails the test on a non-zero exit."""
    return harness.ok("ncdump", lib, *args)


@pytest.fixture(scope="session")
def infozip():
    """Info-ZIP's zip."""
    exe = shutil.which("zip")
    if not exe:
        missing("no Info-ZIP zip: tools/install-test-deps.sh installs it")
    return exe


@pytest.fixture(scope="session")
def written(progs, tmp_path_factory):
    """written(writer, mode, layout) -> path: what one tests/interop writer
    writes through our library, memoised for the session. layout "dir" is
    a directory store d.file; "default" a zip d.zip in netcdf-c's layout;
    "root" a zip d.zip written with zip_layout=root."""
    made = {}

    def get(writer, mode, layout):
        key = (writer, mode, layout)
        if key not in made:
            d = tmp_path_factory.mktemp(f"{writer}-{mode}-{layout}")
            if layout == "dir":
                path = d / "d.file"
                url = dir_url(path, mode)
            else:
                path = d / "d.zip"
                url = zip_url(path, mode, "root" if layout == "root" else None)
            run(progs[writer], url)
            made[key] = path
        return made[key]
    return get
