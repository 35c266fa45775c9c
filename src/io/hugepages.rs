//! Huge pages for the fresh destination of a large read.
//!
//! A read into a newly allocated buffer spends most of its time not
//! copying but faulting the buffer in, a 4 KiB page at a time: reading a
//! cached 512 MiB cube took 250 ms here, of which the copies were under
//! 80 ms; the rest was 131072 page faults on both cores. Advising the
//! buffer's 2 MiB-aligned interior for transparent huge pages
//! (`MADV_HUGEPAGE`, what numpy does for every array of 4 MiB or more)
//! takes 512 times fewer faults.
//!
//! It is on unless `NCZARR_RS_HUGEPAGES=0`: numpy does the same for every
//! array of 4 MiB or more, so Python callers' buffers have huge pages
//! anyway, and this gives a C or Fortran caller's `malloc` buffer the
//! same. On real hardware, and on most virtual machines, the gain is the
//! rule (a cached 512 MiB read: 255 -> 90 ms). A fresh huge page is not
//! always cheap, though: on a virtual machine that hands freed memory
//! back to its host (virtio-balloon free page reporting, as on the
//! machine we benchmark on, which reports every free 2 MiB block), huge
//! pages come from exactly the blocks the host took back, each costing it
//! 512 faults. There a one-off read into fresh memory ran 2-3 times
//! slower with huge pages (64 MiB: 33 -> 80-94 ms), and only a process
//! reading again within a second or two, before its freed pages are
//! reported, gained; numpy's arrays pay the same there. `bench/run`
//! measures our reads with plain `malloc` both ways.
//!
//! The buffer is the caller's, so even when on this is done only where it
//! cannot surprise them: for reads that fill the whole range, of at least
//! [`MIN_BYTES`], whose first and last huge page are not yet in memory
//! (`mincore`): memory nobody has touched, which the read is about to
//! fill. A buffer in use keeps its pages as they are; the system's
//! `transparent_hugepage` setting `never` wins. Only ever a hint: any
//! failure leaves the read as it was.

/// Reads smaller than this are left alone: a few huge pages save little.
pub const MIN_BYTES: usize = 16 << 20;

/// Advise `[buf, buf + len)`, which the read is about to fill entirely,
/// for huge pages unless told not to (`NCZARR_RS_HUGEPAGES=0`) and if it
/// is large and untouched (see the module's notes).
pub fn advise_fresh(buf: *mut u8, len: usize) {
    if !std::env::var("NCZARR_RS_HUGEPAGES").is_ok_and(|v| v.trim() == "0") {
        advise_untouched(buf, len);
    }
}

/// [`advise_fresh`] without the switch.
fn advise_untouched(buf: *mut u8, len: usize) {
    if len >= MIN_BYTES {
        advise_interior(buf as usize, len);
    }
}

#[cfg(target_os = "linux")]
fn advise_interior(addr: usize, len: usize) {
    let huge = huge_page_size();
    let start = addr.next_multiple_of(huge);
    let end = (addr + len) / huge * huge;
    if end < start + 2 * huge || !untouched(start) || !untouched(end - huge) {
        return;
    }
    // SAFETY: the range lies inside the caller's buffer (the read's
    // contract); advice changes no contents, and an error is ignored.
    unsafe { libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE) };
}

#[cfg(not(target_os = "linux"))]
fn advise_interior(_addr: usize, _len: usize) {}

/// Is the page at `addr` (page-aligned, inside a mapping) not in memory?
#[cfg(target_os = "linux")]
fn untouched(addr: usize) -> bool {
    let mut resident = 0u8;
    // SAFETY: `addr` is page-aligned and mapped (inside the caller's
    // buffer); one byte receives the one page's state.
    let r = unsafe { libc::mincore(addr as *mut libc::c_void, 1, &mut resident) };
    r == 0 && resident & 1 == 0
}

/// The size of a transparent huge page, looked up once (2 MiB on x86-64;
/// larger on some ARM kernels). A plain atomic, not a lazy lock, so a
/// fork at any moment leaves it usable.
#[cfg(target_os = "linux")]
fn huge_page_size() -> usize {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static SIZE: AtomicUsize = AtomicUsize::new(0);
    match SIZE.load(Ordering::Relaxed) {
        0 => {
            let size = std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size")
                .ok()
                .and_then(|s| s.trim().parse::<usize>().ok())
                .filter(|s| s.is_power_of_two() && *s >= 1 << 16)
                .unwrap_or(2 << 20);
            SIZE.store(size, Ordering::Relaxed);
            size
        }
        size => size,
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    /// A private anonymous mapping, unmapped on drop.
    struct Mapping(*mut u8, usize);
    impl Mapping {
        fn new(len: usize) -> Mapping {
            // SAFETY: a fresh anonymous mapping; checked below.
            let p = unsafe {
                libc::mmap(
                    std::ptr::null_mut(),
                    len,
                    libc::PROT_READ | libc::PROT_WRITE,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                    -1,
                    0,
                )
            };
            assert_ne!(p, libc::MAP_FAILED);
            Mapping(p as *mut u8, len)
        }
    }
    impl Drop for Mapping {
        fn drop(&mut self) {
            // SAFETY: mapped by `new`, unmapped once.
            unsafe { libc::munmap(self.0 as *mut libc::c_void, self.1) };
        }
    }

    /// Is the mapping holding `addr` advised for huge pages (`hg` among
    /// its `VmFlags` in smaps)?
    fn advised(addr: usize) -> bool {
        let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
        let mut inside = false;
        for line in smaps.lines() {
            let range = line.split_whitespace().next().unwrap_or("");
            if let Some((a, b)) = range.split_once('-')
                && let (Ok(a), Ok(b)) = (usize::from_str_radix(a, 16), usize::from_str_radix(b, 16))
            {
                inside = (a..b).contains(&addr);
            } else if inside && let Some(flags) = line.strip_prefix("VmFlags:") {
                return flags.split_whitespace().any(|f| f == "hg");
            }
        }
        false
    }

    #[test]
    fn a_fresh_large_buffer_is_advised_and_one_in_use_is_not() {
        let len = MIN_BYTES + 4 * huge_page_size();
        let fresh = Mapping::new(len);
        let middle = fresh.0 as usize + len / 2;
        advise_fresh(fresh.0, len);
        let off = std::env::var("NCZARR_RS_HUGEPAGES").is_ok_and(|v| v.trim() == "0");
        assert_eq!(advised(middle), !off, "on unless NCZARR_RS_HUGEPAGES=0");
        advise_untouched(fresh.0, len);
        assert!(advised(middle), "untouched: advised");

        let used = Mapping::new(len);
        // SAFETY: inside the mapping; touching every page.
        unsafe { std::ptr::write_bytes(used.0, 1, len) };
        advise_untouched(used.0, len);
        assert!(!advised(used.0 as usize + len / 2), "in use: left alone");
        // SAFETY: still mapped; the contents are as written.
        assert!(unsafe { std::slice::from_raw_parts(used.0, len) }.iter().all(|&b| b == 1));

        let small = Mapping::new(MIN_BYTES / 2);
        advise_untouched(small.0, MIN_BYTES / 2);
        assert!(!advised(small.0 as usize + MIN_BYTES / 4), "small: left alone");
    }
}
