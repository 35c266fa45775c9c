//! Default chunk shapes, computed as netcdf-c's NCZarr does
//! (`ncz_find_default_chunksizes2`) with a 4 MiB target chunk.

/// Target size of a default chunk in bytes (netcdf-c's autotools value).
pub const DEFAULT_CHUNK_SIZE: usize = 4 * 1024 * 1024;
/// Cap for one-dimensional unlimited variables.
const DEFAULT_1D_UNLIM_SIZE: usize = 4096;
/// Largest chunk netCDF allows, in bytes.
const MAX_CHUNK_BYTES: f64 = u32::MAX as f64;

/// One dimension of a variable as the chunker sees it.
#[derive(Debug, Clone, Copy)]
pub struct DimShape {
    pub len: usize,
    pub unlimited: bool,
}

/// Is a chunk of this shape within netCDF's 4 GiB limit?
pub fn chunk_size_ok(chunks: &[usize], type_size: usize) -> bool {
    let bytes = chunks.iter().fold(type_size as f64, |acc, &c| acc * c as f64);
    bytes <= MAX_CHUNK_BYTES
}

/// The default chunk shape for a variable with these dimensions.
pub fn default_chunks(dims: &[DimShape], type_size: usize) -> Vec<usize> {
    let ndims = dims.len();
    let mut chunks = vec![0usize; ndims];
    // netcdf-c accumulates the value count in single precision; so do we,
    // so that the same shapes come out.
    let mut num_values: f32 = 1.0;
    let mut num_unlim = 0usize;
    for (d, dim) in dims.iter().enumerate() {
        if dim.unlimited {
            num_unlim += 1;
            chunks[d] = 1;
        } else {
            num_values *= dim.len as f32;
        }
    }
    if ndims == 1 && num_unlim == 1 {
        let suggested = (DEFAULT_CHUNK_SIZE / type_size).clamp(1, DEFAULT_1D_UNLIM_SIZE);
        chunks[0] = (suggested / type_size).max(1);
    }
    if ndims > 1 && ndims == num_unlim {
        let suggested = ((DEFAULT_CHUNK_SIZE as f64 / type_size as f64).powf(1.0 / ndims as f64)) as usize;
        chunks.iter_mut().for_each(|c| *c = suggested.max(1));
    }
    for (d, dim) in dims.iter().enumerate() {
        if chunks[d] == 0 {
            let per_dim = (DEFAULT_CHUNK_SIZE as f64 / (num_values as f64 * type_size as f64))
                .powf(1.0 / (ndims - num_unlim) as f64);
            let suggested = per_dim * dim.len as f64 - 0.5;
            // A NaN or negative suggestion (zero-length dims) becomes 1.
            let suggested = if suggested.is_finite() && suggested > 0.0 { suggested as usize } else { 0 };
            chunks[d] = suggested.min(dim.len).max(1);
        }
    }
    while !chunk_size_ok(&chunks, type_size) {
        chunks.iter_mut().for_each(|c| *c = (*c / 2).max(1));
    }
    // Trim overhang so the last chunk is not mostly empty.
    for (d, dim) in dims.iter().enumerate() {
        let nchunks = dim.len.div_ceil(chunks[d]);
        if nchunks > 0 {
            let overhang = nchunks * chunks[d] - dim.len;
            chunks[d] -= overhang / nchunks;
        }
    }
    chunks
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixed(len: usize) -> DimShape {
        DimShape { len, unlimited: false }
    }
    fn unlim(len: usize) -> DimShape {
        DimShape { len, unlimited: true }
    }

    #[test]
    fn small_variables_are_one_chunk() {
        assert_eq!(default_chunks(&[fixed(3), fixed(4)], 4), vec![3, 4]);
        assert_eq!(default_chunks(&[fixed(10)], 8), vec![10]);
    }

    #[test]
    fn one_dimensional_unlimited() {
        assert_eq!(default_chunks(&[unlim(0)], 4), vec![1024]);
        assert_eq!(default_chunks(&[unlim(0)], 8), vec![512]);
    }

    #[test]
    fn unlimited_with_fixed_dims() {
        assert_eq!(default_chunks(&[unlim(0), fixed(3), fixed(4)], 4), vec![1, 3, 4]);
    }

    #[test]
    fn large_variables_are_split_near_the_target() {
        let chunks = default_chunks(&[fixed(4096), fixed(4096)], 4);
        let bytes: usize = chunks.iter().product::<usize>() * 4;
        assert!(bytes <= DEFAULT_CHUNK_SIZE && bytes > DEFAULT_CHUNK_SIZE / 4, "{chunks:?}");
    }

    #[test]
    fn zero_length_fixed_dim() {
        assert_eq!(default_chunks(&[fixed(0)], 4), vec![1]);
    }
}

/// How a Zarr v3 array's chunks are stored, beyond what v2 arrays say
/// (data type, byte order, bytes-to-bytes codecs): the keys of its chunks
/// and the order of elements within one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct V3Chunks {
    /// The `default` chunk key encoding (`c/1/2`, `c` for a scalar); else
    /// the `v2` one (`1.2`, `0` for a scalar).
    pub default_keys: bool,
    pub separator: char,
    /// The `transpose` codec's order: stored chunks have shape
    /// `chunk[order[i]]`, in C order.
    pub transpose: Option<Vec<usize>>,
    /// Elements stored as IEEE half floats (the variable is NC_FLOAT).
    pub half: bool,
    /// Sharded: each stored object is a shard of this many inner chunks
    /// (the variable's chunks) per dimension, with an index.
    pub shard: Option<Shards>,
    /// The array's document as read from storage, less what the model
    /// holds (shape, attributes, dimension names): written back as it was,
    /// since the stored chunks are encoded as it says. `None` for an array
    /// this library defines.
    pub stored: Option<serde_json::Map<String, serde_json::Value>>,
}

impl V3Chunks {
    /// A new array's chunks as this library writes them: `default` keys
    /// with `/`, C order, no shards.
    pub fn new_array() -> V3Chunks {
        V3Chunks { default_keys: true, separator: '/', transpose: None, half: false, shard: None, stored: None }
    }
}

/// A sharded v3 array's shards (`sharding_indexed`): one level, or
/// shards whose inner chunks are shards themselves (a `sharding_indexed`
/// among the inner codecs), outermost first. The last level's inner
/// chunks are the variable's chunks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shards {
    pub levels: Vec<ShardLevel>,
}

/// One level of shards.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShardLevel {
    /// Inner chunks per shard of this level, per dimension of the array.
    pub per_shard: Vec<usize>,
    /// The index lists the inner chunks in C order over the dimensions
    /// `order[0], order[1], ...` of the array (a `transpose` before the
    /// codec makes its shards transposed); `None`: the array's order.
    pub order: Option<Vec<usize>>,
    /// The index is at the end of the shard (else at its start).
    pub index_at_end: bool,
    /// The index is followed by its CRC-32C.
    pub index_crc: bool,
}

impl Shards {
    /// Shards of `per_shard` chunks as this library writes them
    /// (zarr-python's layout: index at the end with its CRC-32C).
    pub fn new_array(per_shard: Vec<usize>) -> Shards {
        Shards { levels: vec![ShardLevel { per_shard, order: None, index_at_end: true, index_crc: true }] }
    }

    /// The variable's chunks per outermost shard, per dimension (every
    /// level's counts multiplied; `None` if that overflows).
    pub fn chunks_per_shard(&self) -> Option<Vec<usize>> {
        let rank = self.levels.first().map_or(0, |l| l.per_shard.len());
        (0..rank).map(|d| self.levels.iter().try_fold(1usize, |p, l| p.checked_mul(*l.per_shard.get(d)?))).collect()
    }
}
