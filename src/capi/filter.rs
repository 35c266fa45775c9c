//! The filter API, as it stands before any codec is built in: variables
//! can be asked about their filters, and defining one answers
//! NC_ENOFILTER, exactly as netcdf-c does when no plugin provides the
//! filter. (Built-in codecs and plugin loading are the filter issue's.)

use std::ffi::{c_int, c_uint};

use super::{guard, put};
use crate::error::NcError;
use crate::registry;

/// # Safety
/// `params` must hold `nparams` values or be NULL when `nparams` is 0.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_def_var_filter(
    ncid: c_int,
    varid: c_int,
    _id: c_uint,
    nparams: usize,
    params: *const c_uint,
) -> c_int {
    guard(|| {
        registry::with(ncid, |ds, grp| {
            ds.model.var(grp, varid)?;
            ds.model.check_writable()?;
            if nparams > 0 && params.is_null() {
                return Err(NcError::EINVAL);
            }
            Err(NcError::ENOFILTER)
        })
    })
}

#[unsafe(no_mangle)]
pub extern "C" fn nc_def_var_deflate(
    ncid: c_int,
    varid: c_int,
    shuffle: c_int,
    deflate: c_int,
    deflate_level: c_int,
) -> c_int {
    guard(|| {
        registry::with(ncid, |ds, grp| {
            ds.model.var(grp, varid)?;
            ds.model.check_writable()?;
            if deflate != 0 && !(0..=9).contains(&deflate_level) {
                return Err(NcError::EINVAL);
            }
            if shuffle != 0 || deflate != 0 { Err(NcError::ENOFILTER) } else { Ok(()) }
        })
    })
}

/// # Safety
/// Each pointer must be NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_var_deflate(
    ncid: c_int,
    varid: c_int,
    shufflep: *mut c_int,
    deflatep: *mut c_int,
    deflate_levelp: *mut c_int,
) -> c_int {
    guard(|| {
        registry::with(ncid, |ds, grp| {
            ds.model.var(grp, varid)?;
            unsafe {
                put(shufflep, 0);
                put(deflatep, 0);
                put(deflate_levelp, 0);
            }
            Ok(())
        })
    })
}

/// The filters of a variable in chain order. Codecs read from storage
/// that this build cannot decode are reported with id 0, as netcdf-c does.
///
/// # Safety
/// `nfiltersp` NULL or writable; `ids` NULL or room for every filter.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_var_filter_ids(
    ncid: c_int,
    varid: c_int,
    nfiltersp: *mut usize,
    ids: *mut c_uint,
) -> c_int {
    guard(|| {
        registry::with(ncid, |ds, grp| {
            let n = ds.model.var(grp, varid)?.codecs.len();
            unsafe {
                put(nfiltersp, n);
                super::put_slice(ids, &vec![0 as c_uint; n]);
            }
            Ok(())
        })
    })
}

#[unsafe(no_mangle)]
pub extern "C" fn nc_inq_filter_avail(ncid: c_int, _id: c_uint) -> c_int {
    guard(|| {
        registry::with(ncid, |_, _| Ok(()))?;
        Err(NcError::ENOFILTER)
    })
}
