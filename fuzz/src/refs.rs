//! Kerchunk reference files (`zmap::parse_references`): any bytes give a
//! table or NC_ENCZARR, never a panic or a hang, and the table keeps the
//! parser's promises (keys inside the dataset, ranges of known targets
//! and bounded length). Parquet references' record files
//! (`zmap::decode_parquet_record`): any bytes give rows or NC_ENCZARR,
//! never a crash, a hang or an unbounded allocation.

use netcdf::zmap::{ParquetRow, ReferenceRef, decode_parquet_record, parse_references};

pub fn references(data: &[u8]) {
    let Ok(refs) = parse_references(data) else { return };
    for (key, reference) in &refs.refs {
        assert!(!key.is_empty() && !key.starts_with('/'), "key {key:?}");
        assert!(key.split('/').all(|s| !s.is_empty() && s != "." && s != ".."), "key {key:?}");
        if let ReferenceRef::Range { target, offset, len } = reference {
            assert!(*target < refs.targets.len(), "target {target} of {}", refs.targets.len());
            if let Some(len) = len {
                assert!(*len <= netcdf::zmap::MAX_REFERENCE_RANGE && offset.checked_add(*len).is_some());
            }
        }
    }
    assert!(refs.targets.iter().all(|t| !t.is_empty()));
}

pub fn parquet(data: &[u8]) {
    // The parquet crate panics on some malformed files (a dictionary-
    // encoded page without its dictionary, ...); decode_record catches
    // that and answers NC_ENCZARR, which is the behaviour under test.
    // libFuzzer's panic hook would abort on the caught panic, so it is set
    // aside for the call. What the fuzzer looks for here is what cannot
    // be caught: an abort, a hang, memory out of bounds or out of all
    // proportion.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let decoded = decode_parquet_record(data.to_vec());
    std::panic::set_hook(hook);
    let Ok(record) = decoded else { return };
    assert!(record.rows as u64 <= netcdf::zmap::MAX_PARQUET_RECORD_SIZE);
    // Rows that name a chunk: in order, inside the record.
    assert!(record.present.windows(2).all(|w| w[0].0 < w[1].0));
    assert!(record.present.last().is_none_or(|(row, _)| *row < record.rows));
    let _ = record.present.iter().filter(|(_, row)| matches!(row, ParquetRow::Raw(_))).count();
}
