/*
 * region_table.h - registered memory: buffers the program owns (a numpy array, a
 * torch tensor, a malloc'd block) that every PE registered collectively
 * with the same size, so that one-sided operations reach them like
 * symmetric memory: a local address inside my buffer is (region, offset),
 * and PE p's copy is p's buffer base plus that offset.
 *
 * The table lives here, below the transports, so that both the operations
 * (ops/region_ops.c, which picks the path) and the transports (the network
 * one finds a peer's base address here) read one record. Registration
 * itself, a protocol over several layers, is core/region_register.c's.
 *
 * Owns: the records and the lookup of an address. Must never: be on the
 * heap's or the data segment's path (symm_seg_peer_addr never looks here;
 * only the general paths do, after the heap and data tests have failed),
 * communicate, or allocate on a lookup.
 */
#ifndef SYMM_REGION_H
#define SYMM_REGION_H

#include <stddef.h>
#include <stdint.h>

#include "mem/seg.h"
#include "runtime/state.h"
#include "runtime/status.h"

/* Regions that may be registered at once. */
#define SYMM_MAX_REGIONS 64
/* Segment numbers handed to a transport: SYMM_SEG_REGION + the region's id. */
#define SYMM_SEG_REGION 2

/* What remote (one-sided) operations may do to a region: the same bits as
 * shmemx.h's SHMEMX_ACCESS_* (api/shmem/shmem_region.c checks they agree). */
#define SYMM_ACCESS_READ 1u
#define SYMM_ACCESS_WRITE 2u
#define SYMM_ACCESS_ATOMIC 4u
#define SYMM_ACCESS_ALL 7u

/* How node-local (mapped) peers reach a PE's copy. */
typedef enum symm_region_how {
    SYMM_REGION_CMA = 0, /* process_vm_readv/writev into its process: RMA only */
    SYMM_REGION_SHARED,  /* its pages were moved into a memfd mapped here: loads, stores, atomics */
} symm_region_how_t;

typedef struct symm_region_peer {
    uint64_t base; /* its buffer, in its own address space */
    char *mapped;  /* its buffer mapped here (SHARED), or NULL */
} symm_region_peer_t;

typedef struct symm_region {
    int live;                  /* published with release; read with acquire */
    int id;                    /* index in the table, the same on every PE */
    char *base;                /* my buffer */
    size_t size;               /* the same on every PE */
    unsigned access;           /* SYMM_ACCESS_*, the same on every PE */
    symm_region_how_t how;     /* the same on every PE */
    int fd;                    /* SHARED: my buffer's memfd; else -1 */
    symm_region_peer_t *peers; /* [n_pes] */
} symm_region_t;

typedef struct symm_region_table {
    int n_used; /* slots [0, n_used) may be live */
    symm_region_t slot[SYMM_MAX_REGIONS];
} symm_region_table_t;

/* The region holding [addr, addr + 1) and the offset of addr in it, with
 * the bytes from there to its end; NULL if none. Thread-safe against a
 * concurrent registration (it sees a region only once complete). */
static inline symm_region_t *symm_region_find(const symm_instance_t *s, const void *addr,
                                              size_t *off_p, size_t *room_p)
{
    symm_region_table_t *t = s->regions;
    if (t == NULL)
        return NULL;
    int n = __atomic_load_n(&t->n_used, __ATOMIC_ACQUIRE);
    for (int i = 0; i < n; i++) {
        symm_region_t *r = &t->slot[i];
        if (!__atomic_load_n(&r->live, __ATOMIC_ACQUIRE))
            continue;
        uintptr_t d = (uintptr_t)addr - (uintptr_t)r->base;
        if (d < r->size) {
            *off_p = d;
            *room_p = r->size - d;
            return r;
        }
    }
    return NULL;
}

/* The live region with this id, or NULL. */
static inline symm_region_t *symm_region_of_id(const symm_instance_t *s, int id)
{
    symm_region_table_t *t = s->regions;
    if (t == NULL || id < 0 || id >= SYMM_MAX_REGIONS ||
        !__atomic_load_n(&t->slot[id].live, __ATOMIC_ACQUIRE))
        return NULL;
    return &t->slot[id];
}

/* The table of s, made on first use (SYMM_ERR_NOMEM). */
SYMM_MUST_CHECK int symm_region_table_get(symm_instance_t *s, symm_region_table_t **t_p);
/* The lowest free slot (the same on every PE that made the same calls), or
 * -1 when SYMM_MAX_REGIONS are live. */
int symm_region_slot_free(const symm_region_table_t *t);
/* "rwa"-style text of access bits, for messages. */
const char *symm_region_access_str(unsigned access, char buf[4]);

#endif
