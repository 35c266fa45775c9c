//! HDF5's Fletcher-32 checksum (`H5_checksum_fletcher32`): 16-bit
//! big-endian words, sums folded every 360 words, an odd last byte taken
//! as the high byte of a word. The filter appends it little-endian.

pub fn fletcher32(data: &[u8]) -> u32 {
    let fold = |x: u32| (x & 0xffff) + (x >> 16);
    let (mut sum1, mut sum2) = (0u32, 0u32);
    let words = data.len() / 2;
    let mut i = 0;
    let mut remaining = words;
    while remaining > 0 {
        let block = remaining.min(360);
        remaining -= block;
        for _ in 0..block {
            sum1 += ((data[i] as u32) << 8) | data[i + 1] as u32;
            sum2 += sum1;
            i += 2;
        }
        sum1 = fold(sum1);
        sum2 = fold(sum2);
    }
    if data.len() % 2 == 1 {
        sum1 += (data[i] as u32) << 8;
        sum2 += sum1;
        sum1 = fold(sum1);
        sum2 = fold(sum2);
    }
    sum1 = fold(sum1);
    sum2 = fold(sum2);
    (sum2 << 16) | sum1
}

#[cfg(test)]
mod tests {
    use super::fletcher32;

    #[test]
    fn known_values() {
        // Fletcher-32 over 16-bit words "ab" "cd" "e\0": the textbook
        // values for "abcde" (0xF04FC729) use little-endian words; HDF5's
        // big-endian words give a different, stable result.
        assert_eq!(fletcher32(b""), 0);
        assert_eq!(fletcher32(&[0x01, 0x02]), (0x0102 << 16) | 0x0102);
        let long: Vec<u8> = (0..2000u32).map(|i| (i * 7) as u8).collect();
        assert_eq!(fletcher32(&long), fletcher32(&long.clone()));
    }
}
