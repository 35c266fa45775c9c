//! The netCDF-4 data model of one open dataset, in memory: groups,
//! dimensions, variables and attributes, with the checks and error codes
//! netcdf-c applies when they are defined, renamed and queried.
//!
//! Ids follow netCDF-4: group ids are per dataset (root = 0), dimension ids
//! are unique across the dataset, variable ids are per group, attribute
//! numbers are positions in a group's or variable's attribute list.

pub mod attrs;
pub mod chunking;
pub mod filters;
pub mod names;
pub mod quantize;
pub mod values;

use crate::error::{NcError, NcResult};
use crate::types::*;
use chunking::DimShape;
pub use values::Values;

pub const NC_GLOBAL: i32 = -1;
pub const NC_FILL: i32 = 0;
pub const NC_NOFILL: i32 = 0x100;
pub const NC_CHUNKED: i32 = 0;
pub const NC_CONTIGUOUS: i32 = 1;
pub const NC_COMPACT: i32 = 2;
pub const NC_MAX_VAR_DIMS: usize = 1024;

#[derive(Debug, Clone, PartialEq)]
pub struct Attr {
    pub name: String,
    pub values: Values,
}

#[derive(Debug, Clone)]
pub struct Dim {
    pub name: String,
    /// Current length (for an unlimited dimension, the longest record).
    pub len: usize,
    pub unlimited: bool,
    /// Pure Zarr records no unlimited flag, so a reopened pure Zarr
    /// dimension that is the first of every array using it grows when a
    /// write goes past its end, as an unlimited one would (appending
    /// records, as xarray's `append_dim` does), while still reported
    /// fixed as netcdf-c reports it.
    pub appendable: bool,
    /// Id of the group that defines it.
    pub group: usize,
}

#[derive(Debug, Clone)]
pub struct Var {
    pub name: String,
    pub xtype: NcType,
    pub dimids: Vec<usize>,
    pub atts: Vec<Attr>,
    /// Chunk shape (empty for a scalar).
    pub chunks: Vec<usize>,
    pub no_fill: bool,
    /// The fill value set through `_FillValue` / `nc_def_var_fill`, in the
    /// variable's type; `None` means the type's default.
    pub fill: Option<Values>,
    pub endianness: i32,
    /// Set once its metadata has been committed by `nc_enddef`: chunking,
    /// endianness and fill settings can no longer change.
    pub created: bool,
    /// Set once data has been written: `_FillValue` can no longer change.
    pub written: bool,
    /// Defined by this handle (not read from storage): its key prefix is
    /// emptied at its first commit, so a chunk this handle never wrote is
    /// not stored and need not be read before a partial write.
    pub fresh: bool,
    /// Key prefix of its objects as last written to storage, if ever.
    pub stored_path: Option<String>,
    /// For NC_STRING variables read from storage: the fixed string width
    /// their chunks were written with.
    pub string_width: Option<usize>,
    /// NC_STRING stored as numpy `U<n>` (UTF-32; `true` if big-endian).
    pub utf32: Option<bool>,
    /// NC_STRING stored with variable lengths (`vlen-utf8`/`vlen-bytes`).
    pub vlen: bool,
    /// A Zarr v2 object array read from storage (see [`ObjectArray`]);
    /// `None` for every other variable.
    pub object: Option<Box<ObjectArray>>,
    /// Codecs named in storage (`filters` then `compressor`, as JSON); the
    /// one source of the variable's filter list and of its codec chain.
    pub codecs: Vec<serde_json::Value>,
    /// Separator between chunk indices in chunk keys (`.` or `/`).
    pub dim_separator: char,
    /// Elements within a chunk are stored in Fortran order (`order: "F"`).
    pub order_f: bool,
    /// Why this variable's data cannot be read (an unsupported dtype), if so.
    pub data_error: Option<NcError>,
    /// A Zarr v3 array: its chunk keys and element order (`None` for v2).
    pub v3: Option<chunking::V3Chunks>,
    /// Quantization applied to values as they are written (float and
    /// double only); recorded in storage as an attribute.
    pub quantize: quantize::Setting,
}

/// A Zarr v2 numpy object array (`dtype: "|O"` with a `vlen-utf8` or
/// `vlen-bytes` codec, as zarr-python and xarray store strings), read as a
/// variable-length NC_STRING. The model has no `|O` and no place for the
/// object codec among the filters (`Var::codecs` holds only the byte
/// codecs after it), so its `.zarray` is kept as read and written back as
/// it was: its chunks stay encoded as it says, and zarr-python keeps
/// reading them (see `format::v2::object`).
#[derive(Debug, Clone, PartialEq)]
pub struct ObjectArray {
    /// The `.zarray` as read, less the NCZarr keys a writer adds again.
    pub zarray: serde_json::Map<String, serde_json::Value>,
    /// The fill (`Var::no_fill`, `Var::fill`) its `fill_value` was read as:
    /// while the variable's is still that, `fill_value` is written back
    /// as stored (`0`, which numcodecs stores as an empty element, is read
    /// as `""` but stays `0`).
    pub fill_as_read: (bool, Option<Values>),
    /// The codec is `vlen-utf8`, whose readers decode every element as
    /// UTF-8: text that is not is refused.
    pub utf8: bool,
}

/// This machine's byte order as an `NC_ENDIAN_*` value.
pub const HOST_ENDIANNESS: i32 = if cfg!(target_endian = "big") { NC_ENDIAN_BIG } else { NC_ENDIAN_LITTLE };

impl Var {
    /// Are the variable's elements stored big-endian (its endianness, or
    /// this machine's when native)?
    pub fn stored_big_endian(&self) -> bool {
        match self.endianness {
            NC_ENDIAN_BIG => true,
            NC_ENDIAN_LITTLE => false,
            _ => cfg!(target_endian = "big"),
        }
    }
}

#[derive(Debug, Clone)]
pub struct Group {
    pub name: String,
    pub parent: Option<usize>,
    pub children: Vec<usize>,
    /// Ids of the dimensions defined in this group, in definition order.
    pub dims: Vec<usize>,
    pub vars: Vec<Var>,
    pub atts: Vec<Attr>,
    /// Key prefix of its objects as last written to storage, if ever.
    pub stored_path: Option<String>,
}

impl Group {
    fn new(name: &str, parent: Option<usize>) -> Group {
        Group {
            name: name.to_string(),
            parent,
            children: Vec::new(),
            dims: Vec::new(),
            vars: Vec::new(),
            atts: Vec::new(),
            stored_path: None,
        }
    }
}

/// The whole metadata tree plus the mode flags that govern changes to it.
#[derive(Debug, Clone)]
pub struct Model {
    pub groups: Vec<Group>,
    pub dims: Vec<Dim>,
    pub writable: bool,
    pub define_mode: bool,
    /// `NC_CLASSIC_MODEL` was given: netCDF-3 rules for define mode and types.
    pub classic_model: bool,
    pub fill_mode: i32,
    /// Metadata changed since it was last written.
    pub dirty: bool,
    /// The dataset's ncid (group 0), once registered: plugins are told
    /// the ncid of the variable they filter.
    pub ext_ncid: i32,
    /// Written in netcdf-c 4.9.0's layout, which has neither unlimited
    /// dimensions nor NC_STRING (refused as 4.9.0 refuses them).
    pub layout_490: bool,
    /// A Zarr v3 dataset: new variables are v3 arrays.
    pub zarr_v3: bool,
    /// The chunk key separator of new variables: `.`, or what
    /// `ZARR.DIMENSION_SEPARATOR` in `.ncrc` says (netcdf-c's setting).
    pub new_separator: char,
}

impl Model {
    pub fn new(writable: bool) -> Model {
        Model {
            groups: vec![Group::new("/", None)],
            dims: Vec::new(),
            writable,
            define_mode: false,
            classic_model: false,
            fill_mode: NC_FILL,
            dirty: false,
            ext_ncid: 0,
            layout_490: false,
            new_separator: '.',
            zarr_v3: false,
        }
    }

    // ----- lookups ---------------------------------------------------

    pub fn group(&self, grp: usize) -> NcResult<&Group> {
        self.groups.get(grp).ok_or(NcError::EBADID)
    }

    pub fn var(&self, grp: usize, varid: i32) -> NcResult<&Var> {
        let g = self.group(grp)?;
        usize::try_from(varid).ok().and_then(|v| g.vars.get(v)).ok_or(NcError::ENOTVAR)
    }

    pub fn var_mut(&mut self, grp: usize, varid: i32) -> NcResult<&mut Var> {
        let g = self.groups.get_mut(grp).ok_or(NcError::EBADID)?;
        usize::try_from(varid).ok().and_then(|v| g.vars.get_mut(v)).ok_or(NcError::ENOTVAR)
    }

    pub fn dim(&self, dimid: i32) -> NcResult<&Dim> {
        usize::try_from(dimid).ok().and_then(|d| self.dims.get(d)).ok_or(NcError::EBADDIM)
    }

    /// The group and its ancestors, nearest first.
    pub fn ancestry(&self, grp: usize) -> Vec<usize> {
        let mut out = vec![grp];
        let mut g = grp;
        while let Some(p) = self.groups[g].parent {
            out.push(p);
            g = p;
        }
        out
    }

    /// Full path of a group: "/" for the root, "/a/b" otherwise.
    pub fn group_full_name(&self, grp: usize) -> String {
        let mut parts: Vec<&str> =
            self.ancestry(grp).iter().filter(|&&g| g != 0).map(|&g| self.groups[g].name.as_str()).collect();
        parts.reverse();
        format!("/{}", parts.join("/"))
    }

    /// The key prefix of a group's objects in storage ("" for the root).
    pub fn group_key(&self, grp: usize) -> String {
        self.group_full_name(grp).trim_start_matches('/').to_string()
    }

    /// Fully qualified name of a dimension ("/g/d").
    pub fn dim_full_name(&self, dimid: usize) -> String {
        let dim = &self.dims[dimid];
        let g = self.group_full_name(dim.group);
        if g == "/" { format!("/{}", dim.name) } else { format!("{g}/{}", dim.name) }
    }

    /// Find a dimension by name in a group or its ancestors (netCDF-4
    /// scoping), or by fully qualified name.
    pub fn find_dim(&self, grp: usize, name: &str) -> NcResult<usize> {
        if name.starts_with('/') {
            let (gpath, dname) = name.rsplit_once('/').unwrap_or(("", name));
            let g = self.find_group_by_path(if gpath.is_empty() { "/" } else { gpath })?;
            return self.groups[g].dims.iter().copied().find(|&d| self.dims[d].name == dname).ok_or(NcError::EBADDIM);
        }
        for g in self.ancestry(grp) {
            if let Some(d) = self.groups[g].dims.iter().copied().find(|&d| self.dims[d].name == name) {
                return Ok(d);
            }
        }
        Err(NcError::EBADDIM)
    }

    /// Is the dimension defined in `grp` or one of its ancestors?
    pub fn dim_visible(&self, grp: usize, dimid: usize) -> bool {
        self.dims.get(dimid).is_some_and(|d| self.ancestry(grp).contains(&d.group))
    }

    pub fn find_var(&self, grp: usize, name: &str) -> NcResult<usize> {
        self.group(grp)?.vars.iter().position(|v| v.name == name).ok_or(NcError::ENOTVAR)
    }

    pub fn find_child(&self, grp: usize, name: &str) -> Option<usize> {
        self.groups[grp].children.iter().copied().find(|&c| self.groups[c].name == name)
    }

    /// Resolve "/a/b" (or "a/b" relative to the root) to a group id.
    pub fn find_group_by_path(&self, path: &str) -> NcResult<usize> {
        let mut g = 0;
        for part in path.split('/').filter(|p| !p.is_empty()) {
            g = self.find_child(g, part).ok_or(NcError::ENOGRP)?;
        }
        Ok(g)
    }

    /// Variables, groups (and types, which we do not have) share one
    /// namespace within a group.
    fn check_unused_in_group(&self, grp: usize, name: &str) -> NcResult<()> {
        let g = &self.groups[grp];
        if g.vars.iter().any(|v| v.name == name) || self.find_child(grp, name).is_some() {
            return Err(NcError::ENAMEINUSE);
        }
        Ok(())
    }

    /// Shapes of a variable's dimensions.
    pub fn var_shape(&self, var: &Var) -> Vec<DimShape> {
        var.dimids.iter().map(|&d| DimShape { len: self.dims[d].len, unlimited: self.dims[d].unlimited }).collect()
    }

    // ----- mode checks -----------------------------------------------

    pub fn check_writable(&self) -> NcResult<()> {
        if self.writable { Ok(()) } else { Err(NcError::EPERM) }
    }

    /// netCDF-4 enters define mode by itself when metadata is added;
    /// only the classic model insists on an explicit `nc_redef`.
    fn enter_define_mode(&mut self) -> NcResult<()> {
        if !self.define_mode {
            if self.classic_model {
                return Err(NcError::ENOTINDEFINE);
            }
            self.define_mode = true;
        }
        Ok(())
    }

    // ----- dimensions ------------------------------------------------

    pub fn def_dim(&mut self, grp: usize, name: &[u8], len: usize) -> NcResult<usize> {
        self.group(grp)?;
        self.check_writable()?;
        let name = names::check_name(name)?;
        if (self.classic_model && len > u32::MAX as usize) || (self.layout_490 && len == 0) {
            return Err(NcError::EDIMSIZE);
        }
        if self.groups[grp].dims.iter().any(|&d| self.dims[d].name == name) {
            return Err(NcError::ENAMEINUSE);
        }
        self.enter_define_mode()?;
        let dimid = self.dims.len();
        self.dims.push(Dim { name, len, unlimited: len == 0, appendable: false, group: grp });
        self.groups[grp].dims.push(dimid);
        self.dirty = true;
        Ok(dimid)
    }

    pub fn rename_dim(&mut self, grp: usize, dimid: i32, name: &[u8]) -> NcResult<()> {
        self.group(grp)?;
        self.check_writable()?;
        let name = names::check_name(name)?;
        let d = self.dim(dimid)?;
        let owner = d.group;
        let old_len = d.name.len();
        if self.groups[owner].dims.iter().any(|&o| self.dims[o].name == name) {
            return Err(NcError::ENAMEINUSE);
        }
        if self.classic_model && !self.define_mode && name.len() > old_len {
            return Err(NcError::ENOTINDEFINE);
        }
        self.dims[dimid as usize].name = name;
        self.dirty = true;
        Ok(())
    }

    // ----- variables -------------------------------------------------

    pub fn def_var(&mut self, grp: usize, name: &[u8], xtype: NcType, dimids: &[i32]) -> NcResult<usize> {
        self.group(grp)?;
        self.check_writable()?;
        let name = names::check_key_name(name)?;
        if !is_atomic(xtype) {
            return Err(NcError::EBADTYPE);
        }
        if self.classic_model && xtype > NC_DOUBLE {
            return Err(NcError::ESTRICTNC3);
        }
        if self.layout_490 && xtype == NC_STRING {
            return Err(NcError::EBADTYPE);
        }
        if dimids.len() > NC_MAX_VAR_DIMS {
            return Err(NcError::EMAXDIMS);
        }
        let mut dims = Vec::with_capacity(dimids.len());
        for &d in dimids {
            let d = usize::try_from(d).map_err(|_| NcError::EBADDIM)?;
            if !self.dim_visible(grp, d) {
                return Err(NcError::EBADDIM);
            }
            dims.push(d);
        }
        if self.classic_model && dims.iter().skip(1).any(|&d| self.dims[d].unlimited) {
            return Err(NcError::EUNLIMPOS);
        }
        self.check_unused_in_group(grp, &name)?;
        self.enter_define_mode()?;
        let mut var = Var {
            name,
            xtype,
            dimids: dims,
            atts: Vec::new(),
            chunks: Vec::new(),
            // Strings too: netcdf-c's NCZarr applies the dataset's fill
            // mode to every atomic type, though nc_def_var_fill may not
            // turn a string's fill off.
            no_fill: self.fill_mode == NC_NOFILL,
            fill: None,
            // This machine's byte order, as netcdf-c's NCZarr sets it
            // (nc_inq_var_endian says little, not native, for a new
            // variable of any type; its szip plugin refuses native). Read
            // back, chars and strings are native again, as in netcdf-c.
            endianness: HOST_ENDIANNESS,
            created: false,
            written: false,
            fresh: true,
            stored_path: None,
            string_width: None,
            utf32: None,
            // Zarr v3 has variable-length strings (`string`, vlen-utf8).
            vlen: self.zarr_v3 && xtype == NC_STRING,
            object: None,
            codecs: Vec::new(),
            dim_separator: self.new_separator,
            order_f: false,
            data_error: None,
            v3: self.zarr_v3.then(chunking::V3Chunks::new_array),
            quantize: quantize::Setting::Off,
        };
        var.chunks = chunking::default_chunks(&self.var_shape(&var), type_size(xtype)?);
        let g = &mut self.groups[grp];
        g.vars.push(var);
        self.dirty = true;
        Ok(g.vars.len() - 1)
    }

    pub fn rename_var(&mut self, grp: usize, varid: i32, name: &[u8]) -> NcResult<()> {
        self.group(grp)?;
        self.check_writable()?;
        let name = names::check_key_name(name)?;
        let old_len = self.var(grp, varid)?.name.len();
        // netcdf-c checks only variable names here, but a group of the
        // same name would share the variable's storage keys.
        self.check_unused_in_group(grp, &name)?;
        if self.classic_model && !self.define_mode && name.len() > old_len {
            return Err(NcError::ENOTINDEFINE);
        }
        self.var_mut(grp, varid)?.name = name;
        self.dirty = true;
        Ok(())
    }

    /// Common checks before changing a variable's storage properties.
    fn var_for_definition(&mut self, grp: usize, varid: i32) -> NcResult<&mut Var> {
        self.group(grp)?;
        self.check_writable()?;
        let var = self.var_mut(grp, varid)?;
        if var.created {
            return Err(NcError::ELATEDEF);
        }
        Ok(var)
    }

    /// Ask for a v3 variable's chunks to be stored in shards of
    /// `per_shard` chunks along each dimension (the `_Shards` attribute),
    /// index at the end with its CRC-32C, as zarr-python writes them.
    pub fn def_var_shards(&mut self, grp: usize, varid: i32, per_shard: &Values) -> NcResult<()> {
        let var = self.var_for_definition(grp, varid)?;
        let rank = var.dimids.len();
        let per_shard = match per_shard.convert_to(NC_INT64) {
            Ok((Values::Int64(v), false)) => v,
            _ => return Err(NcError::EINVAL),
        };
        // At most 2^20 chunks per shard: its index (16 bytes a chunk) is
        // read whole.
        let count = per_shard.iter().try_fold(1i64, |p, &n| p.checked_mul(n)).filter(|&p| p <= 1 << 20);
        if rank == 0 || per_shard.len() != rank || per_shard.iter().any(|&n| n < 1) || count.is_none() {
            return Err(NcError::EINVAL);
        }
        let per_shard: Vec<usize> =
            per_shard.iter().map(|&n| usize::try_from(n)).collect::<Result<_, _>>().map_err(|_| NcError::EINVAL)?;
        let var = self.var_for_definition(grp, varid)?;
        let v3 = var.v3.as_mut().ok_or(NcError::EINVAL)?;
        v3.shard = Some(chunking::Shards::new_array(per_shard));
        self.dirty = true;
        Ok(())
    }

    /// `nc_def_var_chunking`. Contiguous and compact storage are accepted
    /// and stored as a single chunk, as in netcdf-c's NCZarr.
    pub fn def_var_chunking(&mut self, grp: usize, varid: i32, storage: i32, chunks: Option<&[usize]>) -> NcResult<()> {
        self.var_for_definition(grp, varid)?;
        let var = self.var(grp, varid)?;
        let shape = self.var_shape(var);
        let tsize = type_size(var.xtype)?;
        let new_chunks: Vec<usize> = match storage {
            NC_CONTIGUOUS | NC_COMPACT => {
                if shape.iter().any(|d| d.unlimited) {
                    return Err(NcError::EINVAL);
                }
                shape.iter().map(|d| d.len.max(1)).collect()
            }
            NC_CHUNKED => {
                if shape.is_empty() {
                    return Err(NcError::EINVAL);
                }
                match chunks {
                    Some(c) => {
                        if !chunking::chunk_size_ok(c, tsize) {
                            return Err(NcError::EBADCHUNK);
                        }
                        if c.iter().zip(&shape).any(|(&c, d)| !d.unlimited && d.len > 0 && c > d.len) {
                            return Err(NcError::EBADCHUNK);
                        }
                        if c.contains(&0) { chunking::default_chunks(&shape, tsize) } else { c.to_vec() }
                    }
                    None => chunking::default_chunks(&shape, tsize),
                }
            }
            _ => return Err(NcError::EINVAL),
        };
        self.var_mut(grp, varid)?.chunks = new_chunks;
        self.dirty = true;
        Ok(())
    }

    /// `nc_def_var_fill`: `fill` is one value already in the variable's type.
    pub fn def_var_fill(&mut self, grp: usize, varid: i32, no_fill: bool, fill: Option<Values>) -> NcResult<()> {
        let var = self.var_for_definition(grp, varid)?;
        if no_fill && var.xtype == NC_STRING {
            return Err(NcError::EINVAL);
        }
        var.no_fill = no_fill;
        let had_fill = var.fill.is_some();
        self.dirty = true;
        // As in netcdf-c, the fill value lives in the _FillValue attribute.
        let remove_fill_att = |model: &mut Model| match attrs::del_att(model, grp, varid, b"_FillValue") {
            Ok(()) | Err(NcError::ENOTATT) => Ok(()),
            Err(e) => Err(e),
        };
        match fill {
            Some(value) if !no_fill => {
                remove_fill_att(self)?;
                attrs::put_att(self, grp, varid, b"_FillValue", value)?;
            }
            _ if no_fill && had_fill => {
                remove_fill_att(self)?;
                self.var_mut(grp, varid)?.fill = None;
            }
            _ => {}
        }
        Ok(())
    }

    /// The fill value a variable uses: its own, else the type default.
    pub fn effective_fill(&self, var: &Var) -> NcResult<Values> {
        match &var.fill {
            Some(v) => Ok(v.clone()),
            None => Values::default_fill(var.xtype),
        }
    }

    pub fn def_var_endian(&mut self, grp: usize, varid: i32, endianness: i32) -> NcResult<()> {
        let var = self.var_for_definition(grp, varid)?;
        if var.xtype == NC_CHAR || var.xtype == NC_STRING {
            return Err(NcError::EINVAL);
        }
        if !(NC_ENDIAN_NATIVE..=NC_ENDIAN_BIG).contains(&endianness) {
            return Err(NcError::EINVAL);
        }
        var.endianness = endianness;
        self.dirty = true;
        Ok(())
    }

    // ----- groups ----------------------------------------------------

    pub fn def_grp(&mut self, parent: usize, name: &[u8]) -> NcResult<usize> {
        self.group(parent)?;
        self.check_writable()?;
        let name = names::check_key_name(name)?;
        self.check_unused_in_group(parent, &name)?;
        if self.classic_model {
            return Err(NcError::ESTRICTNC3);
        }
        // Group ids live in the low 16 bits of an ncid.
        if self.groups.len() > 0xFFFF {
            return Err(NcError::EINVAL);
        }
        self.enter_define_mode()?;
        let id = self.groups.len();
        self.groups.push(Group::new(&name, Some(parent)));
        self.groups[parent].children.push(id);
        self.dirty = true;
        Ok(id)
    }

    pub fn rename_grp(&mut self, grp: usize, name: &[u8]) -> NcResult<()> {
        self.group(grp)?;
        self.check_writable()?;
        let parent = self.groups[grp].parent.ok_or(NcError::EBADGRPID)?;
        let name = names::check_key_name(name)?;
        self.check_unused_in_group(parent, &name)?;
        self.enter_define_mode()?;
        self.groups[grp].name = name;
        self.dirty = true;
        Ok(())
    }

    // ----- define mode -----------------------------------------------

    pub fn redef(&mut self) -> NcResult<()> {
        self.check_writable()?;
        if self.define_mode {
            return Err(NcError::EINDEFINE);
        }
        self.define_mode = true;
        Ok(())
    }

    /// Leave define mode; every variable's storage properties are fixed.
    pub fn commit_definitions(&mut self) {
        self.define_mode = false;
        for g in &mut self.groups {
            for v in &mut g.vars {
                v.created = true;
            }
        }
    }

    pub fn set_fill(&mut self, mode: i32) -> NcResult<i32> {
        self.check_writable()?;
        if mode != NC_FILL && mode != NC_NOFILL {
            return Err(NcError::EINVAL);
        }
        Ok(std::mem::replace(&mut self.fill_mode, mode))
    }

    pub fn unlimited_dims(&self, grp: usize) -> Vec<usize> {
        self.groups[grp].dims.iter().copied().filter(|&d| self.dims[d].unlimited).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model() -> Model {
        let mut m = Model::new(true);
        m.define_mode = true;
        m
    }

    #[test]
    fn shards_are_asked_for_by_attribute_in_v3_only() {
        use crate::model::attrs::put_att;
        let mut m = model();
        m.zarr_v3 = true;
        let x = m.def_dim(0, b"x", 8).unwrap() as i32;
        let v = m.def_var(0, b"v", NC_INT, &[x]).unwrap() as i32;
        assert_eq!(put_att(&mut m, 0, v, b"_Shards", Values::Int(vec![2, 2])), Err(NcError::EINVAL), "rank");
        assert_eq!(put_att(&mut m, 0, v, b"_Shards", Values::Int(vec![0])), Err(NcError::EINVAL));
        assert_eq!(put_att(&mut m, 0, v, b"_Shards", Values::Int(vec![1 << 21])), Err(NcError::EINVAL), "index");
        put_att(&mut m, 0, v, b"_Shards", Values::Int(vec![4])).unwrap();
        let var = m.var(0, v).unwrap();
        assert_eq!(var.v3.as_ref().and_then(|v3| v3.shard.as_ref()).and_then(|s| s.chunks_per_shard()), Some(vec![4]));
        assert!(var.atts.is_empty(), "not an attribute");
        m.var_mut(0, v).unwrap().created = true;
        assert_eq!(put_att(&mut m, 0, v, b"_Shards", Values::Int(vec![2])), Err(NcError::ELATEDEF));
        // In a v2 dataset it is an ordinary attribute.
        let mut m = model();
        let x = m.def_dim(0, b"x", 8).unwrap() as i32;
        let v = m.def_var(0, b"v", NC_INT, &[x]).unwrap() as i32;
        put_att(&mut m, 0, v, b"_Shards", Values::Int(vec![4])).unwrap();
        assert_eq!(m.var(0, v).unwrap().atts.len(), 1);
    }

    #[test]
    fn dims_are_scoped_to_group_and_ancestors() {
        let mut m = model();
        let x = m.def_dim(0, b"x", 3).unwrap();
        let g = m.def_grp(0, b"g").unwrap();
        let y = m.def_dim(g, b"y", 4).unwrap();
        let h = m.def_grp(0, b"h").unwrap();
        assert_eq!(m.find_dim(g, "x").unwrap(), x);
        assert_eq!(m.find_dim(g, "/g/y").unwrap(), y);
        assert_eq!(m.find_dim(h, "y"), Err(NcError::EBADDIM));
        assert!(m.def_var(g, b"v", NC_INT, &[x as i32, y as i32]).is_ok());
        assert_eq!(m.def_var(h, b"v", NC_INT, &[y as i32]), Err(NcError::EBADDIM));
        assert_eq!(m.dim_full_name(y), "/g/y");
    }

    #[test]
    fn names_are_unique_per_namespace() {
        let mut m = model();
        m.def_dim(0, b"x", 1).unwrap();
        assert_eq!(m.def_dim(0, b"x", 2), Err(NcError::ENAMEINUSE));
        m.def_var(0, b"v", NC_INT, &[]).unwrap();
        assert_eq!(m.def_grp(0, b"v"), Err(NcError::ENAMEINUSE));
        m.def_grp(0, b"g").unwrap();
        assert_eq!(m.def_var(0, b"g", NC_INT, &[]), Err(NcError::ENAMEINUSE));
        assert_eq!(m.rename_var(0, 0, b"g"), Err(NcError::ENAMEINUSE));
    }

    #[test]
    fn storage_properties_are_fixed_after_enddef() {
        let mut m = model();
        let x = m.def_dim(0, b"x", 10).unwrap() as i32;
        let v = m.def_var(0, b"v", NC_FLOAT, &[x]).unwrap() as i32;
        m.def_var_chunking(0, v, NC_CHUNKED, Some(&[5])).unwrap();
        assert_eq!(m.var(0, v).unwrap().chunks, vec![5]);
        assert_eq!(m.def_var_chunking(0, v, NC_CHUNKED, Some(&[11])), Err(NcError::EBADCHUNK));
        m.commit_definitions();
        assert_eq!(m.def_var_chunking(0, v, NC_CHUNKED, Some(&[2])), Err(NcError::ELATEDEF));
        assert_eq!(m.def_var_endian(0, v, NC_ENDIAN_BIG), Err(NcError::ELATEDEF));
    }

    #[test]
    fn read_only_models_refuse_changes() {
        let mut m = Model::new(false);
        assert_eq!(m.def_dim(0, b"x", 1), Err(NcError::EPERM));
        assert_eq!(m.redef(), Err(NcError::EPERM));
    }
}
