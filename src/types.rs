//! The netCDF atomic types: ids, sizes, names and default fill values.

use crate::error::{NcError, NcResult};

/// A netCDF type id (`nc_type`).
pub type NcType = i32;

pub const NC_NAT: NcType = 0;
pub const NC_BYTE: NcType = 1;
pub const NC_CHAR: NcType = 2;
pub const NC_SHORT: NcType = 3;
pub const NC_INT: NcType = 4;
pub const NC_FLOAT: NcType = 5;
pub const NC_DOUBLE: NcType = 6;
pub const NC_UBYTE: NcType = 7;
pub const NC_USHORT: NcType = 8;
pub const NC_UINT: NcType = 9;
pub const NC_INT64: NcType = 10;
pub const NC_UINT64: NcType = 11;
pub const NC_STRING: NcType = 12;

/// The memory type netCDF uses for C `long`: NC_INT64 on LP64 systems.
pub const NC_LONG_MEMTYPE: NcType = if std::mem::size_of::<std::ffi::c_long>() == 8 { NC_INT64 } else { NC_INT };

/// Is `t` one of the twelve atomic types (NC_BYTE..NC_STRING)?
pub fn is_atomic(t: NcType) -> bool {
    (NC_BYTE..=NC_STRING).contains(&t)
}

/// Is `t` an atomic numeric type (everything atomic but char and string)?
pub fn is_numeric(t: NcType) -> bool {
    is_atomic(t) && t != NC_CHAR && t != NC_STRING
}

/// Size in bytes of one value of an atomic type in memory (a `char*` for
/// NC_STRING, as netcdf-c reports it).
pub fn type_size(t: NcType) -> NcResult<usize> {
    Ok(match t {
        NC_BYTE | NC_CHAR | NC_UBYTE => 1,
        NC_SHORT | NC_USHORT => 2,
        NC_INT | NC_UINT | NC_FLOAT => 4,
        NC_DOUBLE | NC_INT64 | NC_UINT64 => 8,
        NC_STRING => std::mem::size_of::<*const u8>(),
        _ => return Err(NcError::EBADTYPE),
    })
}

/// The name `nc_inq_type` reports for an atomic type.
pub fn type_name(t: NcType) -> NcResult<&'static str> {
    Ok(match t {
        NC_BYTE => "byte",
        NC_CHAR => "char",
        NC_SHORT => "short",
        NC_INT => "int",
        NC_FLOAT => "float",
        NC_DOUBLE => "double",
        NC_UBYTE => "ubyte",
        NC_USHORT => "ushort",
        NC_UINT => "uint",
        NC_INT64 => "int64",
        NC_UINT64 => "uint64",
        NC_STRING => "string",
        _ => return Err(NcError::EBADTYPE),
    })
}

/// Default fill values (netcdf.h `NC_FILL_*`).
pub mod fill {
    pub const BYTE: i8 = -127;
    pub const CHAR: u8 = 0;
    pub const SHORT: i16 = -32767;
    pub const INT: i32 = -2147483647;
    pub const FLOAT: f32 = 9.969_21e36_f32;
    pub const DOUBLE: f64 = 9.969_209_968_386_869e36_f64;
    pub const UBYTE: u8 = 255;
    pub const USHORT: u16 = 65535;
    pub const UINT: u32 = 4294967295;
    pub const INT64: i64 = -9223372036854775806;
    pub const UINT64: u64 = 18446744073709551614;
}

/// Byte order of a variable's stored data (`nc_def_var_endian`).
pub const NC_ENDIAN_NATIVE: i32 = 0;
pub const NC_ENDIAN_LITTLE: i32 = 1;
pub const NC_ENDIAN_BIG: i32 = 2;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[allow(clippy::excessive_precision)] // netcdf.h's spelling, on purpose
    fn fill_values_match_netcdf_h() {
        assert_eq!(fill::FLOAT, 9.9692099683868690e+36_f32);
        assert_eq!(fill::DOUBLE, 9.9692099683868690e+36_f64);
    }

    #[test]
    fn sizes_and_names() {
        assert_eq!(type_size(NC_INT64).unwrap(), 8);
        assert_eq!(type_name(NC_UBYTE).unwrap(), "ubyte");
        assert_eq!(type_size(NC_NAT), Err(NcError::EBADTYPE));
        assert_eq!(type_size(13), Err(NcError::EBADTYPE));
    }
}
