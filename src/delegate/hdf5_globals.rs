//! HDF5's global ids, seen alike by the program and the delegate.
//!
//! HDF5 keeps its predefined ids in exported variables (`H5T_NATIVE_INT_g`,
//! `H5P_CLS_FILE_CREATE_ID_g`, ...), filled in by `H5open`. A program that
//! links HDF5 and names them itself (CDO does) gets copy relocations: the
//! executable holds the copies, and HDF5 (found through the global scope)
//! fills those in. The delegate, loaded with `RTLD_DEEPBIND`, binds the
//! same names to HDF5's own storage first, which nobody fills in: every id
//! reads -1 and each netCDF-4 call fails (`NC_EHDFERR`), or worse (4.9.0's
//! `nc_def_var` then succeeds without a variable).
//!
//! So, once the delegate is loaded and HDF5 initialised, each HDF5 data
//! object whose global definition is not HDF5's own gets the global's value
//! copied into HDF5's own storage. With no such program (HDF5 loaded only
//! for the delegate, or not copy-relocated) nothing differs and nothing is
//! copied. The copies are made once: a program that closes and reopens
//! HDF5 itself (`H5close`, then new ids) would leave them stale.
//!
//! The symbols come from the loader's own tables of libraries already
//! loaded (their dynamic sections), not from files: nothing here parses
//! untrusted input.

use std::ffi::{CStr, c_char, c_int, c_void};

use super::loader::Handle;

/// An entry of a dynamic section (`Elf64_Dyn`).
#[repr(C)]
struct Dyn {
    d_tag: i64,
    d_un: u64,
}

/// What one library's exported data objects are, in memory.
struct Library {
    base: usize,
    symtab: *const libc::Elf64_Sym,
    strtab: *const c_char,
}

/// `dl_iterate_phdr`'s callback: collect the HDF5 libraries' tables.
unsafe extern "C" fn visit(info: *mut libc::dl_phdr_info, _size: usize, data: *mut c_void) -> c_int {
    // SAFETY: glibc passes a valid info for a loaded object, and `data` is
    // the Vec given below.
    let (info, found) = unsafe { (&*info, &mut *(data as *mut Vec<Library>)) };
    if info.dlpi_name.is_null() {
        return 0;
    }
    // SAFETY: the object's name, a C string.
    let name = unsafe { CStr::from_ptr(info.dlpi_name) }.to_string_lossy();
    let file = name.rsplit('/').next().unwrap_or("");
    if !file.starts_with("libhdf5") {
        return 0;
    }
    // SAFETY: dlpi_phnum program headers at dlpi_phdr.
    let phdrs = unsafe { std::slice::from_raw_parts(info.dlpi_phdr, info.dlpi_phnum as usize) };
    let Some(dynamic) = phdrs.iter().find(|p| p.p_type == libc::PT_DYNAMIC) else { return 0 };
    let mut dynamic = (info.dlpi_addr as usize + dynamic.p_vaddr as usize) as *const Dyn;
    let (mut symtab, mut strtab) = (0usize, 0usize);
    loop {
        // SAFETY: the loaded object's dynamic section, ended by DT_NULL;
        // glibc has relocated its address entries in place.
        let entry = unsafe { &*dynamic };
        match entry.d_tag {
            0 => break, // DT_NULL
            6 => symtab = entry.d_un as usize,
            5 => strtab = entry.d_un as usize,
            _ => {}
        }
        // SAFETY: still inside the section (DT_NULL not yet seen).
        dynamic = unsafe { dynamic.add(1) };
    }
    if symtab != 0 && strtab > symtab {
        found.push(Library { base: info.dlpi_addr as usize, symtab: symtab as _, strtab: strtab as _ });
    }
    0
}

/// Initialise HDF5 in the delegate and make HDF5's own copies of its
/// global data agree with the program's. Returns how many were copied.
pub fn sync(delegate: &Handle) -> usize {
    type Open = unsafe extern "C" fn() -> c_int;
    let Some(h5open) = delegate.function::<Open>(c"H5open") else { return 0 };
    // SAFETY: HDF5's prototype; initialising twice is harmless.
    if unsafe { h5open() } < 0 {
        return 0;
    }
    let mut libraries: Vec<Library> = Vec::new();
    // SAFETY: our callback and the Vec it fills.
    unsafe { libc::dl_iterate_phdr(Some(visit), &mut libraries as *mut Vec<Library> as *mut c_void) };
    let mut copied = 0;
    for lib in &libraries {
        // .dynsym is followed by .dynstr: its entries end where the
        // strings begin (as the loader's own tables are laid out).
        let count = (lib.strtab as usize - lib.symtab as usize) / size_of::<libc::Elf64_Sym>();
        for i in 1..count {
            // SAFETY: i < count, inside .dynsym.
            let sym = unsafe { &*lib.symtab.add(i) };
            let is_object = sym.st_info & 0xf == 1; // STT_OBJECT
            let global = matches!(sym.st_info >> 4, 1 | 2); // STB_GLOBAL, STB_WEAK
            if !is_object || !global || sym.st_shndx == 0 || sym.st_size == 0 {
                continue;
            }
            // SAFETY: a name in .dynstr.
            let name = unsafe { lib.strtab.add(sym.st_name as usize) };
            let own = (lib.base + sym.st_value as usize) as *mut u8;
            // SAFETY: a lookup by name in the global scope.
            let seen = unsafe { libc::dlsym(libc::RTLD_DEFAULT, name) } as *const u8;
            if !seen.is_null() && !std::ptr::eq(seen, own) {
                // SAFETY: both are the object `name`, st_size bytes: HDF5's
                // own (writable data) and the program's copy of it.
                unsafe { std::ptr::copy_nonoverlapping(seen, own, sym.st_size as usize) };
                copied += 1;
            }
        }
    }
    copied
}
