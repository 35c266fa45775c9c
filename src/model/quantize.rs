//! A variable's quantization setting (`nc_def_var_quantize`), with the
//! checks netcdf-c's NCZarr applies, and the attribute that records it.
//!
//! As in netcdf-c, a setting made in this session is kept apart from the
//! attribute list: the attribute (`_QuantizeBitGroomNumberOfSignificantDigits`
//! and friends, an int) is written with the variable's metadata but not
//! listed. A dataset opened later lists it as an ordinary attribute, and
//! the setting of a stored variable is what that attribute says. The names
//! are not reserved: users may write or delete such attributes, which
//! changes the setting of a stored variable (netcdf-c reads the attribute
//! when the setting is first needed, so the same holds there unless the
//! setting was asked for before the change).

use super::{Attr, Model, Values, Var};
use crate::error::{NcError, NcResult};
use crate::types::*;

pub const NC_NOQUANTIZE: i32 = 0;
pub const NC_QUANTIZE_BITGROOM: i32 = 1;
pub const NC_QUANTIZE_GRANULARBR: i32 = 2;
pub const NC_QUANTIZE_BITROUND: i32 = 3;

/// Largest number of significant decimal digits (BitGroom, Granular
/// BitRound) and bits (BitRound) per type. Floats take at most 6 decimal
/// digits, as in netcdf-c 4.10.1: 4.9.x accepted 7, where BitGroom shifts
/// by a negative count and destroys the values (netcdf-c issue #3389).
pub const NC_QUANTIZE_MAX_FLOAT_NSD: i32 = 6;
pub const NC_QUANTIZE_MAX_FLOAT_NSB: i32 = 23;
pub const NC_QUANTIZE_MAX_DOUBLE_NSD: i32 = 15;
pub const NC_QUANTIZE_MAX_DOUBLE_NSB: i32 = 52;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Algorithm {
    BitGroom,
    GranularBitRound,
    BitRound,
}

/// Algorithms in the order netcdf-c looks for their attributes.
const ALL: [Algorithm; 3] = [Algorithm::BitGroom, Algorithm::GranularBitRound, Algorithm::BitRound];

impl Algorithm {
    pub fn from_mode(mode: i32) -> Option<Algorithm> {
        match mode {
            NC_QUANTIZE_BITGROOM => Some(Algorithm::BitGroom),
            NC_QUANTIZE_GRANULARBR => Some(Algorithm::GranularBitRound),
            NC_QUANTIZE_BITROUND => Some(Algorithm::BitRound),
            _ => None,
        }
    }

    pub fn mode(self) -> i32 {
        match self {
            Algorithm::BitGroom => NC_QUANTIZE_BITGROOM,
            Algorithm::GranularBitRound => NC_QUANTIZE_GRANULARBR,
            Algorithm::BitRound => NC_QUANTIZE_BITROUND,
        }
    }

    /// The attribute that records the setting.
    pub fn att_name(self) -> &'static str {
        match self {
            Algorithm::BitGroom => "_QuantizeBitGroomNumberOfSignificantDigits",
            Algorithm::GranularBitRound => "_QuantizeGranularBitRoundNumberOfSignificantDigits",
            Algorithm::BitRound => "_QuantizeBitRoundNumberOfSignificantBits",
        }
    }

    /// The largest `nsd` accepted for a variable of type `xtype`.
    fn max_nsd(self, xtype: NcType) -> i32 {
        match (self, xtype == NC_FLOAT) {
            (Algorithm::BitRound, true) => NC_QUANTIZE_MAX_FLOAT_NSB,
            (Algorithm::BitRound, false) => NC_QUANTIZE_MAX_DOUBLE_NSB,
            (_, true) => NC_QUANTIZE_MAX_FLOAT_NSD,
            (_, false) => NC_QUANTIZE_MAX_DOUBLE_NSD,
        }
    }
}

/// Quantization in use: the algorithm and its number of significant
/// digits (decimal for BitGroom and Granular BitRound, binary for BitRound).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Quantize {
    pub algorithm: Algorithm,
    pub nsd: i32,
}

/// Where a variable's quantization comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Setting {
    #[default]
    Off,
    /// Set in this session; the attribute is written with the metadata.
    Defined(Quantize),
    /// A variable read from storage: its attributes say.
    Stored,
}

impl Quantize {
    /// The setting a stored variable's attributes record, looked for as
    /// netcdf-c does: the first of the three names whose value reads as
    /// an int. Only float and double variables are quantized (netcdf-c
    /// would apply a stray attribute on another type to memory it does
    /// not own), so the attribute means nothing on other types.
    pub fn from_attrs(xtype: NcType, atts: &[Attr]) -> Option<Quantize> {
        if xtype != NC_FLOAT && xtype != NC_DOUBLE {
            return None;
        }
        ALL.into_iter().find_map(|algorithm| {
            let att = atts.iter().find(|a| a.name == algorithm.att_name())?;
            match att.values.convert_to(NC_INT) {
                Ok((Values::Int(v), false)) => Some(Quantize { algorithm, nsd: v.first().copied().unwrap_or(0) }),
                _ => None,
            }
        })
    }

    /// The quantization of a variable, if any.
    pub fn of(var: &Var) -> Option<Quantize> {
        match var.quantize {
            Setting::Off => None,
            Setting::Defined(q) => Some(q),
            Setting::Stored => Quantize::from_attrs(var.xtype, &var.atts),
        }
    }
}

impl Model {
    /// `nc_def_var_quantize`. NC_NOQUANTIZE turns quantization off on a
    /// variable of any type, whatever `nsd` is.
    pub fn def_var_quantize(&mut self, grp: usize, varid: i32, mode: i32, nsd: i32) -> NcResult<()> {
        let var = self.var_for_definition(grp, varid)?;
        let quantize = match mode {
            NC_NOQUANTIZE => Setting::Off,
            _ => {
                let algorithm = Algorithm::from_mode(mode).ok_or(NcError::EINVAL)?;
                if var.xtype != NC_FLOAT && var.xtype != NC_DOUBLE {
                    return Err(NcError::EINVAL);
                }
                if nsd <= 0 || nsd > algorithm.max_nsd(var.xtype) {
                    return Err(NcError::EINVAL);
                }
                Setting::Defined(Quantize { algorithm, nsd })
            }
        };
        var.quantize = quantize;
        self.dirty = true;
        Ok(())
    }

    /// `nc_inq_var_quantize`: the mode and nsd (0 and 0 when off).
    pub fn var_quantize(&self, grp: usize, varid: i32) -> NcResult<(i32, i32)> {
        Ok(match Quantize::of(self.var(grp, varid)?) {
            Some(q) => (q.algorithm.mode(), q.nsd),
            None => (NC_NOQUANTIZE, 0),
        })
    }

    /// The value quantization leaves alone as fill: the variable's fill
    /// value, or its type's default when it has none (netcdf-c compares
    /// with the default for a NOFILL variable without `_FillValue`).
    pub fn quantize_fill(&self, var: &Var) -> NcResult<f64> {
        let has_att = var.atts.iter().any(|a| a.name == super::attrs::FILL_VALUE);
        let fill = match &var.fill {
            Some(f) if !var.no_fill || has_att => f.clone(),
            _ => Values::default_fill(var.xtype)?,
        };
        match fill {
            Values::Float(v) => Ok(v.first().copied().unwrap_or(crate::types::fill::FLOAT) as f64),
            Values::Double(v) => Ok(v.first().copied().unwrap_or(crate::types::fill::DOUBLE)),
            _ => Err(NcError::EINTERNAL),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::attrs::put_att;

    fn model() -> (Model, i32, i32, i32) {
        let mut m = Model::new(true);
        m.define_mode = true;
        let x = m.def_dim(0, b"x", 4).unwrap() as i32;
        let f = m.def_var(0, b"f", NC_FLOAT, &[x]).unwrap() as i32;
        let d = m.def_var(0, b"d", NC_DOUBLE, &[x]).unwrap() as i32;
        let i = m.def_var(0, b"i", NC_INT, &[x]).unwrap() as i32;
        (m, f, d, i)
    }

    #[test]
    fn argument_checks() {
        let (mut m, f, d, i) = model();
        for (mode, max_f, max_d) in [
            (NC_QUANTIZE_BITGROOM, NC_QUANTIZE_MAX_FLOAT_NSD, NC_QUANTIZE_MAX_DOUBLE_NSD),
            (NC_QUANTIZE_GRANULARBR, NC_QUANTIZE_MAX_FLOAT_NSD, NC_QUANTIZE_MAX_DOUBLE_NSD),
            (NC_QUANTIZE_BITROUND, NC_QUANTIZE_MAX_FLOAT_NSB, NC_QUANTIZE_MAX_DOUBLE_NSB),
        ] {
            m.def_var_quantize(0, f, mode, max_f).unwrap();
            assert_eq!(m.var_quantize(0, f).unwrap(), (mode, max_f));
            assert_eq!(m.def_var_quantize(0, f, mode, max_f + 1), Err(NcError::EINVAL));
            m.def_var_quantize(0, d, mode, max_d).unwrap();
            assert_eq!(m.def_var_quantize(0, d, mode, max_d + 1), Err(NcError::EINVAL));
            assert_eq!(m.def_var_quantize(0, d, mode, 0), Err(NcError::EINVAL));
            assert_eq!(m.def_var_quantize(0, d, mode, -1), Err(NcError::EINVAL));
            assert_eq!(m.def_var_quantize(0, i, mode, 1), Err(NcError::EINVAL));
        }
        // A failed call leaves the setting as it was.
        assert_eq!(m.var_quantize(0, d).unwrap(), (NC_QUANTIZE_BITROUND, NC_QUANTIZE_MAX_DOUBLE_NSB));
        assert_eq!(m.def_var_quantize(0, f, 4, 3), Err(NcError::EINVAL));
        assert_eq!(m.def_var_quantize(0, f, -1, 3), Err(NcError::EINVAL));
        // Turning it off: any type, any nsd; nsd reads back as 0.
        m.def_var_quantize(0, f, NC_NOQUANTIZE, -99).unwrap();
        assert_eq!(m.var_quantize(0, f).unwrap(), (NC_NOQUANTIZE, 0));
        m.def_var_quantize(0, i, NC_NOQUANTIZE, 12345).unwrap();
        assert_eq!(m.def_var_quantize(0, 9, NC_NOQUANTIZE, 0), Err(NcError::ENOTVAR));
        m.commit_definitions();
        assert_eq!(m.def_var_quantize(0, d, NC_QUANTIZE_BITGROOM, 3), Err(NcError::ELATEDEF));
        assert_eq!(m.def_var_quantize(0, d, 99, 3), Err(NcError::ELATEDEF), "ELATEDEF comes first");
        let mut ro = Model::new(false);
        assert_eq!(ro.def_var_quantize(0, 0, NC_NOQUANTIZE, 0), Err(NcError::EPERM));
    }

    #[test]
    fn setting_from_attributes() {
        let (mut m, f, _, i) = model();
        let att = |name: &str, values: Values| Attr { name: name.into(), values };
        let bg = Algorithm::BitGroom.att_name();
        let br = Algorithm::BitRound.att_name();
        assert_eq!(Quantize::from_attrs(NC_FLOAT, &[]), None);
        let atts = [att(br, Values::Int(vec![9])), att(bg, Values::Short(vec![3]))];
        let q = Quantize::from_attrs(NC_FLOAT, &atts);
        assert_eq!(q, Some(Quantize { algorithm: Algorithm::BitGroom, nsd: 3 }), "BitGroom's name is looked for first");
        let atts = [att(bg, Values::Char(b"3".to_vec())), att(br, Values::Double(vec![9.7]))];
        let q = Quantize::from_attrs(NC_DOUBLE, &atts);
        assert_eq!(q, Some(Quantize { algorithm: Algorithm::BitRound, nsd: 9 }), "text does not read as an int");
        assert_eq!(Quantize::from_attrs(NC_DOUBLE, &[att(bg, Values::Int64(vec![1 << 40]))]), None);
        assert_eq!(Quantize::from_attrs(NC_INT, &[att(bg, Values::Int(vec![3]))]), None);
        // A stored variable's setting follows its attributes.
        put_att(&mut m, 0, f, bg.as_bytes(), Values::Int(vec![4])).unwrap();
        assert_eq!(m.var_quantize(0, f).unwrap(), (NC_NOQUANTIZE, 0), "an attribute set in this session is just that");
        m.var_mut(0, f).unwrap().quantize = Setting::Stored;
        assert_eq!(m.var_quantize(0, f).unwrap(), (NC_QUANTIZE_BITGROOM, 4));
        crate::model::attrs::del_att(&mut m, 0, f, bg.as_bytes()).unwrap();
        assert_eq!(m.var_quantize(0, f).unwrap(), (NC_NOQUANTIZE, 0));
        // Fill values compared with.
        assert_eq!(m.quantize_fill(m.var(0, f).unwrap()).unwrap(), crate::types::fill::FLOAT as f64);
        put_att(&mut m, 0, f, b"_FillValue", Values::Float(vec![-1.5])).unwrap();
        assert_eq!(m.quantize_fill(m.var(0, f).unwrap()).unwrap(), -1.5);
        assert!(m.quantize_fill(m.var(0, i).unwrap()).is_err());
    }
}
