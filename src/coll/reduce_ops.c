/*
 * reduce_ops.c - element-wise reduction kernels. Plain loops over restrict
 * pointers that the compiler vectorises (this file is built with -O3).
 */
#include "coll/reduce_ops.h"

#define DEF_KERNEL(T, N, OP, EXPR)                                                         \
    void symm_reduce_##N##_##OP(void *acc, const void *in, size_t n)                       \
    {                                                                                      \
        T *restrict a = acc;                                                               \
        const T *restrict b = in;                                                          \
        for (size_t i = 0; i < n; i++) {                                                   \
            T x = a[i], y = b[i];                                                          \
            a[i] = EXPR;                                                                   \
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
