/* The variadic entry points of netcdf-c's ABI.
 *
 * Stable Rust cannot define a C variadic function, so each one is written
 * here: it formats its arguments with vsnprintf and hands the finished
 * text to a Rust function, which does the real work. The Rust side
 * exports the public name as a naked trampoline that jumps here
 * (src/capi/variadic.rs), because a Rust cdylib exports only symbols
 * defined in Rust.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "netcdf.h"

/* Implemented in Rust. */
void nczrs_v2_advise(const char *routine, int err, const char *message);
void nczrs_log(int tag, const char *message);

/* Format into a heap buffer sized by a first, measuring pass; NULL when
 * out of memory or the format is bad. */
static char *format_message(const char *fmt, va_list args) {
    va_list again;
    va_copy(again, args);
    int n = vsnprintf(NULL, 0, fmt, args);
    char *text = NULL;
    if (n >= 0 && (text = malloc((size_t)n + 1)) != NULL)
        vsnprintf(text, (size_t)n + 1, fmt, again);
    va_end(again);
    return text;
}

void nczrs_nc_advise_impl(const char *routine, int err, const char *fmt, ...) {
    char *message = NULL;
    if (fmt != NULL) {
        va_list args;
        va_start(args, fmt);
        message = format_message(fmt, args);
        va_end(args);
    }
    nczrs_v2_advise(routine, err, message);
    free(message);
}

/* netcdf-c ignores a NULL format entirely; a message that cannot be
 * formatted is logged as empty. */
void nczrs_nclog_impl(int tag, const char *fmt, ...) {
    if (fmt == NULL)
        return;
    va_list args;
    va_start(args, fmt);
    char *message = format_message(fmt, args);
    va_end(args);
    nczrs_log(tag, message);
    free(message);
}
