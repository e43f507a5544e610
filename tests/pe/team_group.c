/*
 * team_group.c - teams made by their members alone (shmemx_team_create_group):
 * disjoint groups made at the same time, overlapping groups made in one
 * order, a list in reverse order, a group of one, groups whose non-members
 * are busy elsewhere, the index rule, many create/destroy cycles (past
 * SYMM_MAX_GROUP_TEAMS), and bad lists. Every result is checked against
 * sums computed here from the PE numbers.
 */
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int me, npes, failures;

#define CHECK(cond, ...)                                                                         \
    do {                                                                                         \
        if (!(cond)) {                                                                           \
            fprintf(stderr, "team_group: PE %d: ", me);                                          \
            fprintf(stderr, __VA_ARGS__);                                                        \
            fputc('\n', stderr);                                                                 \
            failures++;                                                                          \
        }                                                                                        \
    } while (0)

static long src, dst;

/* Sum of the world PE numbers over team t, by the team's reduction, and
 * checked against the list it was made from. */
static void check_team(shmem_team_t t, const int *pes, int n, const char *what)
{
    long want = 0;
    int idx = -1;
    for (int i = 0; i < n; i++) {
        want += pes[i] + 1;
        if (pes[i] == me)
            idx = i;
    }
    CHECK(t != SHMEM_TEAM_INVALID, "%s: no team", what);
    if (t == SHMEM_TEAM_INVALID)
        return;
    CHECK(shmem_team_n_pes(t) == n, "%s: %d PEs, want %d", what, shmem_team_n_pes(t), n);
    CHECK(shmem_team_my_pe(t) == idx, "%s: my index %d, want %d", what, shmem_team_my_pe(t), idx);
    for (int i = 0; i < n; i++)
        CHECK(shmem_team_translate_pe(t, i, SHMEM_TEAM_WORLD) == pes[i],
              "%s: team PE %d is world PE %d, want %d", what, i,
              shmem_team_translate_pe(t, i, SHMEM_TEAM_WORLD), pes[i]);
    src = me + 1;
    shmem_long_sum_reduce(t, &dst, &src, 1);
    CHECK(dst == want, "%s: sum %ld, want %ld", what, dst, want);
    shmem_team_sync(t);
}

static void disjoint(void)
{
    /* Evens and odds, each made while the other half makes its own. */
    int pes[64], n = 0;
    for (int p = me % 2; p < npes; p += 2)
        pes[n++] = p;
    shmem_team_t t;
    int rc = shmemx_team_create_group(pes, n, NULL, 0, &t);
    CHECK(rc == 0, "disjoint: rc %d", rc);
    check_team(t, pes, n, "disjoint");
    shmem_team_destroy(t);
}

static void overlapping(void)
{
    /* {p, p+1} for every p, made in increasing p: PE p is in {p-1, p} and
     * {p, p+1}, and makes them in that order, as its partners do. */
    shmem_team_t t[2] = {SHMEM_TEAM_INVALID, SHMEM_TEAM_INVALID};
    int lists[2][2], nt = 0;
    for (int p = 0; p + 1 < npes; p++) {
        if (me != p && me != p + 1)
            continue;
        lists[nt][0] = p;
        lists[nt][1] = p + 1;
        CHECK(shmemx_team_create_group(lists[nt], 2, NULL, 0, &t[nt]) == 0, "pair %d", p);
        nt++;
    }
    if (nt == 2)
        CHECK(shmemx_team_index(t[0]) != shmemx_team_index(t[1]),
              "two live teams of this PE share index %d", shmemx_team_index(t[0]));
    for (int i = 0; i < nt; i++) {
        CHECK(shmemx_team_index(t[i]) != shmemx_team_index(SHMEM_TEAM_WORLD),
              "a group has the world's index");
        check_team(t[i], lists[i], 2, "pair");
    }
    for (int i = 0; i < nt; i++)
        shmem_team_destroy(t[i]);
}

static void reversed_and_busy(void)
{
    /* Every PE but the last, listed last to first; the last PE meanwhile
     * takes no part (it only waits in the final barrier). */
    if (me == npes - 1 && npes > 1)
        return;
    int n = npes > 1 ? npes - 1 : 1, pes[64];
    for (int i = 0; i < n; i++)
        pes[i] = n - 1 - i;
    shmem_team_t t;
    CHECK(shmemx_team_create_group(pes, n, NULL, 0, &t) == 0, "reversed");
    check_team(t, pes, n, "reversed");
    shmem_team_destroy(t);
}

static void cycles(int count)
{
    /* More cycles than group slots: each destroy gives its slot back. */
    int pes[64], n = 0;
    for (int p = npes - 1; p >= 0; p--)
        pes[n++] = p;
    for (int c = 0; c < count; c++) {
        shmem_team_t t, one;
        CHECK(shmemx_team_create_group(pes, n, NULL, 0, &t) == 0, "cycle %d", c);
        CHECK(shmemx_team_create_group(&me, 1, NULL, 0, &one) == 0, "cycle %d: single", c);
        if (c % 25 == 0) {
            check_team(t, pes, n, "cycle");
            check_team(one, &me, 1, "single");
        }
        shmem_team_destroy(one);
        shmem_team_destroy(t);
    }
}

static void bad_lists(void)
{
    shmem_team_t t = SHMEM_TEAM_WORLD;
    int other = (me + 1) % npes;
    if (npes > 1) {
        CHECK(shmemx_team_create_group(&other, 1, NULL, 0, &t) != 0, "a list without me");
        CHECK(t == SHMEM_TEAM_INVALID, "a failed creation left a team");
    }
    int dup[2] = {me, me};
    CHECK(shmemx_team_create_group(dup, 2, NULL, 0, &t) != 0, "a PE twice");
    int out[2] = {me, npes};
    CHECK(shmemx_team_create_group(out, 2, NULL, 0, &t) != 0, "a PE outside the world");
    CHECK(shmemx_team_create_group(&me, 0, NULL, 0, &t) != 0, "an empty list");
}

int main(int argc, char **argv)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    if (npes > 64) {
        shmem_finalize();
        return 0;
    }
    disjoint();
    overlapping();
    reversed_and_busy();
    shmem_barrier_all();
    cycles(argc > 1 ? atoi(argv[1]) : 100);
    bad_lists();
    shmem_barrier_all();
    if (me == 0 && failures == 0)
        printf("team_group: ok at %d PEs\n", npes);
    shmem_finalize();
    return failures != 0;
}
