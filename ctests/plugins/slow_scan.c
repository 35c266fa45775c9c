/* A "plugin" directory entry that registers no filter but takes 30 ms to
 * load, so the one-time plugin scan lasts long enough for t_fork to fork
 * while another thread is in the middle of it. */
#define _POSIX_C_SOURCE 200809L
#include <time.h>

__attribute__((constructor)) static void load_slowly(void)
{
    struct timespec t = {0, 30000000L};
    nanosleep(&t, 0);
}
