/*
 * api_stream.c - the public stream routines: shmemx_stream_* (symm_stream.h) and
 * CANN's aclshmemx_*_on_stream.
 *
 * An entry point checks its arguments on the caller's thread (so an error
 * names the routine and the caller's PE at the call, not later), resolves
 * what the stream's thread will act on (an aclshmem team handle becomes its
 * team here), copies the arguments into an item and enqueues it on the
 * stream engine (stream/).
 *
 * Must never: block the caller (beyond the queue's mutex), or call a
 * collective on the caller's thread.
 */
#include "aclshmem.h"
#include "api/acl/acl_api.h"
#include "ops/rma.h"
#include "runtime/log.h"
#include "stream/stream.h"

static void check_pe(const symm_instance_t *s, int pe, const char *routine)
{
    if ((unsigned)pe >= (unsigned)s->n_pes)
        symm_bad_pe(s, routine, pe);
}

static void enqueue(void *stream, symm_stream_item_t *item, const char *routine)
{
    item->routine = routine;
    symm_stream_enqueue(symm_stream_get(stream, routine), item);
}

int shmemx_stream_create(shmemx_stream_t *stream_p)
{
    return symm_stream_create(stream_p, __func__);
}

int shmemx_stream_destroy(shmemx_stream_t stream)
{
    return symm_stream_destroy(stream, __func__);
}

int shmemx_stream_synchronize(shmemx_stream_t stream)
{
    return symm_stream_synchronize(stream, __func__);
}

/* A put or get on the stream: the symmetric side is dest of a put, source
 * of a get; the other is the caller's buffer. */
static void rma_on_stream(symm_stream_op_t op, void *dst, void *src, size_t n, int pe,
                          void *stream, const char *routine)
{
    symm_instance_t *s = symm_inst(routine);
    int put = op == SYMM_STREAM_PUT;
    check_pe(s, pe, routine);
    symm_check_sym(s, routine, put ? dst : src, n, put ? "dest" : "source");
    symm_check_local(routine, put ? src : dst, n, put ? "source" : "dest");
    symm_stream_item_t item = {.op = (uint8_t)op, .pe = pe, .dst = dst, .src = src, .n = n};
    enqueue(stream, &item, routine);
}

void aclshmemx_putmem_on_stream(void *dst, void *src, size_t elem_size, int32_t pe,
                                aclrtStream stream)
{
    rma_on_stream(SYMM_STREAM_PUT, dst, src, elem_size, pe, stream, __func__);
}

void aclshmemx_getmem_on_stream(void *dst, void *src, size_t elem_size, int32_t pe,
                                aclrtStream stream)
{
    rma_on_stream(SYMM_STREAM_GET, dst, src, elem_size, pe, stream, __func__);
}

static void check_word(const symm_instance_t *s, const int32_t *sig_addr, int symmetric,
                       const char *routine)
{
    if (sig_addr == NULL)
        symm_fatal(routine, "sig_addr is NULL");
    if ((uintptr_t)sig_addr % sizeof(int32_t) != 0)
        symm_fatal(routine, "sig_addr %p is not aligned to its 4-byte type", (void *)sig_addr);
    if (symmetric)
        symm_check_sym(s, routine, sig_addr, sizeof(int32_t), "sig_addr");
}

void aclshmemx_signal_op_on_stream(int32_t *sig_addr, int32_t signal, int sig_op, int pe,
                                   aclrtStream stream)
{
    symm_instance_t *s = symm_inst(__func__);
    check_pe(s, pe, __func__);
    check_word(s, sig_addr, 1, __func__);
    if (sig_op != ACLSHMEM_SIGNAL_SET && sig_op != ACLSHMEM_SIGNAL_ADD)
        symm_fatal(__func__,
                   "invalid signal operator %d (expected ACLSHMEM_SIGNAL_SET or "
                   "ACLSHMEM_SIGNAL_ADD)",
                   sig_op);
    symm_stream_item_t item = {
        .op = SYMM_STREAM_SIGNAL, .pe = pe, .value = signal, .arg = sig_op, .dst = sig_addr};
    enqueue(stream, &item, __func__);
}

void aclshmemx_signal_wait_until_on_stream(int32_t *sig_addr, int cmp, int32_t cmp_val,
                                           aclrtStream stream)
{
    symm_instance_t *s = symm_inst(__func__);
    check_word(s, sig_addr, 0, __func__);
    if ((unsigned)cmp > (unsigned)ACLSHMEM_CMP_LE)
        symm_fatal(__func__,
                   "invalid comparison operator %d (expected ACLSHMEM_CMP_EQ.."
                   "ACLSHMEM_CMP_LE)",
                   cmp);
    symm_stream_item_t item = {
        .op = SYMM_STREAM_WAIT, .value = cmp_val, .arg = cmp, .dst = sig_addr};
    enqueue(stream, &item, __func__);
}

/* The symm team of an aclshmem team id; NULL is the world. */
static struct symm_team *acl_team(int team, const char *routine)
{
    if (team == ACLSHMEM_TEAM_WORLD)
        return NULL;
    shmem_team_t t = symm_acl_team_lookup(team);
    if (t == SHMEM_TEAM_INVALID)
        symm_fatal(routine, "team %d is not a valid aclshmem team on this PE", team);
    return (struct symm_team *)t;
}

void aclshmemx_barrier_on_stream(aclshmem_team_t team, aclrtStream stream)
{
    symm_inst(__func__);
    symm_stream_item_t item = {.op = SYMM_STREAM_BARRIER, .dst = acl_team(team, __func__)};
    enqueue(stream, &item, __func__);
}

void aclshmemx_barrier_all_on_stream(aclrtStream stream)
{
    symm_inst(__func__);
    symm_stream_item_t item = {.op = SYMM_STREAM_BARRIER};
    enqueue(stream, &item, __func__);
}

void aclshmemx_quiet_on_stream(aclrtStream stream)
{
    symm_inst(__func__);
    symm_stream_item_t item = {.op = SYMM_STREAM_QUIET};
    enqueue(stream, &item, __func__);
}

/* CANN runs a quiet towards every peer of the team, then a barrier of the
 * team: on a CPU that is barrier_on_stream. */
void aclshmemx_handle_wait(aclshmem_handle_t handle, aclrtStream stream)
{
    symm_inst(__func__);
    symm_stream_item_t item = {.op = SYMM_STREAM_BARRIER,
                               .dst = acl_team(handle.team_id, __func__)};
    enqueue(stream, &item, __func__);
}
