"""ABI coverage: every symbol that Debian's netcdf-bin tools and
libnetcdff.so.7 import, and Debian's libnetcdf.so.19 defines, is defined by
our library too, as the same kind of symbol (function or data object) and,
for data objects, of the same size (executables copy-relocate them)."""

import subprocess

import pytest

from harness import LIBNETCDFF, OUR_LIBDIR, SYSTEM_LIBNETCDF, TOOLS

IMPORTERS = {**{name: path for name, path in TOOLS.items()}, "libnetcdff": LIBNETCDFF}
FUNCTION_TYPES = set("TtWwi")


def nm(*args):
    result = subprocess.run(["nm", "-D", *args], capture_output=True, text=True, check=True)
    return result.stdout.splitlines()


def defined(lib):
    """name -> (kind, size) of the dynamic symbols lib defines."""
    out = {}
    for line in nm("-S", "--defined-only", str(lib)):
        fields = line.split()
        if len(fields) == 4:
            _, size, typ, name = fields
        elif len(fields) == 3:
            _, typ, name = fields
            size = None
        else:
            continue
        kind = "function" if typ in FUNCTION_TYPES else "data"
        out[name.split("@")[0]] = (kind, int(size, 16) if size and kind == "data" else None)
    return out


def imported(binary):
    return {line.split()[-1].split("@")[0] for line in nm("--undefined-only", str(binary))}


@pytest.fixture(scope="module")
def debian():
    return defined(SYSTEM_LIBNETCDF)


@pytest.fixture(scope="module")
def ours():
    lib = OUR_LIBDIR / "libnetcdf.so"
    assert lib.exists(), f"{lib} is missing: run `make build` first"
    return defined(lib)


@pytest.mark.parametrize("importer", list(IMPORTERS))
def test_we_define_what_it_imports_from_libnetcdf(debian, ours, importer):
    needed = sorted(imported(IMPORTERS[importer]) & debian.keys())
    assert needed, f"{importer} imports nothing from libnetcdf.so.19?"
    missing = [name for name in needed if name not in ours]
    assert not missing, f"{len(missing)} symbols {importer} needs are not defined: {' '.join(missing)}"
    differ = [f"{name}: Debian {debian[name]}, ours {ours[name]}" for name in needed
              if ours[name] != debian[name]]
    assert not differ, "kind or size differs:\n" + "\n".join(differ)
