/* C stdio for the Rust side: messages that netcdf-c writes with
 * fprintf(stderr, ...) go through the same FILE, so they keep their
 * order with the calling program's own stderr output (and follow a
 * freopen of stderr). */
#include <stdio.h>

void nczrs_stderr_write(const char *text, size_t len) {
    fwrite(text, 1, len, stderr);
    fflush(stderr);
}
