//! A variable's filter chain through the netCDF filter API, with
//! netcdf-c's checks (FACTS.md section 3.8). The chain is kept as the codec
//! JSON it is stored as.

use super::Model;
use crate::codec::spec::{self, DEFLATE, SZIP};
use crate::error::{NcError, NcResult};
use crate::types::type_size;

impl Model {
    /// The filters of a variable: (HDF5 id, visible params), chain order.
    pub fn var_filters(&self, grp: usize, varid: i32) -> NcResult<Vec<(u32, Vec<u32>)>> {
        Ok(self.var(grp, varid)?.codecs.iter().map(spec::from_json).collect())
    }

    /// `nc_def_var_filter`: append a filter, or replace the parameters of
    /// one already in the chain (keeping its place).
    pub fn def_var_filter(&mut self, grp: usize, varid: i32, id: u32, params: &[u32]) -> NcResult<()> {
        self.group(grp)?;
        self.check_writable()?;
        let var = self.var(grp, varid)?;
        if var.created {
            return Err(NcError::ELATEDEF);
        }
        if var.dimids.is_empty() {
            return Err(NcError::EINVAL);
        }
        if !spec::available(id) {
            return Err(NcError::ENOFILTER);
        }
        let present: Vec<u32> = self.var_filters(grp, varid)?.into_iter().map(|f| f.0).collect();
        if id == DEFLATE {
            if params.len() != 1 {
                return Err(NcError::EFILTER);
            }
            if params[0] > 9 || present.contains(&SZIP) {
                return Err(NcError::EINVAL);
            }
        }
        if id == spec::BLOSC && !params.get(6).is_some_and(|&c| spec::blosc_can_write(c)) {
            // blosclz and snappy: readable elsewhere, not writable here.
            return Err(if params.len() == 7 { NcError::ENOFILTER } else { NcError::EFILTER });
        }
        let mut json = spec::to_json(id, params, type_size(var.xtype)?)?;
        if self.zarr_v3 && id == DEFLATE {
            // Zarr v3's core codec for deflate (zarr-python reads zlib only
            // as `numcodecs.zlib`).
            json["id"] = "gzip".into();
        }
        let var = self.var_mut(grp, varid)?;
        match present.iter().position(|&p| p == id) {
            Some(i) => var.codecs[i] = json,
            None => var.codecs.push(json),
        }
        self.dirty = true;
        Ok(())
    }

    /// The visible parameters of one filter of a variable.
    pub fn var_filter_info(&self, grp: usize, varid: i32, id: u32) -> NcResult<Vec<u32>> {
        self.var_filters(grp, varid)?.into_iter().find(|f| f.0 == id && id != 0).map(|f| f.1).ok_or(NcError::ENOFILTER)
    }
}

#[cfg(test)]
mod tests {
    use crate::codec::spec::*;
    use crate::error::NcError;
    use crate::model::Model;
    use crate::types::*;

    #[test]
    fn chains_keep_order_and_replace_in_place() {
        let mut m = Model::new(true);
        m.define_mode = true;
        let x = m.def_dim(0, b"x", 10).unwrap() as i32;
        let v = m.def_var(0, b"v", NC_FLOAT, &[x]).unwrap() as i32;
        m.def_var_filter(0, v, SHUFFLE, &[]).unwrap();
        m.def_var_filter(0, v, DEFLATE, &[4]).unwrap();
        m.def_var_filter(0, v, SHUFFLE, &[]).unwrap();
        m.def_var_filter(0, v, DEFLATE, &[7]).unwrap();
        assert_eq!(m.var_filters(0, v).unwrap(), vec![(SHUFFLE, vec![]), (DEFLATE, vec![7])]);
        assert_eq!(m.var_filter_info(0, v, DEFLATE).unwrap(), vec![7]);
        assert_eq!(m.var_filter_info(0, v, ZSTD), Err(NcError::ENOFILTER));
        assert_eq!(m.def_var_filter(0, v, DEFLATE, &[1, 2]), Err(NcError::EFILTER));
        assert_eq!(m.def_var_filter(0, v, DEFLATE, &[10]), Err(NcError::EINVAL));
        assert_eq!(m.def_var_filter(0, v, 12345, &[]), Err(NcError::ENOFILTER));
        let s = m.def_var(0, b"s", NC_INT, &[]).unwrap() as i32;
        assert_eq!(m.def_var_filter(0, s, DEFLATE, &[1]), Err(NcError::EINVAL));
        m.commit_definitions();
        assert_eq!(m.def_var_filter(0, v, ZSTD, &[3]), Err(NcError::ELATEDEF));
    }
}
