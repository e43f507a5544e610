/*
 * shmemx.h - symm extensions to OpenSHMEM. Everything here is prefixed
 * shmemx_ and may change between releases.
 */
#ifndef SHMEMX_H
#define SHMEMX_H

#include <shmem.h>
#include <symm_stream.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Seconds since an arbitrary point, monotonic, for timing. */
SYMM_API double shmemx_wtime(void);
/* Current size in bytes of this PE's symmetric heap (it grows on demand up
 * to SYMM_MAX_SYMMETRIC_SIZE) and the bytes still free in it. */
SYMM_API size_t shmemx_heap_size(void);
SYMM_API size_t shmemx_heap_free(void);

/* A team made by the PEs pes[0..npes) alone (world PE numbers, distinct,
 * in team order; the first is the team's PE 0), with MPI_Comm_create_group's
 * semantics: every listed PE calls it with the same list, no other PE takes
 * part (unlike the splits, which are collective over the parent). PEs that
 * share two groups create them in the same order. Returns 0 with the team
 * in *new_team, or non-zero on every member, each saying why, with
 * SHMEM_TEAM_INVALID. At most SYMM_MAX_GROUP_TEAMS such teams exist at
 * once in the job; destroy them with shmem_team_destroy (collective over
 * the team). */
SYMM_API int shmemx_team_create_group(const int *pes, int npes, const shmem_team_config_t *config,
                                      long config_mask, shmem_team_t *new_team);
/* An index in [0, SYMM_MAX_TEAMS + SYMM_MAX_GROUP_TEAMS) for team, the same
 * on every member: no two live teams that share a PE have the same index,
 * so it can name per-team resources a program keeps (-1 for
 * SHMEM_TEAM_INVALID). */
SYMM_API int shmemx_team_index(shmem_team_t team);

/* A team reduction on memory private to this PE (a malloc'd buffer, a torch
 * tensor's data): dest[i] = the reduction over the team of source[i], for
 * count elements of the type and operation named by type_op, the spelling
 * of the typed routine's middle ("float_sum", "longlong_max", "int_xor").
 * Collective over the team, like shmem_TYPE_OP_reduce, and it may be mixed
 * with it: each member chooses its own buffers. It serves where no other
 * member of the team shares this PE's memory mapping (each on its own
 * node, reached through the network), since only mapped peers read each
 * other's buffers; elsewhere it returns -2 at once, on that PE alone and
 * before anything is sent, and the caller uses symmetric buffers
 * (shmem_TYPE_OP_reduce) for this call. dest may be source. Returns 0, -1
 * for SHMEM_TEAM_INVALID or an unknown type_op (said on stderr), -2 as
 * above. */
SYMM_API int shmemx_reduce_private(shmem_team_t team, void *dest, const void *source, size_t count,
                                   const char *type_op);

/* The OpenSHMEM team of an aclshmem team handle (ACLSHMEM_TEAM_WORLD is
 * SHMEM_TEAM_WORLD; a handle from aclshmem_team_split_*) in the current
 * instance, so that code holding aclshmem handles calls shmem_team_* and
 * the OpenSHMEM collectives on the same team; SHMEM_TEAM_INVALID for
 * ACLSHMEM_TEAM_INVALID, a destroyed handle, or one of another instance.
 * The team stays the handle's: destroy it with aclshmem_team_destroy. */
SYMM_API shmem_team_t shmemx_team_from_aclshmem(aclshmem_team_t team);

/* ---- registering existing memory -----------------------------------------
 * A buffer the program owns (malloc'd, a numpy array's or a torch tensor's
 * data, a static array) becomes the target of every PE's one-sided
 * operations, without a copy into the heap: every PE registers its own
 * buffer of the same size, collectively and in the same order, and from
 * then on shmem_putmem, shmem_TYPE_get, shmem_TYPE_atomic_*, put-with-signal
 * (data or signal), shmem_ptr, ... accept an address inside it: the same
 * offset in PE p's buffer is PE p's copy. Collectives, locks and streams
 * still need symmetric memory.
 *
 * access says what one-sided operations may do to the region:
 *  READ   gets;  WRITE  puts and put-with-signal's data;
 *  ATOMIC atomics and signals. Atomic access moves the buffer's pages into
 *         shared memory (same addresses, same bytes; back at deregistration),
 *         so node-local peers reach it with loads, stores and CPU atomics:
 *         the buffer must be whole pages of private anonymous memory
 *         (mmap(MAP_PRIVATE|MAP_ANONYMOUS), aligned_alloc(page, n * page)).
 * Without ATOMIC, node-local peers reach it with one process_vm_writev or
 * process_vm_readv per operation (the PEs must be one user and allowed to
 * ptrace each other), and any memory can be registered. Peers on other
 * nodes (and every peer under SYMM_TRANSPORT=ucx) reach it through UCX with
 * a memory key traded at registration. An operation the access does not
 * allow ends the job naming the region, as any bad RMA does.
 *
 * shmemx_register fails (non-zero, on every PE, the PE that found the
 * problem saying why) on a NULL or empty buffer, sizes or access that differ
 * between PEs, a buffer that overlaps symmetric memory or another region,
 * memory ATOMIC cannot move, or too many regions (64). On success it fills
 * *region_p. shmemx_deregister is collective too; the default context's
 * operations are completed by it, other contexts' must be quieted before.
 * Regions still registered at shmem_finalize are released there (the
 * buffers keep their bytes). */
#define SHMEMX_ACCESS_READ 1u
#define SHMEMX_ACCESS_WRITE 2u
#define SHMEMX_ACCESS_ATOMIC 4u
#define SHMEMX_ACCESS_RW (SHMEMX_ACCESS_READ | SHMEMX_ACCESS_WRITE)
#define SHMEMX_ACCESS_ALL (SHMEMX_ACCESS_RW | SHMEMX_ACCESS_ATOMIC)

typedef struct shmemx_region {
    int id;          /* the same on every PE; -1 once deregistered */
    void *addr;      /* this PE's buffer */
    size_t size;     /* bytes, the same on every PE */
    unsigned access; /* SHMEMX_ACCESS_* */
} shmemx_region_t;

SYMM_API int shmemx_register(void *addr, size_t size, unsigned access,
                             shmemx_region_t *region_p);
SYMM_API int shmemx_deregister(shmemx_region_t *region);

#ifdef __cplusplus
}
#endif
#endif
