//! The shared body of every `nc_put_var*` / `nc_get_var*` function: turn
//! the C arguments of each form (var, var1, vara, vars, varm) into a
//! checked selection and hand it to the data engine. The typed entry
//! points themselves are in `data_typed.rs`.

// Unsafe blocks here only dereference, or pass on, the enclosing C
// function's own pointer arguments, as its `# Safety` section says the
// caller guarantees: that section is their SAFETY comment (policy in
// src/capi/mod.rs). Blocks doing more carry their own.
#![allow(clippy::undocumented_unsafe_blocks, reason = "caller pointers, per each function's # Safety section")]

use std::ffi::{c_int, c_void};

use super::{guard, read_array};
use crate::dataset::Dataset;
use crate::error::{NcError, NcResult};
use crate::io::selection::Extent;
use crate::io::{Access, Selection, engine};
use crate::registry;

/// Which hyperslab arguments a function takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// The whole variable.
    Var,
    /// One element at an index.
    Var1,
    Vara,
    Vars,
    Varm,
}

/// The hyperslab pointers as given (NULL where the form has none).
#[derive(Debug, Clone, Copy)]
pub struct SlabArgs {
    pub start: *const usize,
    pub count: *const usize,
    pub stride: *const isize,
    pub imap: *const isize,
}

impl SlabArgs {
    pub const NONE: SlabArgs =
        SlabArgs { start: std::ptr::null(), count: std::ptr::null(), stride: std::ptr::null(), imap: std::ptr::null() };
}

/// Build the checked selection for a request.
///
/// # Safety
/// Non-NULL pointers must hold one value per dimension of the variable.
unsafe fn selection(
    ds: &Dataset,
    grp: usize,
    varid: c_int,
    form: Form,
    args: SlabArgs,
    access: Access,
) -> NcResult<Selection> {
    let var = ds.model.var(grp, varid)?;
    let dims: Vec<Extent> = var
        .dimids
        .iter()
        .map(|&d| {
            let dim = &ds.model.dims[d];
            Extent { len: dim.len, unlimited: dim.unlimited || dim.appendable }
        })
        .collect();
    let n = dims.len();
    let optional = |p: *const usize| -> NcResult<Option<Vec<usize>>> {
        if p.is_null() { Ok(None) } else { unsafe { read_array(p, n) }.map(Some) }
    };
    let optional_signed = |p: *const isize| -> NcResult<Option<Vec<isize>>> {
        if p.is_null() { Ok(None) } else { unsafe { read_array(p, n) }.map(Some) }
    };
    let zeros = vec![0usize; n];
    let ones = vec![1usize; n];
    let (start, count, stride, imap) = match form {
        Form::Var => (Some(zeros), None, None, None),
        Form::Var1 => (optional(args.start)?, Some(ones), None, None),
        Form::Vara => (optional(args.start)?, optional(args.count)?, None, None),
        Form::Vars => (optional(args.start)?, optional(args.count)?, optional_signed(args.stride)?, None),
        Form::Varm => {
            (optional(args.start)?, optional(args.count)?, optional_signed(args.stride)?, optional_signed(args.imap)?)
        }
    };
    Selection::check(&dims, start.as_deref(), count.as_deref(), stride.as_deref(), imap.as_deref(), access)
}

/// Read through any form into `ip`, converting to `mem_type` (NC_NAT: the
/// variable's own type).
///
/// # Safety
/// `ip` must have room for the selection; the slab pointers as for the form.
pub unsafe fn get(ncid: c_int, varid: c_int, form: Form, args: SlabArgs, ip: *mut c_void, mem_type: c_int) -> c_int {
    guard(|| {
        let (shared, grp) = registry::shared(ncid)?;
        let select = |ds: &Dataset| unsafe { selection(ds, grp, varid, form, args, Access::Read) };
        let range_error = unsafe { engine::read(&shared, grp, varid, mem_type, ip as *mut u8, select) }?;
        if range_error { Err(NcError::ERANGE) } else { Ok(()) }
    })
}

/// Write through any form from `op`, converting from `mem_type`.
///
/// # Safety
/// `op` must hold the selection; the slab pointers as for the form.
pub unsafe fn put(ncid: c_int, varid: c_int, form: Form, args: SlabArgs, op: *const c_void, mem_type: c_int) -> c_int {
    guard(|| {
        registry::with_writing(ncid, |ds, grp| {
            ds.model.check_writable()?;
            let sel = unsafe { selection(ds, grp, varid, form, args, Access::Write) }?;
            if op.is_null() && !sel.is_empty() {
                return Err(NcError::EINVAL);
            }
            let piece = if form == Form::Varm { varm_piece(&sel, args) } else { sel.len() };
            let written = unsafe { engine::write_in_pieces(ds, grp, varid, &sel, mem_type, op as *const u8, piece) };
            // A parallel dataset's variable in collective access: every
            // rank's parts of shared chunks go to their owners now.
            #[cfg(feature = "mpi")]
            let written = crate::parallel::collective::after_write(ds, grp, varid).and(written);
            if written? { Err(NcError::ERANGE) } else { Ok(()) }
        })
    })
}

/// How many elements each write has when netcdf-c carries out a mapped
/// write (`NCDEFAULT_put_varm`): all of them with unit strides and no map;
/// otherwise one write per row when the last dimension has unit stride
/// and map, else one per element. Quantization sees each write alone.
fn varm_piece(sel: &Selection, args: SlabArgs) -> usize {
    let last = sel.count.len() - 1;
    if args.imap.is_null() && sel.stride.iter().all(|&s| s == 1) {
        sel.len()
    } else if sel.stride[last] == 1 && sel.imap[last] == 1 {
        sel.count[last]
    } else {
        1
    }
}
