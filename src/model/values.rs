//! A typed vector of values of one atomic netCDF type: the in-memory form
//! of attribute values and fill values.

use crate::convert::{Element, convert_vec};
use crate::error::{NcError, NcResult};
use crate::types::*;

#[derive(Debug, Clone, PartialEq)]
pub enum Values {
    Byte(Vec<i8>),
    Char(Vec<u8>),
    Short(Vec<i16>),
    Int(Vec<i32>),
    Float(Vec<f32>),
    Double(Vec<f64>),
    UByte(Vec<u8>),
    UShort(Vec<u16>),
    UInt(Vec<u32>),
    Int64(Vec<i64>),
    UInt64(Vec<u64>),
    /// Strings as raw bytes (C strings need not be UTF-8).
    String(Vec<Vec<u8>>),
}

/// Run `$body` with `$v` bound to the numeric vector inside `$values`;
/// evaluates `$other` for char and string values.
macro_rules! with_numeric {
    ($values:expr, $v:ident => $body:expr, _ => $other:expr) => {
        match $values {
            Values::Byte($v) => $body,
            Values::Short($v) => $body,
            Values::Int($v) => $body,
            Values::Float($v) => $body,
            Values::Double($v) => $body,
            Values::UByte($v) => $body,
            Values::UShort($v) => $body,
            Values::UInt($v) => $body,
            Values::Int64($v) => $body,
            Values::UInt64($v) => $body,
            Values::Char(_) | Values::String(_) => $other,
        }
    };
}
pub(crate) use with_numeric;

impl Values {
    pub fn nc_type(&self) -> NcType {
        match self {
            Values::Byte(_) => NC_BYTE,
            Values::Char(_) => NC_CHAR,
            Values::Short(_) => NC_SHORT,
            Values::Int(_) => NC_INT,
            Values::Float(_) => NC_FLOAT,
            Values::Double(_) => NC_DOUBLE,
            Values::UByte(_) => NC_UBYTE,
            Values::UShort(_) => NC_USHORT,
            Values::UInt(_) => NC_UINT,
            Values::Int64(_) => NC_INT64,
            Values::UInt64(_) => NC_UINT64,
            Values::String(_) => NC_STRING,
        }
    }

    pub fn len(&self) -> usize {
        match self {
            Values::Char(v) => v.len(),
            Values::String(v) => v.len(),
            other => with_numeric!(other, v => v.len(), _ => 0),
        }
    }

    /// Keep the first `n` values.
    pub fn truncate(&mut self, n: usize) {
        match self {
            Values::Char(v) => v.truncate(n),
            Values::String(v) => v.truncate(n),
            other => with_numeric!(other, v => v.truncate(n), _ => unreachable!()),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// An empty vector of type `t`.
    pub fn empty(t: NcType) -> NcResult<Values> {
        Ok(match t {
            NC_CHAR => Values::Char(Vec::new()),
            NC_STRING => Values::String(Vec::new()),
            _ => Values::from_numeric_vec(t, Vec::<i8>::new())?.0,
        })
    }

    /// The default fill value of type `t` (netcdf.h `NC_FILL_*`), one element.
    pub fn default_fill(t: NcType) -> NcResult<Values> {
        Ok(match t {
            NC_BYTE => Values::Byte(vec![fill::BYTE]),
            NC_CHAR => Values::Char(vec![fill::CHAR]),
            NC_SHORT => Values::Short(vec![fill::SHORT]),
            NC_INT => Values::Int(vec![fill::INT]),
            NC_FLOAT => Values::Float(vec![fill::FLOAT]),
            NC_DOUBLE => Values::Double(vec![fill::DOUBLE]),
            NC_UBYTE => Values::UByte(vec![fill::UBYTE]),
            NC_USHORT => Values::UShort(vec![fill::USHORT]),
            NC_UINT => Values::UInt(vec![fill::UINT]),
            NC_INT64 => Values::Int64(vec![fill::INT64]),
            NC_UINT64 => Values::UInt64(vec![fill::UINT64]),
            NC_STRING => Values::String(vec![Vec::new()]),
            _ => return Err(NcError::EBADTYPE),
        })
    }

    /// Build a numeric `Values` of type `t` from any numeric slice,
    /// converting each element; the flag reports a range error.
    pub fn from_numeric_vec<S: Element>(t: NcType, src: Vec<S>) -> NcResult<(Values, bool)> {
        fn conv<S: Element, D: Element>(src: &[S]) -> (Vec<D>, bool) {
            convert_vec::<S, D>(src)
        }
        let (values, range_error) = match t {
            NC_BYTE => wrap(conv::<S, i8>(&src), Values::Byte),
            NC_SHORT => wrap(conv::<S, i16>(&src), Values::Short),
            NC_INT => wrap(conv::<S, i32>(&src), Values::Int),
            NC_FLOAT => wrap(conv::<S, f32>(&src), Values::Float),
            NC_DOUBLE => wrap(conv::<S, f64>(&src), Values::Double),
            NC_UBYTE => wrap(conv::<S, u8>(&src), Values::UByte),
            NC_USHORT => wrap(conv::<S, u16>(&src), Values::UShort),
            NC_UINT => wrap(conv::<S, u32>(&src), Values::UInt),
            NC_INT64 => wrap(conv::<S, i64>(&src), Values::Int64),
            NC_UINT64 => wrap(conv::<S, u64>(&src), Values::UInt64),
            NC_CHAR | NC_STRING => return Err(NcError::ECHAR),
            _ => return Err(NcError::EBADTYPE),
        };
        Ok((values, range_error))
    }

    /// Convert to type `t` following netCDF's rules: numbers convert among
    /// themselves (the flag reports a range error); text and strings only
    /// "convert" to their own type, anything else is NC_ECHAR.
    pub fn convert_to(&self, t: NcType) -> NcResult<(Values, bool)> {
        if !is_atomic(t) {
            return Err(NcError::EBADTYPE);
        }
        if self.nc_type() == t {
            return Ok((self.clone(), false));
        }
        if matches!(self, Values::Char(_) | Values::String(_)) || t == NC_CHAR || t == NC_STRING {
            return Err(NcError::ECHAR);
        }
        with_numeric!(self, v => Values::from_numeric_vec(t, v.clone()), _ => unreachable!())
    }

    /// Read `len` values of memory type `t` from a C buffer.
    ///
    /// # Safety
    /// `ptr` must point to `len` readable values of type `t` (for
    /// NC_STRING, `len` `char*` pointers, each NULL or NUL-terminated).
    pub unsafe fn read_from_c(t: NcType, ptr: *const std::ffi::c_void, len: usize) -> NcResult<Values> {
        unsafe fn copy<T: Copy + Default>(ptr: *const std::ffi::c_void, len: usize) -> Vec<T> {
            let mut out = vec![T::default(); len];
            if len > 0 {
                // Unaligned-safe byte copy: callers' buffers are usually
                // aligned, but nothing in the C API promises it.
                // SAFETY: `ptr` holds `len` values of T (our contract);
                // `out` has room for them and is not the caller's memory.
                unsafe {
                    std::ptr::copy_nonoverlapping(
                        ptr as *const u8,
                        out.as_mut_ptr() as *mut u8,
                        len * std::mem::size_of::<T>(),
                    )
                };
            }
            out
        }
        // SAFETY: `ptr` holds `len` values of `t`, whose Rust type each
        // arm names (for NC_STRING, pointers that are NULL or C strings).
        unsafe {
            Ok(match t {
                NC_BYTE => Values::Byte(copy(ptr, len)),
                NC_CHAR => Values::Char(copy(ptr, len)),
                NC_SHORT => Values::Short(copy(ptr, len)),
                NC_INT => Values::Int(copy(ptr, len)),
                NC_FLOAT => Values::Float(copy(ptr, len)),
                NC_DOUBLE => Values::Double(copy(ptr, len)),
                NC_UBYTE => Values::UByte(copy(ptr, len)),
                NC_USHORT => Values::UShort(copy(ptr, len)),
                NC_UINT => Values::UInt(copy(ptr, len)),
                NC_INT64 => Values::Int64(copy(ptr, len)),
                NC_UINT64 => Values::UInt64(copy(ptr, len)),
                NC_STRING => {
                    let ptrs: Vec<*const std::ffi::c_char> = copy(ptr, len);
                    Values::String(
                        ptrs.into_iter()
                            .map(
                                |p| {
                                    if p.is_null() {
                                        Vec::new()
                                    } else {
                                        std::ffi::CStr::from_ptr(p).to_bytes().to_vec()
                                    }
                                },
                            )
                            .collect(),
                    )
                }
                _ => return Err(NcError::EBADTYPE),
            })
        }
    }

    /// Write the values into a C buffer, in this vector's own type.  Strings
    /// are written as newly `malloc`ed C strings the caller frees with
    /// `nc_free_string`.
    ///
    /// # Safety
    /// `ptr` must have room for `self.len()` values of `self.nc_type()`.
    pub unsafe fn write_to_c(&self, ptr: *mut std::ffi::c_void) -> NcResult<()> {
        unsafe fn put<T: Copy>(src: &[T], ptr: *mut std::ffi::c_void) {
            if !src.is_empty() {
                // SAFETY: `ptr` has room for `src` (our contract) and is
                // the caller's memory, not `src`'s.
                unsafe {
                    std::ptr::copy_nonoverlapping(src.as_ptr() as *const u8, ptr as *mut u8, std::mem::size_of_val(src))
                };
            }
        }
        // SAFETY: `ptr` has room for `self.len()` values of this type (for
        // strings, as many pointers, each written once).
        unsafe {
            match self {
                Values::Char(v) => put(v, ptr),
                Values::String(strings) => {
                    let out = ptr as *mut *mut std::ffi::c_char;
                    for (i, s) in strings.iter().enumerate() {
                        let p = crate::capi::cmem::malloc_cstring(s)?;
                        out.add(i).write_unaligned(p);
                    }
                }
                other => with_numeric!(other, v => put(v, ptr), _ => unreachable!()),
            }
        }
        Ok(())
    }
}

fn wrap<T>(pair: (Vec<T>, bool), f: fn(Vec<T>) -> Values) -> (Values, bool) {
    (f(pair.0), pair.1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numeric_conversion_reports_range() {
        let v = Values::Int(vec![1, 300, -5]);
        let (b, bad) = v.convert_to(NC_UBYTE).unwrap();
        assert!(bad);
        assert_eq!(b, Values::UByte(vec![1, 44, 251]));
        let (d, bad) = v.convert_to(NC_DOUBLE).unwrap();
        assert!(!bad);
        assert_eq!(d, Values::Double(vec![1.0, 300.0, -5.0]));
    }

    #[test]
    fn text_never_converts_to_numbers() {
        assert_eq!(Values::Char(b"ab".to_vec()).convert_to(NC_INT), Err(NcError::ECHAR));
        assert_eq!(Values::Int(vec![1]).convert_to(NC_CHAR), Err(NcError::ECHAR));
        assert_eq!(Values::Int(vec![1]).convert_to(NC_STRING), Err(NcError::ECHAR));
        assert!(Values::Char(b"ab".to_vec()).convert_to(NC_CHAR).is_ok());
    }
}
