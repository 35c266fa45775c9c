//! Numeric conversion between the netCDF atomic types, as netcdf-c does it:
//! a value that does not fit the destination type is still stored (C cast
//! semantics) but flags a range error, which the API reports as NC_ERANGE
//! after converting everything else.
//!
//! The rules follow netcdf-c's `nc4_convert_type`:
//! * integer -> integer: range-checked, out-of-range values wrap;
//! * float -> integer: range-checked against the integer limits, truncated;
//! * integer -> float: never a range error;
//! * double -> float: a range error when |v| > FLT_MAX (NaN passes);
//! * float -> double: exact.

/// A numeric element type of the netCDF data model.
pub trait Element: Copy + Default + PartialEq + std::fmt::Debug + Send + Sync + 'static {
    const IS_FLOAT: bool;
    fn to_i128(self) -> i128;
    fn to_f64(self) -> f64;
    /// From an integer source: the value and whether it was out of range.
    fn from_int(v: i128) -> (Self, bool);
    /// From a floating-point source: the value and whether it was out of range.
    fn from_float(v: f64) -> (Self, bool);
}

macro_rules! int_element {
    ($($t:ty),*) => {$(
        impl Element for $t {
            const IS_FLOAT: bool = false;
            #[inline]
            fn to_i128(self) -> i128 { self as i128 }
            #[inline]
            fn to_f64(self) -> f64 { self as f64 }
            #[inline]
            fn from_int(v: i128) -> (Self, bool) {
                let out_of_range = v < <$t>::MIN as i128 || v > <$t>::MAX as i128;
                (v as $t, out_of_range)
            }
            #[inline]
            fn from_float(v: f64) -> (Self, bool) {
                let out_of_range = v > <$t>::MAX as f64 || v < <$t>::MIN as f64;
                (v as $t, out_of_range)
            }
        }
    )*};
}
int_element!(i8, u8, i16, u16, i32, u32, i64, u64);

impl Element for f32 {
    const IS_FLOAT: bool = true;
    #[inline]
    fn to_i128(self) -> i128 {
        self as i128
    }
    #[inline]
    fn to_f64(self) -> f64 {
        self as f64
    }
    #[inline]
    fn from_int(v: i128) -> (Self, bool) {
        (v as f32, false)
    }
    #[inline]
    fn from_float(v: f64) -> (Self, bool) {
        (v as f32, v > f32::MAX as f64 || v < -(f32::MAX as f64))
    }
}

impl Element for f64 {
    const IS_FLOAT: bool = true;
    #[inline]
    fn to_i128(self) -> i128 {
        self as i128
    }
    #[inline]
    fn to_f64(self) -> f64 {
        self
    }
    #[inline]
    fn from_int(v: i128) -> (Self, bool) {
        (v as f64, false)
    }
    #[inline]
    fn from_float(v: f64) -> (Self, bool) {
        (v, false)
    }
}

/// Convert one value; the flag says whether it was out of range.
#[inline]
pub fn convert_one<S: Element, D: Element>(s: S) -> (D, bool) {
    if S::IS_FLOAT { D::from_float(s.to_f64()) } else { D::from_int(s.to_i128()) }
}

/// Convert a slice into a new vector; the flag is set if any value was out
/// of range (every value is converted regardless).
pub fn convert_vec<S: Element, D: Element>(src: &[S]) -> (Vec<D>, bool) {
    let mut range_error = false;
    let out = src
        .iter()
        .map(|&s| {
            let (d, bad) = convert_one::<S, D>(s);
            range_error |= bad;
            d
        })
        .collect();
    (out, range_error)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_narrowing_flags_and_wraps() {
        assert_eq!(convert_one::<i32, i8>(100), (100i8, false));
        assert_eq!(convert_one::<i32, i8>(300), (300i32 as i8, true));
        assert_eq!(convert_one::<i32, u8>(-1), (255u8, true));
        assert_eq!(convert_one::<u64, i64>(u64::MAX), (-1i64, true));
        assert_eq!(convert_one::<i64, u64>(5), (5u64, false));
    }

    #[test]
    fn float_to_integer_checks_limits_and_truncates() {
        assert_eq!(convert_one::<f64, i32>(2.9), (2, false));
        assert_eq!(convert_one::<f64, i32>(-2.9), (-2, false));
        assert!(convert_one::<f64, i32>(2147483648.0).1);
        assert!(convert_one::<f32, u8>(-0.5).0 == 0);
        assert!(!convert_one::<f32, u8>(255.0).1);
        assert!(convert_one::<f32, u8>(256.0).1);
    }

    #[test]
    fn float_narrowing() {
        assert_eq!(convert_one::<f64, f32>(1.5), (1.5f32, false));
        assert!(convert_one::<f64, f32>(1e39).1);
        assert!(convert_one::<f64, f32>(f64::INFINITY).1);
        assert!(!convert_one::<f64, f32>(f64::NAN).1);
        assert!(!convert_one::<i64, f32>(i64::MAX).1);
    }
}
