# Memory checking of the C tests, sourced by ctests/run.sh, the t_*.sh
# tests it runs and ctests/tools_abi/run.sh. NCZARR_RS_CTEST_SANITIZE
# picks the checker:
#
#   (unset)   plain tests.
#   asan      the test programs (and the filter plugins the runner builds)
#             are compiled with AddressSanitizer and UndefinedBehaviorSanitizer;
#             the library is not instrumented, but its malloc/free/memcpy go
#             through ASan's interposed allocator and interceptors, so C code
#             misusing memory we hand out (or we writing past a caller's
#             buffer with memcpy) is caught. LeakSanitizer is on; leaks are
#             suppressed only as ctests/sanitize/lsan.supp lists (with why).
#   valgrind  the programs, unchanged, run under valgrind memcheck: the whole
#             process, the Rust library included, is checked for invalid
#             accesses, uninitialised reads and definite leaks;
#             ctests/sanitize/valgrind.supp holds the (documented) false
#             positives.
#
# After sourcing: `san_cflags` (array) holds the extra compiler flags for
# programs and plugins built against our library, `san_run` (array) the
# command prefix that runs such a program (empty arrays when unset), and
# `san_dir` a suffix for build directories ("", "-asan", "-valgrind"), so
# the modes never share build products.

san_here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
san_cflags=()
san_run=()
san_dir=
case ${NCZARR_RS_CTEST_SANITIZE:-} in
    "") ;;
    asan)
        san_dir=-asan
        san_cflags=(-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -g)
        # halt_on_error: the first error fails the test (exit status 1).
        # detect_stack_use_after_return also catches pointers into a
        # returned frame; strict_string_checks checks the whole string
        # argument of intercepted str* calls.
        export ASAN_OPTIONS=detect_leaks=1:halt_on_error=1:detect_stack_use_after_return=1:strict_string_checks=1:check_initialization_order=1:strict_init_order=1
        export LSAN_OPTIONS=suppressions=$san_here/lsan.supp:print_suppressions=0
        export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
        ;;
    valgrind)
        san_dir=-valgrind
        command -v valgrind > /dev/null || {
            echo "FAIL: NCZARR_RS_CTEST_SANITIZE=valgrind but no valgrind (tools/install-test-deps.sh installs it)"
            exit 1
        }
        # Any error, or a definite leak, makes the program exit 97 (its
        # forked children too: valgrind follows fork). "Possibly lost"
        # blocks are not errors: Rust's std keeps pointers into the middle
        # of some blocks it never frees (a thread's handle in TLS).
        # --fair-sched=yes: valgrind runs one thread at a time, and its
        # default lock lets a thread that never blocks (t_fork's inquirer,
        # calling the library in a loop) take it back again and again; with
        # the machine's other core idle, t_fork's forking thread then waited
        # minutes for its turn (3 s with the other core busy, or fair).
        san_run=(valgrind -q --fair-sched=yes --error-exitcode=97 --leak-check=full --errors-for-leak-kinds=definite
            --show-leak-kinds=definite --track-origins=yes --num-callers=40
            --suppressions="$san_here/valgrind.supp")
        ;;
    *)
        echo "FAIL: NCZARR_RS_CTEST_SANITIZE=$NCZARR_RS_CTEST_SANITIZE: expected asan or valgrind"
        exit 1
        ;;
esac
