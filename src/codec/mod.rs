//! Filters: the codec chain of a variable, built from the codec JSON its
//! `.zarray` names (numcodecs conventions), and the HDF5 filter ids and
//! parameters the netCDF filter API speaks.
//!
//! A chain encodes in order and decodes in reverse. Decoding never
//! allocates more than the chunk can hold (no decompression bombs), and a
//! codec this build does not have makes data access NC_ENOFILTER.

mod blosc;
mod builtin;
pub mod callback;
mod contexts;
mod fletcher;
pub mod plugin;
mod shuffle;
pub mod spec;

use std::ops::Range;

use serde_json::Value;

use crate::error::{NcError, NcResult};

/// One stage of a chain.
pub trait Codec: Send + Sync {
    fn encode(&self, data: &[u8]) -> NcResult<Vec<u8>>;
    /// Decode, refusing to produce more than `max_len` bytes.
    fn decode(&self, data: &[u8], max_len: usize) -> NcResult<Vec<u8>>;
    /// [`Codec::decode`] when the result is known to be about `max_len`
    /// bytes (a chunk of fixed size): a codec may then decode into a
    /// buffer of that size made up front, in one go.
    fn decode_sized(&self, data: &[u8], max_len: usize) -> NcResult<Vec<u8>> {
        self.decode(data, max_len)
    }
    /// Whether [`Codec::decode_ranges`] can decode parts of a chunk.
    fn decodes_ranges(&self) -> bool {
        false
    }
    /// Decode only the bytes `ranges` (sorted, disjoint, inside the
    /// chunk) of a chunk of `chunk_len` bytes, one range after another;
    /// `Ok(None)` when that would decode more than `budget` bytes (or the
    /// codec cannot), so the caller decodes the whole chunk instead.
    fn decode_ranges(
        &self,
        _data: &[u8],
        _chunk_len: usize,
        _ranges: &[Range<usize>],
        _budget: usize,
    ) -> NcResult<Option<Vec<u8>>> {
        Ok(None)
    }
}

/// A variable's codecs, first applied first.
#[derive(Default)]
pub struct Chain {
    stages: Vec<Box<dyn Codec>>,
}

impl std::fmt::Debug for Chain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Chain({} stages)", self.stages.len())
    }
}

/// One stage: the built-in codec, or a plugin when there is none (or
/// when plugins are preferred and one provides this codec).
fn stage(codec: &Value, elem_size: usize, var: &callback::VarInfo) -> NcResult<Box<dyn Codec>> {
    let name = codec.get("id").and_then(Value::as_str).unwrap_or_default();
    let plugin = || plugin::registry().by_codec_id(name);
    if (plugin::prefer_plugins() || builtin::build(codec, elem_size).is_err())
        && let Some((_, p)) = plugin()
    {
        let visible = p.codec_to_params(&json_text(codec))?;
        let working = callback::with_var(var.clone(), || p.working_params(var.ncid, var.varid, &visible))?;
        return Ok(Box::new(PluginCodec { plugin: p, params: working }));
    }
    builtin::build(codec, elem_size).inspect_err(|e| {
        if *e == NcError::ENOFILTER {
            // netcdf-c's words (its NCZ_applyfilterchain), which users and
            // its tests look for; an error, so shown even with logging off.
            let message = format!(
                "Variable '{}' has unsupported codec: ({name}). Not found in {}",
                var.name,
                plugin::plugin_dirs().join(":")
            );
            crate::compat::nclog::emit(crate::compat::nclog::NCLOGERR, message.as_bytes());
        }
    })
}

fn json_text(v: &Value) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

/// A filter run through a plugin's HDF5 filter function.
struct PluginCodec {
    plugin: plugin::Plugin,
    params: Vec<u32>,
}

impl Codec for PluginCodec {
    fn encode(&self, data: &[u8]) -> NcResult<Vec<u8>> {
        self.plugin.run(0, &self.params, data, usize::MAX)
    }

    fn decode(&self, data: &[u8], max_len: usize) -> NcResult<Vec<u8>> {
        self.plugin.run(plugin::H5Z_FLAG_REVERSE, &self.params, data, max_len)
    }
}

/// Bytes a stage may add to its input (fletcher32's checksum); decoding
/// allows for it on top of the chunk size.
const STAGE_OVERHEAD: usize = 16;

impl Chain {
    /// Build the chain for codec JSON objects (filters then compressor):
    /// built-in codecs, else plugins. `var` describes the variable (for
    /// shuffle's element size and plugins' working parameters).
    pub fn from_json(codecs: &[Value], elem_size: usize, var: &callback::VarInfo) -> NcResult<Chain> {
        let stages = codecs.iter().map(|c| stage(c, elem_size, var)).collect::<NcResult<Vec<_>>>()?;
        Ok(Chain { stages })
    }

    pub fn is_empty(&self) -> bool {
        self.stages.is_empty()
    }

    pub fn encode(&self, data: &[u8]) -> NcResult<Vec<u8>> {
        // Each stage reads the one before's output (the first, `data`).
        let mut out: Option<Vec<u8>> = None;
        for stage in &self.stages {
            let next = stage.encode(out.as_deref().unwrap_or(data))?;
            if let Some(done) = out.replace(next) {
                crate::buffers::recycle(done);
            }
        }
        Ok(out.unwrap_or_else(|| data.to_vec()))
    }

    /// Decode a stored chunk expected to be `chunk_bytes` long.
    pub fn decode(&self, data: &[u8], chunk_bytes: usize) -> NcResult<Vec<u8>> {
        let max_len = chunk_bytes.saturating_add(STAGE_OVERHEAD * self.stages.len());
        let out = self.decode_with(data, |stage, input| stage.decode_sized(input, max_len))?;
        if out.len() != chunk_bytes {
            return Err(NcError::EFILTER);
        }
        Ok(out)
    }

    /// Whether [`Chain::decode_ranges`] can decode parts of chunks: the
    /// chain is one codec that can (a codec before it would move the
    /// bytes it decodes).
    pub fn decodes_ranges(&self) -> bool {
        matches!(&self.stages[..], [only] if only.decodes_ranges())
    }

    /// The bytes `ranges` (sorted, disjoint, inside the chunk) of a stored
    /// chunk expected to be `chunk_bytes` long, one range after another,
    /// decoding only what they need; `Ok(None)` when that would decode
    /// more than `budget` bytes or the chain cannot (see
    /// [`Chain::decodes_ranges`]): decode the whole chunk then.
    pub fn decode_ranges(
        &self,
        data: &[u8],
        chunk_bytes: usize,
        ranges: &[Range<usize>],
        budget: usize,
    ) -> NcResult<Option<Vec<u8>>> {
        match &self.stages[..] {
            [only] => only.decode_ranges(data, chunk_bytes, ranges, budget),
            _ => Ok(None),
        }
    }

    /// Decode a stored chunk of no fixed size (variable-length strings),
    /// no stage producing more than `max_len` bytes.
    pub fn decode_up_to(&self, data: &[u8], max_len: usize) -> NcResult<Vec<u8>> {
        self.decode_with(data, |stage, input| stage.decode(input, max_len))
    }

    /// Run the stages backwards, each on the one after's output.
    fn decode_with(&self, data: &[u8], decode: impl Fn(&dyn Codec, &[u8]) -> NcResult<Vec<u8>>) -> NcResult<Vec<u8>> {
        let mut out: Option<Vec<u8>> = None;
        for stage in self.stages.iter().rev() {
            let next = decode(stage.as_ref(), out.as_deref().unwrap_or(data))?;
            if let Some(done) = out.replace(next) {
                crate::buffers::recycle(done);
            }
        }
        Ok(out.unwrap_or_else(|| data.to_vec()))
    }
}
