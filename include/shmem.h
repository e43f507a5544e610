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
/* Outside the extern "C" block: the complex reductions take
 * std::complex<double>/<float>, layout-compatible with C's _Complex. */
#include <complex>
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

#if defined(__GNUC__) && defined(SYMM_BUILDING)
/* Building symm: public routines are weak so profilers can interpose
 * (their pshmem_ aliases stay strong); variables are not. */
#define SYMM_API __attribute__((visibility("default"), weak))
#define SYMM_API_VAR __attribute__((visibility("default")))
#define SYMM_DEPRECATED
#elif defined(__GNUC__)
#define SYMM_API __attribute__((visibility("default")))
#define SYMM_API_VAR SYMM_API
#define SYMM_DEPRECATED __attribute__((deprecated))
#else
#define SYMM_API
#define SYMM_API_VAR
#define SYMM_DEPRECATED
#endif

/* ---- contexts --------------------------------------------------------- */
typedef struct symm_ctx *shmem_ctx_t;
SYMM_API_VAR extern shmem_ctx_t SHMEM_CTX_DEFAULT;
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

/* Atomic memory operation types (spec Tables 6-8): standard AMO types
 * (compare_swap, fetch_inc, inc, fetch_add, add), extended types (adds
 * float and double: fetch, set, swap), bitwise types (and, or, xor). */
#define SHMEM_AMO_STD_TYPES(X)                                                 \
    X(int, int)                                                                \
    X(long, long)                                                              \
    X(long long, longlong)                                                     \
    X(unsigned int, uint)                                                      \
    X(unsigned long, ulong)                                                    \
    X(unsigned long long, ulonglong)                                           \
    X(int32_t, int32)                                                          \
    X(int64_t, int64)                                                          \
    X(uint32_t, uint32)                                                        \
    X(uint64_t, uint64)                                                        \
    X(size_t, size)                                                            \
    X(ptrdiff_t, ptrdiff)
#define SHMEM_AMO_EXT_TYPES(X) X(float, float) X(double, double) SHMEM_AMO_STD_TYPES(X)
#define SHMEM_AMO_BIT_TYPES(X)                                                 \
    X(unsigned int, uint)                                                      \
    X(unsigned long, ulong)                                                    \
    X(unsigned long long, ulonglong)                                           \
    X(int32_t, int32)                                                          \
    X(int64_t, int64)                                                          \
    X(uint32_t, uint32)                                                        \
    X(uint64_t, uint64)
/* Types of the deprecated (pre-1.4) AMO names. */
#define SHMEM_AMO_DEPR_STD_TYPES(X) X(int, int) X(long, long) X(long long, longlong)
#define SHMEM_AMO_DEPR_EXT_TYPES(X) X(float, float) X(double, double) SHMEM_AMO_DEPR_STD_TYPES(X)

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

/* ---- OpenSHMEM 1.6: blocked strided RMA (ibput, ibget) -----------------
 * nblocks blocks of bsize elements; block i starts at element i*sst of
 * source and i*dst of dest (strides in elements, >= 1). No mem form. */
#define SYMM_DECL_IBRMA_FORMS(PFX, SFX, T)                                                    \
    SYMM_API void shmem_##PFX##ibput##SFX(T *dest, const T *source, ptrdiff_t dst,            \
                                          ptrdiff_t sst, size_t bsize, size_t nblocks, int pe); \
    SYMM_API void shmem_##PFX##ibget##SFX(T *dest, const T *source, ptrdiff_t dst,            \
                                          ptrdiff_t sst, size_t bsize, size_t nblocks, int pe); \
    SYMM_API void shmem_ctx_##PFX##ibput##SFX(shmem_ctx_t ctx, T *dest, const T *source,      \
                                              ptrdiff_t dst, ptrdiff_t sst, size_t bsize,     \
                                              size_t nblocks, int pe);                        \
    SYMM_API void shmem_ctx_##PFX##ibget##SFX(shmem_ctx_t ctx, T *dest, const T *source,      \
                                              ptrdiff_t dst, ptrdiff_t sst, size_t bsize,     \
                                              size_t nblocks, int pe);
#define SYMM_DECL_IBRMA(T, N) SYMM_DECL_IBRMA_FORMS(N##_, , T)
#define SYMM_DECL_IBRMA_SIZED(BITS) SYMM_DECL_IBRMA_FORMS(, BITS, void)
SHMEM_RMA_TYPES(SYMM_DECL_IBRMA)
SHMEM_SIZES(SYMM_DECL_IBRMA_SIZED)

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

/* ---- teams ------------------------------------------------------------ */
typedef struct symm_team *shmem_team_t;
SYMM_API_VAR extern shmem_team_t SHMEM_TEAM_WORLD;
SYMM_API_VAR extern shmem_team_t SHMEM_TEAM_SHARED;
#define SHMEM_TEAM_INVALID ((shmem_team_t)0)
typedef struct {
    int num_contexts;
} shmem_team_config_t;
#define SHMEM_TEAM_NUM_CONTEXTS (1L << 0)
SYMM_API int shmem_team_my_pe(shmem_team_t team);
SYMM_API int shmem_team_n_pes(shmem_team_t team);
SYMM_API int shmem_team_get_config(shmem_team_t team, long config_mask,
                                   shmem_team_config_t *config);
SYMM_API int shmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team);
SYMM_API int shmem_team_split_strided(shmem_team_t parent_team, int start, int stride, int size,
                                      const shmem_team_config_t *config, long config_mask,
                                      shmem_team_t *new_team);
SYMM_API int shmem_team_split_2d(shmem_team_t parent_team, int xrange,
                                 const shmem_team_config_t *xaxis_config, long xaxis_mask,
                                 shmem_team_t *xaxis_team,
                                 const shmem_team_config_t *yaxis_config, long yaxis_mask,
                                 shmem_team_t *yaxis_team);
SYMM_API void shmem_team_destroy(shmem_team_t team);
SYMM_API int shmem_team_sync(shmem_team_t team);
SYMM_API void *shmem_team_ptr(shmem_team_t team, const void *dest, int pe);

/* ---- contexts --------------------------------------------------------- */
#define SHMEM_CTX_SERIALIZED (1L << 0)
#define SHMEM_CTX_PRIVATE (1L << 1)
#define SHMEM_CTX_NOSTORE (1L << 2)
SYMM_API int shmem_ctx_create(long options, shmem_ctx_t *ctx);
SYMM_API void shmem_ctx_destroy(shmem_ctx_t ctx);
SYMM_API int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team);
SYMM_API int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx);

/* ---- OpenSHMEM 1.6: communication sessions -----------------------------
 * Hints only (the spec lets an implementation ignore them): symm accepts
 * and checks them; see src/api/shmem/shmem_ctx_session.c for what each path does. */
#define SYMM_HAVE_CTX_SESSION 1
#define SHMEM_CTX_SESSION_BATCH (1L << 0)
#define SHMEM_CTX_SESSION_TOTAL_OPS (1L << 0)
typedef struct {
    size_t total_ops;
} shmem_ctx_session_config_t;
SYMM_API void shmem_ctx_session_start(shmem_ctx_t ctx, long options,
                                      const shmem_ctx_session_config_t *config, long config_mask);
SYMM_API void shmem_ctx_session_stop(shmem_ctx_t ctx);

/* ---- atomic memory operations ------------------------------------------ */
#define SYMM_HAVE_AMO 1
#define SYMM_DECL_AMO_EXT(T, N)                                                                 \
    SYMM_API T shmem_##N##_atomic_fetch(const T *source, int pe);                             \
    SYMM_API T shmem_ctx_##N##_atomic_fetch(shmem_ctx_t ctx, const T *source, int pe);        \
    SYMM_API void shmem_##N##_atomic_set(T *dest, T value, int pe);                           \
    SYMM_API void shmem_ctx_##N##_atomic_set(shmem_ctx_t ctx, T *dest, T value, int pe);      \
    SYMM_API T shmem_##N##_atomic_swap(T *dest, T value, int pe);                             \
    SYMM_API T shmem_ctx_##N##_atomic_swap(shmem_ctx_t ctx, T *dest, T value, int pe);        \
    SYMM_API void shmem_##N##_atomic_fetch_nbi(T *fetch, const T *source, int pe);            \
    SYMM_API void shmem_ctx_##N##_atomic_fetch_nbi(shmem_ctx_t ctx, T *fetch, const T *source, \
                                                   int pe);                                   \
    SYMM_API void shmem_##N##_atomic_swap_nbi(T *fetch, T *dest, T value, int pe);            \
    SYMM_API void shmem_ctx_##N##_atomic_swap_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T value, \
                                                  int pe);
SHMEM_AMO_EXT_TYPES(SYMM_DECL_AMO_EXT)

#define SYMM_DECL_AMO_STD(T, N)                                                                 \
    SYMM_API T shmem_##N##_atomic_compare_swap(T *dest, T cond, T value, int pe);             \
    SYMM_API T shmem_ctx_##N##_atomic_compare_swap(shmem_ctx_t ctx, T *dest, T cond, T value, \
                                                   int pe);                                   \
    SYMM_API T shmem_##N##_atomic_fetch_inc(T *dest, int pe);                                 \
    SYMM_API T shmem_ctx_##N##_atomic_fetch_inc(shmem_ctx_t ctx, T *dest, int pe);            \
    SYMM_API void shmem_##N##_atomic_inc(T *dest, int pe);                                    \
    SYMM_API void shmem_ctx_##N##_atomic_inc(shmem_ctx_t ctx, T *dest, int pe);               \
    SYMM_API T shmem_##N##_atomic_fetch_add(T *dest, T value, int pe);                        \
    SYMM_API T shmem_ctx_##N##_atomic_fetch_add(shmem_ctx_t ctx, T *dest, T value, int pe);   \
    SYMM_API void shmem_##N##_atomic_add(T *dest, T value, int pe);                           \
    SYMM_API void shmem_ctx_##N##_atomic_add(shmem_ctx_t ctx, T *dest, T value, int pe);      \
    SYMM_API void shmem_##N##_atomic_compare_swap_nbi(T *fetch, T *dest, T cond, T value,     \
                                                      int pe);                                \
    SYMM_API void shmem_ctx_##N##_atomic_compare_swap_nbi(shmem_ctx_t ctx, T *fetch, T *dest, \
                                                          T cond, T value, int pe);           \
    SYMM_API void shmem_##N##_atomic_fetch_inc_nbi(T *fetch, T *dest, int pe);                \
    SYMM_API void shmem_ctx_##N##_atomic_fetch_inc_nbi(shmem_ctx_t ctx, T *fetch, T *dest,    \
                                                       int pe);                               \
    SYMM_API void shmem_##N##_atomic_fetch_add_nbi(T *fetch, T *dest, T value, int pe);       \
    SYMM_API void shmem_ctx_##N##_atomic_fetch_add_nbi(shmem_ctx_t ctx, T *fetch, T *dest,    \
                                                       T value, int pe);
SHMEM_AMO_STD_TYPES(SYMM_DECL_AMO_STD)

#define SYMM_DECL_AMO_BIT_OP(T, N, OP)                                                          \
    SYMM_API T shmem_##N##_atomic_fetch_##OP(T *dest, T value, int pe);                       \
    SYMM_API T shmem_ctx_##N##_atomic_fetch_##OP(shmem_ctx_t ctx, T *dest, T value, int pe);  \
    SYMM_API void shmem_##N##_atomic_##OP(T *dest, T value, int pe);                          \
    SYMM_API void shmem_ctx_##N##_atomic_##OP(shmem_ctx_t ctx, T *dest, T value, int pe);     \
    SYMM_API void shmem_##N##_atomic_fetch_##OP##_nbi(T *fetch, T *dest, T value, int pe);    \
    SYMM_API void shmem_ctx_##N##_atomic_fetch_##OP##_nbi(shmem_ctx_t ctx, T *fetch, T *dest, \
                                                          T value, int pe);
#define SYMM_DECL_AMO_BIT(T, N)                                                                 \
    SYMM_DECL_AMO_BIT_OP(T, N, and) SYMM_DECL_AMO_BIT_OP(T, N, or) SYMM_DECL_AMO_BIT_OP(T, N, xor)
SHMEM_AMO_BIT_TYPES(SYMM_DECL_AMO_BIT)

/* Deprecated pre-1.4 names (same routines). */
#define SYMM_DECL_AMO_DEPR_STD(T, N)                                                            \
    SYMM_API T shmem_##N##_cswap(T *dest, T cond, T value, int pe) SYMM_DEPRECATED;           \
    SYMM_API T shmem_##N##_finc(T *dest, int pe) SYMM_DEPRECATED;                             \
    SYMM_API void shmem_##N##_inc(T *dest, int pe) SYMM_DEPRECATED;                           \
    SYMM_API T shmem_##N##_fadd(T *dest, T value, int pe) SYMM_DEPRECATED;                    \
    SYMM_API void shmem_##N##_add(T *dest, T value, int pe) SYMM_DEPRECATED;
SHMEM_AMO_DEPR_STD_TYPES(SYMM_DECL_AMO_DEPR_STD)
#define SYMM_DECL_AMO_DEPR_EXT(T, N)                                                            \
    SYMM_API T shmem_##N##_swap(T *dest, T value, int pe) SYMM_DEPRECATED;                    \
    SYMM_API T shmem_##N##_fetch(const T *source, int pe) SYMM_DEPRECATED;                    \
    SYMM_API void shmem_##N##_set(T *dest, T value, int pe) SYMM_DEPRECATED;
SHMEM_AMO_DEPR_EXT_TYPES(SYMM_DECL_AMO_DEPR_EXT)
/* The untyped long form from before 1.0. In C11 and C++ the name is the
 * deprecated generic (below), which takes long * as well (shmem_long_swap). */
#if !defined(__cplusplus) && !(defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L)
SYMM_API long shmem_swap(long *dest, long value, int pe) SYMM_DEPRECATED;
#endif

/* ---- signals ---------------------------------------------------------- */
#define SYMM_HAVE_SIGNAL 1
#define SHMEM_SIGNAL_SET 0
#define SHMEM_SIGNAL_ADD 1
#define SYMM_DECL_PUT_SIGNAL(T, N)                                                              \
    SYMM_API void shmem_##N##_put_signal(T *dest, const T *source, size_t nelems,             \
                                         uint64_t *sig_addr, uint64_t signal, int sig_op,     \
                                         int pe);                                             \
    SYMM_API void shmem_ctx_##N##_put_signal(shmem_ctx_t ctx, T *dest, const T *source,       \
                                             size_t nelems, uint64_t *sig_addr,               \
                                             uint64_t signal, int sig_op, int pe);            \
    SYMM_API void shmem_##N##_put_signal_nbi(T *dest, const T *source, size_t nelems,         \
                                             uint64_t *sig_addr, uint64_t signal, int sig_op, \
                                             int pe);                                         \
    SYMM_API void shmem_ctx_##N##_put_signal_nbi(shmem_ctx_t ctx, T *dest, const T *source,   \
                                                 size_t nelems, uint64_t *sig_addr,           \
                                                 uint64_t signal, int sig_op, int pe);
SHMEM_RMA_TYPES(SYMM_DECL_PUT_SIGNAL)
#define SYMM_DECL_PUT_SIGNAL_SIZED(BITS)                                                        \
    SYMM_API void shmem_put##BITS##_signal(void *dest, const void *source, size_t nelems,     \
                                           uint64_t *sig_addr, uint64_t signal, int sig_op,   \
                                           int pe);                                           \
    SYMM_API void shmem_ctx_put##BITS##_signal(shmem_ctx_t ctx, void *dest, const void *source, \
                                               size_t nelems, uint64_t *sig_addr,             \
                                               uint64_t signal, int sig_op, int pe);          \
    SYMM_API void shmem_put##BITS##_signal_nbi(void *dest, const void *source, size_t nelems, \
                                               uint64_t *sig_addr, uint64_t signal,           \
                                               int sig_op, int pe);                           \
    SYMM_API void shmem_ctx_put##BITS##_signal_nbi(shmem_ctx_t ctx, void *dest,               \
                                                   const void *source, size_t nelems,         \
                                                   uint64_t *sig_addr, uint64_t signal,       \
                                                   int sig_op, int pe);
SHMEM_SIZES(SYMM_DECL_PUT_SIGNAL_SIZED)
SYMM_API void shmem_putmem_signal(void *dest, const void *source, size_t nelems,
                                  uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
SYMM_API void shmem_ctx_putmem_signal(shmem_ctx_t ctx, void *dest, const void *source,
                                      size_t nelems, uint64_t *sig_addr, uint64_t signal,
                                      int sig_op, int pe);
SYMM_API void shmem_putmem_signal_nbi(void *dest, const void *source, size_t nelems,
                                      uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
SYMM_API void shmem_ctx_putmem_signal_nbi(shmem_ctx_t ctx, void *dest, const void *source,
                                          size_t nelems, uint64_t *sig_addr, uint64_t signal,
                                          int sig_op, int pe);
SYMM_API uint64_t shmem_signal_fetch(const uint64_t *sig_addr);
SYMM_API uint64_t shmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value);
SYMM_API void shmem_signal_add(uint64_t *sig_addr, uint64_t signal, int pe);
SYMM_API void shmem_ctx_signal_add(shmem_ctx_t ctx, uint64_t *sig_addr, uint64_t signal, int pe);
SYMM_API void shmem_signal_set(uint64_t *sig_addr, uint64_t signal, int pe);
SYMM_API void shmem_ctx_signal_set(shmem_ctx_t ctx, uint64_t *sig_addr, uint64_t signal, int pe);

/* ---- collectives -------------------------------------------------------- */
#define SYMM_HAVE_COLL 1
/* pSync/pWrk sizes of the deprecated active-set collectives (in longs /
 * elements). symm uses pSync for a counting barrier (one word per round)
 * and one word of collect's count. */
#define SHMEM_SYNC_VALUE 0L
#define SHMEM_BARRIER_SYNC_SIZE 40
#define SHMEM_BCAST_SYNC_SIZE 40
#define SHMEM_REDUCE_SYNC_SIZE 40
#define SHMEM_COLLECT_SYNC_SIZE 40
#define SHMEM_ALLTOALL_SYNC_SIZE 40
#define SHMEM_ALLTOALLS_SYNC_SIZE 40
#define SHMEM_SYNC_SIZE 40
#define SHMEM_REDUCE_MIN_WRKDATA_SIZE 1
#define _SHMEM_SYNC_VALUE SHMEM_SYNC_VALUE
#define _SHMEM_BARRIER_SYNC_SIZE SHMEM_BARRIER_SYNC_SIZE
#define _SHMEM_BCAST_SYNC_SIZE SHMEM_BCAST_SYNC_SIZE
#define _SHMEM_REDUCE_SYNC_SIZE SHMEM_REDUCE_SYNC_SIZE
#define _SHMEM_COLLECT_SYNC_SIZE SHMEM_COLLECT_SYNC_SIZE
#define _SHMEM_ALLTOALL_SYNC_SIZE SHMEM_ALLTOALL_SYNC_SIZE
#define _SHMEM_ALLTOALLS_SYNC_SIZE SHMEM_ALLTOALLS_SYNC_SIZE
#define _SHMEM_SYNC_SIZE SHMEM_SYNC_SIZE
#define _SHMEM_REDUCE_MIN_WRKDATA_SIZE SHMEM_REDUCE_MIN_WRKDATA_SIZE

#define SYMM_DECL_COLL(T, N)                                                                    \
    SYMM_API int shmem_##N##_broadcast(shmem_team_t team, T *dest, const T *source,           \
                                       size_t nelems, int PE_root);                           \
    SYMM_API int shmem_##N##_collect(shmem_team_t team, T *dest, const T *source,             \
                                     size_t nelems);                                          \
    SYMM_API int shmem_##N##_fcollect(shmem_team_t team, T *dest, const T *source,            \
                                      size_t nelems);                                         \
    SYMM_API int shmem_##N##_alltoall(shmem_team_t team, T *dest, const T *source,            \
                                      size_t nelems);                                         \
    SYMM_API int shmem_##N##_alltoalls(shmem_team_t team, T *dest, const T *source,           \
                                       ptrdiff_t dst, ptrdiff_t sst, size_t nelems);
SHMEM_RMA_TYPES(SYMM_DECL_COLL)
SYMM_API int shmem_broadcastmem(shmem_team_t team, void *dest, const void *source, size_t nelems,
                                int PE_root);
SYMM_API int shmem_collectmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
SYMM_API int shmem_fcollectmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
SYMM_API int shmem_alltoallmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
SYMM_API int shmem_alltoallsmem(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst,
                                ptrdiff_t sst, size_t nelems);

/* Reduction types (spec Table 10): bitwise (and, or, xor), ordered (max,
 * min) and arithmetic (sum, prod; ordered types plus complex). */
#define SHMEM_REDUCE_BIT_TYPES(X)                                              \
    X(unsigned char, uchar) X(unsigned short, ushort) X(unsigned int, uint)    \
    X(unsigned long, ulong) X(unsigned long long, ulonglong)                   \
    X(int8_t, int8) X(int16_t, int16) X(int32_t, int32) X(int64_t, int64)      \
    X(uint8_t, uint8) X(uint16_t, uint16) X(uint32_t, uint32)                  \
    X(uint64_t, uint64) X(size_t, size)
#define SHMEM_REDUCE_MINMAX_TYPES(X)                                           \
    X(char, char) X(signed char, schar) X(short, short) X(int, int)            \
    X(long, long) X(long long, longlong) X(ptrdiff_t, ptrdiff)                 \
    X(unsigned char, uchar) X(unsigned short, ushort) X(unsigned int, uint)    \
    X(unsigned long, ulong) X(unsigned long long, ulonglong)                   \
    X(int8_t, int8) X(int16_t, int16) X(int32_t, int32) X(int64_t, int64)      \
    X(uint8_t, uint8) X(uint16_t, uint16) X(uint32_t, uint32)                  \
    X(uint64_t, uint64) X(size_t, size) X(float, float) X(double, double)      \
    X(long double, longdouble)
#ifndef __cplusplus
#define SHMEM_REDUCE_COMPLEX_TYPES(X) X(double _Complex, complexd) X(float _Complex, complexf)
#else
/* The same routines: std::complex<T> has the layout of T _Complex (C++11
 * [complex.numbers]: an array of two T, real part first). */
#define SHMEM_REDUCE_COMPLEX_TYPES(X) X(std::complex<double>, complexd) X(std::complex<float>, complexf)
#endif
#define SHMEM_REDUCE_ARITH_TYPES(X) SHMEM_REDUCE_MINMAX_TYPES(X) SHMEM_REDUCE_COMPLEX_TYPES(X)

#define SYMM_DECL_REDUCE_OP(T, N, OP)                                                           \
    SYMM_API int shmem_##N##_##OP##_reduce(shmem_team_t team, T *dest, const T *source,       \
                                           size_t nreduce);
#define SYMM_DECL_REDUCE_BIT(T, N)                                                              \
    SYMM_DECL_REDUCE_OP(T, N, and) SYMM_DECL_REDUCE_OP(T, N, or) SYMM_DECL_REDUCE_OP(T, N, xor)
#define SYMM_DECL_REDUCE_MINMAX(T, N) SYMM_DECL_REDUCE_OP(T, N, max) SYMM_DECL_REDUCE_OP(T, N, min)
#define SYMM_DECL_REDUCE_ARITH(T, N) SYMM_DECL_REDUCE_OP(T, N, sum) SYMM_DECL_REDUCE_OP(T, N, prod)
SHMEM_REDUCE_BIT_TYPES(SYMM_DECL_REDUCE_BIT)
SHMEM_REDUCE_MINMAX_TYPES(SYMM_DECL_REDUCE_MINMAX)
SHMEM_REDUCE_ARITH_TYPES(SYMM_DECL_REDUCE_ARITH)

/* ---- OpenSHMEM 1.6: scans (prefix sums) over a team --------------------
 * The types of the SUM reduction. dest on the team's member i gets the sum
 * of source over members 0..i (inscan) or 0..i-1 (exscan; 0 on member 0).
 * dest and source are the same array or disjoint. 0 on success. */
#define SYMM_DECL_SCAN(T, N)                                                                  \
    SYMM_API int shmem_##N##_sum_inscan(shmem_team_t team, T *dest, const T *source,          \
                                        size_t nelems);                                       \
    SYMM_API int shmem_##N##_sum_exscan(shmem_team_t team, T *dest, const T *source,          \
                                        size_t nelems);
SHMEM_REDUCE_ARITH_TYPES(SYMM_DECL_SCAN)

/* Deprecated active-set collectives (PE_start, logPE_stride, PE_size, pSync). */
SYMM_API void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync);
SYMM_API void shmem_sync(int PE_start, int logPE_stride, int PE_size, long *pSync);
#define SYMM_DECL_COLL_SIZED(BITS)                                                              \
    SYMM_API void shmem_broadcast##BITS(void *dest, const void *source, size_t nelems,        \
                                        int PE_root, int PE_start, int logPE_stride,          \
                                        int PE_size, long *pSync);                            \
    SYMM_API void shmem_collect##BITS(void *dest, const void *source, size_t nelems,          \
                                      int PE_start, int logPE_stride, int PE_size,            \
                                      long *pSync);                                           \
    SYMM_API void shmem_fcollect##BITS(void *dest, const void *source, size_t nelems,         \
                                       int PE_start, int logPE_stride, int PE_size,           \
                                       long *pSync);                                          \
    SYMM_API void shmem_alltoall##BITS(void *dest, const void *source, size_t nelems,         \
                                       int PE_start, int logPE_stride, int PE_size,           \
                                       long *pSync);                                          \
    SYMM_API void shmem_alltoalls##BITS(void *dest, const void *source, ptrdiff_t dst,        \
                                        ptrdiff_t sst, size_t nelems, int PE_start,           \
                                        int logPE_stride, int PE_size, long *pSync);
SYMM_DECL_COLL_SIZED(32)
SYMM_DECL_COLL_SIZED(64)

#define SHMEM_TO_ALL_BIT_TYPES(X) X(short, short) X(int, int) X(long, long) X(long long, longlong)
#define SHMEM_TO_ALL_MINMAX_TYPES(X)                                           \
    SHMEM_TO_ALL_BIT_TYPES(X) X(float, float) X(double, double) X(long double, longdouble)
#define SHMEM_TO_ALL_ARITH_TYPES(X) SHMEM_TO_ALL_MINMAX_TYPES(X) SHMEM_REDUCE_COMPLEX_TYPES(X)
#define SYMM_DECL_TO_ALL_OP(T, N, OP)                                                           \
    SYMM_API void shmem_##N##_##OP##_to_all(T *dest, const T *source, int nreduce,            \
                                            int PE_start, int logPE_stride, int PE_size,      \
                                            T *pWrk, long *pSync);
#define SYMM_DECL_TO_ALL_BIT(T, N)                                                              \
    SYMM_DECL_TO_ALL_OP(T, N, and) SYMM_DECL_TO_ALL_OP(T, N, or) SYMM_DECL_TO_ALL_OP(T, N, xor)
#define SYMM_DECL_TO_ALL_MINMAX(T, N) SYMM_DECL_TO_ALL_OP(T, N, max) SYMM_DECL_TO_ALL_OP(T, N, min)
#define SYMM_DECL_TO_ALL_ARITH(T, N) SYMM_DECL_TO_ALL_OP(T, N, sum) SYMM_DECL_TO_ALL_OP(T, N, prod)
SHMEM_TO_ALL_BIT_TYPES(SYMM_DECL_TO_ALL_BIT)
SHMEM_TO_ALL_MINMAX_TYPES(SYMM_DECL_TO_ALL_MINMAX)
SHMEM_TO_ALL_ARITH_TYPES(SYMM_DECL_TO_ALL_ARITH)

/* ---- distributed locks ------------------------------------------------ */
SYMM_API void shmem_set_lock(long *lock);
SYMM_API void shmem_clear_lock(long *lock);
SYMM_API int shmem_test_lock(long *lock);

/* ---- profiling -------------------------------------------------------- */
SYMM_API void shmem_pcontrol(int level, ...);

/* ---- ordering and synchronization ------------------------------------- */
SYMM_API void shmem_fence(void);
SYMM_API void shmem_quiet(void);
SYMM_API void shmem_ctx_fence(shmem_ctx_t ctx);
SYMM_API void shmem_ctx_quiet(shmem_ctx_t ctx);
/* OpenSHMEM 1.6: quiet towards npes target PEs only (numbered in the
 * context's team). */
SYMM_API void shmem_pe_quiet(const int *target_pes, size_t npes);
SYMM_API void shmem_ctx_pe_quiet(shmem_ctx_t ctx, const int *target_pes, size_t npes);
SYMM_API void shmem_barrier_all(void);
SYMM_API void shmem_sync_all(void);

#define SYMM_DECL_P2P(T, N)                                                                     \
    SYMM_API void shmem_##N##_wait_until(T *ivar, int cmp, T cmp_value);                      \
    SYMM_API void shmem_##N##_wait_until_all(T *ivars, size_t nelems, const int *status,      \
                                             int cmp, T cmp_value);                           \
    SYMM_API size_t shmem_##N##_wait_until_any(T *ivars, size_t nelems, const int *status,    \
                                               int cmp, T cmp_value);                         \
    SYMM_API size_t shmem_##N##_wait_until_some(T *ivars, size_t nelems, size_t *indices,     \
                                                const int *status, int cmp, T cmp_value);     \
    SYMM_API void shmem_##N##_wait_until_all_vector(T *ivars, size_t nelems,                  \
                                                    const int *status, int cmp,               \
                                                    const T *cmp_values);                     \
    SYMM_API size_t shmem_##N##_wait_until_any_vector(T *ivars, size_t nelems,                \
                                                      const int *status, int cmp,             \
                                                      const T *cmp_values);                   \
    SYMM_API size_t shmem_##N##_wait_until_some_vector(T *ivars, size_t nelems,               \
                                                       size_t *indices, const int *status,    \
                                                       int cmp, const T *cmp_values);         \
    SYMM_API int shmem_##N##_test(T *ivar, int cmp, T cmp_value);                             \
    SYMM_API int shmem_##N##_test_all(T *ivars, size_t nelems, const int *status, int cmp,    \
                                      T cmp_value);                                           \
    SYMM_API size_t shmem_##N##_test_any(T *ivars, size_t nelems, const int *status, int cmp, \
                                         T cmp_value);                                        \
    SYMM_API size_t shmem_##N##_test_some(T *ivars, size_t nelems, size_t *indices,           \
                                          const int *status, int cmp, T cmp_value);           \
    SYMM_API int shmem_##N##_test_all_vector(T *ivars, size_t nelems, const int *status,      \
                                             int cmp, const T *cmp_values);                   \
    SYMM_API size_t shmem_##N##_test_any_vector(T *ivars, size_t nelems, const int *status,   \
                                                int cmp, const T *cmp_values);                \
    SYMM_API size_t shmem_##N##_test_some_vector(T *ivars, size_t nelems, size_t *indices,    \
                                                 const int *status, int cmp,                  \
                                                 const T *cmp_values);                        \
    SYMM_API void shmem_##N##_wait(T *ivar, T cmp_value) SYMM_DEPRECATED;
SHMEM_P2P_TYPES(SYMM_DECL_P2P)
/* The deprecated untyped long form. In C++ the name is the generic's
 * overloads (below), which take long * as well (shmem_long_wait_until). */
#ifndef __cplusplus
SYMM_API void shmem_wait_until(long *ivar, int cmp, long cmp_value) SYMM_DEPRECATED;
#endif
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

/* GNU complex types in C++: programs written for other OpenSHMEM libraries
 * pass double _Complex (written __complex__ double in C++, a GNU extension
 * g++ and clang++ take) where symm declares std::complex<double>; both have
 * the layout of C's double _Complex. Every routine typed with a complex
 * type gets an overload taking the GNU type, and the generic names below
 * take both. symm_cxx_* are the non-overloaded forms the generics use. */
__extension__ typedef __complex__ double symm_gnu_complexd;
__extension__ typedef __complex__ float symm_gnu_complexf;
#define SYMM_CXX_CPLX_TYPES(X)                           \
    X(std::complex<double>, symm_gnu_complexd, complexd) \
    X(std::complex<float>, symm_gnu_complexf, complexf)
#define SYMM_CXX_CPLX_RED(S, G, N, OP)                                                      \
    inline int shmem_##N##_##OP(shmem_team_t team, G *dest, const G *source, size_t n)      \
    {                                                                                       \
        return shmem_##N##_##OP(team, reinterpret_cast<S *>(dest),                          \
                                reinterpret_cast<const S *>(source), n);                    \
    }                                                                                       \
    inline int shmem_cxx_##N##_##OP(shmem_team_t team, S *dest, const S *source, size_t n)  \
    {                                                                                       \
        return shmem_##N##_##OP(team, dest, source, n);                                     \
    }                                                                                       \
    inline int shmem_cxx_g##N##_##OP(shmem_team_t team, G *dest, const G *source, size_t n) \
    {                                                                                       \
        return shmem_##N##_##OP(team, dest, source, n);                                     \
    }
#define SYMM_CXX_CPLX_TO_ALL(S, G, N, OP)                                                      \
    inline void shmem_##N##_##OP##_to_all(G *dest, const G *source, int nreduce, int PE_start, \
                                          int logPE_stride, int PE_size, G *pWrk, long *pSync) \
    {                                                                                          \
        shmem_##N##_##OP##_to_all(reinterpret_cast<S *>(dest),                                 \
                                  reinterpret_cast<const S *>(source), nreduce, PE_start,      \
                                  logPE_stride, PE_size, reinterpret_cast<S *>(pWrk), pSync);  \
    }
#define SYMM_CXX_CPLX_ALL(S, G, N)                                                 \
    SYMM_CXX_CPLX_RED(S, G, N, sum_reduce)                                         \
    SYMM_CXX_CPLX_RED(S, G, N, prod_reduce) SYMM_CXX_CPLX_RED(S, G, N, sum_inscan) \
        SYMM_CXX_CPLX_RED(S, G, N, sum_exscan) SYMM_CXX_CPLX_TO_ALL(S, G, N, sum)  \
            SYMM_CXX_CPLX_TO_ALL(S, G, N, prod)
SYMM_CXX_CPLX_TYPES(SYMM_CXX_CPLX_ALL)
#endif

/* shmem_sync: 1.5's shmem_sync(team) beside the deprecated active-set
 * shmem_sync(PE_start, logPE_stride, PE_size, pSync), one name in both
 * languages (as SOS and OSHMPI do). The routines stay real symbols:
 * shmem_team_sync (the team form) and shmem_sync (the active-set form), each
 * with its pshmem_ name. C selects on the argument count; C++ overloads. */
#ifdef __cplusplus
inline int shmem_sync(shmem_team_t team) { return shmem_team_sync(team); }
#else
#define SYMM_SYNC_SEL(_1, _2, _3, _4, NAME, ...) NAME
#define shmem_sync(...)                                                        \
    SYMM_SYNC_SEL(__VA_ARGS__, shmem_sync, shmem_sync_takes_1_or_4_arguments,   \
                  shmem_sync_takes_1_or_4_arguments, shmem_team_sync, 0)(__VA_ARGS__)
#endif

/* ---- the generic names' type lists --------------------------------------
 * X(TYPE, TYPENAME, OP) per type a generic name takes, for C11's _Generic
 * and C++'s overloads below: base types only (a selection or an overload
 * set can name each type once; the fixed-width and size typedefs of the
 * spec's tables land on them, which the C11 block asserts). */
#if (!defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L) || \
    (defined(__cplusplus) && __cplusplus >= 201103L)
#define SYMM_GL_AMO_STD(X, OP)                                                \
    X(int, int, OP) X(long, long, OP) X(long long, longlong, OP)               \
    X(unsigned int, uint, OP) X(unsigned long, ulong, OP)                      \
    X(unsigned long long, ulonglong, OP)
#define SYMM_GL_AMO_EXT(X, OP) X(float, float, OP) X(double, double, OP) SYMM_GL_AMO_STD(X, OP)
/* The deprecated generic AMO names (shmem_fadd, shmem_swap, ...): 1.5 lists
 * int, long and long long, and float and double for swap, fetch and set,
 * each selecting its deprecated typed routine (shmem_int_fadd). The other
 * types of Tables 6 and 7 (the unsigned ones) are taken too, as SOS does,
 * and select the current routine (shmem_uint_atomic_fetch_add): DEPR_MORE. */
#define SYMM_GL_AMO_DEPR_STD(X, OP) X(int, int, OP) X(long, long, OP) X(long long, longlong, OP)
#define SYMM_GL_AMO_DEPR_EXT(X, OP)                                            \
    X(float, float, OP) X(double, double, OP) SYMM_GL_AMO_DEPR_STD(X, OP)
#define SYMM_GL_AMO_DEPR_MORE(X, OP)                                           \
    X(unsigned int, uint, OP) X(unsigned long, ulong, OP)                      \
    X(unsigned long long, ulonglong, OP)
/* Bitwise AMOs (Table 8): the signed types are int32_t and int64_t only,
 * named by their typedefs (they can never repeat an unsigned entry), the
 * unsigned fixed-width ones are the unsigned base types (asserted below). */
#define SYMM_GL_AMO_BIT(X, OP)                                                \
    X(unsigned int, uint, OP) X(unsigned long, ulong, OP)                      \
    X(unsigned long long, ulonglong, OP) X(int32_t, int32, OP)                 \
    X(int64_t, int64, OP)
#define SYMM_GL_P2P(X, OP)                                                    \
    X(short, short, OP) X(int, int, OP) X(long, long, OP) X(long long, longlong, OP) \
    X(unsigned short, ushort, OP) X(unsigned int, uint, OP)                    \
    X(unsigned long, ulong, OP) X(unsigned long long, ulonglong, OP)
#define SYMM_GL_RMA(X, OP)                                                    \
    X(float, float, OP) X(double, double, OP) X(long double, longdouble, OP)   \
    X(char, char, OP) X(signed char, schar, OP) X(short, short, OP)            \
    X(int, int, OP) X(long, long, OP) X(long long, longlong, OP)               \
    X(unsigned char, uchar, OP) X(unsigned short, ushort, OP)                  \
    X(unsigned int, uint, OP) X(unsigned long, ulong, OP)                      \
    X(unsigned long long, ulonglong, OP)
#define SYMM_GL_RED_UNSIGNED(X, OP)                                            \
    X(unsigned char, uchar, OP) X(unsigned short, ushort, OP)                  \
    X(unsigned int, uint, OP) X(unsigned long, ulong, OP)                      \
    X(unsigned long long, ulonglong, OP)
/* Bitwise reductions (Table 10): unsigned types and int8_t..int64_t, the
 * signed ones by their typedefs (never a repeat of an unsigned entry). */
#define SYMM_GL_RED_BIT(X, OP)                                                 \
    SYMM_GL_RED_UNSIGNED(X, OP) X(int8_t, int8, OP) X(int16_t, int16, OP)      \
    X(int32_t, int32, OP) X(int64_t, int64, OP)
#define SYMM_GL_RED_MINMAX(X, OP)                                              \
    X(char, char, OP) X(signed char, schar, OP) X(short, short, OP)            \
    X(int, int, OP) X(long, long, OP) X(long long, longlong, OP)               \
    SYMM_GL_RED_UNSIGNED(X, OP) X(float, float, OP) X(double, double, OP)     \
    X(long double, longdouble, OP)
#ifdef __cplusplus
/* The complex entries name the non-overloaded symm_cxx forms (shmem_cxx_N_OP),
 * std::complex and GNU complex both. */
#define SYMM_GL_RED_ARITH(X, OP)                                                       \
    SYMM_GL_RED_MINMAX(X, OP)                                                          \
    X(std::complex<double>, cxx_complexd, OP) X(std::complex<float>, cxx_complexf, OP) \
        X(symm_gnu_complexd, cxx_gcomplexd, OP) X(symm_gnu_complexf, cxx_gcomplexf, OP)
#else
#define SYMM_GL_RED_ARITH(X, OP)                                               \
    SYMM_GL_RED_MINMAX(X, OP) X(double _Complex, complexd, OP)                 \
    X(float _Complex, complexf, OP)
#endif
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

/* The lists above name base types and count on the fixed-width and size
 * typedefs of the spec's tables being among them (LP64 and ILP32 Linux):
 * checked here, so a platform where they are not fails at compile time. */
#define SYMM_IS_BASE_INT(T)                                                    \
    _Generic((T)0, signed char : 1, short : 1, int : 1, long : 1, long long : 1, \
             unsigned char : 1, unsigned short : 1, unsigned int : 1,          \
             unsigned long : 1, unsigned long long : 1, default : 0)
_Static_assert(SYMM_IS_BASE_INT(int8_t) && SYMM_IS_BASE_INT(int16_t) &&
                   SYMM_IS_BASE_INT(int32_t) && SYMM_IS_BASE_INT(int64_t) &&
                   SYMM_IS_BASE_INT(uint8_t) && SYMM_IS_BASE_INT(uint16_t) &&
                   SYMM_IS_BASE_INT(uint32_t) && SYMM_IS_BASE_INT(uint64_t) &&
                   SYMM_IS_BASE_INT(size_t) && SYMM_IS_BASE_INT(ptrdiff_t),
               "symm: a fixed-width or size typedef is not a standard integer type; "
               "shmem.h's _Generic lists need an entry for it");
#define SYMM_GSEL(L, OP, x) _Generic(*(x), L(SYMM_GEN_ASSOC, OP) default : symm_generic_unsupported_type)
#define SYMM_GSELC(L, OP, x)                                                   \
    _Generic(*(x), L(SYMM_GEN_ASSOC_CTX, OP) default : symm_generic_unsupported_type)

/* Dispatch on argument count K (plain) or K+1 (with a leading ctx). */
#define SYMM_GEN(L, OP, K, ...)                                                \
    SYMM_CAT(SYMM_GEN_, SYMM_CAT(K, SYMM_CAT(_, SYMM_NARG(__VA_ARGS__))))(L, OP, __VA_ARGS__)
#define SYMM_GEN_2_2(L, OP, a, ...) SYMM_GSEL(L, OP, a)(a, __VA_ARGS__)
#define SYMM_GEN_2_3(L, OP, c, a, ...) SYMM_GSELC(L, OP, a)(c, a, __VA_ARGS__)
#define SYMM_GEN_3_3 SYMM_GEN_2_2
#define SYMM_GEN_3_4 SYMM_GEN_2_3
#define SYMM_GEN_4_4 SYMM_GEN_2_2
#define SYMM_GEN_4_5 SYMM_GEN_2_3
#define SYMM_GEN_5_5 SYMM_GEN_2_2
#define SYMM_GEN_5_6 SYMM_GEN_2_3
#define SYMM_GEN_6_6 SYMM_GEN_2_2
#define SYMM_GEN_6_7 SYMM_GEN_2_3
#define SYMM_GEN_7_7 SYMM_GEN_2_2
#define SYMM_GEN_7_8 SYMM_GEN_2_3

#define shmem_atomic_fetch(...) SYMM_GEN(SYMM_GL_AMO_EXT, atomic_fetch, 2, __VA_ARGS__)
#define shmem_atomic_set(...) SYMM_GEN(SYMM_GL_AMO_EXT, atomic_set, 3, __VA_ARGS__)
#define shmem_atomic_swap(...) SYMM_GEN(SYMM_GL_AMO_EXT, atomic_swap, 3, __VA_ARGS__)
#define shmem_atomic_fetch_nbi(...) SYMM_GEN(SYMM_GL_AMO_EXT, atomic_fetch_nbi, 3, __VA_ARGS__)
#define shmem_atomic_swap_nbi(...) SYMM_GEN(SYMM_GL_AMO_EXT, atomic_swap_nbi, 4, __VA_ARGS__)
#define shmem_atomic_compare_swap(...)                                         \
    SYMM_GEN(SYMM_GL_AMO_STD, atomic_compare_swap, 4, __VA_ARGS__)
#define shmem_atomic_compare_swap_nbi(...)                                     \
    SYMM_GEN(SYMM_GL_AMO_STD, atomic_compare_swap_nbi, 5, __VA_ARGS__)
#define shmem_atomic_fetch_inc(...) SYMM_GEN(SYMM_GL_AMO_STD, atomic_fetch_inc, 2, __VA_ARGS__)
#define shmem_atomic_inc(...) SYMM_GEN(SYMM_GL_AMO_STD, atomic_inc, 2, __VA_ARGS__)
#define shmem_atomic_fetch_inc_nbi(...)                                        \
    SYMM_GEN(SYMM_GL_AMO_STD, atomic_fetch_inc_nbi, 3, __VA_ARGS__)
#define shmem_atomic_fetch_add(...) SYMM_GEN(SYMM_GL_AMO_STD, atomic_fetch_add, 3, __VA_ARGS__)
#define shmem_atomic_add(...) SYMM_GEN(SYMM_GL_AMO_STD, atomic_add, 3, __VA_ARGS__)
#define shmem_atomic_fetch_add_nbi(...)                                        \
    SYMM_GEN(SYMM_GL_AMO_STD, atomic_fetch_add_nbi, 4, __VA_ARGS__)
#define shmem_atomic_fetch_and(...) SYMM_GEN(SYMM_GL_AMO_BIT, atomic_fetch_and, 3, __VA_ARGS__)
#define shmem_atomic_and(...) SYMM_GEN(SYMM_GL_AMO_BIT, atomic_and, 3, __VA_ARGS__)
#define shmem_atomic_fetch_and_nbi(...)                                        \
    SYMM_GEN(SYMM_GL_AMO_BIT, atomic_fetch_and_nbi, 4, __VA_ARGS__)
#define shmem_atomic_fetch_or(...) SYMM_GEN(SYMM_GL_AMO_BIT, atomic_fetch_or, 3, __VA_ARGS__)
#define shmem_atomic_or(...) SYMM_GEN(SYMM_GL_AMO_BIT, atomic_or, 3, __VA_ARGS__)
#define shmem_atomic_fetch_or_nbi(...)                                         \
    SYMM_GEN(SYMM_GL_AMO_BIT, atomic_fetch_or_nbi, 4, __VA_ARGS__)
#define shmem_atomic_fetch_xor(...) SYMM_GEN(SYMM_GL_AMO_BIT, atomic_fetch_xor, 3, __VA_ARGS__)
#define shmem_atomic_xor(...) SYMM_GEN(SYMM_GL_AMO_BIT, atomic_xor, 3, __VA_ARGS__)
#define shmem_atomic_fetch_xor_nbi(...)                                        \
    SYMM_GEN(SYMM_GL_AMO_BIT, atomic_fetch_xor_nbi, 4, __VA_ARGS__)

/* Deprecated (pre-1.4) generic AMO names, no ctx forms: the spec's types
 * select the deprecated routine OLD, the unsigned ones the current NEW. */
#define SYMM_GSEL_DEPR(L, OLD, NEW, x)                                         \
    _Generic(*(x), L(SYMM_GEN_ASSOC, OLD) SYMM_GL_AMO_DEPR_MORE(SYMM_GEN_ASSOC, NEW) default \
             : symm_generic_unsupported_type)
#define shmem_cswap(dest, ...)                                                 \
    SYMM_GSEL_DEPR(SYMM_GL_AMO_DEPR_STD, cswap, atomic_compare_swap, dest)(dest, __VA_ARGS__)
#define shmem_finc(dest, ...)                                                  \
    SYMM_GSEL_DEPR(SYMM_GL_AMO_DEPR_STD, finc, atomic_fetch_inc, dest)(dest, __VA_ARGS__)
#define shmem_inc(dest, ...)                                                   \
    SYMM_GSEL_DEPR(SYMM_GL_AMO_DEPR_STD, inc, atomic_inc, dest)(dest, __VA_ARGS__)
#define shmem_fadd(dest, ...)                                                  \
    SYMM_GSEL_DEPR(SYMM_GL_AMO_DEPR_STD, fadd, atomic_fetch_add, dest)(dest, __VA_ARGS__)
#define shmem_add(dest, ...)                                                   \
    SYMM_GSEL_DEPR(SYMM_GL_AMO_DEPR_STD, add, atomic_add, dest)(dest, __VA_ARGS__)
#define shmem_swap(dest, ...)                                                  \
    SYMM_GSEL_DEPR(SYMM_GL_AMO_DEPR_EXT, swap, atomic_swap, dest)(dest, __VA_ARGS__)
#define shmem_fetch(src, ...)                                                  \
    SYMM_GSEL_DEPR(SYMM_GL_AMO_DEPR_EXT, fetch, atomic_fetch, src)(src, __VA_ARGS__)
#define shmem_set(dest, ...)                                                   \
    SYMM_GSEL_DEPR(SYMM_GL_AMO_DEPR_EXT, set, atomic_set, dest)(dest, __VA_ARGS__)

#define shmem_put(...) SYMM_GEN(SYMM_GL_RMA, put, 4, __VA_ARGS__)
#define shmem_get(...) SYMM_GEN(SYMM_GL_RMA, get, 4, __VA_ARGS__)
#define shmem_put_nbi(...) SYMM_GEN(SYMM_GL_RMA, put_nbi, 4, __VA_ARGS__)
#define shmem_get_nbi(...) SYMM_GEN(SYMM_GL_RMA, get_nbi, 4, __VA_ARGS__)
#define shmem_p(...) SYMM_GEN(SYMM_GL_RMA, p, 3, __VA_ARGS__)
#define shmem_g(...) SYMM_GEN(SYMM_GL_RMA, g, 2, __VA_ARGS__)
#define shmem_iput(...) SYMM_GEN(SYMM_GL_RMA, iput, 6, __VA_ARGS__)
#define shmem_iget(...) SYMM_GEN(SYMM_GL_RMA, iget, 6, __VA_ARGS__)
#define shmem_put_signal(...) SYMM_GEN(SYMM_GL_RMA, put_signal, 7, __VA_ARGS__)
#define shmem_put_signal_nbi(...) SYMM_GEN(SYMM_GL_RMA, put_signal_nbi, 7, __VA_ARGS__)
/* OpenSHMEM 1.6 blocked strided RMA. */
#define shmem_ibput(...) SYMM_GEN(SYMM_GL_RMA, ibput, 7, __VA_ARGS__)
#define shmem_ibget(...) SYMM_GEN(SYMM_GL_RMA, ibget, 7, __VA_ARGS__)

#define shmem_wait_until(ivar, ...) SYMM_GSEL(SYMM_GL_P2P, wait_until, ivar)(ivar, __VA_ARGS__)
#define shmem_test(ivar, ...) SYMM_GSEL(SYMM_GL_P2P, test, ivar)(ivar, __VA_ARGS__)
#define shmem_wait_until_all(ivars, ...) SYMM_GSEL(SYMM_GL_P2P, wait_until_all, ivars)(ivars, __VA_ARGS__)
#define shmem_wait_until_any(ivars, ...) SYMM_GSEL(SYMM_GL_P2P, wait_until_any, ivars)(ivars, __VA_ARGS__)
#define shmem_wait_until_some(ivars, ...) SYMM_GSEL(SYMM_GL_P2P, wait_until_some, ivars)(ivars, __VA_ARGS__)
#define shmem_wait_until_all_vector(ivars, ...)                                \
    SYMM_GSEL(SYMM_GL_P2P, wait_until_all_vector, ivars)(ivars, __VA_ARGS__)
#define shmem_wait_until_any_vector(ivars, ...)                                \
    SYMM_GSEL(SYMM_GL_P2P, wait_until_any_vector, ivars)(ivars, __VA_ARGS__)
#define shmem_wait_until_some_vector(ivars, ...)                               \
    SYMM_GSEL(SYMM_GL_P2P, wait_until_some_vector, ivars)(ivars, __VA_ARGS__)
#define shmem_test_all(ivars, ...) SYMM_GSEL(SYMM_GL_P2P, test_all, ivars)(ivars, __VA_ARGS__)
#define shmem_test_any(ivars, ...) SYMM_GSEL(SYMM_GL_P2P, test_any, ivars)(ivars, __VA_ARGS__)
#define shmem_test_some(ivars, ...) SYMM_GSEL(SYMM_GL_P2P, test_some, ivars)(ivars, __VA_ARGS__)
#define shmem_test_all_vector(ivars, ...)                                      \
    SYMM_GSEL(SYMM_GL_P2P, test_all_vector, ivars)(ivars, __VA_ARGS__)
#define shmem_test_any_vector(ivars, ...)                                      \
    SYMM_GSEL(SYMM_GL_P2P, test_any_vector, ivars)(ivars, __VA_ARGS__)
#define shmem_test_some_vector(ivars, ...)                                     \
    SYMM_GSEL(SYMM_GL_P2P, test_some_vector, ivars)(ivars, __VA_ARGS__)
#define SYMM_GEN_COLL(OP, team, dest, ...)                                     \
    SYMM_GSEL(SYMM_GL_RMA, OP, dest)(team, dest, __VA_ARGS__)
#define shmem_broadcast(team, dest, ...) SYMM_GEN_COLL(broadcast, team, dest, __VA_ARGS__)
#define shmem_collect(team, dest, ...) SYMM_GEN_COLL(collect, team, dest, __VA_ARGS__)
#define shmem_fcollect(team, dest, ...) SYMM_GEN_COLL(fcollect, team, dest, __VA_ARGS__)
#define shmem_alltoall(team, dest, ...) SYMM_GEN_COLL(alltoall, team, dest, __VA_ARGS__)
#define shmem_alltoalls(team, dest, ...) SYMM_GEN_COLL(alltoalls, team, dest, __VA_ARGS__)
#define SYMM_GEN_RED(L, OP, team, dest, ...) SYMM_GSEL(L, OP, dest)(team, dest, __VA_ARGS__)
#define shmem_and_reduce(team, dest, ...) SYMM_GEN_RED(SYMM_GL_RED_BIT, and_reduce, team, dest, __VA_ARGS__)
#define shmem_or_reduce(team, dest, ...) SYMM_GEN_RED(SYMM_GL_RED_BIT, or_reduce, team, dest, __VA_ARGS__)
#define shmem_xor_reduce(team, dest, ...) SYMM_GEN_RED(SYMM_GL_RED_BIT, xor_reduce, team, dest, __VA_ARGS__)
#define shmem_max_reduce(team, dest, ...) SYMM_GEN_RED(SYMM_GL_RED_MINMAX, max_reduce, team, dest, __VA_ARGS__)
#define shmem_min_reduce(team, dest, ...) SYMM_GEN_RED(SYMM_GL_RED_MINMAX, min_reduce, team, dest, __VA_ARGS__)
#define shmem_sum_reduce(team, dest, ...) SYMM_GEN_RED(SYMM_GL_RED_ARITH, sum_reduce, team, dest, __VA_ARGS__)
#define shmem_prod_reduce(team, dest, ...) SYMM_GEN_RED(SYMM_GL_RED_ARITH, prod_reduce, team, dest, __VA_ARGS__)
/* OpenSHMEM 1.6 scans: the SUM reduction's types. */
#define shmem_sum_inscan(team, dest, ...) SYMM_GEN_RED(SYMM_GL_RED_ARITH, sum_inscan, team, dest, __VA_ARGS__)
#define shmem_sum_exscan(team, dest, ...) SYMM_GEN_RED(SYMM_GL_RED_ARITH, sum_exscan, team, dest, __VA_ARGS__)
#endif /* C11 */

/* ---- C++: the generic names as overloads ------------------------------
 * The names of the C11 selections above, for C++ programs: each is a
 * constant function object whose call operators are the typed routines of
 * its list (and their ctx forms), each with that routine's exact parameter
 * types, so shmem_put(dest, src, n, pe) with int *dest calls
 * shmem_int_put, NULL passes for a pointer, and a type outside the list is
 * a compile error naming no matching call of shmem_put. */
#if defined(__cplusplus) && __cplusplus >= 201103L
template <typename F, F *fn> struct symm_cxx_call;
template <typename R, typename... P, R (*fn)(P...)> struct symm_cxx_call<R(P...), fn> {
    R operator()(P... p) const { return fn(p...); }
};
struct symm_cxx_none {
    void operator()() const = delete;
};
#define SYMM_CXX_CALL(F) symm_cxx_call<decltype(F), &F>
#define SYMM_CXX_B(T, N, OP) , SYMM_CXX_CALL(shmem_##N##_##OP)
#define SYMM_CXX_U(T, N, OP) using SYMM_CXX_CALL(shmem_##N##_##OP)::operator();
#define SYMM_CXX_BC(T, N, OP) SYMM_CXX_B(T, N, OP), SYMM_CXX_CALL(shmem_ctx_##N##_##OP)
#define SYMM_CXX_UC(T, N, OP)                                                  \
    SYMM_CXX_U(T, N, OP) using SYMM_CXX_CALL(shmem_ctx_##N##_##OP)::operator();
/* One generic: L its type list, C 1 if it has ctx forms. */
#define SYMM_CXX_GEN(L, C, OP)                                                 \
    struct symm_cxx_##OP : symm_cxx_none L(SYMM_CXX_CTX_B##C, OP) {            \
        L(SYMM_CXX_CTX_U##C, OP)                                               \
    };                                                                         \
    static constexpr symm_cxx_##OP shmem_##OP{};
#define SYMM_CXX_CTX_B0 SYMM_CXX_B
#define SYMM_CXX_CTX_U0 SYMM_CXX_U
#define SYMM_CXX_CTX_B1 SYMM_CXX_BC
#define SYMM_CXX_CTX_U1 SYMM_CXX_UC
#define SYMM_CXX_GENERICS(X)                                                   \
    X(SYMM_GL_AMO_EXT, 1, atomic_fetch)                              \
    X(SYMM_GL_AMO_EXT, 1, atomic_set)                                \
    X(SYMM_GL_AMO_EXT, 1, atomic_swap)                               \
    X(SYMM_GL_AMO_EXT, 1, atomic_fetch_nbi)                          \
    X(SYMM_GL_AMO_EXT, 1, atomic_swap_nbi)                           \
    X(SYMM_GL_AMO_STD, 1, atomic_compare_swap)                       \
    X(SYMM_GL_AMO_STD, 1, atomic_compare_swap_nbi)                   \
    X(SYMM_GL_AMO_STD, 1, atomic_fetch_inc)                          \
    X(SYMM_GL_AMO_STD, 1, atomic_inc)                                \
    X(SYMM_GL_AMO_STD, 1, atomic_fetch_inc_nbi)                      \
    X(SYMM_GL_AMO_STD, 1, atomic_fetch_add)                          \
    X(SYMM_GL_AMO_STD, 1, atomic_add)                                \
    X(SYMM_GL_AMO_STD, 1, atomic_fetch_add_nbi)                      \
    X(SYMM_GL_AMO_BIT, 1, atomic_fetch_and)                          \
    X(SYMM_GL_AMO_BIT, 1, atomic_and)                                \
    X(SYMM_GL_AMO_BIT, 1, atomic_fetch_and_nbi)                      \
    X(SYMM_GL_AMO_BIT, 1, atomic_fetch_or)                           \
    X(SYMM_GL_AMO_BIT, 1, atomic_or)                                 \
    X(SYMM_GL_AMO_BIT, 1, atomic_fetch_or_nbi)                       \
    X(SYMM_GL_AMO_BIT, 1, atomic_fetch_xor)                          \
    X(SYMM_GL_AMO_BIT, 1, atomic_xor)                                \
    X(SYMM_GL_AMO_BIT, 1, atomic_fetch_xor_nbi)                      \
    X(SYMM_GL_RMA, 1, put) X(SYMM_GL_RMA, 1, get)          \
    X(SYMM_GL_RMA, 1, put_nbi) X(SYMM_GL_RMA, 1, get_nbi)  \
    X(SYMM_GL_RMA, 1, p) X(SYMM_GL_RMA, 1, g)              \
    X(SYMM_GL_RMA, 1, iput) X(SYMM_GL_RMA, 1, iget)        \
    X(SYMM_GL_RMA, 1, ibput) X(SYMM_GL_RMA, 1, ibget)      \
    X(SYMM_GL_RMA, 1, put_signal)                                    \
    X(SYMM_GL_RMA, 1, put_signal_nbi)                                \
    X(SYMM_GL_P2P, 0, wait_until) X(SYMM_GL_P2P, 0, test)    \
    X(SYMM_GL_P2P, 0, wait_until_all)                                 \
    X(SYMM_GL_P2P, 0, wait_until_any)                                 \
    X(SYMM_GL_P2P, 0, wait_until_some)                                \
    X(SYMM_GL_P2P, 0, wait_until_all_vector)                          \
    X(SYMM_GL_P2P, 0, wait_until_any_vector)                          \
    X(SYMM_GL_P2P, 0, wait_until_some_vector)                         \
    X(SYMM_GL_P2P, 0, test_all) X(SYMM_GL_P2P, 0, test_any)  \
    X(SYMM_GL_P2P, 0, test_some)                                      \
    X(SYMM_GL_P2P, 0, test_all_vector)                                \
    X(SYMM_GL_P2P, 0, test_any_vector)                                \
    X(SYMM_GL_P2P, 0, test_some_vector)                               \
    X(SYMM_GL_RMA, 0, broadcast) X(SYMM_GL_RMA, 0, collect)  \
    X(SYMM_GL_RMA, 0, fcollect) X(SYMM_GL_RMA, 0, alltoall)  \
    X(SYMM_GL_RMA, 0, alltoalls)                                      \
    X(SYMM_GL_RED_BIT, 0, and_reduce)                                 \
    X(SYMM_GL_RED_BIT, 0, or_reduce)                                  \
    X(SYMM_GL_RED_BIT, 0, xor_reduce)                                 \
    X(SYMM_GL_RED_MINMAX, 0, max_reduce)                              \
    X(SYMM_GL_RED_MINMAX, 0, min_reduce)                              \
    X(SYMM_GL_RED_ARITH, 0, sum_reduce)                               \
    X(SYMM_GL_RED_ARITH, 0, prod_reduce)                              \
    X(SYMM_GL_RED_ARITH, 0, sum_inscan)                               \
    X(SYMM_GL_RED_ARITH, 0, sum_exscan)
SYMM_CXX_GENERICS(SYMM_CXX_GEN)
/* The deprecated generic AMO names: the object is deprecated, so a call
 * warns as the typed routine it makes would (and only a call does). */
#define SYMM_CXX_GEN_DEPR(L, OP, NEW)                                          \
    struct symm_cxx_##OP : symm_cxx_none L(SYMM_CXX_B, OP)                     \
                               SYMM_GL_AMO_DEPR_MORE(SYMM_CXX_B, NEW) {        \
        L(SYMM_CXX_U, OP) SYMM_GL_AMO_DEPR_MORE(SYMM_CXX_U, NEW)               \
    };                                                                         \
    SYMM_DEPRECATED static constexpr symm_cxx_##OP shmem_##OP{};
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
SYMM_CXX_GEN_DEPR(SYMM_GL_AMO_DEPR_STD, cswap, atomic_compare_swap)
SYMM_CXX_GEN_DEPR(SYMM_GL_AMO_DEPR_STD, finc, atomic_fetch_inc)
SYMM_CXX_GEN_DEPR(SYMM_GL_AMO_DEPR_STD, inc, atomic_inc)
SYMM_CXX_GEN_DEPR(SYMM_GL_AMO_DEPR_STD, fadd, atomic_fetch_add)
SYMM_CXX_GEN_DEPR(SYMM_GL_AMO_DEPR_STD, add, atomic_add)
SYMM_CXX_GEN_DEPR(SYMM_GL_AMO_DEPR_EXT, swap, atomic_swap)
SYMM_CXX_GEN_DEPR(SYMM_GL_AMO_DEPR_EXT, fetch, atomic_fetch)
SYMM_CXX_GEN_DEPR(SYMM_GL_AMO_DEPR_EXT, set, atomic_set)
#pragma GCC diagnostic pop
#endif /* C++11 */

#endif /* SHMEM_H */
