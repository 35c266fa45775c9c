//! The digest parallel ranks compare at each commit: equal exactly when
//! their metadata would be written alike, whatever length each rank's
//! growable dimensions have reached (those are agreed separately, as the
//! longest). Kept free of MPI so the default build tests it.

use crate::error::NcResult;
use crate::format::WriteOptions;
use crate::model::{Dim, Model};

/// Can a dimension be longer on one rank than on another after data
/// writes alone? Unlimited ones, and pure Zarr's appendable ones.
pub fn grows(dim: &Dim) -> bool {
    dim.unlimited || dim.appendable
}

/// A 64-bit FNV-1a digest of the metadata objects `model` renders to,
/// with growable dimensions' lengths set to zero. Every rank runs the same
/// library, so equal metadata renders to equal bytes.
pub fn metadata(model: &Model, opts: &WriteOptions) -> NcResult<u64> {
    let mut model = model.clone();
    model.dims.iter_mut().filter(|d| grows(d)).for_each(|d| d.len = 0);
    let objects = crate::format::commit::render(&model, opts)?;
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut feed = |bytes: &[u8]| {
        for &b in bytes {
            hash ^= u64::from(b);
            hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
        }
    };
    for (key, value) in &objects {
        // Separators: ("ab", "c") and ("a", "bc") must not feed alike.
        feed(key.as_bytes());
        feed(&[0]);
        feed(&crate::format::json::to_bytes(value));
        feed(&[0]);
    }
    Ok(hash)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Values;
    use crate::model::attrs::put_att;
    use crate::types::{NC_FLOAT, NC_INT};

    fn options(zarr_v3: bool) -> WriteOptions {
        WriteOptions {
            pure_zarr: false,
            xarray_dims: true,
            ncproperties: "version=2".into(),
            consolidated: true,
            layout_490: false,
            zarr_v3,
            durable: false,
        }
    }

    /// A dataset as every rank defines it: an unlimited and a fixed
    /// dimension, a record variable, an attribute.
    fn defined(zarr_v3: bool) -> Model {
        let mut m = Model::new(true);
        m.define_mode = true;
        m.zarr_v3 = zarr_v3;
        let t = m.def_dim(0, b"time", 0).unwrap() as i32;
        let x = m.def_dim(0, b"x", 4).unwrap() as i32;
        m.def_var(0, b"v", NC_FLOAT, &[t, x]).unwrap();
        put_att(&mut m, 0, crate::model::NC_GLOBAL, b"title", Values::Char(b"run".to_vec())).unwrap();
        m
    }

    #[test]
    fn unlimited_lengths_do_not_count_and_everything_else_does() {
        for v3 in [false, true] {
            let opts = options(v3);
            let base = metadata(&defined(v3), &opts).unwrap();
            // The same definitions: the same digest, however many records.
            assert_eq!(metadata(&defined(v3), &opts).unwrap(), base);
            let mut grown = defined(v3);
            grown.dims[0].len = 17;
            assert_eq!(metadata(&grown, &opts).unwrap(), base);
            // A fixed dimension's length, an attribute's value, one more
            // variable: each changes it.
            let mut longer = defined(v3);
            longer.dims[1].len = 5;
            assert_ne!(metadata(&longer, &opts).unwrap(), base);
            let mut retitled = defined(v3);
            put_att(&mut retitled, 0, crate::model::NC_GLOBAL, b"title", Values::Char(b"rum".to_vec())).unwrap();
            assert_ne!(metadata(&retitled, &opts).unwrap(), base);
            let mut more = defined(v3);
            more.def_var(0, b"w", NC_INT, &[]).unwrap();
            assert_ne!(metadata(&more, &opts).unwrap(), base);
        }
    }
}
