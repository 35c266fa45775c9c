#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| nczarr_fuzz::parquet(data));
