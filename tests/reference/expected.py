"""What a reference must read as, from netcdf-c's read of the original
files (netCDF4-python, netcdf-c 4.10.1), raw: no masking, no scaling, the
values as stored, in native byte order.

`expected_arrays(files_dir, ref)` -> {path in the reference: numpy array},
for every variable of the source group (and its subgroups), concatenated
along ref.concat for a multi-file reference."""

import netCDF4
import numpy as np

# netcdf-c's default fill values (netcdf.h NC_FILL_*), by numpy kind+size.
DEFAULT_FILL = {
    "i1": -127, "u1": 255, "i2": -32767, "u2": 65535, "i4": -2147483647, "u4": 4294967295,
    "i8": -9223372036854775806, "u8": 18446744073709551614, "f4": 9.969209968386869e36,
    "f8": 9.969209968386869e36,
}


def _walk(group, prefix=""):
    for name, var in group.variables.items():
        var.set_auto_maskandscale(False)
        data = np.asarray(var[...])
        yield prefix + name, var, data.astype(data.dtype.newbyteorder("=")) if data.dtype.byteorder == ">" else data
    for name, sub in group.groups.items():
        yield from _walk(sub, prefix + name + "/")


def source_group(ds, path):
    g = ds
    for part in [p for p in path.split("/") if p]:
        g = g.groups[part]
    return g


def expected_arrays(files_dir, ref):
    per_file = []
    for name in ref.sources:
        with netCDF4.Dataset(files_dir / name) as ds:
            per_file.append({p: (tuple(v.dimensions), d) for p, v, d in _walk(source_group(ds, ref.group))})
    if len(per_file) == 1:
        return {p: d for p, (_, d) in per_file[0].items()}
    out = {}
    for p, (dims, d) in per_file[0].items():
        if ref.concat in dims:
            axis = dims.index(ref.concat)
            out[p] = np.concatenate([f[p][1] for f in per_file], axis=axis)
        else:
            out[p] = d
    return out
