//! Give the shared library netcdf-c's SONAME so programs linked against
//! either library load the other, and compile the few entry points that
//! must be written in C (the variadic ones, see csrc/variadic.c, and stderr
//! access, csrc/cstdio.c).

fn main() {
    let target_os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if target_os == "linux" {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libnetcdf.so.19");
    }
    cc::Build::new()
        .file("csrc/variadic.c")
        .file("csrc/cstdio.c")
        .include("include")
        .warnings_into_errors(true)
        .compile("nczrs_variadic");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=csrc/variadic.c");
    println!("cargo:rerun-if-changed=csrc/cstdio.c");
    println!("cargo:rerun-if-changed=include/netcdf.h");
}
