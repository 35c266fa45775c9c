//! Base64 as Zarr uses it for bytes in JSON (`fill_value`s of byte
//! strings, in v2 and v3).

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD};

use crate::error::{NcError, NcResult};

/// Standard base64, padded.
pub fn encode(bytes: &[u8]) -> String {
    STANDARD.encode(bytes)
}

/// Standard base64, padded or not (zarr-python pads).
pub fn decode(text: &str) -> NcResult<Vec<u8>> {
    STANDARD.decode(text).or_else(|_| STANDARD_NO_PAD.decode(text)).map_err(|_| NcError::ENCZARR)
}
