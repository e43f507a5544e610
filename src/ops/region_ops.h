/*
 * region_ops.h - one-sided operations on registered memory (mem/region_table.h):
 * the general paths of RMA and atomics (ops/rma.c, ops/amo.c) hand an
 * address that is in no segment but in a registered region here.
 *
 * The path to PE p's copy, in order: my own copy (memcpy, CPU atomic); a
 * node-local copy mapped here (the region's pages were moved into shared
 * memory: memcpy, CPU atomic); a node-local copy in p's private memory
 * (process_vm_writev/readv, RMA only); the network transport with the
 * region's key. Under SYMM_AMO_NET every atomic goes to the network
 * transport, as on the heap. Never reached from the heap's or the data
 * segment's fast path.
 */
#ifndef SYMM_OPS_REGION_H
#define SYMM_OPS_REGION_H

#include <stddef.h>

#include "mem/region_table.h"
#include "runtime/state.h"
#include "transport/transport.h"

/* A put (put: buf is the source) or a get (buf the destination) of n > 0
 * bytes at offset off of region r on world PE pe; room is the bytes from
 * off to the region's end. Errors are fatal and name routine, PE and the
 * bad value. */
void symm_region_rma(struct symm_ctx *ctx, int put, symm_region_t *r, size_t off, size_t room,
                     void *buf, size_t n, int pe, int nbi, const char *routine);
/* An atomic of size bytes at offset off of r on world PE pe (the
 * transport's amo contract). */
void symm_region_amo(struct symm_ctx *ctx, symm_region_t *r, size_t off, size_t room,
                     symm_amo_op_t op, size_t size, const void *operand, const void *compare,
                     void *result, int nbi, int pe, const char *routine);
/* shmem_ptr of a registered address: pe's copy where it is mapped here (my
 * own, or moved into shared memory), else NULL. */
void *symm_region_peer_ptr(const symm_instance_t *s, const void *addr, int pe);

#endif
