/*
 * sync_complex.c - shmem_sync by both its signatures, and the complex sum
 * and product reductions (team and active-set forms), built as C and as C++
 * (tests/coll.cmake): C selects shmem_sync on its argument count, C++
 * overloads it; C++ declares the complex routines with std::complex.
 *
 * Each round every PE puts to its right neighbour, quiets, syncs and checks
 * what its left neighbour put; each reduction is checked against the sum or
 * product computed here, in the language's own complex arithmetic, from the
 * values every PE contributes (small integers: exact in float).
 */
#ifdef __cplusplus
#include <complex>
typedef std::complex<double> cd_t;
typedef std::complex<float> cf_t;
#define CD(re, im) cd_t((re), (im))
#define CF(re, im) cf_t((float)(re), (float)(im))
#define RE(z) std::real(z)
#define IM(z) std::imag(z)
#define LANG "C++"
#else
#include <complex.h>
typedef double _Complex cd_t;
typedef float _Complex cf_t;
#define CD(re, im) ((double)(re) + (double)(im) * I)
#define CF(re, im) ((float)(re) + (float)(im) * I)
#define RE(z) creal(z)
#define IM(z) cimag(z)
#define LANG "C"
#endif

#include "pe/check.h"

#define NR 3

static long mailbox[2];
static long psync[SHMEM_REDUCE_SYNC_SIZE];
static long psync_bar[SHMEM_BARRIER_SYNC_SIZE];
static cd_t cd_src[NR], cd_dst[NR], cd_wrk[NR / 2 + 1 + SHMEM_REDUCE_MIN_WRKDATA_SIZE];
static cf_t cf_src[NR], cf_dst[NR], cf_wrk[NR / 2 + 1 + SHMEM_REDUCE_MIN_WRKDATA_SIZE];

/* What PE p contributes at element j. */
static cd_t cd_val(int p, int j) { return CD(p + 1 + j, p - j); }
static cf_t cf_val(int p, int j) { return CF(1 + (p + j) % 2, p % 3 == 1 ? 1 : 0); }

static void check_cd(const char *routine, const cd_t *got, int op_sum, int n)
{
    for (int j = 0; j < NR; j++) {
        cd_t want = op_sum ? CD(0, 0) : CD(1, 0);
        for (int p = 0; p < n; p++)
            want = op_sum ? want + cd_val(p, j) : want * cd_val(p, j);
        CHECK(RE(got[j]) == RE(want) && IM(got[j]) == IM(want),
              "%s (%s) element %d: expected %g%+gi got %g%+gi", routine, LANG, j, RE(want),
              IM(want), RE(got[j]), IM(got[j]));
    }
}

static void check_cf(const char *routine, const cf_t *got, int op_sum, int n)
{
    for (int j = 0; j < NR; j++) {
        cf_t want = op_sum ? CF(0, 0) : CF(1, 0);
        for (int p = 0; p < n; p++)
            want = op_sum ? want + cf_val(p, j) : want * cf_val(p, j);
        CHECK(RE(got[j]) == RE(want) && IM(got[j]) == IM(want),
              "%s (%s) element %d: expected %g%+gi got %g%+gi", routine, LANG, j,
              (double)RE(want), (double)IM(want), (double)RE(got[j]), (double)IM(got[j]));
    }
}

static void fill(int me)
{
    for (int j = 0; j < NR; j++) {
        cd_src[j] = cd_val(me, j);
        cf_src[j] = cf_val(me, j);
        cd_dst[j] = CD(-7, -7);
        cf_dst[j] = CF(-7, -7);
    }
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
        psync[i] = SHMEM_SYNC_VALUE;
    for (int i = 0; i < SHMEM_BARRIER_SYNC_SIZE; i++)
        psync_bar[i] = SHMEM_SYNC_VALUE;
    shmem_barrier_all();

    /* shmem_sync by both signatures, 50 rounds each. */
    for (int r = 1; r <= 100; r++) {
        shmem_long_p(&mailbox[r % 2], 1000L * r + me, (me + 1) % n);
        shmem_quiet();
        if (r <= 50) {
            int rc = shmem_sync(SHMEM_TEAM_WORLD);
            CHECK(rc == 0, "shmem_sync(team) (%s) round %d returned %d", LANG, r, rc);
        } else {
            shmem_sync(0, 0, n, psync_bar);
        }
        long want = 1000L * r + (me + n - 1) % n;
        CHECK(mailbox[r % 2] == want, "shmem_sync(%s) (%s) round %d: mailbox expected %ld got %ld",
              r <= 50 ? "team" : "PE_start, logPE_stride, PE_size, pSync", LANG, r, want,
              mailbox[r % 2]);
        /* Nobody overwrites this slot before everyone has read it. */
        shmem_sync(SHMEM_TEAM_WORLD);
    }

    /* Team reductions. */
    fill(me);
    CHECK(shmem_complexd_sum_reduce(SHMEM_TEAM_WORLD, cd_dst, cd_src, NR) == 0,
          "shmem_complexd_sum_reduce (%s) failed", LANG);
    check_cd("shmem_complexd_sum_reduce", cd_dst, 1, n);
    CHECK(shmem_complexd_prod_reduce(SHMEM_TEAM_WORLD, cd_dst, cd_src, NR) == 0,
          "shmem_complexd_prod_reduce (%s) failed", LANG);
    check_cd("shmem_complexd_prod_reduce", cd_dst, 0, n);
    CHECK(shmem_complexf_sum_reduce(SHMEM_TEAM_WORLD, cf_dst, cf_src, NR) == 0,
          "shmem_complexf_sum_reduce (%s) failed", LANG);
    check_cf("shmem_complexf_sum_reduce", cf_dst, 1, n);
    CHECK(shmem_complexf_prod_reduce(SHMEM_TEAM_WORLD, cf_dst, cf_src, NR) == 0,
          "shmem_complexf_prod_reduce (%s) failed", LANG);
    check_cf("shmem_complexf_prod_reduce", cf_dst, 0, n);

    /* Active-set reductions (deprecated), one pSync, a barrier between uses. */
    fill(me);
    shmem_complexd_sum_to_all(cd_dst, cd_src, NR, 0, 0, n, cd_wrk, psync);
    check_cd("shmem_complexd_sum_to_all", cd_dst, 1, n);
    shmem_barrier_all();
    shmem_complexd_prod_to_all(cd_dst, cd_src, NR, 0, 0, n, cd_wrk, psync);
    check_cd("shmem_complexd_prod_to_all", cd_dst, 0, n);
    shmem_barrier_all();
    shmem_complexf_sum_to_all(cf_dst, cf_src, NR, 0, 0, n, cf_wrk, psync);
    check_cf("shmem_complexf_sum_to_all", cf_dst, 1, n);
    shmem_barrier_all();
    shmem_complexf_prod_to_all(cf_dst, cf_src, NR, 0, 0, n, cf_wrk, psync);
    check_cf("shmem_complexf_prod_to_all", cf_dst, 0, n);

    shmem_finalize();
    return 0;
}
