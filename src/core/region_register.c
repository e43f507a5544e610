/*
 * region_register.c - registering existing memory: a protocol over several layers
 * (the table in mem/, node-local sharing and process_vm in transport/shm,
 * keys in the network transport), hence in core/, like heap growth.
 *
 * Register, on every PE: local checks (buffer, access, overlap with
 * symmetric memory or another region, a free slot; for atomic access,
 * pages that may move), agreed; one bootstrap allgather of every PE's
 * buffer address, size, access and slot, which must match; then how
 * node-local peers reach each copy:
 *  - without atomic access, process_vm_readv/writev into the owner's
 *    process: one read of every node-local peer's buffer proves the kernel
 *    allows it (same user, same pid namespace, no ptrace restriction);
 *  - with atomic access, the owner's pages move into a memfd (transport/
 *    shm_region.c), the memfds travel to node-local peers (fd passing, as
 *    the heaps' at init), and each maps its peers' copies;
 * each step agreed; last, the network transport registers the buffer and
 * trades keys (agreed inside). Any failure anywhere undoes every PE's part
 * and fails the call on every PE: a PE that went ahead alone would hold a
 * region its peers do not know, and ids would disagree from then on.
 *
 * Deregister: the default context's operations completed, agreed (no PE
 * uses the region any more), then every layer's part undone; shared pages
 * move back into private memory with their bytes. At finalize a RELEASE
 * hook does the same locally for regions still registered, so the
 * program's buffers stay valid memory after symm is gone.
 *
 * Never on a data path.
 */
#define _GNU_SOURCE
#include "core/region_register.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "boot/boot.h"
#include "mem/region_table.h"
#include "ops/sync.h"
#include "runtime/log.h"
#include "runtime/pestatus.h"
#include "runtime/status.h"
#include "team/team.h"
#include "transport/shm.h"
#include "transport/transport.h"

/* What each PE tells every other at registration. */
typedef struct reg_info {
    uint64_t addr;
    uint64_t size;
    uint32_t access;
    int32_t slot;
    int32_t n_local; /* mapped PEs on its node, itself included */
    int32_t pad;
} reg_info_t;

static int overlaps(uintptr_t a, size_t an, uintptr_t b, size_t bn)
{
    return a < b + bn && b < a + an;
}

/* This PE's own checks; logs what is wrong. */
static int check_local(symm_instance_t *s, void *addr, size_t size, unsigned access,
                       symm_region_table_t **t_p, int *slot_p, const char *routine)
{
    uintptr_t a = (uintptr_t)addr;
    char acc[4], why[200];
    if (addr == NULL || size == 0) {
        symm_error(routine, "buffer %p of %zu bytes: need a non-NULL buffer of at least one byte",
                   addr, size);
        return SYMM_ERR_INVALID;
    }
    if (access == 0 || (access & ~SYMM_ACCESS_ALL) != 0) {
        symm_error(routine,
                   "access 0x%x is not a combination of SHMEMX_ACCESS_READ, _WRITE "
                   "and _ATOMIC",
                   access);
        return SYMM_ERR_INVALID;
    }
    if (a + size < a) {
        symm_error(routine, "buffer %p + %zu bytes wraps around the address space", addr, size);
        return SYMM_ERR_INVALID;
    }
    if (overlaps(a, size, (uintptr_t)s->shm->heap_reserve, s->slot_size * (size_t)s->n_local) ||
        (s->shm->data_reserve != NULL && overlaps(a, size, (uintptr_t)s->shm->data_reserve,
                                                  s->shm->data_size * (size_t)s->n_local))) {
        symm_error(routine,
                   "buffer %p + %zu bytes lies in the symmetric heap: heap memory is "
                   "reachable by every PE already",
                   addr, size);
        return SYMM_ERR_INVALID;
    }
    for (int i = 0; i < s->n_data_ranges; i++) {
        if (overlaps(a, size, s->data[i].start, s->data[i].len)) {
            symm_error(routine,
                       "buffer %p + %zu bytes overlaps the program's symmetric global "
                       "data (%p + %zu)",
                       addr, size, (void *)s->data[i].start, s->data[i].len);
            return SYMM_ERR_INVALID;
        }
    }
    int rc = symm_region_table_get(s, t_p);
    if (rc != SYMM_OK) {
        symm_error(routine, "no memory for the table of registered regions");
        return rc;
    }
    for (int i = 0; i < (*t_p)->n_used; i++) {
        const symm_region_t *r = &(*t_p)->slot[i];
        if (r->live && overlaps(a, size, (uintptr_t)r->base, r->size)) {
            symm_error(routine, "buffer %p + %zu bytes overlaps registered region %d (%p + %zu)",
                       addr, size, r->id, (void *)r->base, r->size);
            return SYMM_ERR_INVALID;
        }
    }
    if ((*slot_p = symm_region_slot_free(*t_p)) < 0) {
        symm_error(routine, "%d regions are registered already (the most at once)",
                   SYMM_MAX_REGIONS);
        return SYMM_ERR_NOMEM;
    }
    /* Checked whatever the node layout, so that a program that works on
     * one node works on many and under SYMM_TRANSPORT=ucx, and back. */
    if ((access & SYMM_ACCESS_ATOMIC) &&
        symm_shm_region_movable(addr, size, why, sizeof(why)) != SYMM_OK) {
        symm_error(routine,
                   "access '%s' needs memory node-local peers can map, and %s: "
                   "register whole pages of private anonymous memory (mmap, "
                   "aligned_alloc(page size, n * page size)) for atomics, or leave "
                   "out SHMEMX_ACCESS_ATOMIC",
                   symm_region_access_str(access, acc), why);
        return SYMM_ERR_INVALID;
    }
    return SYMM_OK;
}

/* Every PE's record must match PE 0's. Every PE sees the same records, so
 * all fail or none, and each says which PE differs and how. */
static int check_same(const symm_instance_t *s, const reg_info_t *all, const char *routine)
{
    const reg_info_t *z = &all[0];
    char a0[4], a1[4];
    for (int pe = 1; pe < s->n_pes; pe++) {
        const reg_info_t *o = &all[pe];
        if (o->size == z->size && o->access == z->access && o->slot == z->slot)
            continue;
        symm_error(routine,
                   "PE %d registers %llu bytes with access '%s' as region %d, PE 0 %llu bytes "
                   "with '%s' as region %d: every PE registers a buffer of the same size with "
                   "the same access, in the same order",
                   pe, (unsigned long long)o->size, symm_region_access_str(o->access, a1),
                   (int)o->slot, (unsigned long long)z->size, symm_region_access_str(z->access, a0),
                   (int)z->slot);
        return SYMM_ERR_INVALID;
    }
    return SYMM_OK;
}

/* Without atomic access: can this PE read every node-local mapped peer's
 * buffer with process_vm_readv? */
static int probe_cma(const symm_instance_t *s, const reg_info_t *all, const char *routine)
{
    for (int i = 0; i < s->n_local; i++) {
        int pe = s->local_pes[i];
        char byte;
        if (pe == s->my_pe)
            continue;
        if (s->peers[pe].pid == 0) {
            symm_error(routine,
                       "PE %d shares this node but not its pid namespace: "
                       "process_vm_readv cannot reach its registered memory (register "
                       "with SHMEMX_ACCESS_ATOMIC, page-aligned memory, instead)",
                       pe);
            return SYMM_ERR_UNSUPPORTED;
        }
        int e = symm_shm_cma(s->peers[pe].pid, 0, all[pe].addr, &byte, 1);
        if (e != 0) {
            symm_error(routine,
                       "cannot read PE %d's registered memory (pid %d) with "
                       "process_vm_readv: %s%s",
                       pe, s->peers[pe].pid, strerror(-e),
                       e == -EPERM ? " (PEs must run as one user; a Yama ptrace_scope above 0 "
                                     "also forbids it, see /proc/sys/kernel/yama/ptrace_scope)"
                                   : "");
            return SYMM_ERR_SYS;
        }
    }
    return SYMM_OK;
}

/* Undo the node-local part of a shared region (peers' mappings, my pages). */
static void region_unshare(symm_instance_t *s, symm_region_t *r, const char *routine)
{
    for (int pe = 0; r->peers != NULL && pe < s->n_pes; pe++) {
        if (pe != s->my_pe && r->peers[pe].mapped != NULL)
            symm_shm_region_unmap(r->peers[pe].mapped, r->size);
        r->peers[pe].mapped = NULL;
    }
    if (r->fd >= 0)
        symm_shm_region_unshare(r->base, r->size, r->fd, routine);
    r->fd = -1;
}

/* Atomic access: move my pages into a memfd, trade memfds with the node,
 * map every node-local peer's. Each step agreed. */
static int region_share(symm_instance_t *s, symm_region_t *r, const char *routine)
{
    int rc = SYMM_OK, local = s->n_local > 1;
    int *fds = NULL;
    if (local) {
        fds = malloc(sizeof(int) * (size_t)s->n_local);
        if (fds == NULL) {
            symm_error(routine, "no memory for %d descriptors", s->n_local);
            rc = SYMM_ERR_NOMEM;
        } else {
            rc = symm_shm_region_share(r->base, r->size, &r->fd, routine);
        }
    }
    rc = symm_boot_agree(s->boot, rc, routine, NULL);
    if (rc == SYMM_OK)
        rc = symm_boot_fds_exchange(s->boot, s->local_pes, local ? s->n_local : 0, s->local_idx,
                                    &r->fd, local ? 1 : 0, fds);
    int xrc = rc;
    rc = symm_boot_agree(s->boot, rc, routine, NULL);
    for (int i = 0; rc == SYMM_OK && i < s->n_local && local; i++) {
        int pe = s->local_pes[i];
        if (pe != s->my_pe &&
            (r->peers[pe].mapped = symm_shm_region_map(fds[i], r->size, routine)) == NULL)
            rc = SYMM_ERR_SYS;
    }
    if (xrc == SYMM_OK && local)
        for (int i = 0; i < s->n_local; i++)
            close(fds[i]);
    free(fds);
    rc = symm_boot_agree(s->boot, rc, routine, NULL);
    if (rc != SYMM_OK)
        region_unshare(s, r, routine);
    return rc;
}

static void region_forget(symm_region_t *r)
{
    free(r->peers);
    r->peers = NULL;
    r->base = NULL;
    r->size = 0;
    r->access = 0;
    r->fd = -1;
}

/* At the end of the instance: what is still registered goes back to the
 * program, locally (the peers are going too); the network transport's fini
 * drops its registrations. */
static void regions_release(symm_instance_t *s, void *arg)
{
    (void)arg;
    symm_region_table_t *t = s->regions;
    if (t == NULL)
        return;
    for (int i = 0; i < t->n_used; i++) {
        symm_region_t *r = &t->slot[i];
        if (!r->live)
            continue;
        r->live = 0;
        region_unshare(s, r, "shmem_finalize");
        region_forget(r);
    }
    s->regions = NULL;
    free(t);
}

int symm_region_register(symm_instance_t *s, void *addr, size_t size, unsigned access, int local_rc,
                         int *id_p, const char *routine)
{
    symm_region_table_t *t = NULL;
    int slot = -1;
    /* Size 0: a size that differs is this call's own error (check_same),
     * returned on every PE, also under SHMEM_DEBUG. */
    SYMM_DOING_SCOPE(symm_team_doing(s->team_world, routine, -1, 0));
    symm_log_clear_error(); /* what an agreement tells the others is from this call */
    int rc = local_rc;
    if (rc == SYMM_OK)
        rc = check_local(s, addr, size, access, &t, &slot, routine);
    reg_info_t mine = {.addr = (uintptr_t)addr,
                       .size = size,
                       .access = access,
                       .slot = slot,
                       .n_local = s->n_local};
    reg_info_t *all = malloc(sizeof(reg_info_t) * (size_t)s->n_pes);
    symm_region_peer_t *peers = calloc((size_t)s->n_pes, sizeof(symm_region_peer_t));
    if (rc == SYMM_OK && (all == NULL || peers == NULL)) {
        symm_error(routine, "no memory for %d PEs' records", s->n_pes);
        rc = SYMM_ERR_NOMEM;
    }
    rc = symm_boot_agree(s->boot, rc, routine, NULL);
    if (rc == SYMM_OK)
        rc = symm_boot_allgather(s->boot, &mine, all, sizeof(mine));
    if (rc == SYMM_OK)
        rc = check_same(s, all, routine);
    if (rc != SYMM_OK)
        goto out;

    symm_region_t *r = &t->slot[slot];
    r->base = addr;
    r->size = size;
    r->access = access;
    r->fd = -1;
    r->peers = peers;
    peers = NULL;
    for (int pe = 0; pe < s->n_pes; pe++)
        r->peers[pe].base = all[pe].addr;
    r->peers[s->my_pe].mapped = addr;
    if (access & SYMM_ACCESS_ATOMIC) {
        r->how = SYMM_REGION_SHARED;
        /* Only where some node has mapped peers (every PE takes part in
         * the fd exchange then, or none does). */
        int any_local = 0;
        for (int pe = 0; pe < s->n_pes; pe++)
            any_local |= all[pe].n_local > 1;
        rc = any_local ? region_share(s, r, routine) : SYMM_OK;
    } else {
        r->how = SYMM_REGION_CMA;
        rc = symm_boot_agree(s->boot, probe_cma(s, all, routine), routine, NULL);
    }
    if (rc == SYMM_OK && s->net != NULL && s->net->region_add != NULL) {
        rc = s->net->region_add(s, slot);
        if (rc != SYMM_OK)
            region_unshare(s, r, routine);
    }
    if (rc != SYMM_OK) {
        region_forget(r);
        goto out;
    }
    symm_on_fini(s, SYMM_FINI_RELEASE, regions_release, NULL);
    __atomic_store_n(&r->live, 1, __ATOMIC_RELEASE);
    if (t->n_used <= slot)
        __atomic_store_n(&t->n_used, slot + 1, __ATOMIC_RELEASE);
    *id_p = slot;
out:
    free(peers);
    free(all);
    return rc;
}

int symm_region_deregister(symm_instance_t *s, int id, const void *addr, int local_rc,
                           const char *routine)
{
    SYMM_DOING_SCOPE(symm_team_doing(s->team_world, routine, -1, 0));
    symm_log_clear_error();
    int rc = local_rc;
    symm_region_t *r = rc == SYMM_OK ? symm_region_of_id(s, id) : NULL;
    if (rc == SYMM_OK && (r == NULL || r->base != addr)) {
        symm_error(routine,
                   "region %d (%p) is not registered (deregistered already, or not "
                   "returned by shmemx_register)",
                   id, addr);
        rc = SYMM_ERR_INVALID;
    }
    /* This PE's operations done (RMA on mapped and process_vm paths is
     * complete at return already); the agreement is also the barrier after
     * which no PE touches the region. */
    symm_quiet(s, &s->ctx_default);
    rc = symm_boot_agree(s->boot, rc, routine, NULL);
    int32_t mine = id, *ids = malloc(sizeof(int32_t) * (size_t)s->n_pes);
    int arc = ids == NULL ? SYMM_ERR_NOMEM : SYMM_OK;
    if (arc != SYMM_OK)
        symm_error(routine, "no memory for %d PEs' region ids", s->n_pes);
    if (rc == SYMM_OK)
        rc = symm_boot_agree(s->boot, arc, routine, NULL);
    if (rc == SYMM_OK)
        rc = symm_boot_allgather(s->boot, &mine, ids, sizeof(mine));
    for (int pe = 0; rc == SYMM_OK && pe < s->n_pes; pe++) {
        if (ids[pe] != ids[0]) {
            symm_error(routine,
                       "PE %d deregisters region %d, PE 0 region %d: every PE deregisters the "
                       "same region, in the same order",
                       pe, (int)ids[pe], (int)ids[0]);
            rc = SYMM_ERR_INVALID;
        }
    }
    free(ids);
    if (rc != SYMM_OK)
        return rc;
    __atomic_store_n(&r->live, 0, __ATOMIC_RELEASE);
    if (s->net != NULL && s->net->region_remove != NULL)
        rc = s->net->region_remove(s, id);
    region_unshare(s, r, routine);
    region_forget(r);
    return rc;
}
