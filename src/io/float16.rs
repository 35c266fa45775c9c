//! IEEE half floats (Zarr v3 `float16`), which netCDF has no type for:
//! the engine holds their chunks as NC_FLOAT, every half being exactly a
//! float. Narrowing is ours rather than the `half` crate's: its f64 path
//! drops the low mantissa bits before rounding (so a value just past a
//! halfway point can round the wrong way), and it sets the quiet bit of
//! every NaN (so a stored NaN would not be written back bit for bit).
//! Both directions here keep a NaN's payload as numpy does.

/// The largest finite half: a value of greater magnitude is out of range.
pub const MAX: f64 = 65504.0;

/// A half's bits as the float it is exactly; a NaN keeps its sign and
/// payload (the payload's bits on top, as numpy widens).
pub fn widen(h: u16) -> f32 {
    let sign = u32::from(h & 0x8000) << 16;
    let exp = u32::from(h >> 10 & 0x1f);
    let man = u32::from(h & 0x3ff);
    let bits = match exp {
        0x1f => sign | 0x7f80_0000 | man << 13,
        0 if man == 0 => sign,
        0 => {
            // Subnormal: man * 2^-24, a normal float (exact).
            let v = man as f32 * f32::from_bits(0x3380_0000);
            return if sign != 0 { -v } else { v };
        }
        _ => sign | (exp + 112) << 23 | man << 13,
    };
    f32::from_bits(bits)
}

/// The half nearest `x` (ties to even, subnormals included), as bits.
/// Beyond the largest half's rounding range a value becomes an infinity;
/// a NaN stays a NaN with the top bits of its payload.
pub fn narrow(x: f64) -> u16 {
    let bits = x.to_bits();
    let sign = (bits >> 48) as u16 & 0x8000;
    let exp = (bits >> 52 & 0x7ff) as i32;
    let man = bits & ((1 << 52) - 1);
    if exp == 0x7ff {
        if man == 0 {
            return sign | 0x7c00;
        }
        // The payload's top ten bits; a NaN whose payload is all in the
        // low bits must not turn into an infinity.
        let payload = (man >> 42) as u16;
        return sign | 0x7c00 | if payload == 0 { 1 } else { payload };
    }
    let e = exp - 1023;
    if e > 15 {
        return sign | 0x7c00;
    }
    if e < -25 {
        // Below half the smallest subnormal (2^-24): zero. (f64
        // subnormals land here too.)
        return sign;
    }
    let m = man | 1 << 52;
    // Bits of `m` below the half's last mantissa bit: 42 for normal
    // halves, more for subnormal ones, whose last bit is worth 2^-24.
    let shift = if e >= -14 { 42 } else { (28 - e) as u32 };
    let rest = m & ((1 << shift) - 1);
    let halfway = 1 << (shift - 1);
    let mut q = m >> shift;
    if rest > halfway || (rest == halfway && q & 1 == 1) {
        q += 1;
    }
    let magnitude = if e >= -14 {
        // `q` carries the implicit bit (1024..=2048), which adds one to
        // the exponent field; a carry out of the mantissa adds another,
        // up to the infinity's 0x7c00.
        (((e + 14) as u64) << 10) + q
    } else {
        // A subnormal (a carry into 1024 is the smallest normal).
        q
    };
    sign | magnitude as u16
}

/// A float held for a half variable as stored: narrowed bit for bit when
/// it is a NaN (a float's NaN through an f64 would lose its signalling
/// bit), else by value.
pub fn narrow_f32(x: f32) -> u16 {
    if x.is_nan() {
        let bits = x.to_bits();
        let payload = (bits >> 13 & 0x3ff) as u16;
        return (bits >> 16) as u16 & 0x8000 | 0x7c00 | if payload == 0 { 1 } else { payload };
    }
    narrow(f64::from(x))
}

/// Is `x` a range error for a half (as netcdf-c's double to float is
/// for a float: beyond the largest finite value, infinities included)?
pub fn out_of_range(x: f64) -> bool {
    x.abs() > MAX
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Every half widens to the float the `half` crate gives (NaNs aside)
    /// and narrows back to itself, NaNs included bit for bit.
    #[test]
    fn every_half_round_trips() {
        for h in 0..=u16::MAX {
            let f = widen(h);
            let reference = half::f16::from_bits(h).to_f32();
            if reference.is_nan() {
                assert!(f.is_nan(), "{h:#06x}");
            } else {
                assert_eq!(f.to_bits(), reference.to_bits(), "{h:#06x}");
                assert_eq!(narrow(f64::from(f)), h, "{h:#06x}");
            }
            assert_eq!(narrow_f32(f), h, "{h:#06x}");
        }
    }

    /// Between two neighbouring halves: below the midpoint the lower,
    /// above it the upper, at it the even one, and the tiniest step off
    /// the midpoint decides (a rounding that ignores low bits fails here).
    #[test]
    fn ties_to_even_and_sticky_bits() {
        for h in 0..0x7bffu16 {
            let (lo, hi) = (f64::from(widen(h)), f64::from(widen(h + 1)));
            let mid = (lo + hi) / 2.0;
            let even = if h & 1 == 0 { h } else { h + 1 };
            assert_eq!(narrow(mid), even, "{h:#06x}");
            assert_eq!(narrow(f64::from_bits(mid.to_bits() + 1)), h + 1, "{h:#06x}");
            assert_eq!(narrow(f64::from_bits(mid.to_bits() - 1)), h, "{h:#06x}");
            assert_eq!(narrow(-mid), even | 0x8000, "{h:#06x}");
        }
    }

    #[test]
    fn edges() {
        assert_eq!(narrow(65504.0), 0x7bff);
        assert_eq!(narrow(65519.99), 0x7bff, "rounds down to the largest half");
        assert_eq!(narrow(65520.0), 0x7c00, "the tie rounds to even: infinity");
        assert_eq!(narrow(70000.0), 0x7c00);
        assert_eq!(narrow(-1e300), 0xfc00);
        assert_eq!(narrow(f64::INFINITY), 0x7c00);
        assert_eq!(narrow(f64::NEG_INFINITY), 0xfc00);
        assert_eq!(narrow(f64::NAN), 0x7e00, "numpy's quiet NaN");
        assert_eq!(narrow(f64::from_bits(0x7ff0_0000_0000_0001)), 0x7c01, "still a NaN");
        assert_eq!(narrow(-0.0), 0x8000);
        assert_eq!(narrow(2f64.powi(-24)), 0x0001, "smallest subnormal");
        assert_eq!(narrow(2f64.powi(-25)), 0x0000, "its half: the tie goes to zero");
        assert_eq!(narrow(2f64.powi(-25) * 1.0000001), 0x0001);
        assert_eq!(narrow(1.5 * 2f64.powi(-24)), 0x0002, "tie to even");
        assert_eq!(narrow(f64::MIN_POSITIVE / 2.0), 0x0000, "an f64 subnormal");
        assert_eq!(narrow(0.1), 0x2e66);
        assert_eq!(narrow(1.0 + 2f64.powi(-11) + 2f64.powi(-40)), 0x3c01, "sticky bit beyond the top 32");
        assert!(out_of_range(65504.001) && out_of_range(f64::INFINITY) && out_of_range(-70000.0));
        assert!(!out_of_range(65504.0) && !out_of_range(f64::NAN));
        assert_eq!(widen(0x0001), 2f32.powi(-24));
        assert_eq!(widen(0x8001), -(2f32.powi(-24)));
        assert_eq!(widen(0x7e00).to_bits(), 0x7fc0_0000);
    }

    proptest! {
        /// Floats narrow as the `half` crate's float path does (it rounds
        /// from all of a float's bits).
        #[test]
        fn floats_as_the_half_crate(bits in any::<u32>()) {
            let x = f32::from_bits(bits);
            prop_assume!(!x.is_nan());
            prop_assert_eq!(narrow(f64::from(x)), half::f16::from_f32(x).to_bits());
            prop_assert_eq!(narrow_f32(x), half::f16::from_f32(x).to_bits());
        }

        /// A double (short of rounding to an infinity) narrows to the
        /// nearer of the halves around it.
        #[test]
        fn doubles_to_the_nearest(x in -65519.99f64..65519.99) {
            let h = narrow(x);
            let got = f64::from(widen(h));
            let err = (got - x).abs();
            for other in [h.wrapping_sub(1), h.wrapping_add(1)] {
                let y = f64::from(widen(other));
                if y.is_finite() && (other & 0x7c00) != 0x7c00 {
                    prop_assert!(err <= (y - x).abs(), "{x}: {got} farther than {y}");
                }
            }
        }
    }
}
