/*
 * shm.c - collective algorithms. Node-local groups pull: each PE reads what
 * it needs from its peers' symmetric buffers, one memcpy from where the data
 * is to where it goes, between two barriers. A group with members on other
 * nodes (or every group under SYMM_TRANSPORT=ucx) exchanges tagged messages
 * where the transport has them (transport.h msg_*): a message waits at its
 * receiver under (group, collective number, round) until the receiver,
 * inside the same collective, takes it into place (UCX: eager copies, or a
 * rendezvous straight into dest). Nobody writes into another PE's memory,
 * so no opening barrier; every member waits for the messages it needs and
 * for its own sends (source reusable), so no closing one either.
 *
 *  broadcast  pull: barrier; every PE pulls the root's source; barrier
 *             msg:  binomial tree from the root, each forwarding from dest
 *  fcollect   pull: barrier; every PE pulls each peer's block; barrier
 *             msg:  every PE sends its block to every peer (next one
 *             first) and takes theirs into place
 *  collect    pull: publish my count; barrier; exclusive scan of the counts
 *             read from every peer gives my offsets; pull; barrier
 *             msg:  every PE sends its block to all; the lengths that
 *             arrive give the offsets; each taken into place
 *  alltoall   as fcollect, block j of the source going to PE j
 *  alltoalls  pull (strided gets) between barriers, always
 *  reduce     pull, small or 2 PEs: barrier; every PE reduces the whole
 *             vector from every peer into its dest (in place: into a
 *             private buffer, copied out after a barrier); barrier.
 *             pull, large, 3+ PEs (SYMM_REDUCE_SLICE_MIN): barrier; each
 *             PE reduces its 1/n slice from every peer into its dest;
 *             barrier; each pulls the other slices from their owners;
 *             barrier.
 *             msg: small or 2 PEs: every PE sends its vector to all and
 *             reduces all n; large: reduce-scatter then allgather by
 *             messages. Always in member order: identical bits everywhere.
 *  scan       pull: barrier; member i reduces members 0..i (0..i-1) a
 *             chunk at a time in member order; barrier (in place: into a
 *             private buffer, copied out after a barrier).
 *             msg:  member i sends its source to every later member and
 *             reduces what it takes from the earlier ones, in member order.
 * Node-aware forms (a team with several members on some node, or heads
 * exchanging by ring or Bruck) are in coll/nodes.c; the messages both use
 * are declared in coll/msg.h.
 * The pull forms' opening barrier keeps readers off a source its owner may
 * still write; the closing one makes source and dest reusable on return.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "coll/coll.h"
#include "coll/msg.h"
#include "mem/seg.h"
#include "ops/rma.h"
#include "ops/sync.h"
#include "runtime/log.h"
#include "runtime/status.h"
#include "team/team.h"

#define REDUCE_CHUNK 8192

/* Copy n bytes of group member i's copy of the symmetric addr to dst. */
static void pull(symm_group_t *g, void *dst, const void *addr, size_t n, int i,
                 const char *routine)
{
    if (n == 0)
        return;
    if (i == g->me) {
        if (dst != addr)
            memmove(dst, addr, n);
        return;
    }
    symm_rma_get(NULL, dst, addr, n, symm_group_pe(g, i), 0, routine);
}

/* ---- messages: groups with members on other nodes ---------------------- */

void sends_init(sends_t *q, int max, const char *routine)
{
    q->n = 0;
    q->h = max <= 16 ? q->here : malloc(sizeof(void *) * (size_t)max);
    if (q->h == NULL)
        symm_fatal(routine, "out of memory for %d message handles", max);
}

void sends_wait(symm_group_t *g, sends_t *q, const char *routine)
{
    for (int i = 0; i < q->n; i++) {
        int rc = g->s->net->msg_wait(g->s, q->h[i]);
        if (rc != 0)
            symm_fatal(routine, "a collective message failed: %s",
                       symm_status_str((symm_status_t)rc));
    }
    q->n = 0;
}

void sends_fini(symm_group_t *g, sends_t *q, const char *routine)
{
    sends_wait(g, q, routine);
    if (q->h != q->here)
        free(q->h);
}

void send_to(symm_group_t *g, sends_t *q, symm_msg_tag_t tag, int round, int i,
             const void *src, size_t n, int how, const char *routine)
{
    int pe = symm_group_pe(g, i);
    tag.seq += (uint64_t)round;
    int msg = how == SEND_SYNC                                     ? SYMM_MSG_SYNC
              : how == SEND_EAGER || n <= g->s->cfg.coll_eager_max ? SYMM_MSG_EAGER
                                                                   : SYMM_MSG_AUTO;
    int rc = g->s->net->msg_send(g->s, pe, &tag, src, n, msg, &q->h[q->n]);
    if (rc != 0)
        symm_fatal(routine, "sending %zu bytes to PE %d failed: %s", n, pe,
                   symm_status_str((symm_status_t)rc));
    if (q->h[q->n] != NULL)
        q->n++;
}

/* Wait until member i's message under tag + round is here; its length. */
size_t arrived(symm_group_t *g, symm_msg_tag_t tag, int round, int i)
{
    size_t len;
    unsigned polls = 0;
    tag.seq += (uint64_t)round;
    while (!g->s->net->msg_probe(g->s, &tag, symm_group_pe(g, i), &len))
        symm_wait_backoff(g->s, &polls);
    return len;
}

/* Receive member i's message under tag + round into dst: n bytes, or end
 * the job naming both PEs if it sent another size (the members passed
 * different sizes to one collective). */
void recv_from(symm_group_t *g, symm_msg_tag_t tag, int round, int i, void *dst, size_t n,
               const char *routine)
{
    size_t len = arrived(g, tag, round, i);
    int pe = symm_group_pe(g, i);
    if (len != n)
        symm_fatal(routine, "PE %d sent %zu bytes where this PE expects %zu: the members passed "
                            "different sizes", pe, len, n);
    tag.seq += (uint64_t)round;
    int rc = g->s->net->msg_take(g->s, &tag, pe, dst, n);
    if (rc != 0)
        symm_fatal(routine, "receiving %zu bytes from PE %d failed: %s", n, pe,
                   symm_status_str((symm_status_t)rc));
}

/* Private buffers that messages are received into or sent from, kept
 * between collectives: a fresh malloc of a large block is a fresh mapping,
 * and a rendezvous into it cost UCX (over tcp) milliseconds, not
 * microseconds (a 1 MiB sliced reduction at 3 PEs: ~20 ms against ~1 ms).
 * A few are kept; threads in collectives at once each get their own. */
#define POOL 4
static struct {
    void *p;
    size_t cap;
    int busy;
} pool[POOL];
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;

/* RELEASE hook: give the idle buffers back. */
static void pool_drain(symm_instance_t *s, void *arg)
{
    (void)s;
    (void)arg;
    pthread_mutex_lock(&pool_lock);
    for (int i = 0; i < POOL; i++)
        if (!pool[i].busy) {
            free(pool[i].p);
            pool[i].p = NULL;
            pool[i].cap = 0;
        }
    pthread_mutex_unlock(&pool_lock);
}

void *buf_get(symm_group_t *g, size_t n, const char *routine)
{
    void *p = NULL;
    pthread_mutex_lock(&pool_lock);
    int pick = -1;
    for (int i = 0; i < POOL; i++)
        if (!pool[i].busy && (pick < 0 || (pool[i].cap >= n && pool[pick].cap < n) ||
                              (pool[i].cap >= n && pool[i].cap < pool[pick].cap)))
            pick = i;
    if (pick >= 0) {
        if (pool[pick].cap < n) {
            free(pool[pick].p);
            pool[pick].p = malloc(n);
            pool[pick].cap = pool[pick].p != NULL ? n : 0;
        }
        if ((p = pool[pick].p) != NULL)
            pool[pick].busy = 1;
    }
    pthread_mutex_unlock(&pool_lock);
    if (pick >= 0)
        symm_on_fini(g->s, SYMM_FINI_RELEASE, pool_drain, NULL);
    else
        p = malloc(n); /* every pooled one in use: a one-off */
    if (p == NULL)
        symm_fatal(routine, "out of memory for a %zu-byte collective buffer", n);
    return p;
}

void buf_put(void *p)
{
    if (p == NULL)
        return;
    pthread_mutex_lock(&pool_lock);
    for (int i = 0; i < POOL; i++)
        if (pool[i].p == p) {
            pool[i].busy = 0;
            p = NULL;
        }
    pthread_mutex_unlock(&pool_lock);
    free(p);
}

/* A private copy of source if it overlaps [dest, dest + dlen): receiving
 * into dest would overwrite blocks not yet sent (the spec leaves such
 * calls undefined; they still work). *tmp is what to free. */
const void *unaliased(symm_group_t *g, const void *source, size_t slen, const void *dest,
                      size_t dlen, void **tmp, const char *routine)
{
    const char *s = source, *d = dest;
    *tmp = NULL;
    if (slen == 0 || dlen == 0 || !(s < d + dlen && d < s + slen))
        return source;
    *tmp = buf_get(g, slen, routine);
    memcpy(*tmp, source, slen);
    return *tmp;
}

/* A broadcast sender with blocks above SYMM_COLL_EAGER_MAX (sent by
 * rendezvous: complete only once the receiver has pulled them) hands them
 * off instead of waiting: it copies what it sends into a kept buffer,
 * returns, and the sends complete later, by the next broadcast of this
 * instance that hands off, when more than HANDOFF_MAX are out, or at
 * finalize's drain (peers still there). Its caller may reuse source and
 * dest at once and computes while the transfer runs (2 PEs across
 * namespaces, 1 MiB: the root's call 116 us instead of ~430). At most
 * HANDOFF_MAX buffers of the largest such block stay in use. */
#define HANDOFF_MAX 2
#define HANDOFF_SLOTS 16 /* every instance's together */
static struct handoff {
    symm_instance_t *s;
    sends_t q;
    void *buf;
} handoff[HANDOFF_SLOTS];
static int n_handoff;

/* Move a handoff, keeping its sends_t's inline handles its own. */
static void handoff_move(struct handoff *to, struct handoff *from)
{
    int inline_h = from->q.h == from->q.here;
    *to = *from;
    if (inline_h)
        to->q.h = to->q.here;
}
static pthread_mutex_t handoff_lock = PTHREAD_MUTEX_INITIALIZER;

/* Complete s's handed-off sends until at most keep are out. */
static void handoff_reap(symm_instance_t *s, int keep)
{
    for (;;) {
        struct handoff h = {0};
        pthread_mutex_lock(&handoff_lock);
        int k = 0, mine = 0;
        for (int i = 0; i < n_handoff; i++)
            mine += handoff[i].s == s;
        if (mine > keep) {
            while (handoff[k].s != s)
                k++;
            handoff_move(&h, &handoff[k]);
            if (k != --n_handoff)
                handoff_move(&handoff[k], &handoff[n_handoff]);
        }
        pthread_mutex_unlock(&handoff_lock);
        if (h.s == NULL)
            return;
        symm_group_t g1 = {.s = s};
        sends_fini(&g1, &h.q, "shmem_broadcast");
        buf_put(h.buf);
    }
}

static void handoff_drain(symm_instance_t *s, void *arg)
{
    (void)arg;
    handoff_reap(s, 0);
}

/* Binomial tree from the root: each member receives the block from its
 * parent into dest, then forwards it from there to its children, farthest
 * first. The tag keeps one broadcast's blocks apart from the next's, so no
 * barrier is needed; waiting for the sends makes source and dest reusable. */
static void broadcast_msg(symm_group_t *g, void *dest, const void *source, size_t nbytes,
                          int root, int update_root, const char *routine)
{
    int n = g->size, v = (g->me - root + n) % n, mask = 1;
    symm_msg_tag_t tag = symm_group_next_tag(g);
    int sync = (tag.seq >> 8) % SYNC_EVERY == 0;
    const void *from = source;
    while (mask < n && !(v & mask))
        mask <<= 1;
    if (v != 0) {
        recv_from(g, tag, 0, (v - mask + root) % n, dest, nbytes, routine);
        from = dest;
    } else if (update_root && dest != source) {
        memmove(dest, source, nbytes);
        from = dest;
    }
    int children = 0;
    for (int m = mask >> 1; m > 0; m >>= 1)
        children += v + m < n;
    void *copy = NULL;
    /* (Not without a progress thread: the transfer needs this PE's
     * progress, which a computing caller would not make.) */
    if (children > 0 && !sync && nbytes > g->s->cfg.coll_eager_max &&
        strcmp(g->s->cfg.progress_thread, "0") != 0) {
        handoff_reap(g->s, HANDOFF_MAX - 1);
        copy = buf_get(g, nbytes, routine);
        memcpy(copy, from, nbytes);
        from = copy;
    }
    sends_t q;
    sends_init(&q, 32, routine);
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (v + mask < n)
            send_to(g, &q, tag, 0, (v + mask + root) % n, from, nbytes,
                    sync ? SEND_SYNC : SEND_SIZE, routine);
    if (copy == NULL) {
        sends_fini(g, &q, routine);
        return;
    }
    struct handoff mine = {.s = g->s, .q = q, .buf = copy};
    if (q.h == q.here)
        mine.q.h = mine.q.here;
    pthread_mutex_lock(&handoff_lock);
    int kept = n_handoff < HANDOFF_SLOTS;
    if (kept)
        handoff_move(&handoff[n_handoff++], &mine);
    pthread_mutex_unlock(&handoff_lock);
    if (!kept) { /* every slot taken (many instances): complete it here */
        sends_fini(g, &mine.q, routine);
        buf_put(copy);
        return;
    }
    symm_on_fini(g->s, SYMM_FINI_DRAIN, handoff_drain, NULL);
}

/* fcollect (per_peer 0: my whole source to every member) and alltoall
 * (per_peer 1: block j of my source to member j), each block landing at
 * offset me*nbytes of the receiver's dest. Sends go to the next member
 * first, receives take the previous one first: no member is everyone's
 * first. */
static void exchange_msg(symm_group_t *g, void *dest, const void *source, size_t nbytes,
                         int per_peer, const char *routine)
{
    int n = g->size;
    size_t stride = per_peer ? nbytes : 0;
    void *tmp;
    const char *src = unaliased(g, source, per_peer ? nbytes * (size_t)n : nbytes, dest,
                                nbytes * (size_t)n, &tmp, routine);
    symm_msg_tag_t tag = symm_group_next_tag(g);
    sends_t q;
    sends_init(&q, n, routine);
    int how = exchange_how(g, nbytes * (size_t)(n - 1));
    for (int k = 1; k < n; k++) {
        int j = (g->me + k) % n;
        send_to(g, &q, tag, 0, j, src + (size_t)j * stride, nbytes, how, routine);
    }
    memmove((char *)dest + (size_t)g->me * nbytes, src + (size_t)g->me * stride, nbytes);
    for (int k = 1; k < n; k++) {
        int j = (g->me - k + n) % n;
        recv_from(g, tag, 0, j, (char *)dest + (size_t)j * nbytes, nbytes, routine);
    }
    sends_fini(g, &q, routine);
    buf_put(tmp);
}

/* collect: one round. Every member sends its block, whatever its size, to
 * every other; the lengths of the messages give each block's offset (an
 * exclusive scan in member order), then each is taken into place. */
static void collect_msg(symm_group_t *g, void *dest, const void *source, size_t nbytes,
                        const char *routine)
{
    int n = g->size;
    symm_msg_tag_t tag = symm_group_next_tag(g);
    sends_t q;
    sends_init(&q, n, routine);
    /* The spec forbids source and dest to overlap; unlike fcollect's,
     * dest's extent is known only from the messages, too late to copy. */
    /* (Each member knows only its own block: it bounds the round by n-1
     * blocks of its size, as fcollect's.) */
    int how = exchange_how(g, nbytes * (size_t)(n - 1));
    for (int k = 1; k < n; k++)
        send_to(g, &q, tag, 0, (g->me + k) % n, source, nbytes, how, routine);
    size_t off = 0, mine = 0;
    size_t here[64], *len = n <= 64 ? here : malloc(sizeof(size_t) * (size_t)n);
    if (len == NULL)
        symm_fatal(routine, "out of memory for %d lengths", n);
    for (int j = 0; j < n; j++) {
        len[j] = j == g->me ? nbytes : arrived(g, tag, 0, j);
        if (j == g->me)
            mine = off;
        off += len[j];
    }
    memmove((char *)dest + mine, source, nbytes);
    off = 0;
    for (int j = 0; j < n; j++) {
        if (j != g->me)
            recv_from(g, tag, 0, j, (char *)dest + off, len[j], routine);
        off += len[j];
    }
    sends_fini(g, &q, routine);
    if (len != here)
        free(len);
}

/* out = the reduction, in the order of who[0..m) (group indices; NULL:
 * every member, in member order), of their count elements: mine (at
 * position self) from `mine`, the others' taken from their messages under
 * tag+round. The same order on every PE: identical bits. */
void reduce_taken(symm_group_t *g, char *out, const void *mine, size_t count, size_t elem,
                  symm_reduce_fn op, symm_msg_tag_t tag, int round, const int *who, int m,
                  int self, const char *routine)
{
    size_t bytes = count * elem;
    char *buf = bytes != 0 && m > 1 ? buf_get(g, bytes, routine) : NULL;
    for (int j = 0; j < m; j++) {
        const void *x = mine;
        if (j != self) {
            char *into = j == 0 ? out : buf;
            recv_from(g, tag, round, who != NULL ? who[j] : j, into, bytes, routine);
            x = into;
        }
        if (j == 0) {
            if (x != out && bytes != 0)
                memcpy(out, x, bytes);
        } else {
            op(out, out, x, count);
        }
    }
    buf_put(buf);
}

/* Reduction by messages. Small: every member sends its whole vector to
 * every other and reduces all n in member order. Large
 * (SYMM_REDUCE_SLICE_MIN), 2 PEs too: reduce-scatter (slice j of every
 * source goes to member j, which reduces it in member order), then
 * allgather of the reduced slices: the same bytes on the wire as the whole
 * exchange at 2 PEs, half the reduction each (2 PEs across namespaces,
 * 64 KiB: 46 us against 56). Nothing is written
 * to dest before my sends of source have completed, so dest may be source. */
static void reduce_msg(symm_group_t *g, void *dest, const void *source, size_t count,
                       size_t elem, symm_reduce_fn op, const char *routine)
{
    size_t bytes = count * elem;
    int n = g->size;
    symm_msg_tag_t tag = symm_group_next_tag(g);
    sends_t q;
    sends_init(&q, n, routine);
    if (n < 2 || bytes < g->s->cfg.reduce_slice_min || (size_t)n > count) {
        int how = exchange_how(g, bytes * (size_t)(n - 1));
        for (int k = 1; k < n; k++)
            send_to(g, &q, tag, 0, (g->me + k) % n, source, bytes, how, routine);
        const char *d = dest, *s = source;
        int overlap = bytes != 0 && d < s + bytes && s < d + bytes;
        char *acc = overlap ? buf_get(g, bytes, routine) : dest;
        reduce_taken(g, acc, source, count, elem, op, tag, 0, NULL, n, g->me, routine);
        sends_fini(g, &q, routine);
        if (overlap) {
            memcpy(dest, acc, bytes);
            buf_put(acc);
        }
        return;
    }
    size_t lo = count * (size_t)g->me / (size_t)n, hi = count * (size_t)(g->me + 1) / (size_t)n;
    /* Either round: n-1 slices of about bytes/n reach each member. */
    int how = exchange_how(g, bytes);
    for (int k = 1; k < n; k++) {
        int j = (g->me + k) % n;
        size_t jlo = count * (size_t)j / (size_t)n, jhi = count * (size_t)(j + 1) / (size_t)n;
        send_to(g, &q, tag, 0, j, (const char *)source + jlo * elem, (jhi - jlo) * elem, how,
                routine);
    }
    char *acc = buf_get(g, (hi - lo) * elem + 1, routine);
    reduce_taken(g, acc, (const char *)source + lo * elem, hi - lo, elem, op, tag, 0, NULL,
                 n, g->me, routine);
    sends_wait(g, &q, routine); /* every slice of source sent: dest may overwrite it */
    char *mine = (char *)dest + lo * elem;
    memcpy(mine, acc, (hi - lo) * elem);
    buf_put(acc);
    for (int k = 1; k < n; k++)
        send_to(g, &q, tag, 1, (g->me + k) % n, mine, (hi - lo) * elem, how, routine);
    for (int k = 1; k < n; k++) {
        int j = (g->me - k + n) % n;
        size_t jlo = count * (size_t)j / (size_t)n, jhi = count * (size_t)(j + 1) / (size_t)n;
        recv_from(g, tag, 1, j, (char *)dest + jlo * elem, (jhi - jlo) * elem, routine);
    }
    sends_fini(g, &q, routine);
}

/* ---- the collectives -------------------------------------------------- */

void symm_coll_broadcast(symm_group_t *g, void *dest, const void *source, size_t nbytes, int root,
                         int update_root, const char *routine)
{
    if (nbytes != 0 && use_msg(g)) {
        const nodes_t *nd = team_nodes(g);
        if (nd != NULL)
            broadcast_nodes(g, nd, dest, source, nbytes, root, update_root, routine);
        else
            broadcast_msg(g, dest, source, nbytes, root, update_root, routine);
        return;
    }
    symm_group_barrier(g, 0);
    if (nbytes != 0) {
        if (g->me != root)
            pull(g, dest, source, nbytes, root, routine);
        else if (update_root && dest != source)
            memmove(dest, source, nbytes);
    }
    symm_group_barrier(g, 0);
}

void symm_coll_fcollect(symm_group_t *g, void *dest, const void *source, size_t nbytes,
                        const char *routine)
{
    if (nbytes != 0 && use_msg(g)) {
        const nodes_t *nd = heads_nodes(g, nbytes * (size_t)g->size, 0, routine);
        if (nd != NULL)
            fcollect_nodes(g, nd, dest, source, nbytes, routine);
        else
            exchange_msg(g, dest, source, nbytes, 0, routine);
        return;
    }
    symm_group_barrier(g, 0);
    for (int k = 0; k < g->size && nbytes != 0; k++) {
        int j = (g->me + k) % g->size; /* start at my own block: spread the readers */
        pull(g, (char *)dest + (size_t)j * nbytes, source, nbytes, j, routine);
    }
    symm_group_barrier(g, 0);
}

void symm_coll_collect(symm_group_t *g, void *dest, const void *source, size_t nbytes,
                       const char *routine)
{
    if (use_msg(g)) {
        /* (The sizes differ per member, the choice must not.) */
        const nodes_t *nd = heads_nodes(g, 0, 0, routine);
        if (nd != NULL)
            collect_nodes(g, nd, dest, source, nbytes, routine);
        else
            collect_msg(g, dest, source, nbytes, routine);
        return;
    }
    __atomic_store_n(g->count, (uint64_t)nbytes, __ATOMIC_RELAXED);
    symm_group_barrier(g, 0);
    size_t off = 0;
    for (int j = 0; j < g->size; j++) {
        uint64_t n;
        if (j == g->me)
            n = nbytes;
        else
            pull(g, &n, g->count, sizeof(n), j, routine);
        pull(g, (char *)dest + off, source, n, j, routine);
        off += n;
    }
    symm_group_barrier(g, 0);
}

void symm_coll_alltoall(symm_group_t *g, void *dest, const void *source, size_t nbytes,
                        const char *routine)
{
    if (nbytes != 0 && use_msg(g)) {
        size_t all = nbytes * (size_t)g->size;
        const nodes_t *nd = heads_nodes(g, all, 1, routine);
        /* In place (spec: undefined, but the flat exchange copes) runs flat. */
        if (nd != NULL && ((const char *)source + all <= (char *)dest ||
                           (char *)dest + all <= (const char *)source))
            alltoall_nodes(g, nd, dest, source, nbytes, routine);
        else
            exchange_msg(g, dest, source, nbytes, 1, routine);
        return;
    }
    symm_group_barrier(g, 0);
    for (int k = 0; k < g->size && nbytes != 0; k++) {
        int j = (g->me + k) % g->size;
        pull(g, (char *)dest + (size_t)j * nbytes, (const char *)source + (size_t)g->me * nbytes,
             nbytes, j, routine);
    }
    symm_group_barrier(g, 0);
}

void symm_coll_alltoalls(symm_group_t *g, void *dest, const void *source, ptrdiff_t dst,
                         ptrdiff_t sst, size_t nelems, size_t elem, const char *routine)
{
    symm_group_barrier(g, 0);
    for (int j = 0; j < g->size && nelems != 0; j++) {
        char *d = (char *)dest + (ptrdiff_t)((size_t)j * nelems) * dst * (ptrdiff_t)elem;
        const char *src =
            (const char *)source + (ptrdiff_t)((size_t)g->me * nelems) * sst * (ptrdiff_t)elem;
        if (j == g->me) {
            for (size_t k = 0; k < nelems; k++)
                memmove(d + (ptrdiff_t)k * dst * (ptrdiff_t)elem,
                        src + (ptrdiff_t)k * sst * (ptrdiff_t)elem, elem);
        } else {
            symm_rma_iget(NULL, d, src, dst, sst, nelems, elem, symm_group_pe(g, j), routine);
        }
    }
    symm_group_barrier(g, 0);
}

/* Copy with non-temporal stores where possible. The reduce slices are read
 * by every peer after they are written, so their cache lines sit shared in
 * other cores; ordinary stores then upgrade them one by one (measured here:
 * 70-320 us for a 1 MiB reduce), streaming stores do not (~60 us). */
static void copy_nt(char *dst, const char *src, size_t n)
{
#if defined(__SSE2__)
    if ((((uintptr_t)dst | (uintptr_t)src) & 15) == 0) {
        size_t i = 0;
        for (; i + 16 <= n; i += 16)
            _mm_stream_si128((__m128i *)(void *)(dst + i),
                             _mm_load_si128((const __m128i *)(const void *)(src + i)));
        if (i < n)
            memcpy(dst + i, src + i, n - i);
        _mm_sfence();
        return;
    }
#endif
    memcpy(dst, src, n);
}

/* out[0..count) = reduction over every member of their source[first..),
 * taking members in order from j0 (then j0+1, ... mod size), a chunk at a
 * time so partial results stay in cache. `stream` (peers will read out, see
 * copy_nt): each chunk is built in a private buffer and streamed out, so
 * out may be my own source (in place). Otherwise out must not overlap any
 * source. Unmapped members' data is fetched ahead, REMOTE_SPAN bytes of
 * every one of them with non-blocking gets and one quiet, so a reduction
 * across nodes makes a round trip per REMOTE_SPAN, not per chunk. */
#define REMOTE_SPAN (256u << 10)

static void reduce_range(symm_group_t *g, char *out, const void *source, size_t first,
                         size_t count, size_t elem, symm_reduce_fn op, int j0, int stream,
                         const char *routine)
{
    int n = g->size, remote = 0;
    size_t per = REDUCE_CHUNK / elem;
    if (n == 1) {
        if (out != (const char *)source + first * elem && count != 0)
            memmove(out, (const char *)source + first * elem, count * elem);
        return;
    }
    for (int k = 0; k < n; k++)
        remote += k != g->me && symm_seg_peer_addr(g->s, source, symm_group_pe(g, k)) == NULL;
    _Alignas(64) char acc[REDUCE_CHUNK];
    const char *src = source;
    const char *base_here[64];
    const char **base = n <= 64 ? base_here : malloc(sizeof(char *) * (size_t)n);
    char *fetched = remote ? malloc((size_t)n * REMOTE_SPAN) : NULL;
    if (base == NULL || (remote && fetched == NULL))
        symm_fatal(routine, "out of memory for a reduction's buffers");
    size_t span = remote ? REMOTE_SPAN / elem : count;
    for (size_t s0 = 0; s0 < count; s0 += span) {
        size_t sc = count - s0 < span ? count - s0 : span;
        size_t sat = (first + s0) * elem;
        /* base[j]: member j's source at element first + s0, here. */
        for (int j = 0; j < n; j++) {
            const char *p = j == g->me ? src + sat
                                       : symm_seg_peer_addr(g->s, src + sat, symm_group_pe(g, j));
            if (p == NULL) {
                p = fetched + (size_t)j * REMOTE_SPAN;
                symm_rma_get(NULL, (char *)p, src + sat, sc * elem, symm_group_pe(g, j), 1,
                             routine);
            }
            base[j] = p;
        }
        if (remote)
            symm_quiet(g->s, &g->s->ctx_default);
        for (size_t d = 0; d < sc; d += per) {
            size_t c = sc - d < per ? sc - d : per, done = s0 + d;
            /* Streamed: build the chunk privately, then stream it out. Else
             * accumulate in place (a memcpy of each chunk from a stack buffer
             * ran at a fraction of memory speed here: rep movsb on this EPYC). */
            char *o = stream ? acc : out + done * elem;
            op(o, base[j0] + d * elem, base[(j0 + 1) % n] + d * elem, c);
            for (int k = 2; k < n; k++)
                op(o, o, base[(j0 + k) % n] + d * elem, c);
            if (stream)
                copy_nt(out + done * elem, acc, c * elem);
        }
    }
    free(fetched);
    if (base != base_here)
        free(base);
}

void symm_coll_reduce(symm_group_t *g, void *dest, const void *source, size_t count, size_t elem,
                      symm_reduce_fn op, const char *routine)
{
    size_t bytes = count * elem;
    int n = g->size;
    if (use_msg(g) && n > 1) {
        const nodes_t *nd = count != 0 ? team_nodes(g) : NULL;
        if (nd != NULL && (bytes < g->s->cfg.reduce_slice_min || nd->n_nodes <= 2))
            reduce_nodes(g, nd, dest, source, count, elem, op, routine);
        else
            reduce_msg(g, dest, source, count, elem, op, routine);
        return;
    }
    /* Whole vector on every PE: small vectors, and 2 PEs, where slicing
     * moves as many bytes between the cores but adds a barrier. */
    if (n <= 2 || bytes < g->s->cfg.reduce_slice_min || (size_t)n > count) {
        const char *d = dest, *src = source;
        int overlap = d < src + bytes && src < d + bytes;
        if (!overlap) {
            /* Peers read only my source: I may fill dest as I go. */
            symm_group_barrier(g, 0);
            reduce_range(g, dest, source, 0, count, elem, op, 0, 0, routine);
            symm_group_barrier(g, 0);
            return;
        }
        char stackbuf[4096];
        char *tmp = bytes <= sizeof(stackbuf) ? stackbuf : malloc(bytes);
        if (tmp == NULL)
            symm_fatal(routine, "out of memory for a %zu-byte reduction buffer", bytes);
        symm_group_barrier(g, 0);
        /* Every PE reduces in the same order, so all get identical bits. */
        reduce_range(g, tmp, source, 0, count, elem, op, 0, 0, routine);
        /* Everyone has read my source before I overwrite it (in place). */
        symm_group_barrier(g, 0);
        if (bytes != 0)
            memcpy(dest, tmp, bytes);
        if (tmp != stackbuf)
            free(tmp);
        return;
    }
    size_t lo = count * (size_t)g->me / (size_t)n, hi = count * (size_t)(g->me + 1) / (size_t)n;
    symm_group_barrier(g, 0);
    /* Each slice is reduced once, by its owner, starting with its own
     * source (safe in place), and then copied: all PEs get identical bits. */
    reduce_range(g, (char *)dest + lo * elem, source, lo, hi - lo, elem, op, g->me, 1,
                 routine);
    symm_group_barrier(g, 0);
    for (int k = 1; k < n; k++) {
        int j = (g->me + k) % n;
        size_t jlo = count * (size_t)j / (size_t)n, jhi = count * (size_t)(j + 1) / (size_t)n;
        pull(g, (char *)dest + jlo * elem, (char *)dest + jlo * elem, (jhi - jlo) * elem, j,
             routine);
    }
    symm_group_barrier(g, 0);
}

/* ---- scans -------------------------------------------------------------- */

/* Pull: out = op over members 0..last-1 of their count elements of source,
 * in member order (last 0: zeros). Mapped members are read in place, the
 * others fetched a chunk at a time. */
static void scan_range(symm_group_t *g, char *out, const void *source, size_t count, size_t elem,
                       symm_reduce_fn op, int last, const char *routine)
{
    _Alignas(64) char fetched[REDUCE_CHUNK];
    size_t per = REDUCE_CHUNK / elem;
    if (last == 0) {
        memset(out, 0, count * elem);
        return;
    }
    for (size_t d = 0; d < count; d += per) {
        size_t c = count - d < per ? count - d : per;
        const char *at = (const char *)source + d * elem;
        char *o = out + d * elem;
        for (int k = 0; k < last; k++) {
            const char *x = at;
            if (k != g->me) {
                x = symm_seg_peer_addr(g->s, at, symm_group_pe(g, k));
                if (x == NULL) {
                    symm_rma_get(NULL, fetched, at, c * elem, symm_group_pe(g, k), 0, routine);
                    x = fetched;
                }
            }
            if (k == 0)
                memcpy(o, x, c * elem);
            else
                op(o, o, x, c);
        }
    }
}

/* Messages: my source to every later member; the earlier members' taken in
 * member order. A member that only sends would run ahead of its receivers
 * scan after scan: every SYNC_EVERY-th scan sends synchronously. */
static void scan_msg(symm_group_t *g, void *dest, const void *source, size_t count, size_t elem,
                     symm_reduce_fn op, int exclusive, const char *routine)
{
    size_t bytes = count * elem;
    int n = g->size, m = exclusive ? g->me : g->me + 1;
    symm_msg_tag_t tag = symm_group_next_tag(g);
    int sync = (tag.seq >> 8) % SYNC_EVERY == 0;
    sends_t q;
    sends_init(&q, n, routine);
    for (int j = g->me + 1; j < n; j++)
        send_to(g, &q, tag, 0, j, source, bytes, sync ? SEND_SYNC : SEND_SIZE, routine);
    /* dest is source (in place): accumulate aside until my sends are done. */
    int same = dest == source;
    char *acc = same ? buf_get(g, bytes, routine) : dest;
    if (m == 0)
        memset(acc, 0, bytes);
    else
        reduce_taken(g, acc, source, count, elem, op, tag, 0, NULL, m, exclusive ? -1 : g->me,
                     routine);
    sends_fini(g, &q, routine);
    if (same) {
        memcpy(dest, acc, bytes);
        buf_put(acc);
    }
}

void symm_coll_scan(symm_group_t *g, void *dest, const void *source, size_t count, size_t elem,
                    symm_reduce_fn op, int exclusive, const char *routine)
{
    size_t bytes = count * elem;
    if (bytes == 0)
        return;
    if (use_msg(g) && g->size > 1) {
        scan_msg(g, dest, source, count, elem, op, exclusive, routine);
        return;
    }
    int last = exclusive ? g->me : g->me + 1;
    if (dest != source) {
        /* Peers read only my source: I may fill dest as I go. */
        symm_group_barrier(g, 0);
        scan_range(g, dest, source, count, elem, op, last, routine);
        symm_group_barrier(g, 0);
        return;
    }
    char *tmp = buf_get(g, bytes, routine);
    symm_group_barrier(g, 0);
    scan_range(g, tmp, source, count, elem, op, last, routine);
    /* Every later member has read my source before I overwrite it. */
    symm_group_barrier(g, 0);
    memcpy(dest, tmp, bytes);
    buf_put(tmp);
}
