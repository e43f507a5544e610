/*
 * icpt.c - a profiling interceptor for every typed routine a generic can
 * select: shmem_N_OP records its own name, element size and kind (computed
 * from its own T by GEN_KIND) and forwards to pshmem_N_OP. The typed
 * routines come from shmem.h's tables: those say which routines exist; the
 * spec's tables in gen.h say which calls must work.
 */
#include "generic/gen.h"

#define ICPT_R(R, T, NAME, P, A)                                               \
    extern __typeof__(NAME) p##NAME;                                           \
    R NAME P                                                                   \
    {                                                                          \
        gen_hit(#NAME, sizeof(T), GEN_KIND(T));                                \
        return p##NAME A;                                                      \
    }
#define ICPT_V(T, NAME, P, A)                                                  \
    extern __typeof__(NAME) p##NAME;                                           \
    void NAME P                                                                \
    {                                                                          \
        gen_hit(#NAME, sizeof(T), GEN_KIND(T));                                \
        p##NAME A;                                                             \
    }
/* Plain and ctx forms of one routine. */
#define ICPT2_R(R, T, N, OP, P, A)                                             \
    ICPT_R(R, T, shmem_##N##_##OP, (P), (A))                                   \
    ICPT_R(R, T, shmem_ctx_##N##_##OP, (shmem_ctx_t ctx, P), (ctx, A))
#define ICPT2_V(T, N, OP, P, A)                                                \
    ICPT_V(T, shmem_##N##_##OP, (P), (A))                                      \
    ICPT_V(T, shmem_ctx_##N##_##OP, (shmem_ctx_t ctx, P), (ctx, A))
#define ARGS(...) __VA_ARGS__

#define I_AMO_EXT(T, N)                                                        \
    ICPT2_R(T, T, N, atomic_fetch, ARGS(const T *s, int pe), ARGS(s, pe))      \
    ICPT2_V(T, N, atomic_set, ARGS(T *d, T v, int pe), ARGS(d, v, pe))         \
    ICPT2_R(T, T, N, atomic_swap, ARGS(T *d, T v, int pe), ARGS(d, v, pe))     \
    ICPT2_V(T, N, atomic_fetch_nbi, ARGS(T *f, const T *s, int pe), ARGS(f, s, pe)) \
    ICPT2_V(T, N, atomic_swap_nbi, ARGS(T *f, T *d, T v, int pe), ARGS(f, d, v, pe))
SHMEM_AMO_EXT_TYPES(I_AMO_EXT)

#define I_AMO_STD(T, N)                                                        \
    ICPT2_R(T, T, N, atomic_compare_swap, ARGS(T *d, T c, T v, int pe),        \
            ARGS(d, c, v, pe))                                                 \
    ICPT2_V(T, N, atomic_compare_swap_nbi, ARGS(T *f, T *d, T c, T v, int pe), \
            ARGS(f, d, c, v, pe))                                              \
    ICPT2_R(T, T, N, atomic_fetch_inc, ARGS(T *d, int pe), ARGS(d, pe))        \
    ICPT2_V(T, N, atomic_inc, ARGS(T *d, int pe), ARGS(d, pe))                 \
    ICPT2_V(T, N, atomic_fetch_inc_nbi, ARGS(T *f, T *d, int pe), ARGS(f, d, pe)) \
    ICPT2_R(T, T, N, atomic_fetch_add, ARGS(T *d, T v, int pe), ARGS(d, v, pe)) \
    ICPT2_V(T, N, atomic_add, ARGS(T *d, T v, int pe), ARGS(d, v, pe))         \
    ICPT2_V(T, N, atomic_fetch_add_nbi, ARGS(T *f, T *d, T v, int pe), ARGS(f, d, v, pe))
SHMEM_AMO_STD_TYPES(I_AMO_STD)

#define I_AMO_BIT_OP(T, N, OP)                                                 \
    ICPT2_R(T, T, N, atomic_fetch_##OP, ARGS(T *d, T v, int pe), ARGS(d, v, pe)) \
    ICPT2_V(T, N, atomic_##OP, ARGS(T *d, T v, int pe), ARGS(d, v, pe))        \
    ICPT2_V(T, N, atomic_fetch_##OP##_nbi, ARGS(T *f, T *d, T v, int pe),      \
            ARGS(f, d, v, pe))
#define I_AMO_BIT(T, N) I_AMO_BIT_OP(T, N, and) I_AMO_BIT_OP(T, N, or) I_AMO_BIT_OP(T, N, xor)
SHMEM_AMO_BIT_TYPES(I_AMO_BIT)

/* The deprecated typed names the deprecated generics select (no ctx forms). */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#define I_AMO_DEPR_STD(T, N)                                                   \
    ICPT_R(T, T, shmem_##N##_cswap, (T * d, T c, T v, int pe), (d, c, v, pe)) \
    ICPT_R(T, T, shmem_##N##_finc, (T * d, int pe), (d, pe))                   \
    ICPT_V(T, shmem_##N##_inc, (T * d, int pe), (d, pe))                       \
    ICPT_R(T, T, shmem_##N##_fadd, (T * d, T v, int pe), (d, v, pe))           \
    ICPT_V(T, shmem_##N##_add, (T * d, T v, int pe), (d, v, pe))
SHMEM_AMO_DEPR_STD_TYPES(I_AMO_DEPR_STD)
#define I_AMO_DEPR_EXT(T, N)                                                   \
    ICPT_R(T, T, shmem_##N##_swap, (T * d, T v, int pe), (d, v, pe))           \
    ICPT_R(T, T, shmem_##N##_fetch, (const T *s, int pe), (s, pe))             \
    ICPT_V(T, shmem_##N##_set, (T * d, T v, int pe), (d, v, pe))
SHMEM_AMO_DEPR_EXT_TYPES(I_AMO_DEPR_EXT)
#pragma GCC diagnostic pop

#define RMA_P(T) ARGS(T *d, const T *s, size_t n, int pe)
#define RMA_A ARGS(d, s, n, pe)
#define STR_P(T) ARGS(T *d, const T *s, ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe)
#define STR_A ARGS(d, s, dst, sst, n, pe)
#define BLK_P(T)                                                               \
    ARGS(T *d, const T *s, ptrdiff_t dst, ptrdiff_t sst, size_t bs, size_t nb, int pe)
#define BLK_A ARGS(d, s, dst, sst, bs, nb, pe)
#define SIG_P(T) ARGS(T *d, const T *s, size_t n, uint64_t *sa, uint64_t sv, int so, int pe)
#define SIG_A ARGS(d, s, n, sa, sv, so, pe)
#define I_RMA(T, N)                                                            \
    ICPT2_V(T, N, put, RMA_P(T), RMA_A) ICPT2_V(T, N, get, RMA_P(T), RMA_A)          \
    ICPT2_V(T, N, put_nbi, RMA_P(T), RMA_A) ICPT2_V(T, N, get_nbi, RMA_P(T), RMA_A)  \
    ICPT2_V(T, N, p, ARGS(T *d, T v, int pe), ARGS(d, v, pe))                  \
    ICPT2_R(T, T, N, g, ARGS(const T *s, int pe), ARGS(s, pe))                 \
    ICPT2_V(T, N, iput, STR_P(T), STR_A) ICPT2_V(T, N, iget, STR_P(T), STR_A)        \
    ICPT2_V(T, N, ibput, BLK_P(T), BLK_A) ICPT2_V(T, N, ibget, BLK_P(T), BLK_A)      \
    ICPT2_V(T, N, put_signal, SIG_P(T), SIG_A) ICPT2_V(T, N, put_signal_nbi, SIG_P(T), SIG_A)
SHMEM_RMA_TYPES(I_RMA)

#define I_P2P(T, N)                                                            \
    ICPT_V(T, shmem_##N##_wait_until, (T * iv, int cmp, T v), (iv, cmp, v))    \
    ICPT_R(int, T, shmem_##N##_test, (T * iv, int cmp, T v), (iv, cmp, v))     \
    ICPT_V(T, shmem_##N##_wait_until_all,                                      \
           (T * iv, size_t n, const int *st, int cmp, T v), (iv, n, st, cmp, v)) \
    ICPT_R(size_t, T, shmem_##N##_wait_until_any,                              \
           (T * iv, size_t n, const int *st, int cmp, T v), (iv, n, st, cmp, v)) \
    ICPT_R(size_t, T, shmem_##N##_wait_until_some,                             \
           (T * iv, size_t n, size_t *ix, const int *st, int cmp, T v),        \
           (iv, n, ix, st, cmp, v))                                            \
    ICPT_V(T, shmem_##N##_wait_until_all_vector,                               \
           (T * iv, size_t n, const int *st, int cmp, const T *v), (iv, n, st, cmp, v)) \
    ICPT_R(size_t, T, shmem_##N##_wait_until_any_vector,                       \
           (T * iv, size_t n, const int *st, int cmp, const T *v), (iv, n, st, cmp, v)) \
    ICPT_R(size_t, T, shmem_##N##_wait_until_some_vector,                      \
           (T * iv, size_t n, size_t *ix, const int *st, int cmp, const T *v), \
           (iv, n, ix, st, cmp, v))                                            \
    ICPT_R(int, T, shmem_##N##_test_all,                                       \
           (T * iv, size_t n, const int *st, int cmp, T v), (iv, n, st, cmp, v)) \
    ICPT_R(size_t, T, shmem_##N##_test_any,                                    \
           (T * iv, size_t n, const int *st, int cmp, T v), (iv, n, st, cmp, v)) \
    ICPT_R(size_t, T, shmem_##N##_test_some,                                   \
           (T * iv, size_t n, size_t *ix, const int *st, int cmp, T v),        \
           (iv, n, ix, st, cmp, v))                                            \
    ICPT_R(int, T, shmem_##N##_test_all_vector,                                \
           (T * iv, size_t n, const int *st, int cmp, const T *v), (iv, n, st, cmp, v)) \
    ICPT_R(size_t, T, shmem_##N##_test_any_vector,                             \
           (T * iv, size_t n, const int *st, int cmp, const T *v), (iv, n, st, cmp, v)) \
    ICPT_R(size_t, T, shmem_##N##_test_some_vector,                            \
           (T * iv, size_t n, size_t *ix, const int *st, int cmp, const T *v), \
           (iv, n, ix, st, cmp, v))
SHMEM_P2P_TYPES(I_P2P)

#define C_P(T) (shmem_team_t tm, T * d, const T *s, size_t n)
#define I_COLL(T, N)                                                           \
    ICPT_R(int, T, shmem_##N##_broadcast, (shmem_team_t tm, T * d, const T *s, size_t n, int r), \
           (tm, d, s, n, r))                                                   \
    ICPT_R(int, T, shmem_##N##_collect, C_P(T), (tm, d, s, n))                 \
    ICPT_R(int, T, shmem_##N##_fcollect, C_P(T), (tm, d, s, n))                \
    ICPT_R(int, T, shmem_##N##_alltoall, C_P(T), (tm, d, s, n))                \
    ICPT_R(int, T, shmem_##N##_alltoalls,                                      \
           (shmem_team_t tm, T * d, const T *s, ptrdiff_t dst, ptrdiff_t sst, size_t n), \
           (tm, d, s, dst, sst, n))
SHMEM_RMA_TYPES(I_COLL)

#define I_RED(T, N, OP) ICPT_R(int, T, shmem_##N##_##OP##_reduce, C_P(T), (tm, d, s, n))
#define I_RED_BIT(T, N) I_RED(T, N, and) I_RED(T, N, or) I_RED(T, N, xor)
#define I_RED_MINMAX(T, N) I_RED(T, N, max) I_RED(T, N, min)
#define I_RED_ARITH(T, N)                                                      \
    I_RED(T, N, sum) I_RED(T, N, prod)                                         \
    ICPT_R(int, T, shmem_##N##_sum_inscan, C_P(T), (tm, d, s, n))              \
    ICPT_R(int, T, shmem_##N##_sum_exscan, C_P(T), (tm, d, s, n))
SHMEM_REDUCE_BIT_TYPES(I_RED_BIT)
SHMEM_REDUCE_MINMAX_TYPES(I_RED_MINMAX)
SHMEM_REDUCE_ARITH_TYPES(I_RED_ARITH)
