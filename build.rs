//! Give the shared library netcdf-c's SONAME so programs linked against
//! either library load the other.

fn main() {
    let target_os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if target_os == "linux" {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libnetcdf.so.19");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
