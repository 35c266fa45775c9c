//! netcdf-c's quantization algorithms (BitGroom, Granular BitRound and
//! BitRound), over values already converted to the variable's type. The
//! engine applies them to a whole write request before it reaches the
//! chunk cache, as netcdf-c applies them while converting the caller's
//! buffer (`nc4_convert_type`), so the stored bits are the same.
//!
//! Every algorithm leaves alone the fill value, zeros of either sign and
//! NaN (netcdf-c 4.9.3 and later; 4.9.0 quantized some of them, see
//! `ctests/t_quantize_diff.sh`). Everything else is bit for bit what
//! netcdf-c computes, including BitGroom turning an infinity at an odd
//! position into NaN (its "set" mask fills the significand).
//!
//! Where netcdf-c's C would shift by a count out of range or convert an
//! infinite double to int (undefined behaviour: the result depends on
//! compiler and CPU; on x86 it garbles the value), values are kept as
//! they are: infinities under Granular BitRound (netcdf-c on x86 stores
//! -0 for +inf and 0 for -inf), and settings only a stored attribute can
//! carry, such as 7 digits on a float from a dataset netcdf-c 4.9.x wrote.

use crate::model::quantize::{Algorithm, Quantize};

/// log2(10) and log10(2) as netcdf-c computes them (M_LN10 / M_LN2).
const BIT_PER_DGT: f64 = std::f64::consts::LN_10 / std::f64::consts::LN_2;
const DGT_PER_BIT: f64 = std::f64::consts::LN_2 / std::f64::consts::LN_10;

/// A floating-point type quantization works on, seen through its bits.
pub trait Sample: Copy + Default {
    /// Explicitly stored significand bits.
    const MANTISSA: i64;
    /// The bits of the type within a u64.
    const WIDTH: u64;
    fn bits(self) -> u64;
    fn from_bits(bits: u64) -> Self;
    fn value(self) -> f64;
}

impl Sample for f32 {
    const MANTISSA: i64 = 23;
    const WIDTH: u64 = u32::MAX as u64;
    fn bits(self) -> u64 {
        self.to_bits() as u64
    }
    fn from_bits(bits: u64) -> Self {
        f32::from_bits(bits as u32)
    }
    fn value(self) -> f64 {
        self as f64
    }
}

impl Sample for f64 {
    const MANTISSA: i64 = 52;
    const WIDTH: u64 = u64::MAX;
    fn bits(self) -> u64 {
        self.to_bits()
    }
    fn from_bits(bits: u64) -> Self {
        f64::from_bits(bits)
    }
    fn value(self) -> f64 {
        self
    }
}

/// The masks for clearing the `zero` lowest significand bits: `keep`
/// (AND), `set` (OR) and `half` (ADD, the highest of the cleared bits).
/// `None` when no such masks exist (netcdf-c's C shift is then undefined).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Masks {
    keep: u64,
    set: u64,
    half: u64,
}

fn masks<T: Sample>(zero: i64) -> Option<Masks> {
    if !(0..=T::MANTISSA).contains(&zero) {
        return None;
    }
    let keep = (u64::MAX << zero) & T::WIDTH;
    let set = !keep & T::WIDTH;
    Some(Masks { keep, set, half: set & (keep >> 1) })
}

/// Values every algorithm leaves alone.
fn untouched(v: f64, fill: f64) -> bool {
    v == fill || v == 0.0 || v.is_nan()
}

/// Round half up at the kept bits: add the half mask (carrying into the
/// exponent if need be, as an integer add does) and clear the rest.
fn round<T: Sample>(x: T, m: Masks) -> T {
    T::from_bits(x.bits().wrapping_add(m.half) & T::WIDTH & m.keep)
}

/// BitGroom: keep enough bits for `nsd` decimal digits, then alternately
/// clear (even positions) and set (odd positions) the rest. Positions
/// count from the start of `data`.
pub fn bitgroom<T: Sample>(data: &mut [T], nsd: i32, fill: f64) {
    let keep_bits = (nsd as f64 * BIT_PER_DGT).ceil() as i64 + 1;
    let Some(m) = masks::<T>(T::MANTISSA - keep_bits) else { return };
    for (i, x) in data.iter_mut().enumerate() {
        if !untouched(x.value(), fill) {
            *x = T::from_bits(if i % 2 == 0 { x.bits() & m.keep } else { x.bits() | m.set });
        }
    }
}

/// BitRound: round every value to `nsb` significand bits.
pub fn bitround<T: Sample>(data: &mut [T], nsb: i32, fill: f64) {
    let Some(m) = masks::<T>(T::MANTISSA - nsb as i64) else { return };
    for x in data.iter_mut() {
        if !untouched(x.value(), fill) {
            *x = round(*x, m);
        }
    }
}

/// Granular BitRound: round each value to the bits its own magnitude
/// needs for `nsd` decimal digits (Delaunay et al. 2019 with netcdf-c's
/// one-bit reduction).
pub fn granular_bitround<T: Sample>(data: &mut [T], nsd: i32, fill: f64) {
    for x in data.iter_mut() {
        let v = x.value();
        if untouched(v, fill) || v.is_infinite() {
            continue;
        }
        let (mnt, xpn) = frexp(v);
        let mnt_log10 = mnt.abs().log10();
        let digits = (xpn as f64 * DGT_PER_BIT + mnt_log10).floor() as i64 + 1;
        let qnt_pwr = (BIT_PER_DGT * (digits - nsd as i64) as f64).floor() as i64;
        let keep_bits = ((xpn as f64 - BIT_PER_DGT * mnt_log10).floor() as i64 - qnt_pwr).abs() - 1;
        if let Some(m) = masks::<T>(T::MANTISSA - keep_bits) {
            *x = round(*x, m);
        }
    }
}

/// C's `frexp` for a finite, non-zero `x`: `x = mnt * 2^exp`, with
/// 0.5 <= |mnt| < 1. Exact.
fn frexp(x: f64) -> (f64, i32) {
    let bits = x.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i32;
    if biased == 0 {
        // Subnormal: scale into the normal range first (exact).
        let (m, e) = frexp(x * f64::from_bits((1023 + 54) << 52));
        return (m, e - 54);
    }
    (f64::from_bits((bits & !(0x7ff << 52)) | (1022 << 52)), biased - 1022)
}

/// Quantize values of one write request. netcdf-c carries out some
/// requests as several writes of `piece` elements (see
/// `capi::data::put`); BitGroom's alternation restarts with each.
pub fn apply<T: Sample>(q: Quantize, data: &mut [T], fill: f64, piece: usize) {
    match q.algorithm {
        Algorithm::BitGroom => data.chunks_mut(piece.max(1)).for_each(|p| bitgroom(p, q.nsd, fill)),
        Algorithm::GranularBitRound => granular_bitround(data, q.nsd, fill),
        Algorithm::BitRound => bitround(data, q.nsd, fill),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::fill;

    const FILL_F: f64 = fill::FLOAT as f64;
    const FILL_D: f64 = fill::DOUBLE;

    fn bits32(v: &[f32]) -> Vec<u32> {
        v.iter().map(|x| x.to_bits()).collect()
    }

    fn bits64(v: &[f64]) -> Vec<u64> {
        v.iter().map(|x| x.to_bits()).collect()
    }

    #[test]
    #[allow(clippy::excessive_precision, clippy::approx_constant)]
    fn constants_match_netcdf_c() {
        // M_LN10 and M_LN2 as netcdf-c spells them.
        assert_eq!(BIT_PER_DGT, 2.30258509299404568402_f64 / 0.69314718055994530942_f64);
        assert_eq!(DGT_PER_BIT, 0.69314718055994530942_f64 / 2.30258509299404568402_f64);
    }

    #[test]
    fn frexp_is_exact() {
        assert_eq!(frexp(8.0), (0.5, 4));
        assert_eq!(frexp(-3.0), (-0.75, 2));
        assert_eq!(frexp(1.0), (0.5, 1));
        assert_eq!(frexp(0.1), (0.8, -3));
        assert_eq!(frexp(f64::MAX), (1.0 - f64::EPSILON / 2.0, 1024));
        let tiny = f64::from_bits(1); // 2^-1074
        assert_eq!(frexp(tiny), (0.5, -1073));
        assert_eq!(frexp(-3.0 * tiny), (-0.75, -1072));
    }

    #[test]
    fn masks_for_float_and_double() {
        let m = masks::<f32>(23 - 11).unwrap();
        assert_eq!((m.keep, m.set, m.half), (0xFFFF_F000, 0xFFF, 0x800));
        let m = masks::<f64>(1).unwrap();
        assert_eq!((m.keep, m.set, m.half), (u64::MAX - 1, 1, 1));
        assert_eq!(masks::<f32>(0).unwrap().keep, 0xFFFF_FFFF);
        assert_eq!(masks::<f32>(-1), None);
        assert_eq!(masks::<f32>(24), None);
    }

    // Expected values below are what netcdf-c 4.10.1 writes (checked with
    // its library), written as bit patterns.

    #[test]
    fn bitgroom_float() {
        // nsd 3 keeps 11 explicit bits: clear 12 (even), set 12 (odd).
        let mut v = [1.2345678f32, 3.3, -7.77, 1e-3, 0.0, -0.0, f32::NAN, 5.0];
        bitgroom(&mut v, 3, FILL_F);
        assert_eq!(
            bits32(&v),
            [0x3f9e_0000, 0x4053_3fff, 0xc0f8_a000, 0x3a83_1fff, 0, 0x8000_0000, 0x7fc0_0000, 0x40a0_0fff]
        );
        // Fill is kept; an infinity is kept at an even position and
        // becomes NaN at an odd one (the set mask fills its significand).
        let mut v = [fill::FLOAT, fill::FLOAT, f32::INFINITY, f32::NEG_INFINITY];
        bitgroom(&mut v, 3, FILL_F);
        assert_eq!(bits32(&v), [fill::FLOAT.to_bits(), fill::FLOAT.to_bits(), 0x7f80_0000, 0xff80_0fff]);
        // A user fill value is kept, the default one is then quantized.
        let mut v = [2.5f32, 2.5, fill::FLOAT, fill::FLOAT];
        bitgroom(&mut v, 1, 2.5);
        assert_eq!(bits32(&v), [0x4020_0000, 0x4020_0000, 0x7cf0_0000, 0x7cf3_ffff]);
    }

    #[test]
    fn bitgroom_double() {
        let mut v = [1.2345678901234567f64, 1.2345678901234567, -0.0, f64::NAN, 1e300];
        bitgroom(&mut v, 6, FILL_D);
        assert_eq!(
            bits64(&v),
            [
                0x3ff3_c0ca_0000_0000,
                0x3ff3_c0ca_7fff_ffff,
                0x8000_0000_0000_0000,
                0x7ff8_0000_0000_0000,
                0x7e37_e43c_8000_0000
            ]
        );
        // 15 digits keep 51 of 52 bits.
        let mut v = [f64::from_bits(0x3ff0_0000_0000_0001), f64::from_bits(0x3ff0_0000_0000_0000)];
        bitgroom(&mut v, 15, FILL_D);
        assert_eq!(bits64(&v), [0x3ff0_0000_0000_0000, 0x3ff0_0000_0000_0001]);
    }

    #[test]
    fn bitgroom_float_at_seven_digits_keeps_values() {
        // Only from an attribute netcdf-c 4.9.x wrote: it shifts by -2
        // here (undefined; on x86 it destroys the values). No bits can be
        // removed, so none are.
        let mut v = [1.2345678f32, 3.3];
        bitgroom(&mut v, 7, FILL_F);
        assert_eq!(v, [1.2345678f32, 3.3]);
    }

    #[test]
    fn bitround_both_types() {
        let mut v = [1.2345678f32, 3.3, -7.77, f32::MAX, f32::INFINITY, -0.0, f32::NAN, fill::FLOAT];
        bitround(&mut v, 5, FILL_F);
        // The largest float rounds up to infinity.
        assert_eq!(
            bits32(&v),
            [0x3fa0_0000, 0x4054_0000, 0xc0f8_0000, 0x7f80_0000, 0x7f80_0000, 0x8000_0000, 0x7fc0_0000, 0x7cf0_0000]
        );
        let mut v = [std::f64::consts::PI, -std::f64::consts::E, 1e-310];
        bitround(&mut v, 10, FILL_D);
        assert_eq!(bits64(&v), [0x4009_2000_0000_0000, 0xc005_c000_0000_0000, 0x0000_1400_0000_0000]);
        // All bits kept: unchanged.
        let mut v = [std::f64::consts::PI];
        bitround(&mut v, 52, FILL_D);
        assert_eq!(v, [std::f64::consts::PI]);
    }

    #[test]
    fn granular_bitround_both_types() {
        // Infinities are kept (netcdf-c's C converts an infinite double
        // to int here; on x86 it writes -0 for +inf and 0 for -inf).
        let mut v = [1.2345678f32, 3.3, 1234.5678, -0.000123456, 0.0, f32::NAN, f32::INFINITY, fill::FLOAT];
        granular_bitround(&mut v, 3, FILL_F);
        assert_eq!(
            bits32(&v),
            [0x3f9e_0000, 0x4053_0000, 0x449a_0000, 0xb901_0000, 0, 0x7fc0_0000, 0x7f80_0000, fill::FLOAT.to_bits()]
        );
        let mut v = [1.2345678901234567f64, 98765.4321, -1e-300];
        granular_bitround(&mut v, 5, FILL_D);
        assert_eq!(bits64(&v), [0x3ff3_c0c0_0000_0000, 0x40f8_1cd0_0000_0000, 0x81a5_6e00_0000_0000]);
    }

    #[test]
    fn pieces_restart_bitgroom() {
        let q = Quantize { algorithm: Algorithm::BitGroom, nsd: 2 };
        let mut whole = [1.1f32, 1.1, 1.1, 1.1];
        apply(q, &mut whole, FILL_F, 4);
        assert_eq!(bits32(&whole), [0x3f8c_8000, 0x3f8c_ffff, 0x3f8c_8000, 0x3f8c_ffff]);
        let mut rows = [1.1f32, 1.1, 1.1, 1.1];
        apply(q, &mut rows, FILL_F, 2);
        assert_eq!(whole, rows, "rows of even length alternate alike");
        let mut single = [1.1f32, 1.1, 1.1];
        apply(q, &mut single, FILL_F, 1);
        assert_eq!(bits32(&single), [single[0].to_bits(); 3], "one element per write: always cleared");
        assert!(single[0] < 1.1);
    }
}
