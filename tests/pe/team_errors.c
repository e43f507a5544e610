/*
 * team_errors.c - team misuse that must end the job with a message; the
 * expected message is checked by tests/team.cmake (symm_expect_fail).
 *
 * The last PE does the wrong thing while the others wait in a barrier, so
 * the failing PE must end the job as a whole. Reaching the end of main
 * means the error was not detected: exit 0, which expect_fail.sh reports.
 */
#include <stdio.h>
#include <string.h>

#include <shmem.h>

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    shmem_init();
    int culprit = shmem_my_pe() == shmem_n_pes() - 1;
    if (strcmp(mode, "destroy_world") == 0) {
        if (culprit)
            shmem_team_destroy(SHMEM_TEAM_WORLD);
    } else if (strcmp(mode, "destroy_shared") == 0) {
        if (culprit)
            shmem_team_destroy(SHMEM_TEAM_SHARED);
    } else {
        fprintf(stderr, "team_errors: unknown mode '%s'\n", mode);
        return 2;
    }
    shmem_barrier_all();
    shmem_finalize();
    printf("team_errors %s: the error was NOT detected\n", mode);
    return 0;
}
