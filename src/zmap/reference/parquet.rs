//! kerchunk's Parquet references (fsspec's `LazyReferenceMapper`): a
//! directory (or S3 prefix) holding
//! - `.zmetadata`: `{"metadata": {".zgroup": {...}, "v/.zarray": {...},
//!   ...}, "record_size": N}`: every metadata object, as JSON;
//! - `v/refs.{r}.parq`: the references of array `v`'s chunks, N to a
//!   file. Chunk `v/i.j` is row `k % N` of record `k / N`, where `k` is
//!   the chunk's index in C order over the chunk grid. Columns: `path`
//!   (the target's URL, null for no chunk), `offset` and `size` (both 0:
//!   the whole target) and `raw` (the chunk's bytes held inline).
//!
//! Opening reads `.zmetadata` only; a record file is read (once, then
//! cached) when one of its chunks is. As fsspec reads them, a record
//! file that does not exist holds no chunks (they read as fill); a
//! record file that is not Parquet, or lacks the row a chunk needs, is
//! NC_ENCZARR for its chunks, never fill.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use parquet::column::reader::{ColumnReader, ColumnReaderImpl};
use parquet::data_type::{ByteArray, ByteArrayType, DataType, Int32Type, Int64Type};
use parquet::file::reader::{FileReader, SerializedFileReader};
use serde_json::Value as Json;

use super::page_headers;
use super::parse::{MAX_RANGE, Ref, check_key};
use super::targets::Targets;
use crate::error::{NcError, NcResult};
use crate::zmap::{S3Map, Zmap};

/// Most rows one record file may hold: fsspec's writers use 10 000 and
/// 100 000; far beyond is a malformed file, not a reason to allocate.
pub const MAX_RECORD_SIZE: u64 = 10_000_000;

/// Most bytes a record file may decode to (its pages' decoded sizes, as
/// their headers state them): inline chunks are small.
const MAX_RECORD_BYTES: u64 = 1 << 30;

/// Rows of record files kept decoded per dataset, counted whole (only the
/// rows naming a chunk are held, about 60 bytes each), the oldest record
/// dropped first. At least one record is kept.
const CACHED_ROWS: usize = 2_000_000;

/// Record files kept per dataset, however small.
const CACHED_RECORDS: usize = 4096;

/// A row of a record file that names a chunk (a row with neither path
/// nor raw names none).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Row {
    /// The chunk's bytes, inline.
    Raw(Vec<u8>),
    /// Bytes `offset..offset + size` of the target `path`; offset and
    /// size 0: all of it.
    Target { path: String, offset: u64, size: u64 },
}

/// A record file decoded: its row count, and its rows that name a chunk,
/// in order (most rows of a sparse variable's records name none).
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Decoded {
    pub rows: usize,
    pub present: Vec<(usize, Row)>,
}

/// Rows decoded at a time: the column buffers are this long, reused.
const BATCH: usize = 8192;

/// Where the record files are: beside `.zmetadata`.
pub enum RecordStore {
    Local(std::path::PathBuf),
    /// The S3 or web "directory" above the references, and their name in
    /// it.
    Remote {
        store: Box<S3Map>,
        prefix: String,
    },
}

impl RecordStore {
    /// An object below the references' root; None if absent.
    pub fn get(&self, key: &str) -> NcResult<Option<Vec<u8>>> {
        match self {
            RecordStore::Local(dir) => crate::zmap::local::read_regular(&dir.join(key), NcError::ENCZARR),
            RecordStore::Remote { store, prefix } => store.get(&format!("{prefix}/{key}")),
        }
    }
}

/// A record file resolved: its row count, and for each row that names a
/// chunk (in order) its reference or why it cannot be read (a target URL
/// no driver serves, a range past limits).
struct Record {
    rows: usize,
    present: Vec<(usize, NcResult<Ref>)>,
}

impl Record {
    /// Row `row`'s reference, if it names one. A row past the end is
    /// NC_ENCZARR (fsspec's writers give every record file record_size
    /// rows).
    fn get(&self, row: usize) -> NcResult<Option<Ref>> {
        if row >= self.rows {
            return Err(NcError::ENCZARR);
        }
        match self.present.binary_search_by_key(&row, |(r, _)| *r) {
            Ok(at) => self.present[at].1.clone().map(Some),
            Err(_) => Ok(None),
        }
    }
}

/// Parquet references, opened.
pub struct ParquetRefs {
    /// Every metadata key, as JSON text.
    pub meta: BTreeMap<String, Vec<u8>>,
    record_size: u64,
    /// Chunks along each dimension, per array (from its `.zarray`); an
    /// array whose `.zarray` has no usable shape and chunks is absent.
    grids: HashMap<String, Vec<u64>>,
    store: RecordStore,
    cache: Mutex<Cache>,
}

impl ParquetRefs {
    /// References from the bytes of their `.zmetadata`, their record files
    /// in `store`. A malformed `.zmetadata` is NC_ENCZARR.
    pub fn open(zmetadata: &[u8], store: RecordStore) -> NcResult<ParquetRefs> {
        // Python's json writes NaN bare (VirtualiZarr's `_FillValue`):
        // read leniently, and written back as it was.
        let doc: Json = crate::json::parse(zmetadata)?;
        let record_size = doc
            .get("record_size")
            .and_then(Json::as_u64)
            .filter(|&n| (1..=MAX_RECORD_SIZE).contains(&n))
            .ok_or(NcError::ENCZARR)?;
        let Some(Json::Object(metadata)) = doc.get("metadata") else { return Err(NcError::ENCZARR) };
        let mut meta = BTreeMap::new();
        let mut grids = HashMap::new();
        for (key, value) in metadata {
            check_key(key)?;
            if let Some(array) = key.strip_suffix("/.zarray")
                && let Some(grid) = chunk_grid(value)
            {
                grids.insert(array.to_string(), grid);
            }
            let text = serde_json::to_string(value).map_err(|_| NcError::ENCZARR)?;
            meta.insert(key.clone(), crate::json::restore_bare_tokens(&text).into_bytes());
        }
        Ok(ParquetRefs { meta, record_size, grids, store, cache: Mutex::new(Cache::default()) })
    }

    /// What `key` holds: a metadata object, a chunk's reference, or
    /// nothing. Target URLs are resolved in `targets` as records load.
    pub fn lookup(&self, key: &str, targets: &Targets) -> NcResult<Option<Ref>> {
        if let Some(text) = self.meta.get(key) {
            return Ok(Some(Ref::Inline(text.clone())));
        }
        let Some((array, chunk)) = key.rsplit_once('/') else { return Ok(None) };
        if chunk.starts_with(".z") {
            return Ok(None);
        }
        let Some(grid) = self.grids.get(array) else { return Ok(None) };
        let Some(index) = chunk_number(chunk, grid) else { return Ok(None) };
        let Some(record) = self.record(array, index / self.record_size, targets)? else { return Ok(None) };
        let row = usize::try_from(index % self.record_size).map_err(|_| NcError::ENCZARR)?;
        record.get(row)
    }

    /// Record `n` of `array`, decoded (None: no such file). Readers of
    /// one record wait for the first to load it rather than each fetching
    /// it; a failed load is not remembered.
    fn record(&self, array: &str, n: u64, targets: &Targets) -> NcResult<Option<Arc<Record>>> {
        let id = (array.to_string(), n);
        let slot = self.cache.lock().map_err(|_| NcError::EINTERNAL)?.slot(&id);
        let mut loaded = slot.lock().map_err(|_| NcError::EINTERNAL)?;
        if let Some(record) = &*loaded {
            return Ok(record.clone());
        }
        let record = match self.store.get(&format!("{array}/refs.{n}.parq"))? {
            None => None,
            Some(bytes) => Some(Arc::new(resolve(decode_record(bytes)?, targets))),
        };
        *loaded = Some(record.clone());
        drop(loaded);
        let rows = record.as_ref().map_or(0, |r| r.rows);
        self.cache.lock().map_err(|_| NcError::EINTERNAL)?.loaded(&id, rows);
        Ok(record)
    }
}

/// Chunks along each dimension of a `.zarray` (one chunk for a scalar,
/// as fsspec counts); None unless `shape` and `chunks` are integers, as
/// many, chunks positive, and the chunk count fits.
fn chunk_grid(zarray: &Json) -> Option<Vec<u64>> {
    let ints = |field: &str| -> Option<Vec<u64>> {
        zarray.get(field)?.as_array()?.iter().map(Json::as_u64).collect::<Option<Vec<u64>>>()
    };
    let (shape, chunks) = (ints("shape")?, ints("chunks")?);
    if shape.len() != chunks.len() || chunks.contains(&0) {
        return None;
    }
    let grid: Vec<u64> = shape.iter().zip(&chunks).map(|(s, c)| s.div_ceil(*c)).collect();
    grid.iter().try_fold(1u64, |n, &g| n.checked_mul(g))?;
    Some(if grid.is_empty() { vec![1] } else { grid })
}

/// The C-order index of chunk `i.j...` in `grid`; None for a name that is
/// not a chunk of it (wrong rank, not integers, outside the grid).
fn chunk_number(chunk: &str, grid: &[u64]) -> Option<u64> {
    let mut number = 0u64;
    let mut parts = chunk.split('.');
    for &extent in grid {
        let i: u64 = parts.next()?.parse().ok()?;
        if i >= extent {
            return None;
        }
        number = number * extent + i;
    }
    parts.next().is_none().then_some(number)
}

/// A record's rows as references, each target URL resolved once.
fn resolve(decoded: Decoded, targets: &Targets) -> Record {
    let mut ids: HashMap<String, NcResult<usize>> = HashMap::new();
    let mut resolve_row = |row: Row| match row {
        Row::Raw(bytes) => Ok(Ref::Inline(bytes)),
        Row::Target { path, offset, size } => {
            if path.is_empty() || size > MAX_RANGE || offset.checked_add(size).is_none() {
                return Err(NcError::ENCZARR);
            }
            let target = match ids.get(&path) {
                Some(id) => (*id)?,
                None => (*ids.entry(path).or_insert_with_key(|path| targets.intern(path)))?,
            };
            let len = if offset == 0 && size == 0 { None } else { Some(size) };
            Ok(Ref::Range { target, offset, len })
        }
    };
    let present = decoded.present.into_iter().map(|(row, r)| (row, resolve_row(r))).collect();
    Record { rows: decoded.rows, present }
}

/// The rows of a record file. Anything but a flat Parquet file with a
/// `path` or `raw` column of byte strings (and `offset`, `size` of
/// integers, if present) is NC_ENCZARR; so is a panic of the Parquet
/// reader, which untrusted bytes must not turn into a crash.
pub fn decode_record(bytes: Vec<u8>) -> NcResult<Decoded> {
    std::panic::catch_unwind(move || decode(bytes::Bytes::from(bytes))).unwrap_or(Err(NcError::ENCZARR))
}

fn decode(bytes: bytes::Bytes) -> NcResult<Decoded> {
    let file = bytes.clone();
    let reader = SerializedFileReader::new(bytes).map_err(|_| NcError::ENCZARR)?;
    let meta = reader.metadata();
    let rows = usize::try_from(meta.file_metadata().num_rows())
        .ok()
        .filter(|&n| n as u64 <= MAX_RECORD_SIZE)
        .ok_or(NcError::ENCZARR)?;
    // What the reader would otherwise trust (and panic on, or allocate
    // for): every column chunk inside the file, its pages' headers sound
    // and their decoded sizes bounded (page_headers.rs).
    let mut decoded_size = 0u64;
    for group in meta.row_groups() {
        for column in group.columns() {
            let start = column.dictionary_page_offset().unwrap_or(column.data_page_offset());
            let start = usize::try_from(start).map_err(|_| NcError::ENCZARR)?;
            let len = usize::try_from(column.compressed_size()).map_err(|_| NcError::ENCZARR)?;
            decoded_size = decoded_size.saturating_add(page_headers::check_column_chunk(&file, start, len)?);
        }
    }
    if decoded_size > MAX_RECORD_BYTES {
        return Err(NcError::ENCZARR);
    }
    let schema = meta.file_metadata().schema_descr();
    let position = |name: &str| (0..schema.num_columns()).find(|&i| schema.column(i).name() == name);
    let (path_col, raw_col) = (position("path"), position("raw"));
    if path_col.is_none() && raw_col.is_none() {
        return Err(NcError::ENCZARR);
    }
    let mut out = Decoded { rows, present: Vec::new() };
    let mut first_row = 0usize;
    let (mut path, mut raw, mut offset, mut size) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for g in 0..reader.num_row_groups() {
        let group = reader.get_row_group(g).map_err(|_| NcError::ENCZARR)?;
        let group_rows = usize::try_from(group.metadata().num_rows()).map_err(|_| NcError::ENCZARR)?;
        let column = |col: Option<usize>| -> NcResult<Option<Column>> {
            let Some(c) = col else { return Ok(None) };
            let levels = Levels { def: schema.column(c).max_def_level(), rep: schema.column(c).max_rep_level() };
            Column::new(group.get_column_reader(c).map_err(|_| NcError::ENCZARR)?, levels).map(Some)
        };
        let (mut path_col, mut raw_col) = (column(path_col)?, column(raw_col)?);
        let (mut offset_col, mut size_col) = (column(position("offset"))?, column(position("size"))?);
        let mut done = 0;
        while done < group_rows {
            let n = BATCH.min(group_rows - done);
            for (col, buf) in [(&mut path_col, &mut path), (&mut raw_col, &mut raw)] {
                match col {
                    Some(col) => col.bytes(n, buf)?,
                    None => buf.clear(),
                }
            }
            for (col, buf) in [(&mut offset_col, &mut offset), (&mut size_col, &mut size)] {
                match col {
                    Some(col) => col.ints(n, buf)?,
                    None => buf.clear(),
                }
            }
            let at = |col: &[Option<i64>], i: usize| -> NcResult<u64> {
                col.get(i).copied().flatten().map_or(Ok(0), |v| u64::try_from(v).map_err(|_| NcError::ENCZARR))
            };
            for i in 0..n {
                let row = first_row + done + i;
                if let Some(Some(bytes)) = raw.get(i) {
                    out.present.push((row, Row::Raw(bytes.data().to_vec())));
                } else if let Some(Some(name)) = path.get(i) {
                    let name = std::str::from_utf8(name.data()).map_err(|_| NcError::ENCZARR)?.to_string();
                    out.present.push((row, Row::Target { path: name, offset: at(&offset, i)?, size: at(&size, i)? }));
                }
            }
            done += n;
        }
        first_row += group_rows;
    }
    if first_row != rows {
        return Err(NcError::ENCZARR);
    }
    Ok(out)
}

/// A column's maximum definition and repetition levels.
#[derive(Clone, Copy)]
struct Levels {
    def: i16,
    rep: i16,
}

/// One column of a row group, read a batch of rows at a time into
/// buffers kept between batches.
enum Column {
    Bytes(Batches<ByteArrayType>),
    Int32(Batches<Int32Type>),
    Int64(Batches<Int64Type>),
}

impl Column {
    fn new(reader: ColumnReader, levels: Levels) -> NcResult<Column> {
        if levels.rep != 0 {
            return Err(NcError::ENCZARR);
        }
        Ok(match reader {
            ColumnReader::ByteArrayColumnReader(r) => Column::Bytes(Batches::new(r, levels)),
            ColumnReader::Int32ColumnReader(r) => Column::Int32(Batches::new(r, levels)),
            ColumnReader::Int64ColumnReader(r) => Column::Int64(Batches::new(r, levels)),
            _ => return Err(NcError::ENCZARR),
        })
    }

    /// The next `n` rows of a column of byte strings. pyarrow writes a
    /// column of nulls only (no chunk of a record has a path, or none is
    /// inline) as Parquet's NULL type, stored as int32: fine if every
    /// value is null.
    fn bytes(&mut self, n: usize, out: &mut Vec<Option<ByteArray>>) -> NcResult<()> {
        match self {
            Column::Bytes(b) => b.next(n, out),
            Column::Int32(b) => {
                b.next_into_scratch(n)?;
                if b.scratch.iter().any(Option::is_some) {
                    return Err(NcError::ENCZARR);
                }
                out.clear();
                out.resize(n, None);
                Ok(())
            }
            Column::Int64(_) => Err(NcError::ENCZARR),
        }
    }

    /// The next `n` rows of a column of integers.
    fn ints(&mut self, n: usize, out: &mut Vec<Option<i64>>) -> NcResult<()> {
        match self {
            Column::Int64(b) => b.next(n, out),
            Column::Int32(b) => {
                b.next_into_scratch(n)?;
                out.clear();
                out.extend(b.scratch.iter().map(|v| v.map(i64::from)));
                Ok(())
            }
            Column::Bytes(_) => Err(NcError::ENCZARR),
        }
    }
}

/// A flat column's reader and its buffers.
struct Batches<T: DataType> {
    reader: ColumnReaderImpl<T>,
    levels: Levels,
    defs: Vec<i16>,
    values: Vec<T::T>,
    /// The last batch, where a caller converts from it.
    scratch: Vec<Option<T::T>>,
}

impl<T: DataType> Batches<T> {
    fn new(reader: ColumnReaderImpl<T>, levels: Levels) -> Self {
        Batches { reader, levels, defs: Vec::new(), values: Vec::new(), scratch: Vec::new() }
    }

    /// The next `n` rows, null where the definition level says.
    fn next(&mut self, n: usize, out: &mut Vec<Option<T::T>>) -> NcResult<()> {
        self.defs.clear();
        self.values.clear();
        out.clear();
        let (records, _, levels) =
            self.reader.read_records(n, Some(&mut self.defs), None, &mut self.values).map_err(|_| NcError::ENCZARR)?;
        if records != n {
            return Err(NcError::ENCZARR);
        }
        if self.levels.def == 0 {
            if self.values.len() != n {
                return Err(NcError::ENCZARR);
            }
            out.extend(self.values.drain(..).map(Some));
            return Ok(());
        }
        if levels != n || self.defs.len() != n {
            return Err(NcError::ENCZARR);
        }
        let mut values = self.values.drain(..);
        for &d in &self.defs {
            out.push(if d == self.levels.def { Some(values.next().ok_or(NcError::ENCZARR)?) } else { None });
        }
        if values.next().is_some() {
            return Err(NcError::ENCZARR);
        }
        Ok(())
    }

    fn next_into_scratch(&mut self, n: usize) -> NcResult<()> {
        let mut scratch = std::mem::take(&mut self.scratch);
        let result = self.next(n, &mut scratch);
        self.scratch = scratch;
        result
    }
}

/// Decoded records by (array, record number), oldest first: reads walk
/// an array's chunks mostly in order, so the first loaded goes first.
#[derive(Default)]
struct Cache {
    slots: HashMap<(String, u64), (Slot, usize)>,
    order: VecDeque<(String, u64)>,
    rows: usize,
}

/// A record being loaded or loaded: None until then; Some(None) for no
/// such file.
type Slot = Arc<Mutex<Option<Option<Arc<Record>>>>>;

impl Cache {
    /// The slot of a record, made if new.
    fn slot(&mut self, id: &(String, u64)) -> Slot {
        if let Some((slot, _)) = self.slots.get(id) {
            return slot.clone();
        }
        let slot = Slot::default();
        self.slots.insert(id.clone(), (slot.clone(), 0));
        self.order.push_back(id.clone());
        slot
    }

    /// A record was loaded with `rows` rows: count them, and drop the
    /// oldest records beyond the budget (readers holding one keep their
    /// copy). The newest is always kept.
    fn loaded(&mut self, id: &(String, u64), rows: usize) {
        if let Some(entry) = self.slots.get_mut(id) {
            self.rows = self.rows - entry.1 + rows;
            entry.1 = rows;
        }
        while (self.rows > CACHED_ROWS || self.order.len() > CACHED_RECORDS) && self.order.len() > 1 {
            let Some(old) = self.order.pop_front() else { break };
            if let Some((_, n)) = self.slots.remove(&old) {
                self.rows -= n;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunk_names_index_the_grid_in_c_order() {
        let grid = chunk_grid(&serde_json::json!({"shape": [10, 7], "chunks": [5, 2]})).unwrap();
        assert_eq!(grid, vec![2, 4]);
        assert_eq!(chunk_number("0.0", &grid), Some(0));
        assert_eq!(chunk_number("0.3", &grid), Some(3));
        assert_eq!(chunk_number("1.2", &grid), Some(6));
        for bad in ["2.0", "0.4", "0", "0.0.0", "a.b", "-1.0", ""] {
            assert_eq!(chunk_number(bad, &grid), None, "{bad}");
        }
        let scalar = chunk_grid(&serde_json::json!({"shape": [], "chunks": []})).unwrap();
        assert_eq!(chunk_number("0", &scalar), Some(0));
        for bad in [
            serde_json::json!({"shape": [4], "chunks": [0]}),
            serde_json::json!({"shape": [4], "chunks": [2, 2]}),
            serde_json::json!({"shape": [4]}),
            serde_json::json!({"shape": [u64::MAX, u64::MAX], "chunks": [1, 1]}),
        ] {
            assert_eq!(chunk_grid(&bad), None, "{bad}");
        }
    }

    /// Python's json writes a NaN bare; each metadata object keeps it.
    #[test]
    fn bare_nan_in_zmetadata() {
        let refs = ParquetRefs::open(
            br#"{"record_size": 2, "metadata": {"v/.zattrs": {"_FillValue": NaN, "scale": [1.5, -Infinity]}}}"#,
            RecordStore::Local(std::env::temp_dir()),
        )
        .unwrap();
        assert_eq!(refs.meta["v/.zattrs"], br#"{"_FillValue":NaN,"scale":[1.5,-Infinity]}"#);
    }

    #[test]
    fn bad_zmetadata_does_not_open() {
        let store = || RecordStore::Local(std::env::temp_dir());
        for bad in [
            &b"{"[..],
            br#"{"metadata": {}}"#,
            br#"{"metadata": {}, "record_size": 0}"#,
            br#"{"metadata": {}, "record_size": -4}"#,
            br#"{"metadata": {}, "record_size": 100000000000}"#,
            br#"{"metadata": [], "record_size": 4}"#,
            br#"{"metadata": {"../x/.zarray": {}}, "record_size": 4}"#,
            br#"{"metadata": {"/x/.zarray": {}}, "record_size": 4}"#,
        ] {
            assert_eq!(
                ParquetRefs::open(bad, store()).err(),
                Some(NcError::ENCZARR),
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
    }

    /// The record files fuzz/gen_seeds.py writes with fastparquet and
    /// pyarrow (as fsspec does, and with other codecs and layouts) all
    /// decode to the rows written.
    #[test]
    fn records_written_by_fastparquet_and_pyarrow_decode() {
        let target = |offset, size| Row::Target { path: "s3://bucket/data/file.nc".into(), offset, size };
        let inline = Row::Raw(b"\x00\x01inline chunk".to_vec());
        let written = vec![
            (0, target(100, 4000)),
            (1, target(4196, 4000)),
            (3, target(12388, 4000)),
            (4, Row::Target { path: "file:///data/whole.bin".into(), offset: 0, size: 0 }),
            (5, inline.clone()),
        ];
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/seeds/parquet");
        let mut seen = 0;
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let got = decode_record(std::fs::read(&path).unwrap()).unwrap_or_else(|e| panic!("{path:?}: {e:?}"));
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let expected = if name.ends_with("null-path") {
                (0..6).map(|i| (i, Row::Raw(format!("chunk {i}").into_bytes()))).collect()
            } else if name.ends_with("raw-only") {
                vec![(5, inline.clone())]
            } else {
                written.clone()
            };
            assert_eq!(got, Decoded { rows: 6, present: expected }, "{name}");
            seen += 1;
        }
        assert!(seen >= 14, "{seen} seeds in {dir:?}");
    }

    #[test]
    fn garbage_is_not_a_record() {
        for bad in [&b""[..], b"PAR1", b"PAR1\0\0\0\0PAR1", b"PAR1 not parquet at all PAR1"] {
            assert_eq!(decode_record(bad.to_vec()), Err(NcError::ENCZARR));
        }
        // What the fuzzer found: a column chunk starting before the file
        // (the reader would panic; checked first), a dictionary-encoded
        // page without its dictionary (the reader panics; caught), a page
        // claiming to decode to 1.3 GiB (the reader would allocate it;
        // page headers checked first).
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/regressions/parquet");
        for name in ["negative-column-start", "dictionary-page-missing", "page-claims-1-3-gib"] {
            assert_eq!(decode_record(std::fs::read(dir.join(name)).unwrap()), Err(NcError::ENCZARR), "{name}");
        }
    }

    #[test]
    fn the_cache_keeps_its_budget() {
        let mut cache = Cache::default();
        let id = |n: u64| ("a".to_string(), n);
        for n in 0..4 {
            cache.slot(&id(n));
            cache.loaded(&id(n), CACHED_ROWS / 2);
        }
        assert_eq!(cache.rows, CACHED_ROWS);
        assert_eq!(cache.order.iter().map(|o| o.1).collect::<Vec<_>>(), vec![2, 3]);
        // One record over the budget alone is still kept.
        cache.slot(&id(9));
        cache.loaded(&id(9), CACHED_ROWS * 3);
        assert_eq!(cache.order.len(), 1);
    }
}
