//! Give the shared library netcdf-c's SONAME so programs linked against
//! either library load the other, put the SONAME link next to the built
//! library, and compile the few entry points that must be written in C
//! (the variadic ones, see csrc/variadic.c, and stderr access,
//! csrc/cstdio.c).

use std::path::{Path, PathBuf};

const SONAME: &str = "libnetcdf.so.19";

fn main() {
    let target_os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if target_os == "linux" {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,{SONAME}");
        link_soname();
        if std::env::var_os("CARGO_FEATURE_MPI").is_some() {
            // The parallel build's exports carry a symbol version (the
            // SONAME), so Debian's parallel netcdf-c, whose calls to its
            // own functions name its versions (NETCDF_MPI_*), never binds
            // them to ours: it can then be loaded without RTLD_DEEPBIND,
            // which would bind it to MPI objects other than the program's
            // (src/delegate/loader.rs). Programs that name no version, as
            // all built against netcdf-c, bind to these as before.
            println!("cargo:rustc-cdylib-link-arg=-fuse-ld=bfd");
            println!("cargo:rustc-cdylib-link-arg=-Wl,--default-symver");
        }
    }
    cc::Build::new()
        .file("csrc/variadic.c")
        .file("csrc/cstdio.c")
        .include("include")
        .warnings_into_errors(true)
        .compile("nczrs_variadic");
    if std::env::var_os("CARGO_FEATURE_MPI").is_some() {
        build_mpi_shim();
    }
    record_system_netcdf_libdir();
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=csrc/variadic.c");
    println!("cargo:rerun-if-changed=csrc/cstdio.c");
    println!("cargo:rerun-if-changed=include/netcdf.h");
    println!("cargo:rerun-if-env-changed=CARGO_BUILD_BUILD_DIR");
}

/// The parallel build: csrc/parallel.c, compiled with the MPI compiler
/// wrapper (`MPICC`, default `mpicc`) so that MPI_Comm and MPI_Info come
/// from the system's own mpi.h (OpenMPI and MPICH differ in ABI), and the
/// MPI library linked as that wrapper links it.
fn build_mpi_shim() {
    let mpicc = std::env::var("MPICC").unwrap_or_else(|_| "mpicc".to_string());
    cc::Build::new()
        .compiler(&mpicc)
        .file("csrc/parallel.c")
        .include("include")
        .warnings_into_errors(true)
        .compile("nczrs_parallel");
    for flag in mpi_link_flags(&mpicc) {
        if let Some(dir) = flag.strip_prefix("-L") {
            println!("cargo:rustc-link-search=native={dir}");
        } else if let Some(lib) = flag.strip_prefix("-l") {
            println!("cargo:rustc-link-lib=dylib={lib}");
        } else {
            println!("cargo:rustc-link-arg={flag}");
        }
    }
    println!("cargo:rerun-if-changed=csrc/parallel.c");
    println!("cargo:rerun-if-env-changed=MPICC");
}

/// The linker flags of the MPI compiler wrapper: OpenMPI's
/// `--showme:link`, else MPICH's `-link_info` (which starts with the
/// compiler's name).
fn mpi_link_flags(mpicc: &str) -> Vec<String> {
    let run = |args: &[&str]| {
        std::process::Command::new(mpicc)
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).split_whitespace().map(str::to_string).collect::<Vec<_>>())
    };
    if let Some(flags) = run(&["--showme:link"]) {
        return flags;
    }
    if let Some(words) = run(&["-link_info"]) {
        return words
            .into_iter()
            .skip(1)
            .filter(|w| w.starts_with("-L") || w.starts_with("-l") || w.starts_with("-Wl"))
            .collect();
    }
    panic!(
        "cannot ask {mpicc} how to link MPI (neither --showme:link nor -link_info works); install libopenmpi-dev or set MPICC"
    )
}

/// Where `pkg-config netcdf` says the system's netcdf-c is: one of the
/// places the library looks for the netcdf-c serving other formats
/// (src/delegate/loader.rs). Empty when there is none.
fn record_system_netcdf_libdir() {
    let dir = std::process::Command::new("pkg-config")
        .args(["--variable=libdir", "netcdf"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    println!("cargo:rustc-env=NCZARR_RS_BUILD_NETCDF_LIBDIR={dir}");
    println!("cargo:rerun-if-env-changed=PKG_CONFIG_PATH");
}

/// A program linked with `-L<profile dir> -lnetcdf` records the SONAME
/// libnetcdf.so.19 and looks for that name at run time. Without
/// `<profile dir>/libnetcdf.so.19` the loader silently finds the system's
/// netcdf-c instead, so every build makes that link, pointing at
/// `libnetcdf.so` (it dangles until cargo links the library).
///
/// Cargo tells a build script only its OUT_DIR,
/// `<target dir>[/<triple>]/<profile>/build/<package>-<hash>/out`; the
/// profile directory is the parent of the nearest `build` ancestor, which
/// honours CARGO_TARGET_DIR, --target and custom profiles.
fn link_soname() {
    let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let Some(profile_dir) = profile_dir(&out_dir) else {
        panic!(
            "cannot find the profile directory above OUT_DIR={}, so cannot create {SONAME} next to \
             libnetcdf.so; link it by hand (ln -s libnetcdf.so <dir>/{SONAME})",
            out_dir.display()
        );
    };
    // A separate build directory (cargo's build.build-dir) holds OUT_DIR
    // but not the final library; we can see it only when set through the
    // environment.
    if std::env::var_os("CARGO_BUILD_BUILD_DIR").is_some() {
        println!(
            "cargo:warning=CARGO_BUILD_BUILD_DIR is set: {SONAME} is created in {} and may not be \
             next to the final libnetcdf.so; link it by hand there (ln -s libnetcdf.so {SONAME})",
            profile_dir.display()
        );
    }
    let link = profile_dir.join(SONAME);
    if std::fs::read_link(&link).is_ok_and(|t| t == Path::new("libnetcdf.so")) {
        return;
    }
    // Make the link under a temporary name and rename it into place, so a
    // concurrent build (cargo clippy next to cargo build) never sees it half
    // made and an existing file or stale link is replaced.
    let tmp = profile_dir.join(format!(".{SONAME}.{}", std::process::id()));
    let _ = std::fs::remove_file(&tmp);
    #[cfg(unix)]
    let made = std::os::unix::fs::symlink("libnetcdf.so", &tmp).and_then(|()| std::fs::rename(&tmp, &link));
    #[cfg(not(unix))]
    let made: std::io::Result<()> = Err(std::io::Error::other("symbolic links need a Unix build host"));
    if let Err(e) = made {
        let _ = std::fs::remove_file(&tmp);
        panic!("cannot create {} -> libnetcdf.so: {e}", link.display());
    }
}

/// The parent of the nearest ancestor of `out_dir` named `build`.
fn profile_dir(out_dir: &Path) -> Option<PathBuf> {
    out_dir
        .ancestors()
        .skip(1)
        .find(|a| a.file_name().is_some_and(|n| n == "build"))
        .and_then(Path::parent)
        .map(Path::to_path_buf)
}
