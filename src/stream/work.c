/*
 * work.c - the work a stream runs: the aclshmemx_*_on_stream entry points and
 * symm_stream_exec.
 *
 * An entry point checks its arguments on the caller's thread (so an error
 * names the routine and the caller's PE at the call, not later), copies them
 * into an item and enqueues it. The stream's thread runs the item through the
 * core routines (ops/): puts and gets as symm_rma_put/get (complete locally on
 * return), a signal after a fence so it is ordered after the stream's puts,
 * barriers with quiet. A wait on a signal word backs off further than the
 * core waits (sleeps after a while): it holds only the stream, while the
 * caller's threads compute, so a stream stuck on a slow peer should not take
 * their core.
 *
 * Must never: block the caller (beyond the queue's mutex), or call a
 * collective on the caller's thread.
 */
#include <time.h>

#include "mem/seg.h"
#include "ops/amo.h"
#include "ops/rma.h"
#include "ops/sync.h"
#include "runtime/log.h"
#include "stream/stream.h"
#include "team/team.h"

/* Yields after the core's spin, before a stream's wait starts to sleep, and
 * the longest sleep. */
#define SYMM_STREAM_WAIT_YIELDS 1000u
#define SYMM_STREAM_WAIT_SLEEP_MAX_NS 50000L

/* symm's aclshmem layer, where it is linked in: the team an aclshmem team id
 * names, SHMEM_TEAM_INVALID for none. Without it only ACLSHMEM_TEAM_WORLD
 * is known. */
shmem_team_t symm_acl_team_lookup(int team) __attribute__((weak));

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

void aclshmemx_putmem_on_stream(void *dst, void *src, size_t elem_size, int32_t pe,
                                aclrtStream stream)
{
    symm_instance_t *s = symm_inst(__func__);
    check_pe(s, pe, __func__);
    symm_check_sym(s, __func__, dst, elem_size, "dest");
    symm_check_local(__func__, src, elem_size, "source");
    symm_stream_item_t item = {
        .op = SYMM_STREAM_PUT, .pe = pe, .dst = dst, .src = src, .n = elem_size};
    enqueue(stream, &item, __func__);
}

void aclshmemx_getmem_on_stream(void *dst, void *src, size_t elem_size, int32_t pe,
                                aclrtStream stream)
{
    symm_instance_t *s = symm_inst(__func__);
    check_pe(s, pe, __func__);
    symm_check_sym(s, __func__, src, elem_size, "source");
    symm_check_local(__func__, dst, elem_size, "dest");
    symm_stream_item_t item = {
        .op = SYMM_STREAM_GET, .pe = pe, .dst = dst, .src = src, .n = elem_size};
    enqueue(stream, &item, __func__);
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
    if (symm_acl_team_lookup == NULL)
        symm_fatal(routine,
                   "team %d: only ACLSHMEM_TEAM_WORLD (0) is supported without "
                   "symm's aclshmem team layer",
                   team);
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

/* ---- on the stream's thread ---------------------------------------------- */

static int acl_cmp(int32_t v, int cmp, int32_t x)
{
    switch (cmp) {
    case ACLSHMEM_CMP_EQ: return v == x;
    case ACLSHMEM_CMP_NE: return v != x;
    case ACLSHMEM_CMP_GT: return v > x;
    case ACLSHMEM_CMP_GE: return v >= x;
    case ACLSHMEM_CMP_LT: return v < x;
    default: return v <= x;
    }
}

static void stream_signal(symm_instance_t *s, const symm_stream_item_t *item)
{
    int32_t *sig = item->dst, v = item->value;
    int pe = item->pe;
    symm_fence(s, &s->ctx_default);
    int32_t *r = symm_amo_target(NULL, sig, sizeof(int32_t), &pe, item->routine);
    if (symm_likely(r != NULL)) {
        if (item->arg == ACLSHMEM_SIGNAL_SET)
            __atomic_store_n(r, v, __ATOMIC_RELEASE);
        else
            __atomic_fetch_add(r, v, __ATOMIC_RELEASE);
        return;
    }
    symm_amo_slow(NULL, sig, item->arg == ACLSHMEM_SIGNAL_SET ? SYMM_AMO_SET : SYMM_AMO_ADD,
                  sizeof(int32_t), &v, NULL, NULL, 0, pe, item->routine);
}

/* Spin and yield as every wait does, then sleep up to 50 us between polls. */
static void stream_wait(symm_instance_t *s, const symm_stream_item_t *item)
{
    const int32_t *sig = item->dst;
    unsigned polls = 0;
    long sleep_ns = 1000;
    while (!acl_cmp(__atomic_load_n(sig, __ATOMIC_ACQUIRE), item->arg, item->value)) {
        if (polls < (unsigned)s->spin + SYMM_STREAM_WAIT_YIELDS) {
            symm_wait_backoff(s, &polls);
            continue;
        }
        if (s->net)
            s->net->progress(s);
        struct timespec ts = {0, sleep_ns};
        nanosleep(&ts, NULL);
        if (sleep_ns < SYMM_STREAM_WAIT_SLEEP_MAX_NS)
            sleep_ns *= 2;
    }
}

void symm_stream_exec(const symm_stream_item_t *item)
{
    symm_instance_t *s = symm_cur;
    if (symm_unlikely(s == NULL))
        symm_fatal(item->routine, "a stream ran this after shmem_finalize: synchronize or "
                                  "destroy streams before finalizing");
    switch ((symm_stream_op_t)item->op) {
    case SYMM_STREAM_PUT:
        symm_rma_put(NULL, item->dst, item->src, item->n, item->pe, 0, item->routine);
        break;
    case SYMM_STREAM_GET:
        symm_rma_get(NULL, item->dst, item->src, item->n, item->pe, 0, item->routine);
        break;
    case SYMM_STREAM_SIGNAL: stream_signal(s, item); break;
    case SYMM_STREAM_WAIT: stream_wait(s, item); break;
    case SYMM_STREAM_BARRIER:
        if (item->dst != NULL)
            symm_team_barrier(item->dst, 1);
        else
            symm_barrier_world(s, 1);
        break;
    case SYMM_STREAM_QUIET:
    case SYMM_STREAM_SYNC: symm_quiet(s, &s->ctx_default); break;
    }
}
