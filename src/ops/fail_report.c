/*
 * fail_report.c - who prints a failure's report (fail_report.h says how).
 *
 * Never on a fast path: only a PE that already knows the job fails gets
 * here. Callable from the watcher thread: no malloc (the transport's peeks
 * use static buffers, which a late answer may still write).
 */
#include "ops/fail_report.h"

#include <stddef.h>
#include <unistd.h>

#include "mem/seg.h"
#include "runtime/pestatus.h"
#include "transport/transport.h"

#define MARK_BATCH 64
#define MARK_MS 300

/* Heap offset of a 32-bit field of a PE's record. */
#define RECORD_WORD(field) (SYMM_PE_STATUS_OFF + offsetof(symm_pe_status_t, field))

int symm_report_claim_node(const symm_instance_t *s)
{
    symm_pe_status_t *r0 = symm_pe_status_of(s, s->local_pes[0]);
    int32_t none = 0;
    return r0 != NULL && __atomic_compare_exchange_n(&r0->claim, &none, s->my_pe + 1, 0,
                                                     __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

/* Compare-and-swap PE 0's job word from 0 to 1 + me: the value found (0:
 * taken now), or 0 as well where PE 0 did not answer in time. */
static int32_t job_claim(symm_instance_t *s)
{
    static uint32_t found; /* a late answer may land here */
    symm_pe_status_t *r = symm_pe_status_of(s, 0);
    int32_t mine = s->my_pe + 1;
    if (r != NULL && (!(s->amo_flags & SYMM_AMO_NET) || s->net == NULL || s->net->peek == NULL)) {
        int32_t none = 0;
        __atomic_compare_exchange_n(&r->job_claim, &none, mine, 0, __ATOMIC_ACQ_REL,
                                    __ATOMIC_ACQUIRE);
        return none;
    }
    if (s->net == NULL || s->net->peek == NULL)
        return 0;
    symm_peek_t q = {.pe = 0, .seg = SYMM_SEG_HEAP, .off = RECORD_WORD(job_claim),
                     .buf = &found, .n = 0, .expect = 0, .desired = (uint32_t)mine};
    if (s->net->peek(s, &q, 1, SYMM_REPORT_CLAIM_MS) != 0 || q.rc != 0)
        return 0;
    return (int32_t)__atomic_load_n(&found, __ATOMIC_ACQUIRE);
}

int symm_report_claim(symm_instance_t *s)
{
    const symm_pe_status_t *r0 = symm_pe_status_of(s, s->local_pes[0]);
    if (r0 != NULL && __atomic_load_n(&r0->reported_by, __ATOMIC_ACQUIRE) != 0)
        return 0;
    /* Local index 0 not mapped here (SYMM_TRANSPORT=ucx: every PE is its
     * own node): the job's word alone decides. */
    if (r0 != NULL && !symm_report_claim_node(s))
        return 0;
    if (s->n_local == s->n_pes)
        return 1; /* every PE is on this node: its word was the job's */
    int32_t found = job_claim(s);
    return found == 0 || found == s->my_pe + 1;
}

/* CAS the 32-bit word at field_off of every other node's first record from
 * 0 to value, in batches; answers ignored. */
static void mark_word(symm_instance_t *s, size_t field_off, uint32_t value)
{
    static uint32_t found[MARK_BATCH]; /* late answers land here */
    symm_peek_t q[MARK_BATCH];
    int n = 0;
    for (int pe = 0; pe <= s->n_pes; pe++) {
        if (n == MARK_BATCH || (pe == s->n_pes && n > 0)) {
            s->net->peek(s, q, n, MARK_MS);
            n = 0;
        }
        /* The first PE of a node that is not this one. */
        if (pe == s->n_pes || s->peers[pe].map_node != pe || s->peers[pe].local_idx >= 0)
            continue;
        q[n] = (symm_peek_t){.pe = pe, .seg = SYMM_SEG_HEAP, .off = field_off,
                             .buf = &found[n], .n = 0, .expect = 0, .desired = value};
        n++;
    }
}

void symm_report_mark_others(symm_instance_t *s, int status)
{
    if (s->net == NULL || s->net->peek == NULL)
        return;
    /* The status first: a PE that sees the mark reads it. */
    mark_word(s, RECORD_WORD(reported_status), (uint32_t)(status != 0 ? status : 1));
    mark_word(s, RECORD_WORD(reported_by), (uint32_t)s->my_pe + 1);
}

/* Is the report out: marked here by another node's PE, or the PE that
 * claimed this node's word has ended (it reported, or it deferred too and
 * its wait is over)? */
static int report_out(const symm_instance_t *s)
{
    const symm_pe_status_t *r0 = symm_pe_status_of(s, s->local_pes[0]);
    if (r0 == NULL)
        return 0;
    if (__atomic_load_n(&r0->reported_by, __ATOMIC_ACQUIRE) != 0)
        return 1;
    int32_t c = __atomic_load_n(&r0->claim, __ATOMIC_ACQUIRE);
    if (c <= 0 || c > s->n_pes || c - 1 == s->my_pe)
        return 0;
    const symm_pe_status_t *rc = symm_pe_status_of(s, c - 1);
    return rc != NULL && __atomic_load_n(&rc->phase, __ATOMIC_ACQUIRE) == SYMM_PHASE_ABORTED;
}

void symm_report_defer(symm_instance_t *s, int status)
{
    __atomic_store_n(&symm_pe_deferred, 1, __ATOMIC_RELEASE);
    for (int t = 0; t < SYMM_REPORT_DEFER_MS / 10 && !report_out(s); t++) {
        if (s->net != NULL)
            s->net->progress(s);
        usleep(10000);
    }
    symm_pe_end(s, symm_pe_report_status(s, status), 0);
}
