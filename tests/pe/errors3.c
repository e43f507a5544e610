/*
 * errors3.c - error paths of atomics, signals, locks, contexts and the
 * wait/test families: programs that must fail, one per mode (argv[1]); the
 * expected message is checked by tests/p2p.cmake (symm_expect_fail).
 *
 * Each mode does one wrong thing on one PE (the last) while the others
 * wait in a barrier, so the failing PE must end the whole job. Reaching
 * the end of main means the error was not detected: that exits 0, which
 * expect_fail.sh reports as a failure.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <shmem.h>

static long glong;
static uint64_t gsig;
static int gints[8];

static int me, npes;

static int culprit(void) { return me == npes - 1; }

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    long on_stack = 0;
    char src[64] = {0};

    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    char *heap = shmem_calloc(4096, 1);
    long *priv = malloc(64);

    if (strcmp(mode, "sig_op_mem") == 0) {
        if (culprit())
            shmem_putmem_signal(heap, src, 8, &gsig, 1, 7, 0);
    } else if (strcmp(mode, "sig_op_typed_nbi") == 0) {
        if (culprit())
            shmem_ctx_int_put_signal_nbi(SHMEM_CTX_DEFAULT, (int *)heap, (const int *)src, 2, &gsig,
                                         1, -1, 0);
    } else if (strcmp(mode, "sig_op_zero_len") == 0) {
        /* nothing to copy: the operator must still be checked */
        if (culprit())
            shmem_put64_signal(heap, src, 0, &gsig, 1, 2, 0);
    } else if (strcmp(mode, "amo_pe_npes") == 0) {
        if (culprit())
            (void)shmem_long_atomic_fetch_add(&glong, 1, npes);
    } else if (strcmp(mode, "amo_pe_negative_ctx") == 0) {
        if (culprit())
            shmem_ctx_int_atomic_inc(SHMEM_CTX_DEFAULT, &gints[0], -1);
    } else if (strcmp(mode, "amo_pe_deprecated") == 0) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
        if (culprit())
            (void)shmem_int_cswap(&gints[0], 0, 1, npes + 2);
#pragma GCC diagnostic pop
    } else if (strcmp(mode, "signal_add_pe") == 0) {
        if (culprit())
            shmem_signal_add(&gsig, 1, npes);
    } else if (strcmp(mode, "amo_stack") == 0) {
        if (culprit())
            shmem_long_atomic_add(&on_stack, 1, 0);
    } else if (strcmp(mode, "amo_malloc_fetch") == 0) {
        if (culprit())
            (void)shmem_long_atomic_fetch(priv, 0);
    } else if (strcmp(mode, "amo_misaligned") == 0) {
        /* SHMEM_DEBUG=1 */
        if (culprit())
            (void)shmem_long_atomic_fetch_add((long *)(heap + 4), 1, 0);
    } else if (strcmp(mode, "amo_misaligned_swap") == 0) {
        /* SHMEM_DEBUG=1 */
        if (culprit())
            (void)shmem_uint32_atomic_swap((uint32_t *)(heap + 2), 1, 0);
    } else if (strcmp(mode, "set_lock_stack") == 0) {
        if (culprit())
            shmem_set_lock(&on_stack);
    } else if (strcmp(mode, "test_lock_malloc") == 0) {
        if (culprit())
            (void)shmem_test_lock(priv);
    } else if (strcmp(mode, "clear_lock_stack") == 0) {
        if (culprit())
            shmem_clear_lock(&on_stack);
    } else if (strcmp(mode, "ctx_destroy_default") == 0) {
        if (culprit())
            shmem_ctx_destroy(SHMEM_CTX_DEFAULT);
    } else if (strcmp(mode, "wait_any_bad_cmp") == 0) {
        if (culprit())
            (void)shmem_int_wait_until_any(gints, 8, NULL, 9, 0);
    } else if (strcmp(mode, "test_some_vector_bad_cmp") == 0) {
        size_t idx[8];
        long vals[8] = {0};
        if (culprit())
            (void)shmem_long_test_some_vector((long *)heap, 8, idx, NULL, -2, vals);
    } else if (strcmp(mode, "wait_all_bad_cmp_empty") == 0) {
        /* every entry excluded: the operator is still checked */
        static const int st[8] = {1, 1, 1, 1, 1, 1, 1, 1};
        if (culprit())
            shmem_int_wait_until_all(gints, 8, st, 6, 0);
    } else if (strcmp(mode, "signal_wait_bad_cmp") == 0) {
        if (culprit())
            (void)shmem_signal_wait_until(&gsig, 42, 0);
    } else if (strcmp(mode, "team_ctx_amo_pe") == 0 || strcmp(mode, "team_ctx_signal_pe") == 0) {
        /* On a context of the team of odd PEs, PE numbers are the team's:
         * at 4 PEs the team has 2, and team PE 2 does not exist (world PE
         * 2 does). */
        shmem_team_t odd = SHMEM_TEAM_INVALID;
        shmem_ctx_t c = SHMEM_CTX_INVALID;
        shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 2, npes / 2, NULL, 0, &odd);
        if (odd != SHMEM_TEAM_INVALID && shmem_team_create_ctx(odd, 0, &c) != 0)
            fprintf(stderr, "errors3: shmem_team_create_ctx failed\n");
        if (culprit() && c != SHMEM_CTX_INVALID) {
            int bad = shmem_team_n_pes(odd);
            if (mode[9] == 'a')
                shmem_ctx_long_atomic_add(c, &glong, 1, bad);
            else
                shmem_ctx_putmem_signal(c, heap, src, 8, &gsig, 1, SHMEM_SIGNAL_ADD, bad);
        }
    } else {
        fprintf(stderr, "errors3: unknown mode '%s'\n", mode);
        return 2;
    }
    shmem_barrier_all();
    free(priv);
    shmem_free(heap);
    shmem_finalize();
    printf("errors3 %s: the error was NOT detected\n", mode);
    return 0;
}
