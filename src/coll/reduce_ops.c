/*
 * reduce_ops.c - element-wise reduction kernels: out[i] = a[i] OP b[i].
 * out may be a (accumulate); the compiler vectorises the loops behind a
 * runtime overlap check (this file is built with -O3). Two inputs, so the
 * first step needs no copy: a memcpy into a stack buffer runs far slower
 * than the arithmetic here (rep movsb on AMD EPYC).
 */
#include "coll/reduce_ops.h"

#define DEF_KERNEL(T, N, OP, EXPR)                                                         \
    void symm_reduce_##N##_##OP(void *out, const void *in_a, const void *in_b, size_t n)  \
    {                                                                                      \
        T *o = out;                                                                        \
        const T *a = in_a, *b = in_b;                                                      \
        for (size_t i = 0; i < n; i++) {                                                   \
            T x = a[i], y = b[i];                                                          \
            o[i] = EXPR;                                                                   \
        }                                                                                  \
    }
#define DEF_KERNEL_BIT(T, N)                                                               \
    DEF_KERNEL(T, N, and, (T)(x & y)) DEF_KERNEL(T, N, or, (T)(x | y))                     \
    DEF_KERNEL(T, N, xor, (T)(x ^ y))
#define DEF_KERNEL_MINMAX(T, N)                                                            \
    DEF_KERNEL(T, N, max, x > y ? x : y) DEF_KERNEL(T, N, min, x < y ? x : y)
#define DEF_KERNEL_ARITH(T, N) DEF_KERNEL(T, N, sum, x + y) DEF_KERNEL(T, N, prod, x * y)
SHMEM_REDUCE_BIT_TYPES(DEF_KERNEL_BIT)
SHMEM_REDUCE_MINMAX_TYPES(DEF_KERNEL_MINMAX)
SHMEM_REDUCE_ARITH_TYPES(DEF_KERNEL_ARITH)
DEF_KERNEL_BIT(short, short)
DEF_KERNEL_BIT(int, int)
DEF_KERNEL_BIT(long, long)
DEF_KERNEL_BIT(long long, longlong)
