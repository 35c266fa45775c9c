"""Debian's python3-netcdf4 (and python3-xarray) at work, run by
/usr/bin/python3 over whichever libnetcdf.so.19 the loader finds. Prints
what it reads in a canonical form, so the tests compare the printouts
over Debian's netcdf-c and over ours.

    python3 py_netcdf4.py versions
    python3 py_netcdf4.py dump PATH_OR_URL...
    python3 py_netcdf4.py write PATH_OR_URL      (then dumps what it wrote)
    python3 py_netcdf4.py xarray PATH_OR_URL...
"""

import sys
import warnings

import netCDF4
import numpy as np


def show(value):
    """A canonical text for an attribute or variable value."""
    if isinstance(value, np.ma.MaskedArray):
        return "masked" + show(value.filled(value.fill_value)) + " mask=" + show(np.ma.getmaskarray(value))
    if isinstance(value, np.ndarray):
        if value.dtype.kind == "S" and value.dtype.itemsize == 1 and value.ndim:
            return "chars" + show(netCDF4.chartostring(value).astype(object))
        if value.dtype.kind == "O":
            return "[" + ", ".join(show(v) for v in value.ravel()) + "] shape=" + str(value.shape)
        if value.dtype.names:
            return "[" + ", ".join(repr(v.tolist()) for v in value.ravel()) + "]"
        return f"{value.dtype.str}{list(value.shape)}:{value.ravel().tolist()!r}"
    if isinstance(value, (bytes, str)):
        return repr(value)
    if isinstance(value, np.generic):
        return f"{value.dtype.str}:{value.item()!r}"
    return repr(value)


def att(obj, name):
    try:
        return show(obj.getncattr(name))
    except (KeyError, RuntimeError) as e:  # netCDF4 1.6.2 reads no vlen attributes
        return f"unreadable: {e}"


def dump_group(g, indent=""):
    print(f"{indent}group {g.path}")
    for name in g.ncattrs():
        print(f"{indent}  :{name} = {att(g, name)}")
    for name, d in g.dimensions.items():
        print(f"{indent}  dim {name} = {len(d)}{' unlimited' if d.isunlimited() else ''}")
    for name, t in g.enumtypes.items():
        print(f"{indent}  enum {name} {t.dtype} {sorted(t.enum_dict.items())}")
    for name, t in g.cmptypes.items():
        print(f"{indent}  compound {name} {t.dtype}")
    for name, t in g.vltypes.items():
        print(f"{indent}  vlen {name} {t.dtype}")
    for name, v in g.variables.items():
        dtype = v.dtype if not isinstance(v.datatype, netCDF4.EnumType) else f"enum {v.datatype.name}"
        print(f"{indent}  var {name} {dtype} {v.dimensions} {v.shape}")
        if g.data_model.startswith("NETCDF4"):
            print(f"{indent}    filters {v.filters()}")
            # NCZarr stores every variable chunked: no contiguous layout.
            if not g.filepath().startswith("file://"):
                print(f"{indent}    chunking {v.chunking()}")
        for a in v.ncattrs():
            print(f"{indent}    :{a} = {att(v, a)}")
        v.set_auto_maskandscale(False)
        print(f"{indent}    raw = {show(v[...])}")
        if v.ncattrs() and not isinstance(v.datatype, (netCDF4.CompoundType, netCDF4.VLType, netCDF4.EnumType)):
            v.set_auto_maskandscale(True)
            print(f"{indent}    masked/scaled = {show(v[...])}")
    for sub in g.groups.values():
        dump_group(sub, indent + "  ")


def dump(path):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with netCDF4.Dataset(path) as ds:
            print(f"{ds.file_format} {ds.data_model} disk_format={ds.disk_format}")
            dump_group(ds)
    for w in caught:
        print(f"warning: {w.message}")


def write(path):
    with netCDF4.Dataset(path, "w", format="NETCDF4") as ds:
        ds.title = "written by python3-netcdf4"
        ds.setncattr_string("tags", ["a", "b c"])
        ds.createDimension("time", None)
        ds.createDimension("x", 4)
        t = ds.createVariable("time", "f8", ("time",))
        t.units = "days since 2000-01-01"
        t[:] = [0.0, 1.0, 2.5]
        v = ds.createVariable("v", "f4", ("time", "x"), zlib=True, complevel=6, shuffle=True,
                              chunksizes=(1, 4), fill_value=np.float32(-999))
        v.units = "K"
        v.scale_factor = np.float32(0.5)
        v.set_auto_maskandscale(False)
        v[:] = np.arange(12, dtype="f4").reshape(3, 4)
        v[1, 2] = -999
        g = ds.createGroup("sub")
        g.note = "in a group"
        g.createDimension("n", 3)
        s = g.createVariable("names", str, ("n",))
        s[:] = np.array(["alpha", "", "γάμμα"], dtype=object)
        i = g.createVariable("big", "u8", ("n",), zlib=True)
        i[:] = np.array([0, 2**63, 2**64 - 1], dtype="u8")
        deeper = g.createGroup("deeper")
        deeper.createVariable("scalar", "i2")[...] = -7
    dump(path)


def xarray_dump(path):
    import xarray as xr

    with xr.open_dataset(path, engine="netcdf4") as ds:
        print("dims", dict(ds.sizes))
        print("attrs", dict(sorted(ds.attrs.items())))
        for name in sorted(ds.variables):
            v = ds[name]
            print(name, v.dims, v.dtype, dict(sorted((k, str(x)) for k, x in v.attrs.items())))
            print("  ", np.asarray(v.values).ravel().tolist())
        if "tas" in ds:
            print("tas mean over time", ds["tas"].mean("time").values.round(4).ravel().tolist())


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "versions":
        print("netCDF4", netCDF4.__version__)
        print("hdf5", netCDF4.__hdf5libversion__)
        print("netcdf", netCDF4.__netcdf4libversion__)
        print("has_nc_create_mem", netCDF4.__has_nc_create_mem__)
    elif cmd == "dump":
        for p in args:
            dump(p)
    elif cmd == "write":
        write(args[0])
    elif cmd == "xarray":
        for p in args:
            xarray_dump(p)
    else:
        raise SystemExit(f"unknown command {cmd}")


if __name__ == "__main__":
    main()
