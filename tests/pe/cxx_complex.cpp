/*
 * cxx_complex.cpp - the complex reductions from C++ with GNU complex types
 * (__complex__ double, as C programs' double _Complex) and std::complex,
 * through the typed names, the generic names and the deprecated to_all
 * forms, as programs written for other OpenSHMEM libraries call them.
 * Expected values are computed here from every PE's inputs.
 */
#include <shmem.h>

#include <complex>
#include <cstdio>
#include <cstdlib>

#define N 5
static int failures;

#define CHECK(cond, ...)                                    \
    do {                                                    \
        if (!(cond)) {                                      \
            std::fprintf(stderr, "PE %d: ", shmem_my_pe()); \
            std::fprintf(stderr, __VA_ARGS__);              \
            std::fprintf(stderr, "\n");                     \
            failures++;                                     \
        }                                                   \
    } while (0)

static __complex__ double cd(double re, double im)
{
    __complex__ double z;
    __real__ z = re;
    __imag__ z = im;
    return z;
}

/* PE p's element i: (p + i + 1) + (p - i) i. */
static double re_of(int p, int i)
{
    return p + i + 1;
}
static double im_of(int p, int i)
{
    return p - i;
}

static __complex__ double gsrc[N], gdst[N],
    gwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE > N ? SHMEM_REDUCE_MIN_WRKDATA_SIZE : N];
static __complex__ float fsrc[N], fdst[N];
static std::complex<double> ssrc[N], sdst[N];
static long psync[SHMEM_REDUCE_SYNC_SIZE];

int main()
{
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
        psync[i] = SHMEM_SYNC_VALUE;
    std::complex<double> sum[N], prod[N], pre[N];
    for (int i = 0; i < N; i++) {
        sum[i] = 0;
        prod[i] = 1;
        pre[i] = 0;
        for (int p = 0; p < n; p++) {
            std::complex<double> z(re_of(p, i), im_of(p, i));
            sum[i] += z;
            prod[i] *= z;
            if (p <= me)
                pre[i] += z;
        }
        gsrc[i] = cd(re_of(me, i), im_of(me, i));
        fsrc[i] = (__complex__ float)gsrc[i];
        ssrc[i] = std::complex<double>(re_of(me, i), im_of(me, i));
    }
    shmem_barrier_all();

    CHECK(shmem_complexd_sum_reduce(SHMEM_TEAM_WORLD, gdst, gsrc, N) == 0, "typed GNU sum");
    for (int i = 0; i < N; i++)
        CHECK(__real__ gdst[i] == sum[i].real() && __imag__ gdst[i] == sum[i].imag(),
              "typed GNU sum [%d]", i);
    CHECK(shmem_complexd_prod_reduce(SHMEM_TEAM_WORLD, gdst, gsrc, N) == 0, "typed GNU prod");
    for (int i = 0; i < N; i++)
        CHECK(std::abs(std::complex<double>(__real__ gdst[i], __imag__ gdst[i]) - prod[i]) <=
                  1e-9 * std::abs(prod[i]),
              "typed GNU prod [%d]", i);
    CHECK(shmem_complexf_sum_reduce(SHMEM_TEAM_WORLD, fdst, fsrc, N) == 0, "typed GNU float sum");
    for (int i = 0; i < N; i++)
        CHECK(__real__ fdst[i] == (float)sum[i].real() && __imag__ fdst[i] == (float)sum[i].imag(),
              "typed GNU float sum [%d]", i);
    CHECK(shmem_sum_reduce(SHMEM_TEAM_WORLD, gdst, gsrc, N) == 0, "generic GNU sum");
    for (int i = 0; i < N; i++)
        CHECK(__real__ gdst[i] == sum[i].real() && __imag__ gdst[i] == sum[i].imag(),
              "generic GNU sum [%d]", i);
    CHECK(shmem_sum_reduce(SHMEM_TEAM_WORLD, sdst, ssrc, N) == 0, "generic std sum");
    for (int i = 0; i < N; i++)
        CHECK(sdst[i] == sum[i], "generic std sum [%d]", i);
    CHECK(shmem_complexd_sum_reduce(SHMEM_TEAM_WORLD, sdst, ssrc, N) == 0, "typed std sum");
    for (int i = 0; i < N; i++)
        CHECK(sdst[i] == sum[i], "typed std sum [%d]", i);
    CHECK(shmem_complexd_sum_inscan(SHMEM_TEAM_WORLD, gdst, gsrc, N) == 0, "typed GNU inscan");
    for (int i = 0; i < N; i++)
        CHECK(__real__ gdst[i] == pre[i].real() && __imag__ gdst[i] == pre[i].imag(),
              "typed GNU inscan [%d]", i);
    shmem_barrier_all();
    shmem_complexd_sum_to_all(gdst, gsrc, N, 0, 0, n, gwrk, psync);
    for (int i = 0; i < N; i++)
        CHECK(__real__ gdst[i] == sum[i].real() && __imag__ gdst[i] == sum[i].imag(),
              "GNU sum_to_all [%d]", i);

    shmem_finalize();
    if (failures == 0 && me == 0)
        std::printf("cxx_complex: ok on %d PEs\n", n);
    return failures ? 1 : 0;
}
