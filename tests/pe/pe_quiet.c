/*
 * pe_quiet.c - OpenSHMEM 1.6 shmem_pe_quiet / shmem_ctx_pe_quiet: a put,
 * then pe_quiet towards its target, then a flag; the target waits for the
 * flag and must then find the data, round after round (non-blocking puts,
 * default context, a created context, a team context numbering PEs in its
 * team, several targets in one call, npes 0). argv[1] "bad_pe": a PE out
 * of range must end the job naming it.
 */
#include <string.h>

#include "pe/check.h"

#define WORDS 512
#define ROUNDS 20

static uint64_t data[WORDS];
static long flag;

static uint64_t value(int pe, int round, int i) { return test_hash4(11, (uint64_t)pe, (uint64_t)round, (uint64_t)i); }

/* put data to `to` (world PE `to_world`), pe_quiet with `how`, flag it. */
static void one_round(int round, int to, int to_world, shmem_ctx_t ctx, int how)
{
    int me = shmem_my_pe(), n = shmem_n_pes(), from = (me + n - 1) % n;
    uint64_t src[WORDS];
    for (int i = 0; i < WORDS; i++)
        src[i] = value(me, round, i);
    if (ctx == SHMEM_CTX_DEFAULT)
        shmem_uint64_put_nbi(data, src, WORDS, to);
    else
        shmem_ctx_uint64_put_nbi(ctx, data, src, WORDS, to);
    int targets[3] = {to, to, (to + 1) % n};
    switch (how) {
    case 0: shmem_pe_quiet(&to, 1); break;
    case 1: shmem_ctx_pe_quiet(ctx, targets, 3); break;
    default: shmem_ctx_pe_quiet(ctx, &to, 1); break;
    }
    shmem_pe_quiet(targets, 0); /* no targets: nothing to do */
    shmem_long_atomic_set(&flag, round, to_world);
    shmem_long_wait_until(&flag, SHMEM_CMP_GE, round);
    for (int i = 0; i < WORDS; i++)
        CHECK(data[i] == value(from, round, i), "round %d word %d: expected 0x%016llx got "
              "0x%016llx", round, i, (unsigned long long)value(from, round, i),
              (unsigned long long)data[i]);
    /* Nobody overwrites data before its owner has checked it. */
    shmem_barrier_all();
}

int main(int argc, char **argv)
{
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes(), right = (me + 1) % n;
    if (argc > 1 && strcmp(argv[1], "bad_pe") == 0) {
        int pes[2] = {0, n + 2};
        if (me == n - 1)
            shmem_pe_quiet(pes, 2);
        shmem_barrier_all();
        shmem_finalize();
        return 0;
    }
    shmem_ctx_t ctx, tctx;
    CHECK(shmem_ctx_create(0, &ctx) == 0, "shmem_ctx_create failed");
    CHECK(shmem_team_create_ctx(SHMEM_TEAM_WORLD, 0, &tctx) == 0, "shmem_team_create_ctx failed");
    int round = 0;
    for (int r = 0; r < ROUNDS; r++) {
        one_round(++round, right, right, SHMEM_CTX_DEFAULT, 0);
        one_round(++round, right, right, ctx, 1);
        one_round(++round, right, right, tctx, 2);
    }
    /* A team whose PE numbers differ from the world's: every PE from 1
     * (size n-1) numbers world PE w as w-1. Its members quiet towards
     * their right neighbour in it, by team number. */
    shmem_team_t sub = SHMEM_TEAM_INVALID;
    if (n > 2) {
        shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 1, n - 1, NULL, 0, &sub);
        if (sub != SHMEM_TEAM_INVALID) {
            shmem_ctx_t oc;
            CHECK(shmem_team_create_ctx(sub, 0, &oc) == 0, "team ctx failed");
            int tme = shmem_team_my_pe(sub), tn = shmem_team_n_pes(sub);
            int tr = (tme + 1) % tn;
            uint64_t src[WORDS];
            for (int i = 0; i < WORDS; i++)
                src[i] = value(me, 999, i);
            shmem_ctx_uint64_put_nbi(oc, data, src, WORDS, tr);
            shmem_ctx_pe_quiet(oc, &tr, 1);
            shmem_ctx_long_atomic_set(oc, &flag, 100000, tr);
            shmem_long_wait_until(&flag, SHMEM_CMP_EQ, 100000);
            int from = 1 + (tme + tn - 1) % tn;
            for (int i = 0; i < WORDS; i++)
                CHECK(data[i] == value(from, 999, i), "team word %d from PE %d", i, from);
            shmem_ctx_destroy(oc);
        }
        shmem_barrier_all();
        if (sub != SHMEM_TEAM_INVALID)
            shmem_team_destroy(sub);
    }
    shmem_ctx_destroy(tctx);
    shmem_ctx_destroy(ctx);
    if (me == 0)
        printf("pe_quiet: ok at %d PEs\n", n);
    shmem_finalize();
    return 0;
}
