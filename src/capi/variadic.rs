//! Exports for netcdf-c's variadic functions.
//!
//! Stable Rust cannot define a C variadic function, and a Rust cdylib
//! exports only symbols defined in Rust, so each public variadic name is a
//! naked trampoline here that jumps, registers and stack untouched, to the
//! C body in csrc/variadic.c. That body formats the message and calls back
//! into Rust (`nczrs_v2_advise`, `capi::tools::log::nczrs_log`).

unsafe extern "C" {
    fn nczrs_nc_advise_impl();
    fn nczrs_nclog_impl();
}

/// Tail-jump to a C function: the caller's arguments (varargs included,
/// and on x86-64 the vector-register count in %al) arrive there intact.
macro_rules! trampoline {
    ($(#[$doc:meta])* $name:ident => $target:ident) => {
        $(#[$doc])*
        ///
        /// # Safety
        /// Called from C with the C prototype's arguments.
        ///
        /// cbindgen:ignore
        #[unsafe(naked)]
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $name() {
            #[cfg(target_arch = "x86_64")]
            core::arch::naked_asm!("jmp {f}", f = sym $target);
            #[cfg(target_arch = "aarch64")]
            core::arch::naked_asm!("b {f}", f = sym $target);
        }
    };
}

// Also the parallel entry points' (src/parallel/entry.rs), whose MPI
// argument types only C knows.
#[cfg_attr(not(feature = "mpi"), allow(unused_imports))]
pub(crate) use trampoline;

trampoline!(
    /// `void nc_advise(const char *routine, int err, const char *fmt, ...)`:
    /// the netCDF-2 error report.
    nc_advise => nczrs_nc_advise_impl
);
trampoline!(
    /// `void nclog(int tag, const char *fmt, ...)`: netcdf-c's internal log.
    nclog => nczrs_nclog_impl
);
