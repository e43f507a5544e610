/*
 * reduce_ops.h - the element-wise reduction kernels, one per (type, op),
 * generated from the reduction type tables of shmem.h.
 */
#ifndef SYMM_REDUCE_OPS_H
#define SYMM_REDUCE_OPS_H

#include <stddef.h>

#include "shmem.h"

#define SYMM_DECL_KERNEL(T, N, OP)                                                          \
    void symm_reduce_##N##_##OP(void *out, const void *a, const void *b, size_t n);
#define SYMM_DECL_KERNEL_BIT(T, N) SYMM_DECL_KERNEL(T, N, and) SYMM_DECL_KERNEL(T, N, or) SYMM_DECL_KERNEL(T, N, xor)
#define SYMM_DECL_KERNEL_MINMAX(T, N) SYMM_DECL_KERNEL(T, N, max) SYMM_DECL_KERNEL(T, N, min)
#define SYMM_DECL_KERNEL_ARITH(T, N) SYMM_DECL_KERNEL(T, N, sum) SYMM_DECL_KERNEL(T, N, prod)
SHMEM_REDUCE_BIT_TYPES(SYMM_DECL_KERNEL_BIT)
SHMEM_REDUCE_MINMAX_TYPES(SYMM_DECL_KERNEL_MINMAX)
SHMEM_REDUCE_ARITH_TYPES(SYMM_DECL_KERNEL_ARITH)
/* The deprecated to_all forms add short, int, long, long long to the
 * bitwise kernels. */
SYMM_DECL_KERNEL_BIT(short, short)
SYMM_DECL_KERNEL_BIT(int, int)
SYMM_DECL_KERNEL_BIT(long, long)
SYMM_DECL_KERNEL_BIT(long long, longlong)

#endif
