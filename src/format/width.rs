//! The fixed width NC_STRING values are stored with, in either version.

use crate::model::{Attr, Model, Values, Var};
use crate::types::*;

/// Width of NC_STRING values when no attribute sets one (netcdf-c's).
pub const DEFAULT_STRING_WIDTH: usize = 128;
const MAXSTRLEN: &str = "_nczarr_maxstrlen";
const DEFAULT_MAXSTRLEN: &str = "_nczarr_default_maxstrlen";

/// The fixed width NC_STRING values are stored with.
pub fn string_width(model: &Model, var: &Var) -> usize {
    let int_att = |atts: &[Attr], name: &str| {
        atts.iter().find(|a| a.name == name).and_then(|a| match a.values.convert_to(NC_INT64) {
            Ok((Values::Int64(v), _)) => v.first().copied().filter(|&n| n > 0).map(|n| n as usize),
            _ => None,
        })
    };
    var.string_width
        .or_else(|| int_att(&var.atts, MAXSTRLEN))
        .or_else(|| int_att(&model.groups[0].atts, DEFAULT_MAXSTRLEN))
        .unwrap_or(DEFAULT_STRING_WIDTH)
}
