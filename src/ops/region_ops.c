/*
 * region_ops.c - RMA and atomics on registered memory (mem/region_table.h says the path).
 * Cold: reached from the general paths only; the one system call of a
 * process_vm transfer is the cost of memory the program did not give symm.
 */
#include "ops/region_ops.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "runtime/log.h"
#include "runtime/status.h"
#include "transport/shm.h"

static void __attribute__((noreturn))
no_access(const symm_region_t *r, const char *what, int pe, const char *flag, const char *routine)
{
    char acc[4];
    symm_fatal(routine,
               "%s PE %d: registered region %d (%p, %zu bytes, access '%s') was "
               "registered without SHMEMX_ACCESS_%s",
               what, pe, r->id, (void *)r->base, r->size, symm_region_access_str(r->access, acc),
               flag);
}

void symm_region_rma(struct symm_ctx *ctx, int put, symm_region_t *r, size_t off, size_t room,
                     void *buf, size_t n, int pe, int nbi, const char *routine)
{
    symm_instance_t *s = symm_cur;
    const char *what = put ? "dest" : "source";
    if (n > room)
        symm_fatal(routine,
                   "%s %p + %zu bytes runs %zu bytes past the end of registered "
                   "region %d (%zu bytes)",
                   what, (void *)(r->base + off), n, n - room, r->id, r->size);
    if (!(r->access & (put ? SYMM_ACCESS_WRITE : SYMM_ACCESS_READ)))
        no_access(r, put ? "put to" : "get from", pe, put ? "WRITE" : "READ", routine);
    char *at = pe == s->my_pe                ? r->base + off
               : r->peers[pe].mapped != NULL ? r->peers[pe].mapped + off
                                             : NULL;
    if (at != NULL) {
        memcpy(put ? at : buf, put ? buf : at, n);
        return;
    }
    uint64_t raddr = r->peers[pe].base + off;
    if (s->peers[pe].mapped) {
        int e = symm_shm_cma(s->peers[pe].pid, put, raddr, buf, n);
        if (e != 0)
            symm_fatal(routine,
                       "%s of %zu bytes %s PE %d (pid %d) at 0x%llx, registered "
                       "region %d: process_vm_%s: %s",
                       put ? "put" : "get", n, put ? "to" : "from", pe, s->peers[pe].pid,
                       (unsigned long long)raddr, r->id, put ? "writev" : "readv", strerror(-e));
        return;
    }
    if (s->net == NULL || s->net->region_add == NULL)
        symm_fatal(routine,
                   "PE %d is not reachable: it is not on this node and no network "
                   "transport is active",
                   pe);
    if (ctx == NULL)
        ctx = &s->ctx_default;
    const symm_transport_ops_t *t = s->net;
    int seg = SYMM_SEG_REGION + r->id;
    int rc = put ? (nbi ? t->put_nbi : t->put)(ctx, seg, off, buf, n, pe)
                 : (nbi ? t->get_nbi : t->get)(ctx, buf, seg, off, n, pe);
    if (rc != 0)
        symm_fatal(routine, "%s of %zu bytes %s PE %d (registered region %d) failed: %s",
                   put ? "put" : "get", n, put ? "to" : "from", pe, r->id,
                   symm_status_str((symm_status_t)rc));
}

/* One CPU atomic on a mapped word: the transport amo's contract (cswap:
 * compare is the condition, operand the new value). */
#define CPU_AMO(T)                                                                             \
    do {                                                                                       \
        T *w_ = (T *)p, v_ = 0, c_ = 0, old_ = 0;                                              \
        if (operand != NULL)                                                                   \
            memcpy(&v_, operand, sizeof(T));                                                   \
        if (compare != NULL)                                                                   \
            memcpy(&c_, compare, sizeof(T));                                                   \
        switch (op) {                                                                          \
        case SYMM_AMO_FETCH: old_ = __atomic_load_n(w_, __ATOMIC_SEQ_CST); break;              \
        case SYMM_AMO_SET: __atomic_store_n(w_, v_, __ATOMIC_SEQ_CST); break;                  \
        case SYMM_AMO_SWAP: old_ = __atomic_exchange_n(w_, v_, __ATOMIC_SEQ_CST); break;       \
        case SYMM_AMO_CSWAP:                                                                   \
            old_ = c_;                                                                         \
            __atomic_compare_exchange_n(w_, &old_, v_, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); \
            break;                                                                             \
        case SYMM_AMO_ADD: old_ = __atomic_fetch_add(w_, v_, __ATOMIC_SEQ_CST); break;         \
        case SYMM_AMO_AND: old_ = __atomic_fetch_and(w_, v_, __ATOMIC_SEQ_CST); break;         \
        case SYMM_AMO_OR: old_ = __atomic_fetch_or(w_, v_, __ATOMIC_SEQ_CST); break;           \
        case SYMM_AMO_XOR: old_ = __atomic_fetch_xor(w_, v_, __ATOMIC_SEQ_CST); break;         \
        }                                                                                      \
        if (result != NULL)                                                                    \
            memcpy(result, &old_, sizeof(T));                                                  \
    } while (0)

static void cpu_amo(void *p, symm_amo_op_t op, size_t size, const void *operand,
                    const void *compare, void *result)
{
    if (size == 4)
        CPU_AMO(uint32_t);
    else
        CPU_AMO(uint64_t);
}

void symm_region_amo(struct symm_ctx *ctx, symm_region_t *r, size_t off, size_t room,
                     symm_amo_op_t op, size_t size, const void *operand, const void *compare,
                     void *result, int nbi, int pe, const char *routine)
{
    symm_instance_t *s = symm_cur;
    char *mine = r->base + off;
    if (!(r->access & SYMM_ACCESS_ATOMIC))
        no_access(r, "atomic on", pe, "ATOMIC", routine);
    if (size > room || ((uintptr_t)mine & (size - 1)) != 0 || (size != 4 && size != 8))
        symm_fatal(routine,
                   "dest %p is not an aligned %zu-byte word inside registered region "
                   "%d (%p, %zu bytes)",
                   (void *)mine, size, r->id, (void *)r->base, r->size);
    int net_agent = (s->amo_flags & SYMM_AMO_NET) && s->net != NULL;
    char *at = net_agent                     ? NULL
               : pe == s->my_pe              ? mine
               : r->peers[pe].mapped != NULL ? r->peers[pe].mapped + off
                                             : NULL;
    if (at != NULL) {
        cpu_amo(at, op, size, operand, compare, result);
        return;
    }
    if (s->net == NULL || s->net->region_add == NULL || (!net_agent && s->peers[pe].mapped))
        symm_fatal(routine,
                   "atomic on PE %d: its copy of registered region %d is not mapped "
                   "here and no network transport reaches it",
                   pe, r->id);
    if (ctx == NULL)
        ctx = &s->ctx_default;
    /* Earlier CPU stores are visible before the transport applies it, as
     * on the heap (ops/amo.c). */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    int rc =
        s->net->amo(ctx, op, size, SYMM_SEG_REGION + r->id, off, operand, compare, result, nbi, pe);
    if (rc != 0)
        symm_fatal(routine, "atomic on PE %d (registered region %d) failed: %s", pe, r->id,
                   symm_status_str((symm_status_t)rc));
}

void *symm_region_peer_ptr(const symm_instance_t *s, const void *addr, int pe)
{
    size_t off, room;
    symm_region_t *r = symm_region_find(s, addr, &off, &room);
    if (r == NULL)
        return NULL;
    if (pe == s->my_pe)
        return (void *)addr;
    return r->peers[pe].mapped != NULL ? r->peers[pe].mapped + off : NULL;
}
