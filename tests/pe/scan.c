/*
 * scan.c - OpenSHMEM 1.6 shmem_TYPENAME_sum_inscan / sum_exscan for every
 * type of the SUM reduction, and the C11 generics: over SHMEM_TEAM_WORLD
 * and over a strided team (every other PE from 1, or the world at 1-2 PEs),
 * out of place and in place, and with no elements. Every member checks its
 * dest against prefix sums it computes itself from the values every
 * member's source was given (small integers: exact in every type), in
 * team order; exscan's member 0 must get 0 (the spec).
 */
#include <string.h>

#include "pe/check.h"

#define NELEMS 37

/* Member t's source element j. */
static int val(int t, int j) { return (t * 7 + j * 3 + 1) % 11; }

/* Symmetric buffers big enough for any type (long double, complex). */
static _Alignas(16) unsigned char src_buf[NELEMS * 32], dst_buf[NELEMS * 32];

#define SCAN_TYPE(T, N)                                                                     \
    static void scan_##N(shmem_team_t team, int in_place)                                   \
    {                                                                                       \
        int tme = shmem_team_my_pe(team);                                                   \
        T *src = (T *)(void *)src_buf, *dst = in_place ? src : (T *)(void *)dst_buf;        \
        for (int ex = 0; ex < 2; ex++) {                                                    \
            for (int j = 0; j < NELEMS; j++) {                                              \
                src[j] = (T)val(tme, j);                                                    \
                if (!in_place)                                                              \
                    dst[j] = (T)-5;                                                         \
            }                                                                               \
            shmem_team_sync(team);                                                          \
            int rc = ex ? shmem_##N##_sum_exscan(team, dst, src, NELEMS)                    \
                        : shmem_##N##_sum_inscan(team, dst, src, NELEMS);                   \
            CHECK(rc == 0, #N " scan returned %d", rc);                                     \
            for (int j = 0; j < NELEMS; j++) {                                              \
                int want = 0;                                                               \
                for (int t = 0; t < tme + !ex; t++)                                         \
                    want += val(t, j);                                                      \
                CHECK(dst[j] == (T)want, "%s_sum_%sscan%s element %d: expected %d got %Lg", \
                      #N, ex ? "ex" : "in", in_place ? " in place" : "", j, want,           \
                      (long double)dst[j]);                                                 \
            }                                                                               \
            shmem_team_sync(team);                                                          \
        }                                                                                   \
        /* No elements: returns 0, touches nothing. */                                      \
        dst[0] = (T)42;                                                                     \
        CHECK(shmem_##N##_sum_inscan(team, dst, src, 0) == 0, #N " empty inscan");          \
        CHECK(dst[0] == (T)42, #N " empty inscan wrote dest");                              \
    }
SHMEM_REDUCE_ARITH_TYPES(SCAN_TYPE)

static void all_types(shmem_team_t team)
{
    for (int in_place = 0; in_place < 2; in_place++) {
#define CALL(T, N) scan_##N(team, in_place);
        SHMEM_REDUCE_ARITH_TYPES(CALL)
    }
    /* The generics pick the typed routine. */
    int tme = shmem_team_my_pe(team);
    long *ls = (long *)(void *)src_buf, *ld = (long *)(void *)dst_buf;
    double *ds = (double *)(void *)src_buf, *dd = (double *)(void *)dst_buf;
    for (int j = 0; j < NELEMS; j++)
        ls[j] = val(tme, j);
    shmem_team_sync(team);
    CHECK(shmem_sum_inscan(team, ld, ls, NELEMS) == 0, "generic long inscan");
    for (int j = 0; j < NELEMS; j++) {
        long want = 0;
        for (int t = 0; t <= tme; t++)
            want += val(t, j);
        CHECK_EQ("generic long inscan", want, ld[j]);
    }
    shmem_team_sync(team);
    for (int j = 0; j < NELEMS; j++)
        ds[j] = val(tme, j);
    shmem_team_sync(team);
    CHECK(shmem_sum_exscan(team, dd, ds, NELEMS) == 0, "generic double exscan");
    for (int j = 0; j < NELEMS; j++) {
        double want = 0;
        for (int t = 0; t < tme; t++)
            want += val(t, j);
        CHECK(dd[j] == want, "generic double exscan element %d: expected %g got %g", j, want, dd[j]);
    }
    shmem_team_sync(team);
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    all_types(SHMEM_TEAM_WORLD);
    /* A strided team: PEs 1, 3, ... (team order differs from world order
     * in numbering), or the whole world when there are under 3 PEs. */
    int start = n >= 3 ? 1 : 0, stride = n >= 3 ? 2 : 1, size = n >= 3 ? n / 2 : n;
    shmem_team_t team = SHMEM_TEAM_INVALID;
    shmem_team_split_strided(SHMEM_TEAM_WORLD, start, stride, size, NULL, 0, &team);
    if (team != SHMEM_TEAM_INVALID) {
        all_types(team);
        shmem_team_destroy(team);
    }
    shmem_barrier_all();
    if (me == 0)
        printf("scan: ok at %d PEs\n", n);
    shmem_finalize();
    return 0;
}
