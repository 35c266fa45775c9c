//! Quantization settings (`nc_def_var_quantize`, `nc_inq_var_quantize`).

use std::ffi::c_int;

use super::{guard, put};
use crate::error::NcError;
use crate::model::NC_GLOBAL;
use crate::registry;

pub extern "C" fn nc_def_var_quantize(ncid: c_int, varid: c_int, quantize_mode: c_int, nsd: c_int) -> c_int {
    guard(|| {
        registry::with(ncid, |ds, grp| {
            if varid == NC_GLOBAL {
                return Err(NcError::EGLOBAL);
            }
            ds.model.def_var_quantize(grp, varid, quantize_mode, nsd)
        })
    })
}

/// # Safety
/// `quantize_modep` and `nsdp` NULL or writable.
pub unsafe extern "C" fn nc_inq_var_quantize(
    ncid: c_int,
    varid: c_int,
    quantize_modep: *mut c_int,
    nsdp: *mut c_int,
) -> c_int {
    guard(|| {
        registry::with(ncid, |ds, grp| {
            if varid == NC_GLOBAL {
                return Err(NcError::EGLOBAL);
            }
            let (mode, nsd) = ds.model.var_quantize(grp, varid)?;
            // SAFETY: the caller passes NULL or writable pointers.
            unsafe {
                put(quantize_modep, mode);
                put(nsdp, nsd);
            }
            Ok(())
        })
    })
}
