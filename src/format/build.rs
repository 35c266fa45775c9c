//! Building the in-memory model from stored metadata: what every reader
//! (each NCZarr generation, pure Zarr v2 and v3) does alike.

use serde_json::Value;

use crate::error::{NcError, NcResult};
use crate::model::names::check_name;
use crate::model::{Dim, Group, Model};

/// A size: a non-negative JSON integer that fits this machine's `size_t`.
pub fn as_usize(v: &Value) -> NcResult<usize> {
    v.as_u64().and_then(|n| usize::try_from(n).ok()).ok_or(NcError::ENCZARR)
}

/// A list of sizes (a shape, a chunk shape, an order); anything else,
/// or nothing, is NC_ENCZARR.
pub fn usize_list(v: Option<&Value>) -> NcResult<Vec<usize>> {
    match v {
        Some(Value::Array(items)) => items.iter().map(as_usize).collect(),
        _ => Err(NcError::ENCZARR),
    }
}

/// A group, variable or dimension name read from metadata: a valid
/// netCDF name that is also a single storage key segment (so it cannot
/// lead outside the dataset: no `/`, `..`, backslash or NUL).
pub fn check_stored_name(name: &str) -> NcResult<()> {
    check_name(name.as_bytes()).map_err(|_| NcError::ENCZARR)?;
    crate::zmap::validate_key(name).map_err(|_| NcError::ENCZARR)
}

/// The name of an anonymous dimension of a pure Zarr array (netcdf-c 4.9.3+).
pub fn anonymous_dim(len: usize) -> String {
    format!("_Anonymous_Dim_{len}")
}

/// A new child group of `parent`, its name checked.
pub fn add_group(model: &mut Model, parent: usize, name: &str) -> NcResult<usize> {
    check_stored_name(name)?;
    let id = model.groups.len();
    model.groups.push(Group {
        name: name.to_string(),
        parent: Some(parent),
        children: Vec::new(),
        dims: Vec::new(),
        vars: Vec::new(),
        atts: Vec::new(),
        stored_path: None,
    });
    model.groups[parent].children.push(id);
    Ok(id)
}

/// A new dimension defined in group `g`, its name checked.
pub fn add_dim(model: &mut Model, g: usize, name: &str, len: usize, unlimited: bool) -> NcResult<usize> {
    check_name(name.as_bytes()).map_err(|_| NcError::ENCZARR)?;
    let id = model.dims.len();
    model.dims.push(Dim { name: name.to_string(), len, unlimited, appendable: false, group: g });
    model.groups[g].dims.push(id);
    Ok(id)
}

/// A list of names (NCZarr's member lists and dimension references,
/// `_ARRAY_DIMENSIONS`); absent or `null` is none.
pub fn name_list(v: Option<&Value>) -> NcResult<Vec<String>> {
    match v {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => {
            items.iter().map(|i| i.as_str().map(str::to_string).ok_or(NcError::ENCZARR)).collect()
        }
        Some(_) => Err(NcError::ENCZARR),
    }
}

/// NCZarr's dimensions of a group (`_nczarr_group.dimensions`): name →
/// size, or name → `{"size", "unlimited"}`, defined in group `g`.
pub fn add_nczarr_dims(model: &mut Model, g: usize, dims: &Value) -> NcResult<()> {
    for (name, spec) in dims.as_object().ok_or(NcError::ENCZARR)? {
        let (len, unlimited) = match spec {
            Value::Object(o) => (
                o.get("size").map(as_usize).transpose()?.unwrap_or(0),
                o.get("unlimited").and_then(Value::as_u64).unwrap_or(0) != 0,
            ),
            other => (as_usize(other)?, false),
        };
        // C callers size name buffers NC_MAX_NAME + 1 bytes
        // (`nc_inq_dimname`): a longer name, which no netCDF writer makes,
        // is not a netCDF dataset.
        if name.len() > crate::model::names::NC_MAX_NAME {
            return Err(NcError::ENCZARR);
        }
        add_dim(model, g, name, len, unlimited)?;
    }
    Ok(())
}

/// The dimensions of an array from its NCZarr references (full names,
/// `/g/x`), checked against its shape; an unlimited dimension grows to
/// the longest array using it.
pub fn referenced_dims(model: &mut Model, refs: &[String], shape: &[usize]) -> NcResult<Vec<usize>> {
    if refs.len() != shape.len() {
        return Err(NcError::ENCZARR);
    }
    let mut dimids = Vec::with_capacity(refs.len());
    for (r, &len) in refs.iter().zip(shape) {
        let d = model.find_dim(0, r).map_err(|_| NcError::ENCZARR)?;
        let dim = &mut model.dims[d];
        if dim.unlimited {
            dim.len = dim.len.max(len);
        } else if dim.len != len {
            return Err(NcError::ENCZARR);
        }
        dimids.push(d);
    }
    Ok(dimids)
}

/// Pure Zarr: the dimensions of an array in group `g`, all defined in `g`
/// itself, as netcdf-c 4.10 does: Zarr names are not qualified, so a name
/// in `_ARRAY_DIMENSIONS` (v2) or `dimension_names` (v3) is the array's
/// group's dimension of that name (never an ancestor's, whose length the
/// name need not share; netcdf-c's a0918ae), and an unnamed one (no names,
/// a list of the wrong length, a name that is not a netCDF name, such as
/// v3's `null` given as "") is `_Anonymous_Dim_<len>` of that group (as
/// netcdf-c's own tests now expect, its ref_newformatpure.cdl). A name
/// whose length differs from the same name's earlier use in the group
/// falls back to the anonymous dimension rather than fail the open.
///
/// A name qualified by a path (`obs/n`, `/obs/n`: kerchunk names the
/// dimensions of a netCDF-4 file's groups by their HDF5 paths) is that
/// group's dimension when the group is the array's or one of its
/// ancestors: the path says which group, so nothing is assumed.
pub fn pure_dims(model: &mut Model, g: usize, names: Option<&Vec<String>>, shape: &[usize]) -> NcResult<Vec<usize>> {
    let named = names.filter(|n| n.len() == shape.len());
    let mut dimids = Vec::with_capacity(shape.len());
    for (i, &len) in shape.iter().enumerate() {
        let (g, name) = match named.map(|n| qualified_dim(model, g, &n[i])) {
            Some((owner, name)) if check_name(name.as_bytes()).is_ok() => (owner, name.to_string()),
            _ => (g, anonymous_dim(len)),
        };
        let in_group =
            |model: &Model, name: &str| model.groups[g].dims.iter().copied().find(|&d| model.dims[d].name == name);
        let d = match in_group(model, &name) {
            Some(d) if model.dims[d].len == len => d,
            Some(_) => {
                let anon = anonymous_dim(len);
                match in_group(model, &anon) {
                    Some(d) => d,
                    None => add_dim(model, g, &anon, len, false)?,
                }
            }
            None => add_dim(model, g, &name, len, false)?,
        };
        dimids.push(d);
    }
    Ok(dimids)
}

/// The group and name a pure Zarr dimension name means for an array of
/// group `g`: a path's group if it is `g` or an ancestor of it (else the
/// whole text, which no netCDF name can be), a plain name `g`'s.
fn qualified_dim<'a>(model: &Model, g: usize, name: &'a str) -> (usize, &'a str) {
    let Some((path, base)) = name.rsplit_once('/') else { return (g, name) };
    match model.find_group_by_path(path) {
        Ok(owner) if model.ancestry(g).contains(&owner) => (owner, base),
        _ => (g, name),
    }
}

/// Pure Zarr: mark as appendable (see [`crate::model::Dim::appendable`])
/// every fixed dimension that is the first dimension of each array using
/// it, so that records can be appended to a reopened store, as to the
/// unlimited dimension it was written from.
pub fn mark_appendable(model: &mut Model) {
    let mut first_only = vec![None::<bool>; model.dims.len()];
    for var in model.groups.iter().flat_map(|g| &g.vars) {
        for (i, &d) in var.dimids.iter().enumerate() {
            let ok = first_only[d].unwrap_or(true) && i == 0;
            first_only[d] = Some(ok);
        }
    }
    for (dim, first) in model.dims.iter_mut().zip(first_only) {
        dim.appendable = !dim.unlimited && first == Some(true);
    }
}
