"""Debian's programs that link libnetcdf.so.19 -- NCO, CDO, GDAL,
python3-netcdf4 (and xarray over it), netcdf-c++4, and netcdf-bin's
ncdump/ncgen/nccopy -- run on .nc files (CDF-1, CDF-2, CDF-5, netCDF-4,
netCDF-4 classic) once over Debian's netcdf-c 4.9.0 and once over our
library, which must behave identically: same stdout, and files whose
`ncdump` (Debian's, over Debian's library) is the same. Our library also
converts those files to NCZarr stores (directory and zip) for NCO, nccopy,
python3-netcdf4, xarray and netcdf-c++4, and back.

Inputs are made in each test's tmp_path by Debian's ncgen over Debian's
library from the CDL files beside this module. Run with
    .venv/bin/python -m pytest tests/programs
NCZARR_RS_LIBDIR names the directory of our libnetcdf.so.19."""

import ctypes
import re
import subprocess

import pytest

import debian_programs as dp
from debian_programs import HERE, assert_same_stdout, assert_same_text, body, url

CLASSIC = ["classic_nc3.nc", "classic_nc6.nc", "classic_nc5.nc", "classic_nc7.nc"]
ALL_INPUTS = CLASSIC + ["cdf5.nc", "nc4.nc", "udt.nc", "grid.nc", "grid_nc3.nc"]
# Formats whose files netcdf-c writes byte for byte the same every time.
NETCDF3 = ("classic_nc3.nc", "classic_nc6.nc", "classic_nc5.nc", "cdf5.nc", "grid_nc3.nc")


def is_cdf5(name):
    return name in ("classic_nc5.nc", "cdf5.nc")


def dump_opts(name):
    # Debian's ncdump 4.9.0 fails on `-s` for CDF-5 files (over either
    # library: "Attempting netcdf-4 operation on netcdf-3 file").
    return [] if is_cdf5(name) else ["-s"]


def assert_same_files(runner, base, name, dump=None, same_bytes=False):
    """The file `name` each run wrote in base/debian and base/ours dumps the
    same with Debian's ncdump over Debian's library."""
    __tracebackhide__ = True
    d, o = base / "debian" / name, base / "ours" / name
    assert d.exists(), f"Debian's run wrote no {name}"
    assert o.exists(), f"the run over ours wrote no {name}"
    opts = dump_opts(name) if dump is None else dump
    dd = runner.ncdump(d, *opts)
    assert_same_text(dd, runner.ncdump(o, *opts), f"ncdump {' '.join(opts)} {name}")
    if same_bytes:
        assert d.read_bytes() == o.read_bytes(), f"{name}: same CDL but different bytes"
    return dd


# ---------------------------------------------------------------------------
# What each program imports resolves in our library.

IMPORTERS = [
    "/usr/bin/ncks", "/usr/bin/ncap2", "/usr/bin/ncra", "/usr/bin/ncrcat", "/usr/bin/ncrename",
    "/usr/bin/ncatted", "/usr/lib/nco/libnco-5.1.4.so", "/usr/bin/cdo",
    "/usr/lib/x86_64-linux-gnu/libcdi.so.0", "/usr/lib/x86_64-linux-gnu/libMagPlus.so.3",
    "/usr/bin/gdalinfo", "/usr/bin/gdal_translate", "/usr/lib/x86_64-linux-gnu/libgdal.so.32",
    "/usr/lib/python3/dist-packages/netCDF4/_netCDF4.cpython-311-x86_64-linux-gnu.so",
    "/usr/lib/x86_64-linux-gnu/libnetcdf_c++4.so.1", "/usr/bin/ncdump", "/usr/bin/ncgen",
    "/usr/bin/nccopy", "/usr/lib/x86_64-linux-gnu/libnetcdff.so.7",
]


def ldd_r(path, libdir=None):
    env = {"PATH": "/usr/bin:/bin"}
    if libdir:
        env["LD_LIBRARY_PATH"] = str(libdir)
    r = subprocess.run(["ldd", "-r", path], capture_output=True, text=True, env=env)
    undefined = set(re.findall(r"undefined symbol: (\S+)", r.stdout + r.stderr))
    netcdf = re.search(r"libnetcdf\.so\.19 => (\S+)", r.stdout)
    return undefined, netcdf.group(1) if netcdf else None


@pytest.mark.parametrize("path", IMPORTERS, ids=lambda p: p.rsplit("/", 1)[-1])
def test_imports_resolve(path):
    """Every symbol the program or library imports is found with our
    library in place of Debian's: ldd -r reports nothing undefined that it
    does not report over Debian's library too (libnco's callbacks live in
    the NCO executables, the netCDF4 module's in the Python interpreter)."""
    debian_undefined, debian_lib = ldd_r(path)
    ours_undefined, ours_lib = ldd_r(path, dp.OUR_LIBDIR)
    assert ours_lib and ours_lib.startswith(str(dp.OUR_LIBDIR)), ours_lib
    assert not debian_lib.startswith(str(dp.OUR_LIBDIR))
    assert ours_undefined - debian_undefined == set()


# ---------------------------------------------------------------------------
# Executables that use HDF5's global variables directly (cdo does).

def test_hdf5_copy_relocated_globals(runner, inputs, built, tmp_path):
    """A program that reads H5T_NATIVE_INT/H5T_NATIVE_DOUBLE itself has copy
    relocations for them; netCDF-4 files must still open, read and write
    over our library (cdo is such a program)."""
    grid = inputs("grid.nc")
    r = runner.both(tmp_path, [built["h5_copy_reloc"], grid.name, "tas", "out.nc"], inputs=[grid],
                    check=False)
    out = assert_same_stdout(r, "h5_copy_reloc grid.nc tas out.nc")
    assert "tas: 250 251 252" in out and "read back: seven=7 values equal" in out
    assert out.endswith("0 failures\n")
    assert_same_files(runner, tmp_path, "out.nc")


# ---------------------------------------------------------------------------
# NCO

NCO_PRINT_INPUTS = CLASSIC + ["cdf5.nc", "nc4.nc", "grid.nc"]
EXPECT = {
    "classic": ["temp", "270", "311.25", "alpha", "3.14159265358979"],
    "cdf5.nc": ["18446744073709551615", "-9223372036854775807", "123456789012", "4000000000"],
    "nc4.nc": ["ünïcødé", "three with spaces", "two levels down", "18446744073709551615"],
    "grid.nc": ["air_temperature", "266.5", "degrees_north"],
}


META = {"classic": "float temp(time,y,x)", "cdf5.nc": "int64 i64(rec,n)", "nc4.nc": "string names(x)",
        "grid.nc": "float tas(time,lat,lon)"}


def expected_strings(name):
    return EXPECT["classic" if name.startswith("classic") else name]


@pytest.mark.parametrize("name", NCO_PRINT_INPUTS)
@pytest.mark.parametrize("opts", [["-m"], []], ids=["ncks-m", "ncks"])
def test_ncks_print(runner, inputs, tmp_path, name, opts):
    f = inputs(name)
    out = assert_same_stdout(runner.both(tmp_path, ["ncks", *opts, name], inputs=[f]), f"ncks {opts} {name}")
    expected = [META[name.split("_")[0]]] if opts else expected_strings(name)
    for s in expected:
        assert s in out, f"{s!r} not in ncks output"


SUBSET_VAR = {"cdf5.nc": "i64", "grid.nc": "tas"}


@pytest.mark.parametrize("name", NCO_PRINT_INPUTS)
def test_ncks_subset(runner, inputs, tmp_path, name):
    f = inputs(name)
    var = SUBSET_VAR.get(name, "temp")
    runner.both(tmp_path, ["ncks", "-O", "-h", "-v", var, f, "sub.nc"])
    cdl = assert_same_files(runner, tmp_path, "sub.nc", dump=dump_opts(name), same_bytes=name in NETCDF3)
    assert f" {var} =" in cdl
    if var == "temp" and name != "nc4.nc":
        assert "311.25" in cdl and "\n name =" not in cdl


@pytest.mark.parametrize("name", ["classic_nc3.nc", "classic_nc5.nc", "nc4.nc"])
def test_ncrename(runner, inputs, tmp_path, name):
    f = inputs(name)
    # One rename a run: NCO 5.1.4 fails on -v and -a together (over either
    # library: it looks up the attribute's variable by its old name).
    renames = [["-v", "temp,temperature"], ["-d", "x,xx"], ["-a", ".units,Units"],
               ["-a", "global@title,Title"]]
    if name == "nc4.nc":
        renames.append(["-g", "sub,subgroup"])
    for lib in dp.LIBS:
        d = tmp_path / lib
        d.mkdir()
        (d / "r.nc").write_bytes(f.read_bytes())
        for r in renames:
            runner.run(lib, ["ncrename", "-h", *r, "r.nc"], cwd=d)
    cdl = assert_same_files(runner, tmp_path, "r.nc", dump=dump_opts(name))
    assert "float temperature(time," in cdl and "temperature:Units = \"K\"" in cdl
    assert "\txx = " in cdl and ":Title = " in cdl
    if name == "nc4.nc":
        assert "group: subgroup {" in cdl


@pytest.mark.parametrize("name", ["classic_nc3.nc", "classic_nc6.nc", "nc4.nc"])
def test_ncatted(runner, inputs, tmp_path, name):
    f = inputs(name)
    edits = ["-a", "units,temp,o,c,degC", "-a", "newatt,global,c,d,1.5", "-a", "scale_factor,temp,d,,",
             "-a", "title,global,a,c, (edited)", "-a", "valid_max,temp,c,f,350"]
    if name == "nc4.nc":
        edits += ["-a", "group_att,sub,o,c,changed", "-a", "u64,global,c,ull,18446744073709551615",
                  "-a", "s,global,c,sng,a string"]
    runner.both(tmp_path, ["ncatted", "-h", *edits, f, "at.nc"])
    cdl = assert_same_files(runner, tmp_path, "at.nc")
    assert 'temp:units = "degC"' in cdl and ":newatt = 1.5 ;" in cdl and "temp:scale_factor" not in cdl
    assert "temp:valid_max = 350.f ;" in cdl
    if name == "nc4.nc":
        assert ':group_att = "changed"' in cdl and ":u64 = 18446744073709551615ULL ;" in cdl
        assert 'string :s = "a string" ;' in cdl
    else:
        assert ':title = "classic test (edited)" ;' in cdl


@pytest.mark.parametrize("name", ["classic_nc3.nc", "nc4.nc"])
def test_ncap2(runner, inputs, tmp_path, name):
    f = inputs(name)
    script = "temp2=temp*2+1; tmax=temp.max(); "
    script += "c3=counts*3;" if name == "nc4.nc" else "i2=i*2;"
    runner.both(tmp_path, ["ncap2", "-h", "-O", "-s", script, f, "ap.nc"])
    cdl = assert_same_files(runner, tmp_path, "ap.nc")
    if name == "nc4.nc":
        assert " tmax = 20 ;" in cdl and " c3 = 0, 30, 300, 3000, -3 ;" in cdl
        assert "23, _, 27, 29, 32," in cdl
    else:
        assert " tmax = 311.25 ;" in cdl and "541, 543, 545, 547," in cdl


@pytest.mark.parametrize("fmt", ["nc3", "nc4"])
@pytest.mark.parametrize("op", ["ncrcat", "ncra"])
def test_ncra_ncrcat(runner, inputs, tmp_path, fmt, op):
    suffix = "_nc3" if fmt == "nc3" else ""
    one, two = inputs(f"grid{suffix}.nc"), inputs(f"grid2{suffix}.nc")
    runner.both(tmp_path, [op, "-h", "-O", one, two, "out.nc"])
    cdl = assert_same_files(runner, tmp_path, "out.nc", same_bytes=fmt == "nc3")
    if op == "ncrcat":
        assert "time = 15.5, 45, 74.5, 105 ;" in cdl and "// (4 currently)" in cdl
    else:
        assert "time = 60 ;" in cdl and "250.5, 251.5, 252.5" in cdl


ZARR_INPUTS = ["classic_nc3.nc", "classic_nc6.nc", "cdf5.nc", "nc4.nc", "grid.nc"]


NCKS_ZARR_CASES = [(name, ["-4"]) for name in ZARR_INPUTS] + [("classic_nc3.nc", []), ("nc4.nc", [])]


@pytest.mark.parametrize("mode", ["file", "zip"])
@pytest.mark.parametrize("name,opts", NCKS_ZARR_CASES, ids=[f"{n}{''.join(o)}" for n, o in NCKS_ZARR_CASES])
def test_ncks_nczarr_roundtrip(runner, inputs, tmp_path, name, opts, mode):
    """ncks -4 in.nc URL writes an NCZarr store over ours holding what ncks
    -4 writes to a netCDF-4 file over Debian's library; ncks URL back.nc
    brings it back. (-4 is needed for CDF-2 and CDF-5 inputs, optional for
    CDF-1 and netCDF-4 ones: NCO creates its output in the input's format,
    and netcdf-c refuses NC_64BIT_OFFSET/NC_64BIT_DATA for an NCZarr URL
    with NC_EINVAL, while a CDF-1 create mode makes a netCDF-4 store. NCO
    writes the store as out.zarr.pidN.ncks.tmp and renames it. Debian's
    netcdf-c 4.9.0 cannot write these stores itself: its NCZarr has no
    unlimited dimensions.)"""
    f = inputs(name)
    ref = tmp_path / "ref.nc"
    runner.run("debian", ["ncks", "-4", "-h", f, ref], cwd=tmp_path)
    store = tmp_path / ("out.zarr" if mode == "file" else "out.zip")
    runner.run("ours", ["ncks", *opts, "-h", f, url(store, mode)], cwd=tmp_path)
    assert store.exists()
    assert not list(tmp_path.glob("*.tmp")), "NCO left its temporary store"
    expected = body(runner.ncdump(ref))
    assert_same_text(expected, body(runner.ncdump(url(store, mode), lib="ours")),
                     f"ncdump of the store vs of ncks -4 {name} ref.nc")
    back = tmp_path / "back.nc"
    runner.run("ours", ["ncks", "-h", url(store, mode), back], cwd=tmp_path)
    assert_same_text(expected, body(runner.ncdump(back)), "ncdump of back.nc")
    for s in expected_strings(name):
        assert s in expected


@pytest.mark.parametrize("name", ["classic_nc6.nc", "cdf5.nc"])
def test_ncks_nczarr_needs_netcdf4_output(runner, inputs, tmp_path, name):
    """Without -4, NCO asks for a CDF-2/CDF-5 NCZarr store: refused with
    NC_EINVAL over both libraries alike."""
    f = inputs(name)
    r = {}
    for lib in dp.LIBS:
        (tmp_path / lib).mkdir()
        r[lib] = runner.run(lib, ["ncks", "-h", f, url(tmp_path / lib / "x.zarr")], cwd=tmp_path, check=False)
        assert r[lib].returncode == 1
        assert "Invalid argument" in r[lib].stderr
    norm = [re.sub(r"pid\d+", "pidN", re.sub(r"/(debian|ours)/", "/LIB/", r[lib].stderr)) for lib in dp.LIBS]
    assert_same_text(*norm, "ncks's error")


# ---------------------------------------------------------------------------
# CDO

@pytest.mark.parametrize("name", ["grid_nc3.nc", "grid.nc"])
@pytest.mark.parametrize("op", ["sinfo", "infon"])
def test_cdo_info(runner, inputs, tmp_path, name, op):
    f = inputs(name)
    out = assert_same_stdout(runner.both(tmp_path, ["cdo", "-s", op, f.name], inputs=[f], check=False),
                             f"cdo {op} {name}")
    if op == "sinfo":
        assert "lonlat" in out and "points=24 (6x4)" in out and "2000-01-16 12:00:00" in out
    else:
        assert "250.00" in out and "295.00" in out and "296.00" in out and "tas" in out


CDO_WRITERS = {
    "copy-nc4": ["-f", "nc4", "copy"],
    "fldmean": ["fldmean"],
    "timmean-nc4-zip": ["-f", "nc4", "-z", "zip_5", "timmean"],
}


@pytest.mark.parametrize("name", ["grid_nc3.nc", "grid.nc"])
@pytest.mark.parametrize("op", list(CDO_WRITERS))
def test_cdo_writes(runner, inputs, tmp_path, name, op):
    f = inputs(name)
    r = runner.both(tmp_path, ["cdo", "-s", *CDO_WRITERS[op], f.name, "out.nc"], inputs=[f], check=False)
    assert_same_stdout(r, f"cdo {op} {name}")
    cdl = assert_same_files(runner, tmp_path, "out.nc")
    if op == "copy-nc4":
        assert '_Format = "netCDF-4"' in cdl and "261, 262, 263, 264, 265, 266.5 ;" in cdl
    elif op == "timmean-nc4-zip":
        # (Debian's cdo 2.1.1 writes this 24-point grid uncompressed.)
        assert 'tas:cell_methods = "time: mean"' in cdl and "250.5, 251.5, 252.5" in cdl
    else:
        assert "tas =" in cdl and "lat = 0 ;" in cdl


# ---------------------------------------------------------------------------
# GDAL (its netCDF driver lives in libgdal.so.32)

_STAMP = re.compile(r"\w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d \d{4}")


def gdal_norm(text):
    """GDAL's history attributes carry the time of the run."""
    return _STAMP.sub("<time>", text)


def band_stats(info):
    return re.findall(r"^\s+(Minimum=.*|STATISTICS_\w+=.*|NoData Value=.*)$", info, re.M)


@pytest.mark.parametrize("name", ["grid.nc", "grid_nc3.nc"])
def test_gdalinfo(runner, inputs, tmp_path, name):
    f = inputs(name)
    out = assert_same_stdout(runner.both(tmp_path / "a", ["gdalinfo", f.name], inputs=[f]), f"gdalinfo {name}")
    assert "Driver: netCDF/Network Common Data Format" in out and "Size is 6, 4" in out
    assert "NC_GLOBAL#Conventions=CF-1.6" in out and "NETCDF_DIM_time_VALUES={15.5,45}" in out
    out = assert_same_stdout(runner.both(tmp_path / "b", ["gdalinfo", "-stats", f"NETCDF:{f.name}:tas"],
                                         inputs=[f]), f"gdalinfo -stats {name}")
    assert "Minimum=250.000, Maximum=295.000, Mean=270.217, StdDev=15.171" in out
    assert "Minimum=251.000, Maximum=296.000" in out


@pytest.mark.parametrize("name", ["grid.nc", "grid_nc3.nc"])
def test_gdal_translate(runner, inputs, tmp_path, name):
    f = inputs(name)
    outputs = {
        "t.nc": ["-of", "netCDF"],
        "t4.nc": ["-of", "netCDF", "-co", "FORMAT=NC4C", "-co", "COMPRESS=DEFLATE"],
        "t.tif": ["-of", "GTiff"],
    }
    stats = {}
    for out, opts in outputs.items():
        runner.both(tmp_path, ["gdal_translate", "-q", *opts, f"NETCDF:{f.name}:tas", out], inputs=[f])
        info = assert_same_stdout(runner.both(tmp_path, ["gdalinfo", "-stats", out]), f"gdalinfo -stats {out}",
                                  normalize=gdal_norm)
        stats[out] = band_stats(info)
        if out.endswith(".nc"):
            d, o = (gdal_norm(runner.ncdump(tmp_path / lib / out)) for lib in dp.LIBS)
            assert_same_text(d, o, f"ncdump {out}")
        else:
            d, o = ((tmp_path / lib / out).read_bytes() for lib in dp.LIBS)
            assert d == o, "the GeoTIFFs differ"
    # The same grid whichever way it was written.
    assert stats["t.nc"] == stats["t4.nc"] == stats["t.tif"]
    assert "Minimum=250.000, Maximum=295.000, Mean=270.217, StdDev=15.171" in stats["t.tif"]


# ---------------------------------------------------------------------------
# python3-netcdf4 (Debian's, run by /usr/bin/python3) and python3-xarray

PY = ["/usr/bin/python3", HERE / "py_netcdf4.py"]


def our_libvers():
    lib = ctypes.CDLL(str(dp.OUR_LIB))
    lib.nc_inq_libvers.restype = ctypes.c_char_p
    return lib.nc_inq_libvers().decode()


def test_python_netcdf4_versions(runner, tmp_path):
    r = {lib: runner.run(lib, [*PY, "versions"], cwd=tmp_path).stdout for lib in dp.LIBS}
    versions = {lib: dict(line.split(" ", 1) for line in out.splitlines()) for lib, out in r.items()}
    # H5get_libversion answers the HDF5 version of the netcdf-c we load.
    assert versions["ours"]["hdf5"] == versions["debian"]["hdf5"] == "1.10.8"
    assert versions["debian"]["netcdf"] == "4.9.0"
    assert versions["ours"]["netcdf"] == our_libvers().split()[0]
    assert versions["ours"]["netCDF4"] == versions["debian"]["netCDF4"]


@pytest.mark.parametrize("name", ALL_INPUTS)
def test_python_netcdf4_read(runner, inputs, tmp_path, name):
    f = inputs(name)
    out = assert_same_stdout(runner.both(tmp_path, [*PY, "dump", f.name], inputs=[f]), f"dump {name}")
    if name == "udt.nc":
        assert "raw = [<i4[3]:[1, 2, 3], <i4[0]:[], <i4[1]:[-4]]" in out
        assert "enum cloud_t uint8" in out and "(-2, 25000000000.0" in out
        assert "raw = [<f4[1]:[0.5], <f4[2]:[1.5, 2.5], <f4[0]:[]]" in out
    elif name == "nc4.nc":
        assert "'ünïcødé'" in out and "group /sub/deeper" in out and "'complevel': 9" in out
    elif name.startswith("grid"):
        assert "266.5" in out
    else:
        for s in expected_strings(name):
            assert s.replace("alpha", "b'alpha'") in out or s in out


def test_python_netcdf4_write(runner, tmp_path):
    r = runner.both(tmp_path, [*PY, "write", "w.nc"])
    out = assert_same_stdout(r, "write w.nc")
    assert "'complevel': 6" in out and "'γάμμα'" in out and "18446744073709551615" in out
    assert_same_files(runner, tmp_path, "w.nc")
    # The same through our NCZarr: a directory store and a zip store.
    expected = [line for line in out.splitlines()[1:] if not line.lstrip().startswith("chunking")]
    for store, mode in (("w.zarr", "file"), ("w.zip", "zip")):
        z = runner.run("ours", [*PY, "write", url(tmp_path / store, mode)], cwd=tmp_path).stdout
        assert_same_text("\n".join(expected), "\n".join(z.splitlines()[1:]), f"{store} vs w.nc")
        cdl = runner.ncdump(url(tmp_path / store, mode), lib="ours")
        assert_same_text(body(runner.ncdump(tmp_path / "debian" / "w.nc")), body(cdl), f"ncdump {store}")


def test_xarray(runner, inputs, tmp_path):
    f = inputs("grid.nc")
    debian = runner.run("debian", [*PY, "xarray", f], cwd=tmp_path).stdout
    ours = runner.run("ours", [*PY, "xarray", f], cwd=tmp_path).stdout
    assert_same_text(debian, ours, "xarray on grid.nc")
    assert "tas mean over time" in debian and "'units': 'degrees_north'" in debian
    store = tmp_path / "grid.zarr"
    runner.run("ours", ["nccopy", f, url(store)], cwd=tmp_path)
    assert_same_text(debian, runner.run("ours", [*PY, "xarray", url(store)], cwd=tmp_path).stdout,
                     "xarray on the NCZarr copy of grid.nc")


# ---------------------------------------------------------------------------
# netcdf-c++4

CXX_EXPECTED = """title=written by netcdf-c++4 answer=42
t=2 unlimited=1 x=3
v deflate=1 shuffle=1 level=5
v units=m s-1 values=0.5 1.5 2.5 -3.25 4e+10 1e-09 
group grp kind=subgroup groups=1
name=[alpha]
name=[]
name=[gamma delta]
name=[été]
int64=-9223372036854775807
int64=0
int64=1
int64=9223372036854775807
"""


def test_netcdf_cxx4(runner, built, tmp_path):
    r = runner.both(tmp_path, [built["cxx4_roundtrip"], "c.nc"])
    assert assert_same_stdout(r, "cxx4_roundtrip c.nc") == CXX_EXPECTED
    assert_same_files(runner, tmp_path, "c.nc")
    for store, mode in (("c.zarr", "file"), ("c.zip", "zip")):
        z = runner.run("ours", [built["cxx4_roundtrip"], url(tmp_path / store, mode)], cwd=tmp_path)
        assert z.stdout == CXX_EXPECTED


# ---------------------------------------------------------------------------
# netcdf-bin: ncdump, ncgen, nccopy

def ncdump_cases():
    for name in ALL_INPUTS:
        netcdf4 = name in ("nc4.nc", "udt.nc", "grid.nc")
        var = {"cdf5.nc": "u64", "udt.nc": "s"}.get(name, "time")
        for opts in ([], ["-h"], ["-s"], ["-c"], ["-t"], ["-x"], ["-k"], ["-v", var], ["-b", "c"], ["-p", "3,5"]):
            if opts == ["-s"] and is_cdf5(name):
                continue  # see dump_opts
            if opts == ["-x"] and netcdf4:
                continue  # NcML output is only for the classic model
            yield pytest.param(name, opts, id=f"{' '.join(opts) or 'plain'}-{name}")


@pytest.mark.parametrize("name,opts", list(ncdump_cases()))
def test_ncdump(runner, inputs, tmp_path, name, opts):
    f = inputs(name)
    out = assert_same_stdout(runner.both(tmp_path, ["ncdump", *opts, f.name], inputs=[f]),
                             f"ncdump {' '.join(opts)} {name}")
    assert out.strip()


@pytest.mark.parametrize("kind", ["nc3", "nc6", "nc5", "nc4", "nc7"])
def test_ncgen_kinds(runner, tmp_path, kind):
    runner.both(tmp_path, ["ncgen", "-k", kind, "-o", "g.nc", HERE / "classic.cdl"])
    cdl = assert_same_files(runner, tmp_path, "g.nc", dump=[] if kind == "nc5" else ["-s"],
                            same_bytes=kind in ("nc3", "nc6", "nc5"))
    assert "311.25" in cdl and re.search(r'"alpha",\s+"beta",\s+"gamma" ;', cdl)
    fmt = {"nc3": "classic", "nc6": "64-bit offset", "nc5": "cdf5", "nc4": "netCDF-4",
           "nc7": "netCDF-4 classic model"}[kind]
    assert runner.ncdump(tmp_path / "ours" / "g.nc", "-k").strip() == fmt


@pytest.mark.parametrize("cdl", ["nc4.cdl", "udt.cdl", "grid.cdl"])
def test_ncgen_netcdf4(runner, tmp_path, cdl):
    runner.both(tmp_path, ["ncgen", "-k", "nc4", "-b", HERE / cdl])
    name = cdl.replace(".cdl", ".nc")
    dumped = assert_same_files(runner, tmp_path, name)
    assert "data:" in dumped


NCCOPY = {
    "k4-d5": ["-k", "nc4", "-d", "5"],
    "k7-d1-s": ["-k", "nc7", "-d", "1", "-s"],
    "k3": ["-k", "nc3"],
    "k6": ["-k", "nc6"],
    "k5": ["-k", "nc5"],
    "plain": [],
    "chunk": ["-c", "time/1,x/2"],
    "V": ["-V", "time,temp"],
}
NCCOPY_CASES = [
    ("k4-d5", "classic_nc3.nc"), ("k4-d5", "classic_nc6.nc"), ("k4-d5", "cdf5.nc"), ("k4-d5", "grid.nc"),
    ("k7-d1-s", "classic_nc6.nc"), ("k3", "classic_nc5.nc"), ("k6", "classic_nc7.nc"), ("k5", "classic_nc3.nc"),
    ("plain", "udt.nc"), ("plain", "nc4.nc"), ("chunk", "nc4.nc"), ("V", "classic_nc3.nc"),
]


@pytest.mark.parametrize("how,name", NCCOPY_CASES, ids=[f"{h}-{n}" for h, n in NCCOPY_CASES])
def test_nccopy(runner, inputs, tmp_path, how, name):
    f = inputs(name)
    runner.both(tmp_path, ["nccopy", *NCCOPY[how], f, "out.nc"])
    cdl = assert_same_files(runner, tmp_path, "out.nc", dump=[] if how == "k5" else ["-s"],
                            same_bytes=how in ("k3", "k6", "k5"))
    if how == "k4-d5":
        assert "_DeflateLevel = 5" in cdl
    if how == "V":
        assert "temp =" in cdl and " b =" not in cdl


@pytest.mark.parametrize("mode", ["file", "zip"])
@pytest.mark.parametrize("name", ["classic_nc3.nc", "classic_nc6.nc", "cdf5.nc", "nc4.nc", "grid.nc"])
def test_nccopy_nczarr_roundtrip(runner, inputs, tmp_path, name, mode):
    """nccopy -k nc4 in.nc URL, then nccopy URL back.nc, over ours: both
    dump as the input does. (-k nc4 for the same reason as ncks -4.)"""
    f = inputs(name)
    store = tmp_path / ("s.zarr" if mode == "file" else "s.zip")
    runner.run("ours", ["nccopy", "-k", "nc4", f, url(store, mode)], cwd=tmp_path)
    original = body(runner.ncdump(f))
    assert_same_text(original, body(runner.ncdump(url(store, mode), lib="ours")), f"ncdump of the store of {name}")
    runner.run("ours", ["nccopy", url(store, mode), tmp_path / "back.nc"], cwd=tmp_path)
    assert_same_text(original, body(runner.ncdump(tmp_path / "back.nc")), "ncdump back.nc")
    assert runner.ncdump(tmp_path / "back.nc", "-k").strip() == "netCDF-4"


def test_nccopy_nczarr_refuses_user_defined_types(runner, inputs, tmp_path):
    """NCZarr has no user-defined types: nccopy fails the same way over
    Debian's NCZarr and over ours (the file has no unlimited dimension, which
    Debian's 4.9.0 NCZarr would refuse first)."""
    f = inputs("udt.nc")
    r = {lib: runner.run(lib, ["nccopy", f, url(tmp_path / f"{lib}.zarr")], cwd=tmp_path, check=False)
         for lib in dp.LIBS}
    for lib in dp.LIBS:
        assert r[lib].returncode == 1, r[lib].stderr
    assert_same_text(r["debian"].stderr, r["ours"].stderr, "nccopy's error")
