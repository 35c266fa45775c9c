//! Attribute operations with netCDF-4's rules: reserved names, define
//! mode, type conversion with NC_ERANGE, and the `_FillValue` attribute
//! that doubles as a variable's fill value.

use super::{Attr, Model, NC_GLOBAL, Values, names};
use crate::error::{NcError, NcResult};
use crate::types::*;

/// Attributes netcdf-c reserves. `hidden` ones never appear in attribute
/// lists; `read_only` ones cannot be written on the root group.
struct Reserved {
    name: &'static str,
    hidden: bool,
    read_only: bool,
}

const RESERVED: &[Reserved] = &[
    Reserved { name: "CLASS", hidden: true, read_only: true },
    Reserved { name: "DIMENSION_LIST", hidden: true, read_only: true },
    Reserved { name: "NAME", hidden: true, read_only: true },
    Reserved { name: "REFERENCE_LIST", hidden: true, read_only: true },
    Reserved { name: "_ARRAY_DIMENSIONS", hidden: true, read_only: true },
    Reserved { name: "_Codecs", hidden: false, read_only: true },
    Reserved { name: "_Format", hidden: false, read_only: true },
    Reserved { name: "_IsNetcdf4", hidden: false, read_only: true },
    Reserved { name: "_NCProperties", hidden: true, read_only: true },
    Reserved { name: "_Netcdf4Coordinates", hidden: true, read_only: true },
    Reserved { name: "_Netcdf4Dimid", hidden: true, read_only: true },
    Reserved { name: "_SuperblockVersion", hidden: false, read_only: true },
    Reserved { name: "_nc3_strict", hidden: false, read_only: true },
    Reserved { name: "_nczarr_attr", hidden: true, read_only: true },
    Reserved { name: "_nczarr_group", hidden: true, read_only: true },
    Reserved { name: "_nczarr_array", hidden: true, read_only: true },
    Reserved { name: "_nczarr_superblock", hidden: true, read_only: true },
    Reserved { name: "_nczarr_attrs", hidden: true, read_only: true },
];

/// Names our storage format uses as keys in `.zattrs`; a user attribute
/// with one of these names would overwrite the dataset's own metadata, so
/// they are refused everywhere (netcdf-c refuses them only on variables).
const FORMAT_KEYS: &[&str] = &[
    "_ARRAY_DIMENSIONS",
    "_nczarr_attr",
    "_nczarr_attrs",
    "_nczarr_group",
    "_nczarr_array",
    "_nczarr_superblock",
    "_NCProperties",
];

/// In a Zarr v3 dataset, putting this attribute on a variable asks for
/// shards (`sharding_indexed`): its values are the number of chunks per
/// shard along each dimension. It is not stored as an attribute.
pub const SHARDS: &str = "_Shards";

pub const FILL_VALUE: &str = "_FillValue";

fn reserved(name: &str) -> Option<&'static Reserved> {
    RESERVED.iter().find(|r| r.name == name)
}

/// Is this a name netcdf-c hides from attribute listings?
pub fn is_hidden(name: &str) -> bool {
    reserved(name).is_some_and(|r| r.hidden)
}

fn att_list(model: &Model, grp: usize, varid: i32) -> NcResult<&Vec<Attr>> {
    if varid == NC_GLOBAL { Ok(&model.group(grp)?.atts) } else { Ok(&model.var(grp, varid)?.atts) }
}

fn att_list_mut(model: &mut Model, grp: usize, varid: i32) -> NcResult<&mut Vec<Attr>> {
    if varid == NC_GLOBAL {
        Ok(&mut model.groups.get_mut(grp).ok_or(NcError::EBADID)?.atts)
    } else {
        Ok(&mut model.var_mut(grp, varid)?.atts)
    }
}

/// Find an attribute by name: its number and value.
pub fn find_att<'m>(model: &'m Model, grp: usize, varid: i32, name: &str) -> NcResult<(usize, &'m Attr)> {
    att_list(model, grp, varid)?.iter().enumerate().find(|(_, a)| a.name == name).ok_or(NcError::ENOTATT)
}

pub fn att_by_number(model: &Model, grp: usize, varid: i32, attnum: i32) -> NcResult<&Attr> {
    let list = att_list(model, grp, varid)?;
    usize::try_from(attnum).ok().and_then(|n| list.get(n)).ok_or(NcError::ENOTATT)
}

pub fn natts(model: &Model, grp: usize, varid: i32) -> NcResult<usize> {
    Ok(att_list(model, grp, varid)?.len())
}

/// Store an attribute. `values` are in the caller's memory type; they are
/// converted to `file_type` (see [`put_att_as`]) here when the two differ.
pub fn put_att_as(
    model: &mut Model,
    grp: usize,
    varid: i32,
    name: &[u8],
    file_type: NcType,
    values: Values,
) -> NcResult<()> {
    att_list(model, grp, varid)?;
    if values.len() > i32::MAX as usize {
        return Err(NcError::EINVAL);
    }
    if name.len() > names::NC_MAX_NAME {
        return Err(NcError::EBADNAME);
    }
    model.check_writable()?;
    let name = names::check_name(name)?;
    if name == SHARDS && varid != NC_GLOBAL && model.zarr_v3 {
        return model.def_var_shards(grp, varid, &values);
    }
    if let Some(r) = reserved(&name) {
        let root_global = grp == 0 && varid == NC_GLOBAL;
        if (root_global && r.read_only) || (varid != NC_GLOBAL && r.hidden) || FORMAT_KEYS.contains(&r.name) {
            return Err(NcError::ENAMEINUSE);
        }
        if varid != NC_GLOBAL && r.name == "_Codecs" {
            return Err(NcError::ENAMEINUSE);
        }
    }
    let exists = find_att(model, grp, varid, &name).is_ok();
    if !exists {
        model.enter_define_mode()?;
    }
    let mem_type = values.nc_type();
    check_att_type(file_type)?;
    if file_type != mem_type
        && (file_type == NC_CHAR || mem_type == NC_CHAR || file_type == NC_STRING || mem_type == NC_STRING)
    {
        return Err(NcError::ECHAR);
    }
    if model.classic_model && file_type > NC_DOUBLE {
        return Err(NcError::ESTRICTNC3);
    }
    if model.layout_490 && file_type == NC_STRING {
        return Err(NcError::EBADTYPE);
    }
    let mut range_error = false;
    if name == FILL_VALUE && varid != NC_GLOBAL {
        if values.len() != 1 {
            return Err(NcError::EINVAL);
        }
        let var = model.var(grp, varid)?;
        if var.written {
            return Err(NcError::ELATEFILL);
        }
        // The fill value takes the variable's type, whatever the attribute's
        // (text and numbers still do not mix: NC_ECHAR).
        let (fill, bad) = values.convert_to(var.xtype)?;
        range_error |= bad;
        model.var_mut(grp, varid)?.fill = Some(fill);
    }
    let (stored, bad) = values.convert_to(file_type)?;
    range_error |= bad;
    let list = att_list_mut(model, grp, varid)?;
    match list.iter_mut().find(|a| a.name == name) {
        Some(att) => att.values = stored,
        None => list.push(Attr { name, values: stored }),
    }
    model.dirty = true;
    if range_error { Err(NcError::ERANGE) } else { Ok(()) }
}

/// netcdf-c's verdict on an attribute type id: negative ids are invalid
/// arguments, NC_NAT is no type, ids past the atomic types would be user
/// types, of which a Zarr dataset has none.
pub fn check_att_type(t: NcType) -> NcResult<()> {
    match t {
        t if t < 0 => Err(NcError::EINVAL),
        NC_NAT => Err(NcError::EBADTYPE),
        t if t > NC_STRING => Err(NcError::EBADTYPID),
        _ => Ok(()),
    }
}

/// Store an attribute in its own type (`nc_put_att` with matching types).
pub fn put_att(model: &mut Model, grp: usize, varid: i32, name: &[u8], values: Values) -> NcResult<()> {
    let t = values.nc_type();
    put_att_as(model, grp, varid, name, t, values)
}

/// Read an attribute converted to `mem_type` (NC_NAT: its own type). The
/// flag reports a range error; the values are converted regardless.
pub fn get_att(model: &Model, grp: usize, varid: i32, name: &str, mem_type: NcType) -> NcResult<(Values, bool)> {
    let (_, att) = find_att(model, grp, varid, name)?;
    convert_for_reading(&att.values, mem_type, model.classic_model)
}

/// Convert stored attribute values for a reader asking for `mem_type`.
pub fn convert_for_reading(values: &Values, mem_type: NcType, classic_model: bool) -> NcResult<(Values, bool)> {
    let own = values.nc_type();
    let mem_type = if mem_type == NC_NAT { own } else { mem_type };
    if values.is_empty() {
        return Ok((values.clone(), false));
    }
    if (own == NC_CHAR) != (mem_type == NC_CHAR) {
        return Err(NcError::ECHAR);
    }
    if (own == NC_STRING) != (mem_type == NC_STRING) {
        return Err(NcError::EBADTYPE);
    }
    let (out, mut range_error) = values.convert_to(mem_type)?;
    let byte_types = [NC_BYTE, NC_UBYTE];
    if classic_model && byte_types.contains(&own) && byte_types.contains(&mem_type) {
        range_error = false;
    }
    Ok((out, range_error))
}

pub fn del_att(model: &mut Model, grp: usize, varid: i32, name: &[u8]) -> NcResult<()> {
    att_list(model, grp, varid)?;
    model.check_writable()?;
    let name = std::str::from_utf8(name).map_err(|_| NcError::ENOTATT)?;
    let (index, _) = find_att(model, grp, varid, name)?;
    if name == FILL_VALUE && varid != NC_GLOBAL && model.var(grp, varid)?.written {
        return Err(NcError::ELATEFILL);
    }
    model.enter_define_mode()?;
    att_list_mut(model, grp, varid)?.remove(index);
    if name == FILL_VALUE && varid != NC_GLOBAL {
        model.var_mut(grp, varid)?.fill = None;
    }
    model.dirty = true;
    Ok(())
}

pub fn rename_att(model: &mut Model, grp: usize, varid: i32, name: &[u8], new_name: &[u8]) -> NcResult<()> {
    att_list(model, grp, varid)?;
    model.check_writable()?;
    let new_name = names::check_name(new_name)?;
    let name = std::str::from_utf8(name).map_err(|_| NcError::ENOTATT)?;
    if find_att(model, grp, varid, &new_name).is_ok() {
        return Err(NcError::ENAMEINUSE);
    }
    if reserved(&new_name).is_some_and(|r| FORMAT_KEYS.contains(&r.name)) {
        return Err(NcError::ENAMEINUSE);
    }
    let (index, att) = find_att(model, grp, varid, name)?;
    if model.classic_model && !model.define_mode && new_name.len() > att.name.len() {
        return Err(NcError::ENOTINDEFINE);
    }
    att_list_mut(model, grp, varid)?[index].name = new_name;
    model.dirty = true;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model_with_var() -> Model {
        let mut m = Model::new(true);
        m.define_mode = true;
        let x = m.def_dim(0, b"x", 2).unwrap() as i32;
        m.def_var(0, b"v", NC_SHORT, &[x]).unwrap();
        m
    }

    #[test]
    fn put_converts_and_reports_range_errors() {
        let mut m = model_with_var();
        let r = put_att_as(&mut m, 0, 0, b"a", NC_BYTE, Values::Int(vec![1, 200]));
        assert_eq!(r, Err(NcError::ERANGE));
        let (v, bad) = get_att(&m, 0, 0, "a", NC_NAT).unwrap();
        assert_eq!(v, Values::Byte(vec![1, 200i32 as i8]));
        assert!(!bad);
        let (v, bad) = get_att(&m, 0, 0, "a", NC_UBYTE).unwrap();
        assert_eq!(v, Values::UByte(vec![1, 200]));
        assert!(bad, "negative byte to ubyte is a range error");
        assert_eq!(get_att(&m, 0, 0, "a", NC_DOUBLE).unwrap().0, Values::Double(vec![1.0, -56.0]));
    }

    #[test]
    fn char_and_numbers_do_not_mix() {
        let mut m = model_with_var();
        assert_eq!(put_att_as(&mut m, 0, 0, b"a", NC_CHAR, Values::Int(vec![1])), Err(NcError::ECHAR));
        put_att(&mut m, 0, NC_GLOBAL, b"t", Values::Char(b"hi".to_vec())).unwrap();
        assert_eq!(get_att(&m, 0, NC_GLOBAL, "t", NC_INT), Err(NcError::ECHAR));
    }

    #[test]
    fn fill_value_attribute_sets_the_variable_fill() {
        let mut m = model_with_var();
        assert_eq!(put_att(&mut m, 0, 0, b"_FillValue", Values::Short(vec![1, 2])), Err(NcError::EINVAL));
        put_att(&mut m, 0, 0, b"_FillValue", Values::Int(vec![-5])).unwrap();
        assert_eq!(m.var(0, 0).unwrap().fill, Some(Values::Short(vec![-5])));
        del_att(&mut m, 0, 0, b"_FillValue").unwrap();
        assert_eq!(m.var(0, 0).unwrap().fill, None);
    }

    #[test]
    fn fill_value_of_text_variables_must_be_text() {
        let mut m = model_with_var();
        let x = m.dims.len() as i32 - 1;
        let c = m.def_var(0, b"c", NC_CHAR, &[x]).unwrap() as i32;
        assert_eq!(put_att(&mut m, 0, c, b"_FillValue", Values::Int(vec![1])), Err(NcError::ECHAR));
        put_att(&mut m, 0, c, b"_FillValue", Values::Char(b"x".to_vec())).unwrap();
        assert_eq!(m.var(0, c).unwrap().fill, Some(Values::Char(b"x".to_vec())));
    }

    #[test]
    fn reserved_names() {
        let mut m = model_with_var();
        let one = || Values::Int(vec![1]);
        assert_eq!(put_att(&mut m, 0, NC_GLOBAL, b"_NCProperties", one()), Err(NcError::ENAMEINUSE));
        assert_eq!(put_att(&mut m, 0, 0, b"_ARRAY_DIMENSIONS", one()), Err(NcError::ENAMEINUSE));
        assert_eq!(put_att(&mut m, 0, NC_GLOBAL, b"_nczarr_group", one()), Err(NcError::ENAMEINUSE));
        assert!(put_att(&mut m, 0, 0, b"_Format", one()).is_ok());
    }

    #[test]
    fn rename_and_delete_keep_order() {
        let mut m = model_with_var();
        for n in [b"a", b"b", b"c"] {
            put_att(&mut m, 0, NC_GLOBAL, n, Values::Int(vec![1])).unwrap();
        }
        rename_att(&mut m, 0, NC_GLOBAL, b"b", b"z").unwrap();
        assert_eq!(rename_att(&mut m, 0, NC_GLOBAL, b"a", b"c"), Err(NcError::ENAMEINUSE));
        del_att(&mut m, 0, NC_GLOBAL, b"a").unwrap();
        let names: Vec<_> = m.groups[0].atts.iter().map(|a| a.name.as_str()).collect();
        assert_eq!(names, vec!["z", "c"]);
        assert_eq!(del_att(&mut m, 0, NC_GLOBAL, b"a"), Err(NcError::ENOTATT));
    }
}
