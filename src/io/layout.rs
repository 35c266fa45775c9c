//! What the engine needs to know about one variable's stored chunks.

use std::sync::Arc;

use crate::codec::Chain;
use crate::codec::callback::VarInfo;
use crate::error::{NcError, NcResult};
use crate::format::width::string_width;
use crate::model::values::with_numeric;
use crate::model::{Model, Values, Var};
use crate::types::*;
use crate::zmap::join;

#[derive(Debug, Clone)]
pub struct VarLayout {
    /// Key prefix of the variable's objects.
    pub key: String,
    pub xtype: NcType,
    /// Bytes per element in a chunk (the string width for NC_STRING).
    pub elem_size: usize,
    /// Current shape (`[1]` for a scalar).
    pub shape: Vec<usize>,
    /// Chunk shape (`[1]` for a scalar).
    pub chunks: Vec<usize>,
    /// Stored byte order differs from this machine's.
    pub swap: bool,
    /// One element of fill in native byte order (zeros for NOFILL).
    pub fill: Vec<u8>,
    pub separator: char,
    /// Zarr v3's `default` chunk keys (`c/1/2`; `c` for a scalar).
    pub v3_keys: bool,
    pub scalar: bool,
    /// Stored chunks hold their elements permuted: a chunk of shape
    /// `chunks[perm[i]]` in C order (v2's `order: "F"` is the reversed
    /// order; v3's `transpose` codec any). In memory chunks are always C
    /// order.
    pub perm: Option<Vec<usize>>,
    /// Stored elements are IEEE half floats, two bytes each (Zarr v3
    /// `float16`): chunks in memory hold them as the variable's floats,
    /// each exactly a half (writes round to halves as they copy in).
    pub half: bool,
    /// Chunks live in shards (Zarr v3 `sharding_indexed`).
    pub shards: Option<Arc<super::shard::ShardReader>>,
    /// The fill string of a variable-length string variable.
    pub fill_text: Vec<u8>,
    /// How NC_STRING elements are encoded.
    pub text: TextEncoding,
    /// The variable's filters (empty: chunks are stored raw).
    pub chain: Arc<Chain>,
    /// Elements and bytes of one chunk (checked: they fit in memory's
    /// address space).
    n_chunk_elems: usize,
    n_chunk_bytes: usize,
}

/// The encoding of NC_STRING elements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextEncoding {
    /// Bytes, NUL-padded (`S<n>`).
    Bytes,
    /// UTF-32 code units, zero-padded (numpy `U<n>`).
    Utf32 { big_endian: bool },
    /// Variable length (`vlen-utf8`, `vlen-bytes`). In memory a chunk is a
    /// table of [`VLEN_ELEM`]-byte elements, each the native `u64` offset
    /// and `u64` length of its bytes in the text that follows the table
    /// (see `chunk_io::decode_vlen`). `utf8`: only UTF-8 is written (see
    /// `ObjectArray::utf8`).
    Vlen { utf8: bool },
}

impl TextEncoding {
    pub fn is_vlen(self) -> bool {
        matches!(self, TextEncoding::Vlen { .. })
    }
}

/// Bytes of one variable-length string element in a decoded chunk.
pub const VLEN_ELEM: usize = 16;

impl VarLayout {
    pub fn of(model: &Model, grp: usize, varid: i32) -> NcResult<VarLayout> {
        let var = model.var(grp, varid)?;
        let scalar = var.dimids.is_empty();
        let text = match (var.vlen, var.utf32) {
            // Zarr v3 strings take any bytes, as they always have here.
            (true, _) => TextEncoding::Vlen { utf8: var.object.as_ref().is_some_and(|o| o.utf8) },
            (false, Some(big_endian)) => TextEncoding::Utf32 { big_endian },
            (false, None) => TextEncoding::Bytes,
        };
        let elem_size = match (var.xtype, text) {
            (NC_STRING, TextEncoding::Vlen { .. }) => VLEN_ELEM,
            (NC_STRING, TextEncoding::Utf32 { .. }) => {
                string_width(model, var).checked_mul(4).ok_or(NcError::ENCZARR)?
            }
            (NC_STRING, _) => string_width(model, var),
            (t, _) => type_size(t)?,
        };
        // Metadata may claim chunks whose size in bytes does not even fit
        // in a usize: their data cannot be read or written.
        if var.chunks.iter().try_fold(elem_size, |n, &c| n.checked_mul(c)).is_none() {
            return Err(NcError::ENCZARR);
        }
        let native_big = cfg!(target_endian = "big");
        let stored_big = var.stored_big_endian();
        let fill = match text {
            // A vlen chunk of fill is built whole (`fill_chunk`).
            TextEncoding::Vlen { .. } => vec![0u8; elem_size],
            _ if var.no_fill => vec![0u8; elem_size],
            _ => fill_bytes(&model.effective_fill(var)?, elem_size, text)?,
        };
        let fill_text = match (text, var.no_fill) {
            (TextEncoding::Vlen { .. }, false) => match model.effective_fill(var)? {
                Values::String(s) => s.into_iter().next().unwrap_or_default(),
                _ => Vec::new(),
            },
            _ => Vec::new(),
        };
        let chunks = if scalar { vec![1] } else { var.chunks.clone() };
        // A chunk bigger than any object can be (so products never wrap).
        let n_chunk_elems = chunks.iter().try_fold(1usize, |p, &n| p.checked_mul(n)).ok_or(NcError::ENOMEM)?;
        let n_chunk_bytes =
            n_chunk_elems.checked_mul(elem_size).filter(|&b| b <= isize::MAX as usize).ok_or(NcError::ENOMEM)?;
        Ok(VarLayout {
            key: join(&model.group_key(grp), &var.name),
            xtype: var.xtype,
            elem_size,
            shape: if scalar { vec![1] } else { var.dimids.iter().map(|&d| model.dims[d].len).collect() },
            chunks,
            swap: stored_big != native_big && elem_size > 1 && var.xtype != NC_STRING,
            fill,
            separator: var.v3.as_ref().map_or(var.dim_separator, |v3| v3.separator),
            v3_keys: var.v3.as_ref().is_some_and(|v3| v3.default_keys),
            scalar,
            perm: stored_order(var),
            half: var.v3.as_ref().is_some_and(|v3| v3.half),
            shards: var
                .v3
                .as_ref()
                .and_then(|v3| v3.shard.clone())
                .map(|s| super::shard::ShardReader::new(s).map(Arc::new))
                .transpose()?,
            fill_text,
            text,
            // A codec this build lacks makes data access NC_ENOFILTER.
            chain: Arc::new(if var.codecs.is_empty() {
                Chain::default()
            } else {
                Chain::from_json(&var.codecs, elem_size, &plugin_view(model, grp, varid, var))?
            }),
            n_chunk_elems,
            n_chunk_bytes,
        })
    }

    pub fn chunk_elems(&self) -> usize {
        self.n_chunk_elems
    }

    pub fn chunk_bytes(&self) -> usize {
        self.n_chunk_bytes
    }

    /// Bytes of one chunk as stored (decoded by its codecs): half the
    /// chunk's for half floats.
    pub fn stored_chunk_bytes(&self) -> usize {
        if self.half { self.n_chunk_bytes / 2 } else { self.n_chunk_bytes }
    }

    /// Bytes per element as stored.
    pub fn stored_elem_size(&self) -> usize {
        if self.half { 2 } else { self.elem_size }
    }

    /// The storage key of a chunk: decimal indices joined by the
    /// separator, after `c` in v3's default encoding (where a scalar's
    /// chunk is `c` alone).
    pub fn chunk_key(&self, idx: &[usize]) -> String {
        let sep = self.separator.to_string();
        let mut name: Vec<String> = idx.iter().map(|i| i.to_string()).collect();
        if self.v3_keys {
            if self.scalar {
                name.clear();
            }
            name.insert(0, "c".to_string());
        }
        join(&self.key, &name.join(&sep))
    }

    /// A chunk holding nothing but fill values (NC_ENOMEM if no memory
    /// holds one).
    pub fn fill_chunk(&self) -> NcResult<Vec<u8>> {
        if self.text.is_vlen() {
            // Every element names the one copy of the fill text.
            let elem: Vec<u8> = [0u64, self.fill_text.len() as u64].iter().flat_map(|v| v.to_ne_bytes()).collect();
            let mut chunk = crate::buffers::repeat(&elem, self.chunk_elems())?;
            chunk.extend_from_slice(&self.fill_text);
            return Ok(chunk);
        }
        crate::buffers::repeat(&self.fill, self.chunk_elems())
    }
}

/// How a variable's stored chunks order their elements, if not in C
/// order (see [`VarLayout::perm`]); an identity permutation is none.
fn stored_order(var: &Var) -> Option<Vec<usize>> {
    let n = var.dimids.len();
    let perm = match &var.v3 {
        Some(v3) => v3.transpose.clone()?,
        None if var.order_f => (0..n).rev().collect(),
        None => return None,
    };
    (perm.iter().enumerate().any(|(i, &p)| i != p)).then_some(perm)
}

/// The variable as a plugin sees it through the netCDF API.
fn plugin_view(model: &Model, grp: usize, varid: i32, var: &Var) -> VarInfo {
    VarInfo {
        ncid: model.ext_ncid | grp as i32,
        varid,
        name: var.name.clone(),
        xtype: var.xtype,
        dimids: var.dimids.iter().map(|&d| d as i32).collect(),
        natts: var.atts.len() as i32,
        chunks: var.chunks.clone(),
        dims: var
            .dimids
            .iter()
            .filter_map(|&d| model.dim(d as i32).ok().map(|dim| (d as i32, dim.name.clone(), dim.len)))
            .collect(),
        endianness: var.endianness,
    }
}

/// Reorder a chunk's elements between C order and the stored order
/// `perm` (the stored chunk has shape `chunks[perm[i]]`, in C order).
/// `to_c`: the input is in stored order. `perm` must be a permutation of
/// `0..chunks.len()` (checked when the metadata is read).
pub fn transpose(data: &[u8], chunks: &[usize], elem_size: usize, perm: &[usize], to_c: bool) -> Vec<u8> {
    let nd = chunks.len();
    // C-order strides of the stored shape, then each logical dimension's
    // stride in the stored chunk.
    let mut stored_strides = vec![1usize; nd];
    for i in (0..nd.saturating_sub(1)).rev() {
        stored_strides[i] = stored_strides[i + 1] * chunks[perm[i + 1]];
    }
    let mut strides = vec![0usize; nd];
    for (i, &p) in perm.iter().enumerate() {
        strides[p] = stored_strides[i];
    }
    let mut out = vec![0u8; data.len()];
    let mut idx = vec![0usize; nd];
    for c_pos in 0..data.len() / elem_size {
        let f_pos: usize = idx.iter().zip(&strides).map(|(i, s)| i * s).sum();
        let (from, to) = if to_c { (f_pos, c_pos) } else { (c_pos, f_pos) };
        out[to * elem_size..(to + 1) * elem_size].copy_from_slice(&data[from * elem_size..(from + 1) * elem_size]);
        // Next C-order index.
        for d in (0..nd).rev() {
            idx[d] += 1;
            if idx[d] < chunks[d] {
                break;
            }
            idx[d] = 0;
        }
    }
    out
}

/// One fill value as the bytes of one chunk element.
/// A string fill is UTF-8 text: stored as UTF-32 code units for numpy's
/// `U<n>` (cut to the width), as its bytes otherwise.
fn fill_bytes(fill: &Values, elem_size: usize, text: TextEncoding) -> NcResult<Vec<u8>> {
    let mut out = vec![0u8; elem_size];
    match fill {
        Values::String(s) => {
            let s = s.first().map(Vec::as_slice).unwrap_or_default();
            let s = match text {
                TextEncoding::Bytes | TextEncoding::Vlen { .. } => s.to_vec(),
                TextEncoding::Utf32 { big_endian } => String::from_utf8_lossy(s)
                    .chars()
                    .flat_map(|c| if big_endian { (c as u32).to_be_bytes() } else { (c as u32).to_le_bytes() })
                    .collect(),
            };
            let n = s.len().min(elem_size);
            out[..n].copy_from_slice(&s[..n]);
        }
        other => {
            if other.len() != 1 {
                return Err(NcError::EINTERNAL);
            }
            let bytes = match other {
                Values::Char(c) => c.clone(),
                _ => with_numeric!(other, v => v[0].to_ne_bytes().to_vec(), _ => return Err(NcError::EINTERNAL)),
            };
            out.get_mut(..bytes.len()).ok_or(NcError::EINTERNAL)?.copy_from_slice(&bytes);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::{TextEncoding, fill_bytes, transpose};
    use crate::error::NcError;
    use crate::model::Values;

    #[test]
    fn fill_values_as_element_bytes() {
        let b = TextEncoding::Bytes;
        assert_eq!(fill_bytes(&Values::Int(vec![-2]), 4, b).unwrap(), (-2i32).to_ne_bytes());
        assert_eq!(fill_bytes(&Values::Double(vec![1.5]), 8, b).unwrap(), 1.5f64.to_ne_bytes());
        assert_eq!(fill_bytes(&Values::Char(vec![b'x']), 1, b).unwrap(), b"x");
        assert_eq!(fill_bytes(&Values::String(vec![b"abcdef".to_vec()]), 4, b).unwrap(), b"abcd");
        assert_eq!(fill_bytes(&Values::Int(vec![1, 2]), 4, b), Err(NcError::EINTERNAL));
        assert_eq!(fill_bytes(&Values::Int(vec![1]), 2, b), Err(NcError::EINTERNAL), "element too small");
        // numpy U3 filled with "aé": UTF-32 code units, zero-padded.
        let u =
            fill_bytes(&Values::String(vec!["aé".as_bytes().to_vec()]), 12, TextEncoding::Utf32 { big_endian: false });
        assert_eq!(u.unwrap(), [b'a', 0, 0, 0, 0xe9, 0, 0, 0, 0, 0, 0, 0]);
        let cut = fill_bytes(&Values::String(vec![b"abc".to_vec()]), 8, TextEncoding::Utf32 { big_endian: true });
        assert_eq!(cut.unwrap(), [0, 0, 0, b'a', 0, 0, 0, b'b']);
    }

    #[test]
    fn fortran_order_round_trip() {
        // A 2x3 chunk 0 1 2 / 3 4 5 in C order is 0 3 1 4 2 5 in F order.
        let c: Vec<u8> = (0..6).collect();
        let f = transpose(&c, &[2, 3], 1, &[1, 0], false);
        assert_eq!(f, vec![0, 3, 1, 4, 2, 5]);
        assert_eq!(transpose(&f, &[2, 3], 1, &[1, 0], true), c);
    }

    #[test]
    fn any_permutation() {
        // Shape 2x3x4, stored as order [2, 0, 1]: shape 4x2x3, element
        // (a, b, c) of the array at stored (c, a, b).
        let c: Vec<u8> = (0..24).collect();
        let stored = transpose(&c, &[2, 3, 4], 1, &[2, 0, 1], false);
        for (a, b, k) in [(0, 0, 0), (1, 2, 3), (0, 1, 2), (1, 0, 3)] {
            assert_eq!(stored[k * 6 + a * 3 + b], c[a * 12 + b * 4 + k]);
        }
        assert_eq!(transpose(&stored, &[2, 3, 4], 1, &[2, 0, 1], true), c);
        // zarr-python's example: [[1,2,3],[4,5,6]] with order [1, 0].
        assert_eq!(transpose(&[1, 2, 3, 4, 5, 6], &[2, 3], 1, &[1, 0], false), [1, 4, 2, 5, 3, 6]);
    }
}
