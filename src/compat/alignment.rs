//! `ncaux_class_alignment`: the C alignment of a netCDF type class, which
//! ncgen uses to lay out compound types in memory.

use std::mem::align_of;

use crate::error::{NcError, NcResult};

/// netcdf.h's `nc_vlen_t`.
#[repr(C)]
struct VlenT {
    _len: usize,
    _p: *mut std::ffi::c_void,
}

/// The alignment of an atomic type, `NC_VLEN` (an `nc_vlen_t`) or
/// `NC_OPAQUE` (bytes). Any other class is NC_EINVAL, with the message
/// netcdf-c 4.9.0 logs for it.
pub fn class_alignment(class: i32) -> Result<usize, (NcError, String)> {
    let align = match class {
        1 | 2 | 7 | 14 => align_of::<u8>(),
        3 | 8 => align_of::<i16>(),
        4 | 9 => align_of::<i32>(),
        5 => align_of::<f32>(),
        6 => align_of::<f64>(),
        10 | 11 => align_of::<i64>(),
        12 => align_of::<*const u8>(),
        13 => align_of::<VlenT>(),
        c if c <= 12 => return Err((NcError::EINVAL, format!("nc_class_alignment: class code {c} cannot be aligned"))),
        c => {
            return Err((
                NcError::EINVAL,
                format!("ncaux_class_alignment: class {c}; alignment cannot be determermined"),
            ));
        }
    };
    Ok(align)
}

/// The same as a plain result, for callers that do not log.
pub fn class_alignment_of(class: i32) -> NcResult<usize> {
    class_alignment(class).map_err(|(e, _)| e)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alignments() {
        assert_eq!(class_alignment_of(1), Ok(1));
        assert_eq!(class_alignment_of(3), Ok(2));
        assert_eq!(class_alignment_of(5), Ok(4));
        assert_eq!(class_alignment_of(6), Ok(align_of::<f64>()));
        assert_eq!(class_alignment_of(12), Ok(align_of::<usize>()));
        assert_eq!(class_alignment_of(13), Ok(align_of::<usize>()));
        assert_eq!(class_alignment_of(14), Ok(1));
        assert_eq!(class_alignment_of(0), Err(NcError::EINVAL));
        assert_eq!(
            class_alignment(16).unwrap_err().1,
            "ncaux_class_alignment: class 16; alignment cannot be determermined"
        );
        assert!(class_alignment(-1).unwrap_err().1.starts_with("nc_class_alignment"));
    }
}
