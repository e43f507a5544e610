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
 * Node-aware (a team with several members on some node): broadcast, reduce,
 * fcollect, collect and alltoall send between one head per node only; the
 * node's other members share through their mappings (broadcast_nodes,
 * reduce_nodes, fcollect_nodes, collect_nodes: heads allgather the nodes'
 * counts, then their blocks; alltoall_nodes).
 * Between the heads of N nodes (fcollect, collect, alltoall; with one
 * member per node too where it is not direct; heads_alg, SYMM_COLL_HEADS):
 *   direct     up to SYMM_COLL_DIRECT_NODES (8): each head sends to all at once
 *              (collect: its block with its counts, no round between)
 *   bruck      below SYMM_COLL_RING_MIN bytes: ceil(log2 N) rounds
 *              (allgather: doubling; alltoall: slots by distance bits)
 *   ring       from it: N-1 rounds to the next head (alltoall: pairwise,
 *              round k to the head k on)
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

/* Whether this collective exchanges messages: some member is unmapped and
 * the transport has them. The same on every member (mapping is mutual), so
 * all number it alike (symm_group_next_tag). */
static int use_msg(const symm_group_t *g)
{
    return !g->all_mapped && g->s->net != NULL && g->s->net->msg_send != NULL;
}

/* Every message a collective has sent: it waits for them all before it
 * returns (its sources are then reusable), or before it overwrites one. */
typedef struct sends {
    void **h;
    int n;
    void *here[16];
} sends_t;

static void sends_init(sends_t *q, int max, const char *routine)
{
    q->n = 0;
    q->h = max <= 16 ? q->here : malloc(sizeof(void *) * (size_t)max);
    if (q->h == NULL)
        symm_fatal(routine, "out of memory for %d message handles", max);
}

static void sends_wait(symm_group_t *g, sends_t *q, const char *routine)
{
    for (int i = 0; i < q->n; i++) {
        int rc = g->s->net->msg_wait(g->s, q->h[i]);
        if (rc != 0)
            symm_fatal(routine, "a collective message failed: %s",
                       symm_status_str((symm_status_t)rc));
    }
    q->n = 0;
}

static void sends_fini(symm_group_t *g, sends_t *q, const char *routine)
{
    sends_wait(g, q, routine);
    if (q->h != q->here)
        free(q->h);
}

/* Send n bytes of src to member i under tag + round; sync: completes only
 * once i has taken it (see broadcast_msg). Up to SYMM_COLL_EAGER_MAX bytes
 * go eagerly: a rendezvous costs a round trip before the data moves (over
 * tcp a 8 KiB block took 66 us by rendezvous, 11 us eagerly). */
static void send_to(symm_group_t *g, sends_t *q, symm_msg_tag_t tag, int round, int i,
                    const void *src, size_t n, int sync, const char *routine)
{
    int pe = symm_group_pe(g, i);
    tag.seq += (uint64_t)round;
    int how = sync ? SYMM_MSG_SYNC : n <= g->s->cfg.coll_eager_max ? SYMM_MSG_EAGER : SYMM_MSG_AUTO;
    int rc = g->s->net->msg_send(g->s, pe, &tag, src, n, how, &q->h[q->n]);
    if (rc != 0)
        symm_fatal(routine, "sending %zu bytes to PE %d failed: %s", n, pe,
                   symm_status_str((symm_status_t)rc));
    if (q->h[q->n] != NULL)
        q->n++;
}

/* Wait until member i's message under tag + round is here; its length. */
static size_t arrived(symm_group_t *g, symm_msg_tag_t tag, int round, int i)
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
static void recv_from(symm_group_t *g, symm_msg_tag_t tag, int round, int i, void *dst, size_t n,
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

static void *buf_get(symm_group_t *g, size_t n, const char *routine)
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

static void buf_put(void *p)
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
static const void *unaliased(symm_group_t *g, const void *source, size_t slen, const void *dest,
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

/* A broadcast sender does not wait for its receivers (eager messages
 * complete locally), so a root calling broadcasts in a loop could run any
 * number ahead and pile messages up at a slow member. Every SYNC_EVERY-th
 * message collective on a group sends synchronously: a sender is never
 * more than that many ahead of its children. */
#define SYNC_EVERY 64

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
            send_to(g, &q, tag, 0, (v + mask + root) % n, from, nbytes, sync, routine);
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
    for (int k = 1; k < n; k++) {
        int j = (g->me + k) % n;
        send_to(g, &q, tag, 0, j, src + (size_t)j * stride, nbytes, 0, routine);
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
    for (int k = 1; k < n; k++)
        send_to(g, &q, tag, 0, (g->me + k) % n, source, nbytes, 0, routine);
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
static void reduce_taken(symm_group_t *g, char *out, const void *mine, size_t count, size_t elem,
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
        for (int k = 1; k < n; k++)
            send_to(g, &q, tag, 0, (g->me + k) % n, source, bytes, 0, routine);
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
    for (int k = 1; k < n; k++) {
        int j = (g->me + k) % n;
        size_t jlo = count * (size_t)j / (size_t)n, jhi = count * (size_t)(j + 1) / (size_t)n;
        send_to(g, &q, tag, 0, j, (const char *)source + jlo * elem, (jhi - jlo) * elem, 0,
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
        send_to(g, &q, tag, 1, (g->me + k) % n, mine, (hi - lo) * elem, 0, routine);
    for (int k = 1; k < n; k++) {
        int j = (g->me - k + n) % n;
        size_t jlo = count * (size_t)j / (size_t)n, jhi = count * (size_t)(j + 1) / (size_t)n;
        recv_from(g, tag, 1, j, (char *)dest + jlo * elem, (jhi - jlo) * elem, routine);
    }
    sends_fini(g, &q, routine);
}

/* ---- node-aware: teams with several members on some node --------------- */

/* A team spanning nodes with several members on one (SYMM_TRANSPORT=auto,
 * several PEs per node): members on one node share data through their
 * mapped memory and one of them (its head) alone talks to the other nodes.
 * Made once per team on first use (all members agree: the node of every PE
 * is known everywhere, state.h map_node). */
typedef struct nodes {
    int n_nodes;
    int my_node;
    int n_local;  /* members on my node, me included */
    int *local;   /* [n_local] their team indices, ascending */
    int *node_of; /* [size] node number of each member, nodes numbered by first member */
    int *leader;  /* [n_nodes] each node's lowest team index */
    int *count;   /* [n_nodes] members on each node */
    int contig;   /* every node's members are consecutive in the team: nodes' blocks lie
                   * in node order in a collect's dest */
} nodes_t;

/* The team's layout over nodes, or NULL (not a team, node-aware off, no
 * memory). */
static const nodes_t *team_layout(symm_group_t *g)
{
    struct symm_team *t = g->team;
    if (t == NULL || !g->s->cfg.coll_node_aware)
        return NULL;
    nodes_t *nd = __atomic_load_n((nodes_t **)&t->coll_nodes, __ATOMIC_ACQUIRE);
    if (nd == NULL) {
        int n = t->size;
        nd = malloc(sizeof(*nd) + sizeof(int) * 4 * (size_t)n);
        if (nd == NULL)
            return NULL; /* the flat messages work as well */
        nd->local = (int *)(void *)(nd + 1);
        nd->node_of = nd->local + n;
        nd->leader = nd->node_of + n;
        nd->count = nd->leader + n;
        nd->n_nodes = nd->n_local = 0;
        nd->contig = 1;
        int mine = g->s->peers[g->s->my_pe].map_node;
        for (int i = 0; i < n; i++) {
            int key = g->s->peers[t->members[i]].map_node, k = 0;
            while (k < nd->n_nodes && g->s->peers[t->members[nd->leader[k]]].map_node != key)
                k++;
            if (k == nd->n_nodes) {
                nd->count[nd->n_nodes] = 0;
                nd->leader[nd->n_nodes++] = i;
            }
            if (i > 0 && nd->node_of[i - 1] != k && nd->count[k] != 0)
                nd->contig = 0;
            nd->count[k]++;
            nd->node_of[i] = k;
            if (key == mine)
                nd->local[nd->n_local++] = i;
        }
        nd->my_node = nd->node_of[t->my_idx];
        nodes_t *none = NULL;
        if (!__atomic_compare_exchange_n((nodes_t **)&t->coll_nodes, &none, nd, 0,
                                         __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
            free(nd);
            nd = none;
        }
    }
    return nd;
}

/* The layout where it pays for broadcast and reduce: several nodes, several
 * members on some node. */
static const nodes_t *team_nodes(symm_group_t *g)
{
    const nodes_t *nd = team_layout(g);
    return nd != NULL && nd->n_nodes > 1 && nd->n_nodes < g->size ? nd : NULL;
}

/* Four words per member in the team's scratch: IN (my source is ready
 * for my node's head: the collective's tag), OUT (as head: the result is in
 * my dest), DONE (as head: members that have copied it, counted and reset
 * by the head before it returns; nobody adds for the next collective until
 * the head has published OUT for it, after the reset), TOTAL (as head, in
 * collect: the result's length, written before OUT). */
enum { NODE_IN, NODE_OUT, NODE_DONE, NODE_TOTAL };

static uint64_t *node_word(symm_group_t *g, int k, int i)
{
    uint64_t *w = (uint64_t *)(void *)(g->team->scratch + SYMM_TEAM_NODE_OFF) + k;
    return i == g->me ? w : symm_seg_peer_addr(g->s, w, symm_group_pe(g, i));
}

static void node_wait(symm_group_t *g, uint64_t *w, uint64_t v)
{
    unsigned polls = 0;
    while (__atomic_load_n(w, __ATOMIC_ACQUIRE) < v)
        symm_wait_backoff(g->s, &polls);
}

/* My copy of the symmetric buf on member i, mapped here. */
static const void *node_peer(symm_group_t *g, const void *buf, int i, const char *what,
                             const char *routine)
{
    const void *p = symm_seg_peer_addr(g->s, buf, symm_group_pe(g, i));
    if (p == NULL)
        symm_fatal(routine, "%s %p is not symmetric", what, buf);
    return p;
}

/* A member: wait for head h's result, copy it from h's copy of the
 * symmetric buffer from (its dest, or the root's source in the active-set
 * broadcast) into my dest, tell h. */
static void node_take(symm_group_t *g, int h, uint64_t seq, void *dest, const void *from,
                      size_t nbytes, const char *routine)
{
    node_wait(g, node_word(g, NODE_OUT, h), seq);
    memcpy(dest, node_peer(g, from, h, from == dest ? "dest" : "source", routine), nbytes);
    __atomic_fetch_add(node_word(g, NODE_DONE, h), 1, __ATOMIC_RELEASE);
}

/* The head: my dest holds the result; wait until the other n_local-1
 * members of my node have copied it. */
static void node_give(symm_group_t *g, const nodes_t *nd, uint64_t seq)
{
    if (nd->n_local < 2)
        return;
    __atomic_store_n(node_word(g, NODE_OUT, g->me), seq, __ATOMIC_RELEASE);
}

static void node_given(symm_group_t *g, const nodes_t *nd)
{
    if (nd->n_local < 2)
        return;
    uint64_t *done = node_word(g, NODE_DONE, g->me);
    node_wait(g, done, (uint64_t)(nd->n_local - 1));
    __atomic_store_n(done, 0, __ATOMIC_RELAXED);
}

/* Broadcast: the root heads its node, each other node's lowest member
 * heads it; a binomial tree of messages over the heads, then every member
 * copies from its head's dest. Without update_root (the active-set form)
 * the root's dest stays untouched: the root sends, and its node's members
 * copy, from its source. */
static void broadcast_nodes(symm_group_t *g, const nodes_t *nd, void *dest, const void *source,
                            size_t nbytes, int root, int update_root, const char *routine)
{
    symm_msg_tag_t tag = symm_group_next_tag(g);
    int sync = (tag.seq >> 8) % SYNC_EVERY == 0;
    int N = nd->n_nodes, R = nd->node_of[root];
#define HEAD(node) ((node) == R ? root : nd->leader[node])
    int my_head = HEAD(nd->my_node);
    if (g->me != my_head) {
        const void *from = my_head == root && !update_root ? source : dest;
        node_take(g, my_head, tag.seq, dest, from, nbytes, routine);
        return;
    }
    int v = (nd->my_node - R + N) % N, mask = 1;
    while (mask < N && !(v & mask))
        mask <<= 1;
    const void *out = dest;
    if (v != 0)
        recv_from(g, tag, 0, HEAD((v - mask + R) % N), dest, nbytes, routine);
    else if (!update_root)
        out = source;
    else if (dest != source)
        memmove(dest, source, nbytes);
    node_give(g, nd, tag.seq);
    sends_t q;
    sends_init(&q, 32, routine);
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (v + mask < N)
            send_to(g, &q, tag, 0, HEAD((v + mask + R) % N), out, nbytes, sync, routine);
#undef HEAD
    node_given(g, nd);
    sends_fini(g, &q, routine);
}

/* Reduction: each node's lowest member reduces its node's sources (read
 * through the mappings, in member order) into a partial, the heads exchange
 * partials and reduce them in node order (identical bits on every head),
 * every member copies its head's result. */
static void reduce_nodes(symm_group_t *g, const nodes_t *nd, void *dest, const void *source,
                         size_t count, size_t elem, symm_reduce_fn op, const char *routine)
{
    size_t bytes = count * elem;
    symm_msg_tag_t tag = symm_group_next_tag(g);
    int N = nd->n_nodes, h = nd->local[0];
    if (g->me != h) {
        __atomic_store_n(node_word(g, NODE_IN, g->me), tag.seq, __ATOMIC_RELEASE);
        node_take(g, h, tag.seq, dest, dest, bytes, routine);
        return;
    }
    char *part = buf_get(g, bytes, routine);
    for (int k = 0; k < nd->n_local; k++) {
        int i = nd->local[k];
        const void *x = source;
        if (i != g->me) {
            node_wait(g, node_word(g, NODE_IN, i), tag.seq);
            x = node_peer(g, source, i, "source", routine);
        }
        if (k == 0)
            memcpy(part, x, bytes);
        else
            op(part, part, x, count);
    }
    /* My node's sources are read: dest is free to write, even in place. */
    sends_t q;
    sends_init(&q, N, routine);
    for (int k = 1; k < N; k++)
        send_to(g, &q, tag, 0, nd->leader[(nd->my_node + k) % N], part, bytes, 0, routine);
    reduce_taken(g, dest, part, count, elem, op, tag, 0, nd->leader, N, nd->my_node, routine);
    node_give(g, nd, tag.seq);
    node_given(g, nd);
    sends_fini(g, &q, routine);
    buf_put(part);
}

/* ---- between the heads: direct, ring or Bruck --------------------------- */

/* How the heads of N nodes exchange (SYMM_COLL_HEADS): every head sends to
 * every other at once (N-1 messages each, all in flight together), a ring
 * (N-1 rounds, each one message to the next head: the link to one
 * neighbour, never N-1 at once; alltoall: pairwise, one peer a round), or
 * Bruck (ceil(log2 N) rounds, each one message of up to half the data).
 * bytes: what the collective moves per PE, the same on every head. */
enum { HEADS_DIRECT, HEADS_RING, HEADS_BRUCK };

static int heads_alg(const symm_group_t *g, const nodes_t *nd, size_t bytes, int a2a,
                     const char *routine)
{
    const char *c = g->s->cfg.coll_heads;
    int N = nd->n_nodes, alg;
    /* Bruck's alltoall moves about rounds/2 times the data (its
     * allgather moves it once): its bytes weighed by its rounds, it gives
     * way to the pairwise rounds sooner (8 PEs as 8 nodes over tcp, 64 KiB
     * blocks: Bruck 2.4 ms, pairwise 2.0). */
    size_t rounds = 0;
    for (int d = 1; a2a && d < N; d <<= 1)
        rounds++;
    if (rounds > 1)
        bytes *= rounds;
    if (strcmp(c, "direct") == 0)
        alg = HEADS_DIRECT;
    else if (strcmp(c, "ring") == 0)
        alg = HEADS_RING;
    else if (strcmp(c, "bruck") == 0)
        alg = HEADS_BRUCK;
    else if (strcmp(c, "auto") == 0)
        alg = N <= 2 || N <= g->s->cfg.coll_direct_nodes ? HEADS_DIRECT
              : bytes < g->s->cfg.coll_ring_min          ? HEADS_BRUCK
                                                         : HEADS_RING;
    else
        symm_fatal(routine, "SYMM_COLL_HEADS='%s' is not one of auto, direct, ring, bruck", c);
    /* A ring's rounds are tag rounds (< 256). */
    return alg == HEADS_RING && N > 256 ? HEADS_BRUCK : alg;
}

/* Send (or receive) nodes [a, a+cnt) mod N of the node-ordered buf (node
 * b's block at [off[b], off[b+1])) to (from) head of node `node`, under
 * rounds r and r+1: the range wraps at most once, so two pieces at most,
 * each contiguous; a piece of 0 bytes is not sent (both sides know). */
static void heads_send_range(symm_group_t *g, const nodes_t *nd, sends_t *q, symm_msg_tag_t tag,
                             int r, int node, const char *buf, const size_t *off, int a, int cnt,
                             const char *routine)
{
    int N = nd->n_nodes, end = a + cnt < N ? a + cnt : N;
    if (off[end] > off[a])
        send_to(g, q, tag, r, nd->leader[node], buf + off[a], off[end] - off[a], 0, routine);
    if (a + cnt > N && off[a + cnt - N] > off[0])
        send_to(g, q, tag, r + 1, nd->leader[node], buf, off[a + cnt - N] - off[0], 0, routine);
}

static void heads_recv_range(symm_group_t *g, const nodes_t *nd, symm_msg_tag_t tag, int r,
                             int node, char *buf, const size_t *off, int a, int cnt,
                             const char *routine)
{
    int N = nd->n_nodes, end = a + cnt < N ? a + cnt : N;
    if (off[end] > off[a])
        recv_from(g, tag, r, nd->leader[node], buf + off[a], off[end] - off[a], routine);
    if (a + cnt > N && off[a + cnt - N] > off[0])
        recv_from(g, tag, r + 1, nd->leader[node], buf, off[a + cnt - N] - off[0], routine);
}

/* Allgather between the heads: node b's block is buf[off[b], off[b+1])
 * (off[N]: the whole), mine filled; on return every block is, each
 * received straight into place (no packing, any block sizes, 0 included).
 * Sends are left in q. Ring: in round r I pass on the block of node
 * my-r (mine first) to the next head and take node my-1-r's from the
 * previous one. Bruck: before round k I hold the 2^k nodes from mine on;
 * I send (the first min(2^k, N-2^k) of) them to the head 2^k before me,
 * and take as many from the head 2^k after me. */
static void heads_allgather(symm_group_t *g, const nodes_t *nd, symm_msg_tag_t tag, int alg,
                            char *buf, const size_t *off, sends_t *q, const char *routine)
{
    int N = nd->n_nodes, p = nd->my_node;
    if (alg == HEADS_DIRECT) {
        for (int k = 1; k < N; k++)
            heads_send_range(g, nd, q, tag, 0, (p + k) % N, buf, off, p, 1, routine);
        for (int k = 1; k < N; k++) {
            int b = (p - k + N) % N;
            heads_recv_range(g, nd, tag, 0, b, buf, off, b, 1, routine);
        }
    } else if (alg == HEADS_RING) {
        for (int r = 0; r < N - 1; r++) {
            heads_send_range(g, nd, q, tag, r, (p + 1) % N, buf, off, (p - r + N) % N, 1, routine);
            heads_recv_range(g, nd, tag, r, (p - 1 + N) % N, buf, off, (p - 1 - r + 2 * N) % N, 1,
                             routine);
        }
    } else {
        for (int k = 0, have = 1; have < N; k++) {
            int cnt = have < N - have ? have : N - have;
            heads_send_range(g, nd, q, tag, 2 * k, (p - have + N) % N, buf, off, p, cnt, routine);
            heads_recv_range(g, nd, tag, 2 * k, (p + have) % N, buf, off, (p + have) % N, cnt,
                             routine);
            have += cnt;
        }
    }
}

/* The layout for fcollect, collect and alltoall: as team_nodes, and also
 * with one member per node where the heads go by ring or Bruck (each
 * member then its node's head); with direct exchanges the flat forms are
 * the same messages. bytes: as heads_alg's, the same on every member. */
static const nodes_t *heads_nodes(symm_group_t *g, size_t bytes, int a2a, const char *routine)
{
    const nodes_t *nd = team_layout(g);
    if (nd == NULL || nd->n_nodes < 2)
        return NULL;
    return nd->n_nodes < g->size || heads_alg(g, nd, bytes, a2a, routine) != HEADS_DIRECT ? nd
                                                                                           : NULL;
}

/* Wait for my node's members to arrive (IN): their sources are ready. */
static void node_arrivals(symm_group_t *g, const nodes_t *nd, uint64_t seq)
{
    for (int k = 0; k < nd->n_local; k++)
        if (nd->local[k] != g->me)
            node_wait(g, node_word(g, NODE_IN, nd->local[k]), seq);
}

/* fcollect: each head copies its node's blocks straight from the members'
 * sources (mapped) into place in its dest, the heads allgather the nodes'
 * blocks (heads_allgather: from and into dest where every node's members
 * are consecutive in the team, else through a buffer in node order), and
 * every member then copies the whole result from its head's dest. Between
 * nodes that is N(N-1) messages (direct), N(N-1) in N-1 rounds (ring) or
 * N ceil(log2 N) (Bruck) where the flat exchange sends n(n-1). */
static void fcollect_nodes(symm_group_t *g, const nodes_t *nd, void *dest, const void *source,
                           size_t nbytes, const char *routine)
{
    symm_msg_tag_t tag = symm_group_next_tag(g);
    int n = g->size, N = nd->n_nodes, h = nd->local[0], p = nd->my_node;
    size_t total = nbytes * (size_t)n;
    if (g->me != h) {
        __atomic_store_n(node_word(g, NODE_IN, g->me), tag.seq, __ATOMIC_RELEASE);
        node_take(g, h, tag.seq, dest, dest, total, routine);
        return;
    }
    void *tmp;
    const void *mine = unaliased(g, source, nbytes, dest, total, &tmp, routine);
    size_t here[65], *off = N < 65 ? here : malloc(sizeof(size_t) * (size_t)(N + 1));
    if (off == NULL)
        symm_fatal(routine, "out of memory for %d offsets", N + 1);
    off[0] = 0;
    for (int b = 0; b < N; b++)
        off[b + 1] = off[b] + (size_t)nd->count[b] * nbytes;
    /* Node order: dest itself where nodes are runs of the team. */
    char *buf = nd->contig ? dest : buf_get(g, total, routine);
    node_arrivals(g, nd, tag.seq);
    for (int k = 0; k < nd->n_local; k++) {
        int i = nd->local[k];
        const void *x = i == g->me ? mine : node_peer(g, source, i, "source", routine);
        memmove(buf + off[p] + (size_t)k * nbytes, x, nbytes);
    }
    /* My node's sources are read: its members may go on. */
    sends_t q;
    sends_init(&q, 2 * N, routine);
    heads_allgather(g, nd, tag, heads_alg(g, nd, total, 0, routine), buf, off, &q, routine);
    if (!nd->contig) {
        int *at = malloc(sizeof(int) * (size_t)N); /* blocks of each node placed so far */
        if (at == NULL)
            symm_fatal(routine, "out of memory for %d counters", N);
        memset(at, 0, sizeof(int) * (size_t)N);
        for (int i = 0; i < n; i++) {
            int b = nd->node_of[i];
            memcpy((char *)dest + (size_t)i * nbytes, buf + off[b] + (size_t)at[b]++ * nbytes,
                   nbytes);
        }
        free(at);
    }
    node_give(g, nd, tag.seq);
    node_given(g, nd);
    sends_fini(g, &q, routine);
    if (buf != dest)
        buf_put(buf);
    if (off != here)
        free(off);
    buf_put(tmp);
}

/* collect: as fcollect, with every member's own size. A member publishes
 * its byte count in its collect count word and arrives; its head reads the
 * counts of its node through the mappings, the heads allgather the nodes'
 * counts (first tag), which gives every member's offset (an exclusive scan
 * in member order) and every node's total, then the nodes' blocks (second
 * tag, each head copying its members' sources into place first); the head
 * publishes the result's length (TOTAL) and every member copies it. Every
 * member takes both tags, so all count alike. The spec forbids source and
 * dest to overlap: nothing copes with it. */
static void collect_nodes(symm_group_t *g, const nodes_t *nd, void *dest, const void *source,
                          size_t nbytes, const char *routine)
{
    symm_msg_tag_t tag = symm_group_next_tag(g), tag_data = symm_group_next_tag(g);
    int n = g->size, N = nd->n_nodes, h = nd->local[0], p = nd->my_node;
    if (g->me != h) {
        __atomic_store_n(g->count, (uint64_t)nbytes, __ATOMIC_RELAXED);
        __atomic_store_n(node_word(g, NODE_IN, g->me), tag.seq, __ATOMIC_RELEASE);
        node_wait(g, node_word(g, NODE_OUT, h), tag.seq);
        uint64_t total = __atomic_load_n(node_word(g, NODE_TOTAL, h), __ATOMIC_RELAXED);
        if (total != 0)
            memcpy(dest, node_peer(g, dest, h, "dest", routine), (size_t)total);
        __atomic_fetch_add(node_word(g, NODE_DONE, h), 1, __ATOMIC_RELEASE);
        return;
    }
    /* cnt: every member's byte count, in node order (node b's from
     * cnt[first[b]], in member order); coff/noff: the node-ordered
     * offsets of the counts (bytes) and of the data; len/at: each member's
     * count and offset in dest. */
    size_t *mem = malloc(sizeof(size_t) * (size_t)(4 * n + 3 * (N + 1)) + sizeof(uint64_t) * n);
    if (mem == NULL)
        symm_fatal(routine, "out of memory for %d members' counts", n);
    size_t *len = mem, *at = len + n, *coff = at + n, *noff = coff + N + 1, *pos = noff + N + 1;
    size_t *first = pos + n, *fill = first + n;
    uint64_t *cnt = (uint64_t *)(void *)(fill + N + 1);
    coff[0] = 0;
    for (int b = 0; b < N; b++) {
        first[b] = coff[b] / sizeof(uint64_t);
        coff[b + 1] = coff[b] + (size_t)nd->count[b] * sizeof(uint64_t);
        fill[b] = 0;
    }
    for (int i = 0; i < n; i++)
        pos[i] =
            first[nd->node_of[i]] + fill[nd->node_of[i]]++; /* member i's count at cnt[pos[i]] */
    node_arrivals(g, nd, tag.seq);
    for (int k = 0; k < nd->n_local; k++) {
        int i = nd->local[k];
        cnt[pos[i]] =
            i == g->me
                ? (uint64_t)nbytes
                : __atomic_load_n((const uint64_t *)node_peer(g, g->count, i, "count", routine),
                                  __ATOMIC_RELAXED);
    }
    /* Direct (the choice for the counts and for the data alike: it
     * depends on N alone): my node's block is packed and sent with its
     * counts, so the data does not wait a round for them; the others'
     * blocks still land straight in place, taken once their counts are
     * here. Ring and Bruck forward blocks into place: counts first. */
    int alg = heads_alg(g, nd, 0, 0, routine);
    sends_t q;
    sends_init(&q, 4 * N, routine);
    char *pk = NULL;
    size_t mine = 0;
    if (alg == HEADS_DIRECT) {
        for (int k = 0; k < nd->n_local; k++)
            mine += (size_t)cnt[pos[nd->local[k]]];
        pk = buf_get(g, mine + 1, routine);
        size_t o = 0;
        for (int k = 0; k < nd->n_local; k++) {
            int i = nd->local[k];
            size_t li = (size_t)cnt[pos[i]];
            if (li != 0)
                memcpy(pk + o, i == g->me ? source : node_peer(g, source, i, "source", routine),
                       li);
            o += li;
        }
        for (int k = 1; k < N && mine != 0; k++)
            send_to(g, &q, tag_data, 0, nd->leader[(p + k) % N], pk, mine, 0, routine);
    }
    heads_allgather(g, nd, tag, alg, (char *)cnt, coff, &q, routine);
    size_t total = 0;
    for (int i = 0; i < n; i++) {
        len[i] = (size_t)cnt[pos[i]];
        at[i] = total;
        total += len[i];
    }
    noff[0] = 0;
    for (int b = 0; b < N; b++) {
        size_t t = 0;
        for (size_t j = first[b]; j < first[b] + (size_t)nd->count[b]; j++)
            t += (size_t)cnt[j];
        /* In dest itself where nodes are runs of the team. */
        noff[b] = nd->contig ? at[nd->leader[b]] : b == 0 ? 0 : noff[b - 1] + fill[b - 1];
        fill[b] = t;
    }
    noff[N] = total;
    char *buf = nd->contig ? dest : buf_get(g, total + 1, routine);
    if (alg == HEADS_DIRECT) {
        if (mine != 0)
            memcpy(buf + noff[p], pk, mine);
        for (int k = 1; k < N; k++) {
            int b = (p - k + N) % N;
            if (fill[b] != 0)
                recv_from(g, tag_data, 0, nd->leader[b], buf + noff[b], fill[b], routine);
        }
    } else {
        size_t o = 0;
        for (int k = 0; k < nd->n_local; k++) {
            int i = nd->local[k];
            const void *x = i == g->me ? source : node_peer(g, source, i, "source", routine);
            if (len[i] != 0)
                memmove(buf + noff[p] + o, x, len[i]);
            o += len[i];
        }
        heads_allgather(g, nd, tag_data, heads_alg(g, nd, total, 0, routine), buf, noff, &q,
                        routine);
    }
    if (!nd->contig) {
        for (int b = 0; b < N; b++)
            fill[b] = noff[b];
        for (int i = 0; i < n; i++) {
            int b = nd->node_of[i];
            if (len[i] != 0)
                memcpy((char *)dest + at[i], buf + fill[b], len[i]);
            fill[b] += len[i];
        }
        buf_put(buf);
    }
    __atomic_store_n(node_word(g, NODE_TOTAL, g->me), (uint64_t)total, __ATOMIC_RELAXED);
    node_give(g, nd, tag.seq);
    node_given(g, nd);
    sends_fini(g, &q, routine);
    buf_put(pk);
    free(mem);
}

/* alltoall by Bruck between the heads. Slot j (1..N-1) starts as my
 * node's block for node my+j (its members' blocks for that node's members,
 * member order then destination order); in round k (d = 2^k) every slot
 * with bit d set goes, packed in slot order, d heads on, and the same
 * slots come from d heads back. The block in slot j was made by node
 * holder - (j & (d-1)) and is for that node + j; so every size is known
 * everywhere, and at the end slot j holds node my-j's block for mine.
 * ceil(log2 N) messages per head, each ~half the data. */
static void alltoall_bruck(symm_group_t *g, const nodes_t *nd, symm_msg_tag_t tag, void *dest,
                           const void *source, size_t nbytes, sends_t *q, const char *routine)
{
    int n = g->size, N = nd->n_nodes, p = nd->my_node, L = nd->n_local;
#define BLK(o, j) ((size_t)nd->count[(o)] * (size_t)nd->count[((o) + (j)) % N] * nbytes)
#define ORIGIN(x, j, d) (((x) - ((j) & ((d)-1)) + N) % N)
    size_t arena = 0;
    for (int j = 1; j < N; j++)
        arena += BLK(p, j);
    for (int d = 1; d < N; d <<= 1)
        for (int j = d; j < N; j++)
            if (j & d)
                arena += BLK(ORIGIN(p, j, d), j) + BLK(ORIGIN((p - d + N) % N, j, d), j);
    char *mem = buf_get(g, arena, routine), *at_here[64],
         **at = N <= 64 ? at_here : malloc(sizeof(char *) * (size_t)N);
    size_t len_here[64], *len = N <= 64 ? len_here : malloc(sizeof(size_t) * (size_t)N);
    if (at == NULL || len == NULL)
        symm_fatal(routine, "out of memory for %d slots", N);
    char *a = mem;
    for (int j = 1; j < N; j++) {
        int node = (p + j) % N;
        at[j] = a;
        for (int x = 0; x < L; x++) {
            int i = nd->local[x];
            const char *src = i == g->me ? source : node_peer(g, source, i, "source", routine);
            for (int t = 0; t < n; t++)
                if (nd->node_of[t] == node) {
                    memcpy(a, src + (size_t)t * nbytes, nbytes);
                    a += nbytes;
                }
        }
        len[j] = BLK(p, j);
    }
    for (int k = 0, d = 1; d < N; k++, d <<= 1) {
        char *out = a;
        for (int j = d; j < N; j++)
            if (j & d) {
                memcpy(a, at[j], len[j]);
                a += len[j];
            }
        send_to(g, q, tag, k, nd->leader[(p + d) % N], out, (size_t)(a - out), 0, routine);
        char *in = a;
        for (int j = d; j < N; j++)
            if (j & d) {
                /* (p - (j & (2d-1))): the holder d back made it at ORIGIN(p - d, j, d). */
                at[j] = a;
                len[j] = BLK(ORIGIN((p - d + N) % N, j, d), j);
                a += len[j];
            }
        recv_from(g, tag, k, nd->leader[(p - d + N) % N], in, (size_t)(a - in), routine);
    }
    for (int j = 1; j < N; j++) {
        int node = (p - j + N) % N;
        const char *x = at[j];
        for (int i = 0; i < n; i++)
            if (nd->node_of[i] == node)
                for (int b = 0; b < L; b++, x += nbytes) {
                    int m = nd->local[b];
                    memcpy((m == g->me ? (char *)dest
                                       : (char *)node_peer(g, dest, m, "dest", routine)) +
                               (size_t)i * nbytes,
                           x, nbytes);
                }
    }
#undef BLK
#undef ORIGIN
    /* The sends are from mem: complete them before it goes back. */
    sends_wait(g, q, routine);
    buf_put(mem);
    if (at != at_here)
        free(at);
    if (len != len_here)
        free(len);
}

/* Member i's source and dest, here. */
#define SRC(i) ((const char *)((i) == g->me ? source : node_peer(g, source, i, "source", routine)))
#define DST(i) ((char *)((i) == g->me ? dest : (void *)node_peer(g, dest, i, "dest", routine)))

/* alltoall between the heads, direct or pairwise: one pack per other
 * node, in node order after mine. Direct: every pack sent, then every
 * block taken; pairwise (ring): round k sends to the node k after mine and
 * takes from the one k before. */
static void alltoall_packs(symm_group_t *g, const nodes_t *nd, symm_msg_tag_t tag, int alg,
                           void *dest, const void *source, size_t nbytes, sends_t *q,
                           const char *routine)
{
    int n = g->size, N = nd->n_nodes, L = nd->n_local;
    size_t far = (size_t)(n - L) * nbytes * (size_t)L;
    char *pack = buf_get(g, far, routine), *in = buf_get(g, far, routine);
    char *p = pack;
    for (int k = 1; k < N; k++) {
        int node = (nd->my_node + k) % N;
        char *start = p;
        for (int a = 0; a < L; a++)
            for (int j = 0; j < n; j++)
                if (nd->node_of[j] == node) {
                    memcpy(p, SRC(nd->local[a]) + (size_t)j * nbytes, nbytes);
                    p += nbytes;
                }
        send_to(g, q, tag, 0, nd->leader[node], start, (size_t)(p - start), 0, routine);
        if (alg == HEADS_DIRECT && k < N - 1)
            continue;
        for (int r = alg == HEADS_DIRECT ? 1 : k; r <= k; r++) {
            int from = (nd->my_node - r + N) % N;
            recv_from(g, tag, 0, nd->leader[from], in, (size_t)nd->count[from] * (size_t)L * nbytes,
                      routine);
            const char *x = in;
            for (int i = 0; i < n; i++)
                if (nd->node_of[i] == from)
                    for (int b = 0; b < L; b++, x += nbytes)
                        memcpy(DST(nd->local[b]) + (size_t)i * nbytes, x, nbytes);
        }
    }
    sends_wait(g, q, routine);
    buf_put(in);
    buf_put(pack);
}

/* alltoall: each head moves every block of its node. It waits for its
 * members to arrive (their sources ready, their dests free), copies the
 * blocks between members of its node through the mappings, sends each
 * other head one message with the blocks from its node's members to that
 * node's (member order, then destination order), writes the blocks from
 * the message it takes from each other head straight into its members'
 * dests, and says done; a member only arrives and waits. Between nodes
 * that is N(N-1) messages where the flat exchange sends n(n-1). */
static void alltoall_nodes(symm_group_t *g, const nodes_t *nd, void *dest, const void *source,
                           size_t nbytes, const char *routine)
{
    symm_msg_tag_t tag = symm_group_next_tag(g);
    int n = g->size, N = nd->n_nodes, L = nd->n_local, h = nd->local[0];
    if (g->me != h) {
        __atomic_store_n(node_word(g, NODE_IN, g->me), tag.seq, __ATOMIC_RELEASE);
        node_wait(g, node_word(g, NODE_OUT, h), tag.seq);
        return;
    }
    for (int k = 1; k < L; k++)
        node_wait(g, node_word(g, NODE_IN, nd->local[k]), tag.seq);
    for (int a = 0; a < L; a++)
        for (int b = 0; b < L; b++) {
            int i = nd->local[a], j = nd->local[b];
            memcpy(DST(j) + (size_t)i * nbytes, SRC(i) + (size_t)j * nbytes, nbytes);
        }
    sends_t q;
    sends_init(&q, N, routine);
    int alg = heads_alg(g, nd, nbytes * (size_t)n, 1, routine);
    if (alg == HEADS_BRUCK)
        alltoall_bruck(g, nd, tag, dest, source, nbytes, &q, routine);
    else
        alltoall_packs(g, nd, tag, alg, dest, source, nbytes, &q, routine);
#undef SRC
#undef DST
    node_give(g, nd, tag.seq);
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
        send_to(g, &q, tag, 0, j, source, bytes, sync, routine);
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
