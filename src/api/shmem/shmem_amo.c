/*
 * shmem_amo.c - every atomic memory operation entry point, generated from the AMO
 * type tables in shmem.h (standard, extended, bitwise, deprecated).
 *
 * Each operation is one static inline core per type (amo_<name>) run on the
 * mapped peer address as one CPU atomic, else through the general path; the
 * public plain and ctx_ names are two-line wrappers around it.
 */
#include "ops/amo.h"
#include "shmem.h"
#include "api/shmem/shmem_profile.h"

#define CTX_OF(ctx) ((struct symm_ctx *)(ctx))
/* The non-ctx entry points pass NULL: the default context, no load. */
#define DEFAULT_CTX ((struct symm_ctx *)0)
#define O SYMM_AMO_ORDER
#define UNP(...) __VA_ARGS__

/* Public plain and ctx_ forms of one core routine. */
#define PAIR(RET, NAME, PARAMS, ARGS)                                                   \
    RET shmem_ctx_##NAME(shmem_ctx_t ctx, UNP PARAMS)                                   \
    {                                                                                   \
        return amo_##NAME(CTX_OF(ctx), __func__, UNP ARGS);                             \
    }                                                                                   \
    RET shmem_##NAME(UNP PARAMS) { return amo_##NAME(DEFAULT_CTX, __func__, UNP ARGS); } \
    SYMM_PALIAS(shmem_ctx_##NAME) SYMM_PALIAS(shmem_##NAME)
#define PAIR_VOID(NAME, PARAMS, ARGS)                                                   \
    void shmem_ctx_##NAME(shmem_ctx_t ctx, UNP PARAMS)                                  \
    {                                                                                   \
        amo_##NAME(CTX_OF(ctx), __func__, UNP ARGS);                                    \
    }                                                                                   \
    void shmem_##NAME(UNP PARAMS) { amo_##NAME(DEFAULT_CTX, __func__, UNP ARGS); }   \
    SYMM_PALIAS(shmem_ctx_##NAME) SYMM_PALIAS(shmem_##NAME)

#define CORE_ARGS struct symm_ctx *ctx, const char *routine

/* ---- extended types: fetch, set, swap (+ nbi) ------------------------ */
#define DEF_AMO_EXT(T, N)                                                                   \
    static inline T amo_##N##_atomic_fetch(CORE_ARGS, const T *source, int pe)              \
    {                                                                                       \
        T res;                                                                              \
        SYMM_AMO_LOAD(ctx, T, source, pe, &res, 0, routine, __atomic_load(r_, &res, O));    \
        return res;                                                                         \
    }                                                                                       \
    static inline void amo_##N##_atomic_set(CORE_ARGS, T *dest, T value, int pe)            \
    {                                                                                       \
        SYMM_AMO_DO(ctx, T, dest, pe, SYMM_AMO_SET, &value, NULL, NULL, 0, routine,         \
                    __atomic_store(r_, &value, O));                                         \
    }                                                                                       \
    static inline T amo_##N##_atomic_swap(CORE_ARGS, T *dest, T value, int pe)              \
    {                                                                                       \
        T res;                                                                              \
        SYMM_AMO_DO(ctx, T, dest, pe, SYMM_AMO_SWAP, &value, NULL, &res, 0, routine,        \
                    __atomic_exchange(r_, &value, &res, O));                                \
        return res;                                                                         \
    }                                                                                       \
    static inline void amo_##N##_atomic_fetch_nbi(CORE_ARGS, T *fetch, const T *source,     \
                                                  int pe)                                   \
    {                                                                                       \
        SYMM_AMO_LOAD(ctx, T, source, pe, fetch, 1, routine, __atomic_load(r_, fetch, O));  \
    }                                                                                       \
    static inline void amo_##N##_atomic_swap_nbi(CORE_ARGS, T *fetch, T *dest, T value,     \
                                                 int pe)                                    \
    {                                                                                       \
        SYMM_AMO_DO(ctx, T, dest, pe, SYMM_AMO_SWAP, &value, NULL, fetch, 1, routine,       \
                    __atomic_exchange(r_, &value, fetch, O));                               \
    }                                                                                       \
    PAIR(T, N##_atomic_fetch, (const T *source, int pe), (source, pe))                      \
    PAIR_VOID(N##_atomic_set, (T * dest, T value, int pe), (dest, value, pe))               \
    PAIR(T, N##_atomic_swap, (T * dest, T value, int pe), (dest, value, pe))                \
    PAIR_VOID(N##_atomic_fetch_nbi, (T * fetch, const T *source, int pe), (fetch, source, pe)) \
    PAIR_VOID(N##_atomic_swap_nbi, (T * fetch, T * dest, T value, int pe),                  \
              (fetch, dest, value, pe))
SHMEM_AMO_EXT_TYPES(DEF_AMO_EXT)

/* ---- standard types: compare_swap, fetch_inc, inc, fetch_add, add ------ */
#define DEF_AMO_STD(T, N)                                                                   \
    static inline T amo_##N##_atomic_compare_swap(CORE_ARGS, T *dest, T cond, T value,      \
                                                  int pe)                                   \
    {                                                                                       \
        T res = cond;                                                                       \
        SYMM_AMO_DO(ctx, T, dest, pe, SYMM_AMO_CSWAP, &value, &cond, &res, 0, routine,      \
                    __atomic_compare_exchange_n(r_, &res, value, 0, O, O));                 \
        return res;                                                                         \
    }                                                                                       \
    static inline void amo_##N##_atomic_compare_swap_nbi(CORE_ARGS, T *fetch, T *dest,      \
                                                         T cond, T value, int pe)           \
    {                                                                                       \
        SYMM_AMO_DO(ctx, T, dest, pe, SYMM_AMO_CSWAP, &value, &cond, fetch, 1, routine, {   \
            T c_ = cond;                                                                    \
            __atomic_compare_exchange_n(r_, &c_, value, 0, O, O);                           \
            *fetch = c_;                                                                    \
        });                                                                                 \
    }                                                                                       \
    static inline T amo_##N##_atomic_fetch_add(CORE_ARGS, T *dest, T value, int pe)         \
    {                                                                                       \
        T res;                                                                              \
        SYMM_AMO_DO(ctx, T, dest, pe, SYMM_AMO_ADD, &value, NULL, &res, 0, routine,         \
                    res = __atomic_fetch_add(r_, value, O));                                \
        return res;                                                                         \
    }                                                                                       \
    static inline void amo_##N##_atomic_add(CORE_ARGS, T *dest, T value, int pe)            \
    {                                                                                       \
        SYMM_AMO_DO(ctx, T, dest, pe, SYMM_AMO_ADD, &value, NULL, NULL, 0, routine,         \
                    __atomic_fetch_add(r_, value, O));                                      \
    }                                                                                       \
    static inline void amo_##N##_atomic_fetch_add_nbi(CORE_ARGS, T *fetch, T *dest, T value, \
                                                      int pe)                               \
    {                                                                                       \
        SYMM_AMO_DO(ctx, T, dest, pe, SYMM_AMO_ADD, &value, NULL, fetch, 1, routine,        \
                    *fetch = __atomic_fetch_add(r_, value, O));                             \
    }                                                                                       \
    static inline T amo_##N##_atomic_fetch_inc(CORE_ARGS, T *dest, int pe)                  \
    {                                                                                       \
        return amo_##N##_atomic_fetch_add(ctx, routine, dest, (T)1, pe);                    \
    }                                                                                       \
    static inline void amo_##N##_atomic_inc(CORE_ARGS, T *dest, int pe)                     \
    {                                                                                       \
        amo_##N##_atomic_add(ctx, routine, dest, (T)1, pe);                                 \
    }                                                                                       \
    static inline void amo_##N##_atomic_fetch_inc_nbi(CORE_ARGS, T *fetch, T *dest, int pe) \
    {                                                                                       \
        amo_##N##_atomic_fetch_add_nbi(ctx, routine, fetch, dest, (T)1, pe);                \
    }                                                                                       \
    PAIR(T, N##_atomic_compare_swap, (T * dest, T cond, T value, int pe),                   \
         (dest, cond, value, pe))                                                           \
    PAIR_VOID(N##_atomic_compare_swap_nbi, (T * fetch, T * dest, T cond, T value, int pe),  \
              (fetch, dest, cond, value, pe))                                               \
    PAIR(T, N##_atomic_fetch_add, (T * dest, T value, int pe), (dest, value, pe))           \
    PAIR_VOID(N##_atomic_add, (T * dest, T value, int pe), (dest, value, pe))               \
    PAIR_VOID(N##_atomic_fetch_add_nbi, (T * fetch, T * dest, T value, int pe),             \
              (fetch, dest, value, pe))                                                     \
    PAIR(T, N##_atomic_fetch_inc, (T * dest, int pe), (dest, pe))                           \
    PAIR_VOID(N##_atomic_inc, (T * dest, int pe), (dest, pe))                               \
    PAIR_VOID(N##_atomic_fetch_inc_nbi, (T * fetch, T * dest, int pe), (fetch, dest, pe))
SHMEM_AMO_STD_TYPES(DEF_AMO_STD)

/* ---- bitwise types: and, or, xor (fetching, non-fetching, nbi) --------- */
#define DEF_AMO_BIT_OP(T, N, OP, ENUM)                                                      \
    static inline T amo_##N##_atomic_fetch_##OP(CORE_ARGS, T *dest, T value, int pe)        \
    {                                                                                       \
        T res;                                                                              \
        SYMM_AMO_DO(ctx, T, dest, pe, ENUM, &value, NULL, &res, 0, routine,                 \
                    res = __atomic_fetch_##OP(r_, value, O));                               \
        return res;                                                                         \
    }                                                                                       \
    static inline void amo_##N##_atomic_##OP(CORE_ARGS, T *dest, T value, int pe)           \
    {                                                                                       \
        SYMM_AMO_DO(ctx, T, dest, pe, ENUM, &value, NULL, NULL, 0, routine,                 \
                    __atomic_fetch_##OP(r_, value, O));                                     \
    }                                                                                       \
    static inline void amo_##N##_atomic_fetch_##OP##_nbi(CORE_ARGS, T *fetch, T *dest,      \
                                                         T value, int pe)                   \
    {                                                                                       \
        SYMM_AMO_DO(ctx, T, dest, pe, ENUM, &value, NULL, fetch, 1, routine,                \
                    *fetch = __atomic_fetch_##OP(r_, value, O));                            \
    }                                                                                       \
    PAIR(T, N##_atomic_fetch_##OP, (T * dest, T value, int pe), (dest, value, pe))          \
    PAIR_VOID(N##_atomic_##OP, (T * dest, T value, int pe), (dest, value, pe))              \
    PAIR_VOID(N##_atomic_fetch_##OP##_nbi, (T * fetch, T * dest, T value, int pe),          \
              (fetch, dest, value, pe))
#define DEF_AMO_BIT(T, N)                                                                   \
    DEF_AMO_BIT_OP(T, N, and, SYMM_AMO_AND)                                                 \
    DEF_AMO_BIT_OP(T, N, or, SYMM_AMO_OR)                                                   \
    DEF_AMO_BIT_OP(T, N, xor, SYMM_AMO_XOR)
SHMEM_AMO_BIT_TYPES(DEF_AMO_BIT)

/* ---- deprecated pre-1.4 names ------------------------------------------ */
#define DEF_AMO_DEPR_STD(T, N)                                                              \
    T shmem_##N##_cswap(T *dest, T cond, T value, int pe)                                   \
    {                                                                                       \
        return amo_##N##_atomic_compare_swap(DEFAULT_CTX, __func__, dest, cond, value, pe); \
    }                                                                                       \
    T shmem_##N##_finc(T *dest, int pe)                                                     \
    {                                                                                       \
        return amo_##N##_atomic_fetch_inc(DEFAULT_CTX, __func__, dest, pe);                 \
    }                                                                                       \
    void shmem_##N##_inc(T *dest, int pe) { amo_##N##_atomic_inc(DEFAULT_CTX, __func__, dest, pe); } \
    T shmem_##N##_fadd(T *dest, T value, int pe)                                            \
    {                                                                                       \
        return amo_##N##_atomic_fetch_add(DEFAULT_CTX, __func__, dest, value, pe);          \
    }                                                                                       \
    void shmem_##N##_add(T *dest, T value, int pe)                                          \
    {                                                                                       \
        amo_##N##_atomic_add(DEFAULT_CTX, __func__, dest, value, pe);                       \
    }                                                                                       \
    SYMM_PALIAS(shmem_##N##_cswap) SYMM_PALIAS(shmem_##N##_finc)                            \
    SYMM_PALIAS(shmem_##N##_inc) SYMM_PALIAS(shmem_##N##_fadd) SYMM_PALIAS(shmem_##N##_add)
SHMEM_AMO_DEPR_STD_TYPES(DEF_AMO_DEPR_STD)

#define DEF_AMO_DEPR_EXT(T, N)                                                              \
    T shmem_##N##_swap(T *dest, T value, int pe)                                            \
    {                                                                                       \
        return amo_##N##_atomic_swap(DEFAULT_CTX, __func__, dest, value, pe);               \
    }                                                                                       \
    T shmem_##N##_fetch(const T *source, int pe)                                            \
    {                                                                                       \
        return amo_##N##_atomic_fetch(DEFAULT_CTX, __func__, source, pe);                   \
    }                                                                                       \
    void shmem_##N##_set(T *dest, T value, int pe)                                          \
    {                                                                                       \
        amo_##N##_atomic_set(DEFAULT_CTX, __func__, dest, value, pe);                       \
    }                                                                                       \
    SYMM_PALIAS(shmem_##N##_swap) SYMM_PALIAS(shmem_##N##_fetch) SYMM_PALIAS(shmem_##N##_set)
SHMEM_AMO_DEPR_EXT_TYPES(DEF_AMO_DEPR_EXT)

/* The untyped form from before 1.0: the symbol stays, while shmem.h makes
 * the name the deprecated generic for C11 and C++. */
#undef shmem_swap
SYMM_API long shmem_swap(long *dest, long value, int pe);
long shmem_swap(long *dest, long value, int pe)
{
    return amo_long_atomic_swap(DEFAULT_CTX, __func__, dest, value, pe);
}
SYMM_PALIAS(shmem_swap)
