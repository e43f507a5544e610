/*
 * shmem.h - OpenSHMEM 1.5 API of symm.
 *
 * The typed families (shmem_TYPENAME_put, ...) are declared from one type
 * table (SHMEM_RMA_TYPES below) by X-macros; the same table generates their
 * definitions in src/api/ and the C11 _Generic selections at the end of this
 * file. To find a routine, grep for its family name, e.g. "_put(" or
 * "SYMM_DECL_RMA". Usable from C (C99 and later) and C++.
 */
#ifndef SHMEM_H
#define SHMEM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- library and spec version ----------------------------------------- */
#define SHMEM_MAJOR_VERSION 1
#define SHMEM_MINOR_VERSION 5
#define SHMEM_MAX_NAME_LEN 256
#define SHMEM_VENDOR_STRING "symm 0.1"
#define _SHMEM_MAJOR_VERSION SHMEM_MAJOR_VERSION
#define _SHMEM_MINOR_VERSION SHMEM_MINOR_VERSION
#define _SHMEM_MAX_NAME_LEN SHMEM_MAX_NAME_LEN
#define SYMM_VERSION_STRING "0.1.0"

#define SHMEM_THREAD_SINGLE 0
#define SHMEM_THREAD_FUNNELED 1
#define SHMEM_THREAD_SERIALIZED 2
#define SHMEM_THREAD_MULTIPLE 3

/* Comparison operators of wait_until / test (same values as SOS, Open MPI). */
#define SHMEM_CMP_EQ 0
#define SHMEM_CMP_NE 1
#define SHMEM_CMP_GT 2
#define SHMEM_CMP_LE 3
#define SHMEM_CMP_LT 4
#define SHMEM_CMP_GE 5
#define _SHMEM_CMP_EQ SHMEM_CMP_EQ
#define _SHMEM_CMP_NE SHMEM_CMP_NE
#define _SHMEM_CMP_GT SHMEM_CMP_GT
#define _SHMEM_CMP_LE SHMEM_CMP_LE
#define _SHMEM_CMP_LT SHMEM_CMP_LT
#define _SHMEM_CMP_GE SHMEM_CMP_GE

/* Hints of shmem_malloc_with_hints. */
#define SHMEM_MALLOC_ATOMICS_REMOTE (1L << 0)
#define SHMEM_MALLOC_SIGNAL_REMOTE (1L << 1)

#if defined(__GNUC__)
#define SYMM_API __attribute__((visibility("default")))
#define SYMM_DEPRECATED __attribute__((deprecated))
#else
#define SYMM_API
#define SYMM_DEPRECATED
#endif

/* ---- contexts --------------------------------------------------------- */
typedef struct symm_ctx *shmem_ctx_t;
SYMM_API extern shmem_ctx_t SHMEM_CTX_DEFAULT;
#define SHMEM_CTX_INVALID ((shmem_ctx_t)0)

/* ---- the type table ---------------------------------------------------
 * X(TYPE, TYPENAME). BASE holds the distinct C types (C11 _Generic can
 * select on them); ALIAS holds the fixed-width and size types, which are
 * typedefs of base types. Together they are the standard RMA types. */
#define SHMEM_RMA_TYPES_BASE(X)                                                \
    X(float, float)                                                            \
    X(double, double)                                                          \
    X(long double, longdouble)                                                 \
    X(char, char)                                                              \
    X(signed char, schar)                                                      \
    X(short, short)                                                            \
    X(int, int)                                                                \
    X(long, long)                                                              \
    X(long long, longlong)                                                     \
    X(unsigned char, uchar)                                                    \
    X(unsigned short, ushort)                                                  \
    X(unsigned int, uint)                                                      \
    X(unsigned long, ulong)                                                    \
    X(unsigned long long, ulonglong)
#define SHMEM_RMA_TYPES_ALIAS(X)                                               \
    X(int8_t, int8)                                                            \
    X(int16_t, int16)                                                          \
    X(int32_t, int32)                                                          \
    X(int64_t, int64)                                                          \
    X(uint8_t, uint8)                                                          \
    X(uint16_t, uint16)                                                        \
    X(uint32_t, uint32)                                                        \
    X(uint64_t, uint64)                                                        \
    X(size_t, size)                                                            \
    X(ptrdiff_t, ptrdiff)
#define SHMEM_RMA_TYPES(X) SHMEM_RMA_TYPES_BASE(X) SHMEM_RMA_TYPES_ALIAS(X)

/* Point-to-point synchronization types (wait_until, test). */
#define SHMEM_P2P_TYPES(X)                                                     \
    X(short, short)                                                            \
    X(int, int)                                                                \
    X(long, long)                                                              \
    X(long long, longlong)                                                     \
    X(unsigned short, ushort)                                                  \
    X(unsigned int, uint)                                                      \
    X(unsigned long, ulong)                                                    \
    X(unsigned long long, ulonglong)                                           \
    X(int32_t, int32)                                                          \
    X(int64_t, int64)                                                          \
    X(uint32_t, uint32)                                                        \
    X(uint64_t, uint64)                                                        \
    X(size_t, size)                                                            \
    X(ptrdiff_t, ptrdiff)

/* Sized families: X(BITS) with element size BITS/8 bytes. */
#define SHMEM_SIZES(X) X(8) X(16) X(32) X(64) X(128)

/* ---- setup, exit, query ----------------------------------------------- */
SYMM_API void shmem_init(void);
SYMM_API int shmem_init_thread(int requested, int *provided);
SYMM_API void shmem_query_thread(int *provided);
SYMM_API void shmem_finalize(void);
SYMM_API int shmem_query_initialized(int *initialized);
SYMM_API int shmem_query_finalized(int *finalized);
SYMM_API int shmem_my_pe(void);
SYMM_API int shmem_n_pes(void);
SYMM_API int shmem_pe_accessible(int pe);
SYMM_API int shmem_addr_accessible(const void *addr, int pe);
SYMM_API void *shmem_ptr(const void *dest, int pe);
SYMM_API void shmem_global_exit(int status) __attribute__((noreturn));
SYMM_API void shmem_info_get_version(int *major, int *minor);
SYMM_API void shmem_info_get_name(char *name);

/* Deprecated setup names, kept for old programs. */
SYMM_API void start_pes(int npes) SYMM_DEPRECATED;
SYMM_API int _my_pe(void) SYMM_DEPRECATED;
SYMM_API int _num_pes(void) SYMM_DEPRECATED;

/* ---- memory management ------------------------------------------------ */
SYMM_API void *shmem_malloc(size_t size);
SYMM_API void *shmem_calloc(size_t count, size_t size);
SYMM_API void *shmem_align(size_t alignment, size_t size);
SYMM_API void *shmem_realloc(void *ptr, size_t size);
SYMM_API void *shmem_malloc_with_hints(size_t size, long hints);
SYMM_API void shmem_free(void *ptr);
SYMM_API void *shmalloc(size_t size) SYMM_DEPRECATED;
SYMM_API void shfree(void *ptr) SYMM_DEPRECATED;
SYMM_API void *shrealloc(void *ptr, size_t size) SYMM_DEPRECATED;
SYMM_API void *shmemalign(size_t alignment, size_t size) SYMM_DEPRECATED;

/* ---- RMA -------------------------------------------------------------- */
#define SYMM_DECL_RMA(T, N)                                                                   \
    SYMM_API void shmem_##N##_put(T *dest, const T *source, size_t nelems, int pe);         \
    SYMM_API void shmem_##N##_get(T *dest, const T *source, size_t nelems, int pe);         \
    SYMM_API void shmem_##N##_put_nbi(T *dest, const T *source, size_t nelems, int pe);     \
    SYMM_API void shmem_##N##_get_nbi(T *dest, const T *source, size_t nelems, int pe);     \
    SYMM_API void shmem_##N##_p(T *dest, T value, int pe);                                  \
    SYMM_API T shmem_##N##_g(const T *source, int pe);                                      \
    SYMM_API void shmem_##N##_iput(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,  \
                                   size_t nelems, int pe);                                  \
    SYMM_API void shmem_##N##_iget(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,  \
                                   size_t nelems, int pe);                                  \
    SYMM_API void shmem_ctx_##N##_put(shmem_ctx_t ctx, T *dest, const T *source,            \
                                      size_t nelems, int pe);                               \
    SYMM_API void shmem_ctx_##N##_get(shmem_ctx_t ctx, T *dest, const T *source,            \
                                      size_t nelems, int pe);                               \
    SYMM_API void shmem_ctx_##N##_put_nbi(shmem_ctx_t ctx, T *dest, const T *source,        \
                                          size_t nelems, int pe);                           \
    SYMM_API void shmem_ctx_##N##_get_nbi(shmem_ctx_t ctx, T *dest, const T *source,        \
                                          size_t nelems, int pe);                           \
    SYMM_API void shmem_ctx_##N##_p(shmem_ctx_t ctx, T *dest, T value, int pe);             \
    SYMM_API T shmem_ctx_##N##_g(shmem_ctx_t ctx, const T *source, int pe);                 \
    SYMM_API void shmem_ctx_##N##_iput(shmem_ctx_t ctx, T *dest, const T *source,           \
                                       ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe); \
    SYMM_API void shmem_ctx_##N##_iget(shmem_ctx_t ctx, T *dest, const T *source,           \
                                       ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
SHMEM_RMA_TYPES(SYMM_DECL_RMA)

#define SYMM_DECL_RMA_SIZED(BITS)                                                             \
    SYMM_API void shmem_put##BITS(void *dest, const void *source, size_t nelems, int pe);   \
    SYMM_API void shmem_get##BITS(void *dest, const void *source, size_t nelems, int pe);   \
    SYMM_API void shmem_put##BITS##_nbi(void *dest, const void *source, size_t nelems,      \
                                        int pe);                                            \
    SYMM_API void shmem_get##BITS##_nbi(void *dest, const void *source, size_t nelems,      \
                                        int pe);                                            \
    SYMM_API void shmem_iput##BITS(void *dest, const void *source, ptrdiff_t dst,           \
                                   ptrdiff_t sst, size_t nelems, int pe);                   \
    SYMM_API void shmem_iget##BITS(void *dest, const void *source, ptrdiff_t dst,           \
                                   ptrdiff_t sst, size_t nelems, int pe);                   \
    SYMM_API void shmem_ctx_put##BITS(shmem_ctx_t ctx, void *dest, const void *source,      \
                                      size_t nelems, int pe);                               \
    SYMM_API void shmem_ctx_get##BITS(shmem_ctx_t ctx, void *dest, const void *source,      \
                                      size_t nelems, int pe);                               \
    SYMM_API void shmem_ctx_put##BITS##_nbi(shmem_ctx_t ctx, void *dest, const void *source, \
                                            size_t nelems, int pe);                         \
    SYMM_API void shmem_ctx_get##BITS##_nbi(shmem_ctx_t ctx, void *dest, const void *source, \
                                            size_t nelems, int pe);                         \
    SYMM_API void shmem_ctx_iput##BITS(shmem_ctx_t ctx, void *dest, const void *source,     \
                                       ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe); \
    SYMM_API void shmem_ctx_iget##BITS(shmem_ctx_t ctx, void *dest, const void *source,     \
                                       ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
SHMEM_SIZES(SYMM_DECL_RMA_SIZED)

SYMM_API void shmem_putmem(void *dest, const void *source, size_t nelems, int pe);
SYMM_API void shmem_getmem(void *dest, const void *source, size_t nelems, int pe);
SYMM_API void shmem_putmem_nbi(void *dest, const void *source, size_t nelems, int pe);
SYMM_API void shmem_getmem_nbi(void *dest, const void *source, size_t nelems, int pe);
SYMM_API void shmem_ctx_putmem(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,
                               int pe);
SYMM_API void shmem_ctx_getmem(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,
                               int pe);
SYMM_API void shmem_ctx_putmem_nbi(shmem_ctx_t ctx, void *dest, const void *source,
                                   size_t nelems, int pe);
SYMM_API void shmem_ctx_getmem_nbi(shmem_ctx_t ctx, void *dest, const void *source,
                                   size_t nelems, int pe);

/* ---- ordering and synchronization ------------------------------------- */
SYMM_API void shmem_fence(void);
SYMM_API void shmem_quiet(void);
SYMM_API void shmem_ctx_fence(shmem_ctx_t ctx);
SYMM_API void shmem_ctx_quiet(shmem_ctx_t ctx);
SYMM_API void shmem_barrier_all(void);
SYMM_API void shmem_sync_all(void);

#define SYMM_DECL_P2P(T, N)                                                     \
    SYMM_API void shmem_##N##_wait_until(T *ivar, int cmp, T cmp_value);      \
    SYMM_API int shmem_##N##_test(T *ivar, int cmp, T cmp_value);             \
    SYMM_API void shmem_##N##_wait(T *ivar, T cmp_value) SYMM_DEPRECATED;
SHMEM_P2P_TYPES(SYMM_DECL_P2P)
SYMM_API void shmem_wait_until(long *ivar, int cmp, long cmp_value) SYMM_DEPRECATED;
SYMM_API void shmem_wait(long *ivar, long cmp_value) SYMM_DEPRECATED;

/* ---- cache management: no-ops, deprecated since 1.3 -------------------- */
SYMM_API void shmem_clear_cache_inv(void) SYMM_DEPRECATED;
SYMM_API void shmem_set_cache_inv(void) SYMM_DEPRECATED;
SYMM_API void shmem_clear_cache_line_inv(void *dest) SYMM_DEPRECATED;
SYMM_API void shmem_set_cache_line_inv(void *dest) SYMM_DEPRECATED;
SYMM_API void shmem_udcflush(void) SYMM_DEPRECATED;
SYMM_API void shmem_udcflush_line(void *dest) SYMM_DEPRECATED;

#ifdef __cplusplus
}
#endif

/* ---- C11 type-generic interfaces --------------------------------------
 * A call with an unsupported type selects symm_generic_unsupported_type,
 * which takes no arguments, so the compiler rejects it with an error that
 * names it. */
#if !defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
SYMM_API void symm_generic_unsupported_type(void);
#define SYMM_NARG(...) SYMM_NARG_(__VA_ARGS__, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define SYMM_NARG_(_1, _2, _3, _4, _5, _6, _7, _8, N, ...) N
#define SYMM_CAT(a, b) SYMM_CAT_(a, b)
#define SYMM_CAT_(a, b) a##b

#define SYMM_GEN_ASSOC(T, N, OP) T: shmem_##N##_##OP,
#define SYMM_GEN_ASSOC_CTX(T, N, OP) T: shmem_ctx_##N##_##OP,
#define SYMM_GEN_LIST_put(T, N) SYMM_GEN_ASSOC(T, N, put)
#define SYMM_GEN_LIST_get(T, N) SYMM_GEN_ASSOC(T, N, get)
#define SYMM_GEN_LIST_put_nbi(T, N) SYMM_GEN_ASSOC(T, N, put_nbi)
#define SYMM_GEN_LIST_get_nbi(T, N) SYMM_GEN_ASSOC(T, N, get_nbi)
#define SYMM_GEN_LIST_p(T, N) SYMM_GEN_ASSOC(T, N, p)
#define SYMM_GEN_LIST_g(T, N) SYMM_GEN_ASSOC(T, N, g)
#define SYMM_GEN_LIST_iput(T, N) SYMM_GEN_ASSOC(T, N, iput)
#define SYMM_GEN_LIST_iget(T, N) SYMM_GEN_ASSOC(T, N, iget)
#define SYMM_GEN_LIST_ctx_put(T, N) SYMM_GEN_ASSOC_CTX(T, N, put)
#define SYMM_GEN_LIST_ctx_get(T, N) SYMM_GEN_ASSOC_CTX(T, N, get)
#define SYMM_GEN_LIST_ctx_put_nbi(T, N) SYMM_GEN_ASSOC_CTX(T, N, put_nbi)
#define SYMM_GEN_LIST_ctx_get_nbi(T, N) SYMM_GEN_ASSOC_CTX(T, N, get_nbi)
#define SYMM_GEN_LIST_ctx_p(T, N) SYMM_GEN_ASSOC_CTX(T, N, p)
#define SYMM_GEN_LIST_ctx_g(T, N) SYMM_GEN_ASSOC_CTX(T, N, g)
#define SYMM_GEN_LIST_ctx_iput(T, N) SYMM_GEN_ASSOC_CTX(T, N, iput)
#define SYMM_GEN_LIST_ctx_iget(T, N) SYMM_GEN_ASSOC_CTX(T, N, iget)
#define SYMM_GEN_LIST_wait_until(T, N) SYMM_GEN_ASSOC(T, N, wait_until)
#define SYMM_GEN_LIST_test(T, N) SYMM_GEN_ASSOC(T, N, test)

/* Select on the pointed-to type of `ptr` (const dropped by the comma). */
#define SYMM_GEN_RMA(OP, ptr)                                                  \
    _Generic(*(ptr), SHMEM_RMA_TYPES_BASE(SYMM_GEN_LIST_##OP) default     \
             : symm_generic_unsupported_type)
#define SYMM_GEN_VAL(OP, val)                                                  \
    _Generic((val), SHMEM_RMA_TYPES_BASE(SYMM_GEN_LIST_##OP) default           \
             : symm_generic_unsupported_type)
#define SYMM_P2P_GENERIC_TYPES(X)                                              \
    X(short, short) X(int, int) X(long, long) X(long long, longlong)           \
    X(unsigned short, ushort) X(unsigned int, uint) X(unsigned long, ulong)    \
    X(unsigned long long, ulonglong)
#define SYMM_GEN_P2P(OP, ptr)                                                  \
    _Generic(*(ptr), SYMM_P2P_GENERIC_TYPES(SYMM_GEN_LIST_##OP) default   \
             : symm_generic_unsupported_type)

#define SYMM_GEN_DATA4(OP, d, s, n, pe) SYMM_GEN_RMA(OP, d)(d, s, n, pe)
#define SYMM_GEN_DATA5(OP, c, d, s, n, pe) SYMM_GEN_RMA(ctx_##OP, d)(c, d, s, n, pe)
#define shmem_put(...) SYMM_CAT(SYMM_GEN_DATA, SYMM_NARG(__VA_ARGS__))(put, __VA_ARGS__)
#define shmem_get(...) SYMM_CAT(SYMM_GEN_DATA, SYMM_NARG(__VA_ARGS__))(get, __VA_ARGS__)
#define shmem_put_nbi(...) SYMM_CAT(SYMM_GEN_DATA, SYMM_NARG(__VA_ARGS__))(put_nbi, __VA_ARGS__)
#define shmem_get_nbi(...) SYMM_CAT(SYMM_GEN_DATA, SYMM_NARG(__VA_ARGS__))(get_nbi, __VA_ARGS__)

#define SYMM_GEN_P3(d, v, pe) SYMM_GEN_RMA(p, d)(d, v, pe)
#define SYMM_GEN_P4(c, d, v, pe) SYMM_GEN_RMA(ctx_p, d)(c, d, v, pe)
#define shmem_p(...) SYMM_CAT(SYMM_GEN_P, SYMM_NARG(__VA_ARGS__))(__VA_ARGS__)
#define SYMM_GEN_G2(s, pe) SYMM_GEN_RMA(g, s)(s, pe)
#define SYMM_GEN_G3(c, s, pe) SYMM_GEN_RMA(ctx_g, s)(c, s, pe)
#define shmem_g(...) SYMM_CAT(SYMM_GEN_G, SYMM_NARG(__VA_ARGS__))(__VA_ARGS__)

#define SYMM_GEN_STRIDED6(OP, d, s, ds, ss, n, pe) SYMM_GEN_RMA(OP, d)(d, s, ds, ss, n, pe)
#define SYMM_GEN_STRIDED7(OP, c, d, s, ds, ss, n, pe)                          \
    SYMM_GEN_RMA(ctx_##OP, d)(c, d, s, ds, ss, n, pe)
#define shmem_iput(...) SYMM_CAT(SYMM_GEN_STRIDED, SYMM_NARG(__VA_ARGS__))(iput, __VA_ARGS__)
#define shmem_iget(...) SYMM_CAT(SYMM_GEN_STRIDED, SYMM_NARG(__VA_ARGS__))(iget, __VA_ARGS__)

#define shmem_wait_until(ivar, cmp, value) SYMM_GEN_P2P(wait_until, ivar)(ivar, cmp, value)
#define shmem_test(ivar, cmp, value) SYMM_GEN_P2P(test, ivar)(ivar, cmp, value)
#endif /* C11 */

#endif /* SHMEM_H */
