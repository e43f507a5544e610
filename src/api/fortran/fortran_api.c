/*
 * fortran_api.c - the deprecated Fortran API of OpenSHMEM 1.5 (the routines
 * of the Fortran annex, as Sandia OpenSHMEM's --enable-fortran provides
 * them), for programs that `include 'shmem.fh'` (or 'mpp/shmem.fh').
 *
 * Every routine is the symbol gfortran (and ifort, flang, nvfortran) calls:
 * the name in lower case with one trailing underscore. Fortran passes every
 * argument by reference; a CHARACTER argument adds a hidden length after
 * the last one, which routines that do not need it ignore. Each routine
 * calls one C routine of shmem.h, with symm_log_alias naming the Fortran
 * routine meanwhile, so an error reads "symm: shmem_put64 (Fortran
 * shmem_put8): ...".
 *
 * The Fortran types: INTEGER, REAL and LOGICAL are 4 bytes, DOUBLE
 * PRECISION and COMPLEX 8, CHARACTER 1 (gfortran's defaults; a program
 * compiled with -fdefault-integer-8 does not fit). pSync arrays are
 * default INTEGERs: shmem.fh's SHMEM_*_SYNC_SIZE count INTEGERs, enough
 * for the C sizes in longs. A lock is an INTEGER*8, as in SOS and Open
 * MPI (the C lock is a long).
 *
 * All routines come from one table, SYMM_FORTRAN_API below: a row names
 * its shape (the Fortran argument list), the Fortran routine, the C
 * routine and the element type; the families expand over the kind lists
 * above it.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "runtime/log.h"
#include "shmem.h"
#include "shmemx.h"

/* Fortran's default INTEGER and LOGICAL: C int, 4 bytes on every target
 * symm builds for (checked). LOGICAL results are 1 (.TRUE.) or 0. */
typedef int symm_fint;
_Static_assert(sizeof(symm_fint) == 4, "Fortran default INTEGER is 4 bytes");
_Static_assert(sizeof(float _Complex) == 8 && sizeof(double _Complex) == 16,
               "Fortran COMPLEX and COMPLEX*16 are C's float and double _Complex");

#define F_BEGIN(fname) symm_log_alias = "Fortran " #fname
#define F_END() symm_log_alias = NULL

/* A count the C routine takes as size_t: a negative one ends the job. */
static size_t symm_f_count(const char *routine, const symm_fint *n, const char *what)
{
    if (*n < 0)
        symm_fatal(routine, "%s %d is negative", what, *n);
    return (size_t)*n;
}

/* A pSync array of INTEGERs as the C routine's long *: Fortran aligns it
 * to 4 bytes only (x86-64 aligns arrays of 16 bytes or more to 16). */
static long *symm_f_psync(const char *routine, symm_fint *psync)
{
    if ((uintptr_t)psync % _Alignof(long) != 0)
        symm_fatal(routine,
                   "pSync %p is not aligned to %zu bytes (declare it INTEGER*8, or "
                   "put it first in its COMMON block)",
                   (void *)psync, _Alignof(long));
    return (long *)(void *)psync;
}

/* ---- the kind lists --------------------------------------------------
 * RMA: M(X, FP, FS, CP, CS, SP, SS): the Fortran routines
 * shmem_<FP>put<FS>[_nbi], shmem_<FP>get<FS>[_nbi] call the C routines
 * shmem_<CP>put<CS>[_nbi], ...; shmem_<FP>iput<FS> and shmem_<FP>iget<FS>
 * call shmem_<SP>iput<SS>, shmem_<SP>iget<SS> (C has no iputmem). put4
 * and put32 move 32-bit elements, put8 and put64 64-bit ones, put128
 * 128-bit ones. */
#define SYMM_F_RMA_KINDS(M, X)            \
    M(X, character_, , char_, , char_, )  \
    M(X, complex_, , , 64, , 64)          \
    M(X, double_, , double_, , double_, ) \
    M(X, integer_, , int_, , int_, )      \
    M(X, logical_, , , 32, , 32)          \
    M(X, real_, , float_, , float_, )     \
    M(X, , mem, , mem, , 8)               \
    M(X, , 4, , 32, , 32)                 \
    M(X, , 8, , 64, , 64)                 \
    M(X, , 32, , 32, , 32)                \
    M(X, , 64, , 64, , 64)                \
    M(X, , 128, , 128, , 128)

/* Active-set collectives: M(X, F, C): Fortran <name><F> calls C <name><C>. */
#define SYMM_F_COLL_SIZES(M, X) M(X, 4, 32) M(X, 8, 64) M(X, 32, 32) M(X, 64, 64)

/* Reductions (shmem_<F>_<op>_to_all): M(X, F, N, T) with the C type T of
 * shmem_<N>_<op>_to_all. REAL*16 is gfortran's IEEE binary128: C's long
 * double only where that is binary128 too (aarch64, not x86-64). */
#define SYMM_F_RED_INTS(M, X) M(X, int4, int, int) M(X, int8, longlong, long long)
#if defined(__LDBL_MANT_DIG__) && __LDBL_MANT_DIG__ == 113
#define SYMM_HAVE_F_REAL16 1
#define SYMM_F_RED_REAL16(M, X) M(X, real16, longdouble, long double)
#else
#define SYMM_F_RED_REAL16(M, X)
#endif
#define SYMM_F_RED_REALS(M, X) \
    M(X, real4, float, float) M(X, real8, double, double) SYMM_F_RED_REAL16(M, X)
#define SYMM_F_RED_COMPLEX(M, X) \
    M(X, comp4, complexf, float _Complex) M(X, comp8, complexd, double _Complex)

/* AMOs and waits: M(X, F, N, T): shmem_<F><op> calls shmem_<N>_atomic_<op>
 * (shmem_<N>_wait[_until]). F empty: the default-INTEGER forms (shmem_swap,
 * shmem_wait, shmem_wait_until). */
#define SYMM_F_AMO_INTS(M, X) M(X, int4_, int32, int32_t) M(X, int8_, int64, int64_t)
#define SYMM_F_AMO_REALS(M, X) M(X, real4_, float, float) M(X, real8_, double, double)
#define SYMM_F_P2P(M, X) SYMM_F_AMO_INTS(M, X) M(X, , int32, int32_t)

/* ---- the families ------------------------------------------------------ */
#define SYMM_F_RMA_FAMILY(X, FP, FS, CP, CS, SP, SS)                   \
    X(RMA, shmem_##FP##put##FS, shmem_##CP##put##CS, void)             \
    X(RMA, shmem_##FP##get##FS, shmem_##CP##get##CS, void)             \
    X(RMA, shmem_##FP##put##FS##_nbi, shmem_##CP##put##CS##_nbi, void) \
    X(RMA, shmem_##FP##get##FS##_nbi, shmem_##CP##get##CS##_nbi, void) \
    X(STRIDED, shmem_##FP##iput##FS, shmem_##SP##iput##SS, void)       \
    X(STRIDED, shmem_##FP##iget##FS, shmem_##SP##iget##SS, void)
#define SYMM_F_COLL_FAMILY(X, F, C)                        \
    X(BCAST, shmem_broadcast##F, shmem_broadcast##C, void) \
    X(COLLECT, shmem_collect##F, shmem_collect##C, void)   \
    X(COLLECT, shmem_fcollect##F, shmem_fcollect##C, void)
#define SYMM_F_TO_ALL(X, F, N, T, OP) \
    X(TO_ALL, shmem_##F##_##OP##_to_all, shmem_##N##_##OP##_to_all, T)
#define SYMM_F_RED_BIT(X, F, N, T) \
    SYMM_F_TO_ALL(X, F, N, T, and) SYMM_F_TO_ALL(X, F, N, T, or) SYMM_F_TO_ALL(X, F, N, T, xor)
#define SYMM_F_RED_MINMAX(X, F, N, T) SYMM_F_TO_ALL(X, F, N, T, max) SYMM_F_TO_ALL(X, F, N, T, min)
#define SYMM_F_RED_ARITH(X, F, N, T) SYMM_F_TO_ALL(X, F, N, T, sum) SYMM_F_TO_ALL(X, F, N, T, prod)
#define SYMM_F_RED_ALL(X, F, N, T) \
    SYMM_F_RED_BIT(X, F, N, T) SYMM_F_RED_MINMAX(X, F, N, T) SYMM_F_RED_ARITH(X, F, N, T)
#define SYMM_F_RED_ORDERED(X, F, N, T) SYMM_F_RED_MINMAX(X, F, N, T) SYMM_F_RED_ARITH(X, F, N, T)
#define SYMM_F_AMO_EXT(X, F, N, T)                           \
    X(FETCH_OP, shmem_##F##swap, shmem_##N##_atomic_swap, T) \
    X(FETCH, shmem_##F##fetch, shmem_##N##_atomic_fetch, T)  \
    X(OP, shmem_##F##set, shmem_##N##_atomic_set, T)
#define SYMM_F_AMO_STD(X, F, N, T)                                 \
    SYMM_F_AMO_EXT(X, F, N, T)                                     \
    X(CSWAP, shmem_##F##cswap, shmem_##N##_atomic_compare_swap, T) \
    X(FETCH_OP, shmem_##F##fadd, shmem_##N##_atomic_fetch_add, T)  \
    X(FETCH, shmem_##F##finc, shmem_##N##_atomic_fetch_inc, T)     \
    X(OP, shmem_##F##add, shmem_##N##_atomic_add, T)               \
    X(INC, shmem_##F##inc, shmem_##N##_atomic_inc, T)
#define SYMM_F_WAIT(X, F, N, T)                   \
    X(WAIT, shmem_##F##wait, shmem_##N##_wait, T) \
    X(WAIT_UNTIL, shmem_##F##wait_until, shmem_##N##_wait_until, T)

/* ---- the table: X(SHAPE, Fortran routine, C routine, element type) ---- */
#define SYMM_FORTRAN_API(X)                                                   \
    /* setup, exit, query */                                                  \
    X(VOID_INT, start_pes, start_pes, void)                                   \
    X(VOID, shmem_init, shmem_init, void)                                     \
    X(VOID, shmem_finalize, shmem_finalize, void)                             \
    X(VOID_INT, shmem_global_exit, shmem_global_exit, void)                   \
    X(INT, shmem_my_pe, shmem_my_pe, void)                                    \
    X(INT, shmem_n_pes, shmem_n_pes, void)                                    \
    X(INT, my_pe, shmem_my_pe, void)                                          \
    X(INT, num_pes, shmem_n_pes, void)                                        \
    X(PE_ACCESSIBLE, shmem_pe_accessible, shmem_pe_accessible, void)          \
    X(ADDR_ACCESSIBLE, shmem_addr_accessible, shmem_addr_accessible, void)    \
    X(PTR, shmem_ptr, shmem_ptr, void)                                        \
    X(VERSION, shmem_info_get_version, shmem_info_get_version, void)          \
    X(NAME, shmem_info_get_name, shmem_info_get_name, void)                   \
    X(WTIME, shmemx_wtime, shmemx_wtime, void)                                \
    /* symmetric heap: lengths in 32-bit words, addresses in Cray pointers */ \
    X(SHPALLOC, shpalloc, shmem_malloc, void)                                 \
    X(SHPDEALLC, shpdeallc, shmem_free, void)                                 \
    X(SHPCLMOVE, shpclmove, shmem_realloc, void)                              \
    /* RMA */                                                                 \
    SYMM_F_RMA_KINDS(SYMM_F_RMA_FAMILY, X)                                    \
    /* AMOs (the pre-1.4 names) */                                            \
    X(FETCH_OP, shmem_swap, shmem_int32_atomic_swap, int32_t)                 \
    SYMM_F_AMO_INTS(SYMM_F_AMO_STD, X)                                        \
    SYMM_F_AMO_REALS(SYMM_F_AMO_EXT, X)                                       \
    /* ordering, point-to-point synchronization, locks */                     \
    X(VOID, shmem_fence, shmem_fence, void)                                   \
    X(VOID, shmem_quiet, shmem_quiet, void)                                   \
    SYMM_F_P2P(SYMM_F_WAIT, X)                                                \
    X(LOCK, shmem_set_lock, shmem_set_lock, void)                             \
    X(LOCK, shmem_clear_lock, shmem_clear_lock, void)                         \
    X(TEST_LOCK, shmem_test_lock, shmem_test_lock, void)                      \
    /* collectives over active sets */                                        \
    X(VOID, shmem_barrier_all, shmem_barrier_all, void)                       \
    X(BARRIER, shmem_barrier, shmem_barrier, void)                            \
    SYMM_F_COLL_SIZES(SYMM_F_COLL_FAMILY, X)                                  \
    X(COLLECT, shmem_alltoall32, shmem_alltoall32, void)                      \
    X(COLLECT, shmem_alltoall64, shmem_alltoall64, void)                      \
    X(ALLTOALLS, shmem_alltoalls32, shmem_alltoalls32, void)                  \
    X(ALLTOALLS, shmem_alltoalls64, shmem_alltoalls64, void)                  \
    SYMM_F_RED_INTS(SYMM_F_RED_ALL, X)                                        \
    SYMM_F_RED_REALS(SYMM_F_RED_ORDERED, X)                                   \
    SYMM_F_RED_COMPLEX(SYMM_F_RED_ARITH, X)                                   \
    /* cache management: no-ops, as in C */                                   \
    X(VOID, shmem_clear_cache_inv, shmem_clear_cache_inv, void)               \
    X(VOID, shmem_set_cache_inv, shmem_set_cache_inv, void)                   \
    X(VOID, shmem_udcflush, shmem_udcflush, void)                             \
    X(VOID_PTR, shmem_clear_cache_line_inv, shmem_clear_cache_line_inv, void) \
    X(VOID_PTR, shmem_set_cache_line_inv, shmem_set_cache_line_inv, void)     \
    X(VOID_PTR, shmem_udcflush_line, shmem_udcflush_line, void)

/* ---- the shapes: one definition each ------------------------------------ */
#define SYMM_F_DEF(SHAPE, F, C, T) SYMM_FS_##SHAPE(F##_, F, C, T)
#define SYMM_F_ENTRY SYMM_API

#define SYMM_FS_VOID(S, F, C, T) \
    SYMM_F_ENTRY void S(void)    \
    {                            \
        F_BEGIN(F);              \
        C();                     \
        F_END();                 \
    }
#define SYMM_FS_VOID_INT(S, F, C, T)        \
    SYMM_F_ENTRY void S(const symm_fint *a) \
    {                                       \
        F_BEGIN(F);                         \
        C(*a);                              \
        F_END();                            \
    }
#define SYMM_FS_VOID_PTR(S, F, C, T)  \
    SYMM_F_ENTRY void S(void *target) \
    {                                 \
        F_BEGIN(F);                   \
        C(target);                    \
        F_END();                      \
    }
#define SYMM_FS_INT(S, F, C, T)    \
    SYMM_F_ENTRY symm_fint S(void) \
    {                              \
        F_BEGIN(F);                \
        symm_fint r = C();         \
        F_END();                   \
        return r;                  \
    }
#define SYMM_FS_WTIME(S, F, C, T) \
    SYMM_F_ENTRY double S(void)   \
    {                             \
        return C();               \
    }
#define SYMM_FS_PE_ACCESSIBLE(S, F, C, T)         \
    SYMM_F_ENTRY symm_fint S(const symm_fint *pe) \
    {                                             \
        F_BEGIN(F);                               \
        symm_fint r = C(*pe) != 0;                \
        F_END();                                  \
        return r;                                 \
    }
#define SYMM_FS_ADDR_ACCESSIBLE(S, F, C, T)                         \
    SYMM_F_ENTRY symm_fint S(const void *addr, const symm_fint *pe) \
    {                                                               \
        F_BEGIN(F);                                                 \
        symm_fint r = C(addr, *pe) != 0;                            \
        F_END();                                                    \
        return r;                                                   \
    }
/* The address of target on pe, for a Cray pointer (INTEGER*8); 0 if pe's
 * copy is not mapped here. */
#define SYMM_FS_PTR(S, F, C, T)                                      \
    SYMM_F_ENTRY intptr_t S(const void *target, const symm_fint *pe) \
    {                                                                \
        F_BEGIN(F);                                                  \
        intptr_t r = (intptr_t)C(target, *pe);                       \
        F_END();                                                     \
        return r;                                                    \
    }
#define SYMM_FS_VERSION(S, F, C, T)                         \
    SYMM_F_ENTRY void S(symm_fint *major, symm_fint *minor) \
    {                                                       \
        F_BEGIN(F);                                         \
        C(major, minor);                                    \
        F_END();                                            \
    }
/* CHARACTER*(*) name: its length comes hidden, by value (size_t since
 * gfortran 8); the vendor string is blank-padded to it, never past it. */
#define SYMM_FS_NAME(S, F, C, T)                \
    SYMM_F_ENTRY void S(char *name, size_t len) \
    {                                           \
        char buf[SHMEM_MAX_NAME_LEN];           \
        F_BEGIN(F);                             \
        C(buf);                                 \
        F_END();                                \
        size_t n = strnlen(buf, sizeof(buf));   \
        if (n > len)                            \
            n = len;                            \
        memcpy(name, buf, n);                   \
        memset(name + n, ' ', len - n);         \
    }

/* shpalloc(addr, length, errcode, abort): length 32-bit words; errcode 0,
 * or (abort 0) -1 for a length that is not positive, -2 when the heap is
 * full; abort nonzero ends the job on those instead. The other errors of
 * the Cray routines (an address that is no block) always end the job, with
 * shmem_free's or shmem_realloc's message. shpclmove's errcode is 0 when
 * the block grew in place, 1 when it moved (addr then changes). */
static int symm_f_heap_error(const char *routine, const symm_fint *length, symm_fint *errcode,
                             const symm_fint *abort, void *got)
{
    if (*length <= 0) {
        if (*abort != 0)
            symm_fatal(routine, "length %d (32-bit words) is not positive", *length);
        *errcode = -1;
        return 1;
    }
    if (got == NULL) {
        if (*abort != 0)
            symm_fatal(routine, "no room for %d 32-bit words in the symmetric heap", *length);
        *errcode = -2;
        return 1;
    }
    return 0;
}
#define SYMM_FS_SHPALLOC(S, F, C, T)                                              \
    SYMM_F_ENTRY void S(void **addr, const symm_fint *length, symm_fint *errcode, \
                        const symm_fint *abort)                                   \
    {                                                                             \
        F_BEGIN(F);                                                               \
        void *p = *length > 0 ? C((size_t)*length * 4) : NULL;                    \
        if (!symm_f_heap_error(#C, length, errcode, abort, p)) {                  \
            *addr = p;                                                            \
            *errcode = 0;                                                         \
        }                                                                         \
        F_END();                                                                  \
    }
#define SYMM_FS_SHPDEALLC(S, F, C, T)                                            \
    SYMM_F_ENTRY void S(void **addr, symm_fint *errcode, const symm_fint *abort) \
    {                                                                            \
        (void)abort;                                                             \
        F_BEGIN(F);                                                              \
        C(*addr);                                                                \
        *errcode = 0;                                                            \
        F_END();                                                                 \
    }
#define SYMM_FS_SHPCLMOVE(S, F, C, T)                                             \
    SYMM_F_ENTRY void S(void **addr, const symm_fint *length, symm_fint *errcode, \
                        const symm_fint *abort)                                   \
    {                                                                             \
        F_BEGIN(F);                                                               \
        void *p = *length > 0 ? C(*addr, (size_t)*length * 4) : NULL;             \
        if (!symm_f_heap_error(#C, length, errcode, abort, p)) {                  \
            *errcode = p == *addr ? 0 : 1;                                        \
            *addr = p;                                                            \
        }                                                                         \
        F_END();                                                                  \
    }

#define SYMM_FS_RMA(S, F, C, T)                                                                    \
    SYMM_F_ENTRY void S(void *dest, const void *source, const symm_fint *len, const symm_fint *pe) \
    {                                                                                              \
        F_BEGIN(F);                                                                                \
        C(dest, source, symm_f_count(#C, len, "len"), *pe);                                        \
        F_END();                                                                                   \
    }
#define SYMM_FS_STRIDED(S, F, C, T)                                                      \
    SYMM_F_ENTRY void S(void *dest, const void *source, const symm_fint *tst,            \
                        const symm_fint *sst, const symm_fint *len, const symm_fint *pe) \
    {                                                                                    \
        F_BEGIN(F);                                                                      \
        C(dest, source, *tst, *sst, symm_f_count(#C, len, "len"), *pe);                  \
        F_END();                                                                         \
    }

#define SYMM_FS_FETCH_OP(S, F, C, T)                               \
    SYMM_F_ENTRY T S(T *dest, const T *value, const symm_fint *pe) \
    {                                                              \
        F_BEGIN(F);                                                \
        T r = C(dest, *value, *pe);                                \
        F_END();                                                   \
        return r;                                                  \
    }
#define SYMM_FS_CSWAP(S, F, C, T)                                                 \
    SYMM_F_ENTRY T S(T *dest, const T *cond, const T *value, const symm_fint *pe) \
    {                                                                             \
        F_BEGIN(F);                                                               \
        T r = C(dest, *cond, *value, *pe);                                        \
        F_END();                                                                  \
        return r;                                                                 \
    }
#define SYMM_FS_FETCH(S, F, C, T)                    \
    SYMM_F_ENTRY T S(T *source, const symm_fint *pe) \
    {                                                \
        F_BEGIN(F);                                  \
        T r = C(source, *pe);                        \
        F_END();                                     \
        return r;                                    \
    }
#define SYMM_FS_OP(S, F, C, T)                                        \
    SYMM_F_ENTRY void S(T *dest, const T *value, const symm_fint *pe) \
    {                                                                 \
        F_BEGIN(F);                                                   \
        C(dest, *value, *pe);                                         \
        F_END();                                                      \
    }
#define SYMM_FS_INC(S, F, C, T)                       \
    SYMM_F_ENTRY void S(T *dest, const symm_fint *pe) \
    {                                                 \
        F_BEGIN(F);                                   \
        C(dest, *pe);                                 \
        F_END();                                      \
    }
#define SYMM_FS_WAIT(S, F, C, T)                 \
    SYMM_F_ENTRY void S(T *ivar, const T *value) \
    {                                            \
        F_BEGIN(F);                              \
        C(ivar, *value);                         \
        F_END();                                 \
    }
#define SYMM_FS_WAIT_UNTIL(S, F, C, T)                                 \
    SYMM_F_ENTRY void S(T *ivar, const symm_fint *cmp, const T *value) \
    {                                                                  \
        F_BEGIN(F);                                                    \
        C(ivar, *cmp, *value);                                         \
        F_END();                                                       \
    }
#define SYMM_FS_LOCK(S, F, C, T)    \
    SYMM_F_ENTRY void S(long *lock) \
    {                               \
        F_BEGIN(F);                 \
        C(lock);                    \
        F_END();                    \
    }
#define SYMM_FS_TEST_LOCK(S, F, C, T)    \
    SYMM_F_ENTRY symm_fint S(long *lock) \
    {                                    \
        F_BEGIN(F);                      \
        symm_fint r = C(lock);           \
        F_END();                         \
        return r;                        \
    }

/* Active sets: PE_start, logPE_stride, PE_size, pSync. */
#define SYMM_F_SET_PARAMS \
    const symm_fint *start, const symm_fint *log_stride, const symm_fint *size, symm_fint *psync
#define SYMM_F_SET_ARGS(C) *start, *log_stride, *size, symm_f_psync(#C, psync)
#define SYMM_FS_BARRIER(S, F, C, T)        \
    SYMM_F_ENTRY void S(SYMM_F_SET_PARAMS) \
    {                                      \
        F_BEGIN(F);                        \
        C(SYMM_F_SET_ARGS(C));             \
        F_END();                           \
    }
#define SYMM_FS_BCAST(S, F, C, T)                                                       \
    SYMM_F_ENTRY void S(void *dest, const void *source, const symm_fint *nelems,        \
                        const symm_fint *root, SYMM_F_SET_PARAMS)                       \
    {                                                                                   \
        F_BEGIN(F);                                                                     \
        C(dest, source, symm_f_count(#C, nelems, "nelems"), *root, SYMM_F_SET_ARGS(C)); \
        F_END();                                                                        \
    }
#define SYMM_FS_COLLECT(S, F, C, T)                                              \
    SYMM_F_ENTRY void S(void *dest, const void *source, const symm_fint *nelems, \
                        SYMM_F_SET_PARAMS)                                       \
    {                                                                            \
        F_BEGIN(F);                                                              \
        C(dest, source, symm_f_count(#C, nelems, "nelems"), SYMM_F_SET_ARGS(C)); \
        F_END();                                                                 \
    }
#define SYMM_FS_ALLTOALLS(S, F, C, T)                                                        \
    SYMM_F_ENTRY void S(void *dest, const void *source, const symm_fint *dst,                \
                        const symm_fint *sst, const symm_fint *nelems, SYMM_F_SET_PARAMS)    \
    {                                                                                        \
        F_BEGIN(F);                                                                          \
        C(dest, source, *dst, *sst, symm_f_count(#C, nelems, "nelems"), SYMM_F_SET_ARGS(C)); \
        F_END();                                                                             \
    }
/* The reductions take pWrk between the set and pSync. */
#define SYMM_FS_TO_ALL(S, F, C, T)                                                            \
    SYMM_F_ENTRY void S(T *dest, const T *source, const symm_fint *nreduce,                   \
                        const symm_fint *start, const symm_fint *log_stride,                  \
                        const symm_fint *size, T *pwrk, symm_fint *psync)                     \
    {                                                                                         \
        F_BEGIN(F);                                                                           \
        C(dest, source, *nreduce, *start, *log_stride, *size, pwrk, symm_f_psync(#C, psync)); \
        F_END();                                                                              \
    }

SYMM_FORTRAN_API(SYMM_F_DEF)
