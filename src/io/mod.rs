//! Reading and writing variable data: hyperslab checks, the chunk grid,
//! element conversion, the chunk cache and the engine that ties them
//! together.

pub mod cache;
pub mod chunk_io;
pub mod copy;
pub mod element;
pub mod engine;
mod float16;
pub mod grid;
mod hugepages;
pub mod layout;
mod part_decode;
pub mod quantize;
mod read;
pub mod selection;
mod shard;
pub mod shared;
mod unfilled;
mod write;
pub mod write_behind;

pub use cache::{CacheSettings, ChunkCache};
pub use selection::{Access, Selection};
