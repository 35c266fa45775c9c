//! The pieces two-phase I/O sends between the ranks of a parallel
//! dataset (`io::shared`): decoded from any bytes without a crash, and a
//! decoded message encodes back to the same bytes.

use netcdf::io::shared;

pub fn pieces(data: &[u8]) {
    let Ok(pieces) = shared::decode(data) else { return };
    let refs: Vec<&shared::Piece> = pieces.iter().collect();
    assert_eq!(shared::encode(&refs), data, "decoded pieces encode to other bytes");
    for p in &pieces {
        let owner = shared::owner(p, 7);
        assert!(owner < 7);
    }
}
