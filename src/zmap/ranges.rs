//! Byte ranges of one object merged into fewer requests: for storages
//! where a request costs far more than the bytes it carries (S3, HTTP),
//! ranges closer than a gap are fetched as one span and the bytes handed
//! to where each range belongs. Local storages read each range as it is.

use crate::error::{NcError, NcResult};

/// Bytes `start..end` of an object, holding the ranges `members` (their
/// positions in the list given to [`coalesce`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Span {
    pub start: u64,
    pub end: u64,
    pub members: Vec<usize>,
}

impl Span {
    pub fn bytes(&self) -> u64 {
        self.end - self.start
    }
}

/// The ranges `(offset, len)` as spans: ranges that overlap, touch or lie
/// at most `max_gap` bytes apart share one. Empty ranges belong to none.
/// Ranges in any order; spans come in offset order. A range whose end
/// does not fit in a `u64` is NC_ENCZARR (a lying shard index).
pub fn coalesce(ranges: &[(u64, usize)], max_gap: u64) -> NcResult<Vec<Span>> {
    let mut order: Vec<(u64, u64, usize)> = Vec::with_capacity(ranges.len());
    for (k, &(offset, len)) in ranges.iter().enumerate() {
        if len > 0 {
            let end = offset.checked_add(len as u64).ok_or(NcError::ENCZARR)?;
            order.push((offset, end, k));
        }
    }
    order.sort_unstable();
    let mut spans: Vec<Span> = Vec::new();
    for (start, end, k) in order {
        match spans.last_mut() {
            Some(span) if start <= span.end.saturating_add(max_gap) => {
                span.end = span.end.max(end);
                span.members.push(k);
            }
            _ => spans.push(Span { start, end, members: vec![k] }),
        }
    }
    Ok(spans)
}

/// Is one request for the whole object (of `size` bytes) better than the
/// spans? When it saves requests and adds no more than `max_gap` bytes
/// per request saved: the trade the spans were merged by. A single span
/// stays ranged (one request either way, fewer bytes).
pub fn whole_is_better(spans: &[Span], size: u64, max_gap: u64) -> bool {
    if spans.len() < 2 {
        return false;
    }
    let covered: u64 = spans.iter().map(Span::bytes).sum();
    size.saturating_sub(covered) <= max_gap.saturating_mul(spans.len() as u64 - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn starts_ends(spans: &[Span]) -> Vec<(u64, u64)> {
        spans.iter().map(|s| (s.start, s.end)).collect()
    }

    #[test]
    fn rows_of_a_chunk_are_one_span() {
        // 512 rows of 512 bytes, each 512 bytes after the last: contiguous.
        let rows: Vec<(u64, usize)> = (0..512).map(|r| (r * 512, 512)).collect();
        let spans = coalesce(&rows, 0).unwrap();
        assert_eq!(starts_ends(&spans), [(0, 262_144)]);
        assert_eq!(spans[0].members, (0..512).collect::<Vec<_>>());
    }

    #[test]
    fn gaps_decide() {
        let ranges = [(0, 4), (100, 4), (1000, 4)];
        assert_eq!(starts_ends(&coalesce(&ranges, 96).unwrap()), [(0, 104), (1000, 1004)]);
        assert_eq!(starts_ends(&coalesce(&ranges, 95).unwrap()), [(0, 4), (100, 104), (1000, 1004)]);
        assert_eq!(starts_ends(&coalesce(&ranges, 1 << 20).unwrap()), [(0, 1004)]);
    }

    #[test]
    fn any_order_overlaps_and_empty_ranges() {
        let ranges = [(50, 10), (0, 0), (0, 20), (10, 5), (55, 2), (200, 1)];
        let spans = coalesce(&ranges, 0).unwrap();
        assert_eq!(starts_ends(&spans), [(0, 20), (50, 60), (200, 201)]);
        assert_eq!(spans[0].members, [2, 3]);
        assert_eq!(spans[1].members, [0, 4]);
        assert_eq!(spans[2].members, [5]);
        assert!(coalesce(&[(5, 0)], 10).unwrap().is_empty());
        assert_eq!(coalesce(&[(u64::MAX, 2)], 0), Err(NcError::ENCZARR));
    }

    proptest::proptest! {
        /// Every non-empty range lies in exactly one span; spans are in
        /// order, each starts and ends where a member does, and the gap
        /// between two spans is wider than `max_gap`.
        #[test]
        fn spans_hold_their_ranges(
            ranges in proptest::collection::vec((0u64..10_000, 0usize..300), 0..40),
            max_gap in 0u64..500,
        ) {
            let spans = coalesce(&ranges, max_gap).unwrap();
            let mut seen = vec![0; ranges.len()];
            for (i, span) in spans.iter().enumerate() {
                proptest::prop_assert!(span.start < span.end);
                for &k in &span.members {
                    let (offset, len) = ranges[k];
                    proptest::prop_assert!(len > 0 && offset >= span.start && offset + len as u64 <= span.end);
                    seen[k] += 1;
                }
                proptest::prop_assert!(span.members.iter().any(|&k| ranges[k].0 == span.start));
                proptest::prop_assert!(span.members.iter().any(|&k| ranges[k].0 + ranges[k].1 as u64 == span.end));
                if i > 0 {
                    proptest::prop_assert!(span.start > spans[i - 1].end + max_gap);
                }
            }
            for (k, &(_, len)) in ranges.iter().enumerate() {
                proptest::prop_assert_eq!(seen[k], usize::from(len > 0));
            }
        }
    }

    #[test]
    fn whole_object_when_it_saves_requests_cheaply() {
        let two = coalesce(&[(0, 100), (300, 100)], 10).unwrap();
        assert!(whole_is_better(&two, 500, 300));
        assert!(!whole_is_better(&two, 500, 200));
        let one = coalesce(&[(0, 4)], 10).unwrap();
        assert!(!whole_is_better(&one, 8, 1 << 20), "a single span stays ranged");
    }
}
