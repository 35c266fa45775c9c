/* A fork right after a call that used worker threads (nc_close writes
 * the chunks on several): no worker may still be exiting, or the child
 * gets a copy of it half-gone. Under make memcheck-test the child checks
 * itself when it exits: LeakSanitizer or valgrind then reported the
 * worker's own bookkeeping as leaked (and changed the child's exit
 * status), which is how this was found; a lock held in a worker's exit
 * path would have stayed held in the child. Plain runs pass either way. */
#include "testutil.h"
#include <sys/wait.h>
#include <unistd.h>

#define N 4096
#define ROUNDS 40

int main(void)
{
    static int data[N];
    int bad = 0;
    for (int round = 0; round < ROUNDS; round++) {
        int ncid, x, v;
        size_t chunk = 256; /* 16 chunks: written on several threads */
        OK(nc_create(test_url("fork"), NC_CLOBBER, &ncid));
        OK(nc_def_dim(ncid, "x", N, &x));
        OK(nc_def_var(ncid, "v", NC_INT, 1, &x, &v));
        OK(nc_def_var_chunking(ncid, v, NC_CHUNKED, &chunk));
        OK(nc_put_var_int(ncid, v, data));
        OK(nc_close(ncid));
        fflush(NULL);
        pid_t pid = fork();
        TRUE_OR_FAIL(pid >= 0);
        if (pid == 0) exit(3); /* exit, not _exit: the checkers run at exit */
        int status;
        TRUE_OR_FAIL(waitpid(pid, &status, 0) == pid);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 3) {
            fprintf(stderr, "round %d: child ended with status 0x%x\n", round, status);
            bad++;
        }
    }
    EQ_INT(bad, 0);
    PASS();
}
