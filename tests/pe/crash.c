/*
 * crash.c - a PE that dies of a real fault in a named function: the last PE
 * writes through a null pointer in symm_test_crash_here (linked -rdynamic so
 * the name is a dynamic symbol) while the others wait in a barrier. With
 * "abort" it calls abort() in symm_test_abort_here instead (SIGABRT; a
 * function of its own: GCC moves a noreturn branch into an unnamed .cold part).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <shmem.h>

__attribute__((noinline)) void symm_test_crash_here(volatile int *p);
__attribute__((noinline)) void symm_test_crash_here(volatile int *p) { *p = 42; }
__attribute__((noinline)) void symm_test_abort_here(void);
__attribute__((noinline)) void symm_test_abort_here(void) { abort(); }

int main(int argc, char **argv)
{
    static volatile int *nowhere = NULL;
    int how = argc > 1 && strcmp(argv[1], "abort") == 0;
    shmem_init();
    if (shmem_my_pe() == shmem_n_pes() - 1) {
        usleep(100000);
        if (how)
            symm_test_abort_here();
        symm_test_crash_here(nowhere);
    }
    shmem_barrier_all();
    shmem_finalize();
    fprintf(stderr, "FAIL: the crash did not happen\n");
    return 1;
}
