/* numpy_alloc.so: an LD_PRELOAD shim that makes a C program's own large
 * allocations behave as numpy's arrays do, so that a C benchmark's buffer
 * faults in the same way as a Python peer's.
 *
 * numpy (numpy/_core/src/multiarray/alloc.c, indicate_hugepages) allocates
 * an array's data with malloc or calloc and, when it is 4 MiB or more, asks
 * for transparent huge pages on it:
 *     madvise(p + offset, size - offset, MADV_HUGEPAGE)
 * from the first page boundary after p. glibc serves such sizes with a
 * private mmap of their own, so the kernel then faults the buffer 2 MiB at a
 * time (where the range holds whole aligned 2 MiB pages) instead of 4 KiB.
 *
 * This shim does exactly that for malloc, calloc and realloc results of
 * 4 MiB or more, and only when the caller is the main program (not a shared
 * library): the benchmark's buffers get numpy's treatment, the library under
 * test keeps its own allocator's behaviour, as under Python. The memory
 * itself still comes from glibc (__libc_malloc and friends), so free,
 * realloc and malloc_usable_size need no bookkeeping here.
 *
 *   cc -O2 -shared -fPIC numpy_alloc.c -o numpy_alloc.so
 *   LD_PRELOAD=$PWD/numpy_alloc.so ./ncz_bench read_full ...
 *
 * NUMPY_ALLOC_VERBOSE=1 prints, at exit, how many allocations were advised. */
#define _GNU_SOURCE
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);

#define HUGE_FROM (1u << 22) /* numpy's threshold: 4 MiB */

static uintptr_t main_lo, main_hi; /* the main program's loaded segments */
static unsigned long advised, advised_bytes;

static int find_main(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    (void)data;
    /* The first object is the main program. */
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD) continue;
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
        if (!main_lo || lo < main_lo) main_lo = lo;
        if (hi > main_hi) main_hi = hi;
    }
    return 1;
}

static void report(void) {
    fprintf(stderr, "numpy_alloc: %lu allocations (%.0f MiB) advised MADV_HUGEPAGE\n", advised,
            advised_bytes / 1048576.0);
}

__attribute__((constructor)) static void init(void) {
    dl_iterate_phdr(find_main, NULL);
    const char *v = getenv("NUMPY_ALLOC_VERBOSE");
    if (v && *v == '1') atexit(report);
}

static int from_main(const void *ret) {
    uintptr_t a = (uintptr_t)ret;
    return a >= main_lo && a < main_hi;
}

/* numpy's indicate_hugepages. */
static void *advise(void *p, size_t size, const void *caller) {
    if (p && size >= HUGE_FROM && from_main(caller)) {
        uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
        uintptr_t offset = page - (uintptr_t)p % page;
        madvise((char *)p + offset, size - offset, MADV_HUGEPAGE);
        advised++;
        advised_bytes += size;
    }
    return p;
}

void *malloc(size_t size) {
    return advise(__libc_malloc(size), size, __builtin_return_address(0));
}

void *calloc(size_t n, size_t size) {
    return advise(__libc_calloc(n, size), n * size, __builtin_return_address(0));
}

void *realloc(void *p, size_t size) {
    return advise(__libc_realloc(p, size), size, __builtin_return_address(0));
}
