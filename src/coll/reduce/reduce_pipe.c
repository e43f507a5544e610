/*
 * reduce_pipe.c - the pipelined reduction by messages among m members (a
 * message group's members, or the heads of a node-aware team): direct
 * reduce-scatter, then allgather, each member's slice cut into segments
 * (SYMM_COLL_SEGMENT) so that the wire never waits for the CPU:
 *
 *   - every member posts all its reduce-scatter sends at once (segment s of
 *     member j's slice of source, to j);
 *   - each member keeps up to SYMM_COLL_WINDOW receives in flight, in the
 *     order it needs them, so a rendezvous transfer starts while the
 *     previous segment is being reduced;
 *   - segment s of its own slice reduced (in member order: identical bits
 *     everywhere), it sends it to every member at once, while segment s+1
 *     is still arriving.
 *
 * Each member's link carries (m-1)/m of the vector each way in each half,
 * as the unsegmented exchange does, but reduction, copies and the
 * rendezvous handshakes hide behind the transfers instead of adding to
 * them. Rounds: segment s of the reduce-scatter is round s, of the
 * allgather round SEG_MAX + s (a collective's tag has 256 rounds).
 *
 * dest may be source (in place): then the allgather's receives into dest
 * (over the slices this member sends from) start only once the
 * reduce-scatter's sends have completed, and a member reduces its own
 * segment from a copy where the members before it would overwrite it.
 * Other overlaps go through a private buffer.
 */
#include <stdlib.h>
#include <string.h>

#include "coll/coll_algs.h"
#include "coll/coll_bufpool.h"
#include "coll/coll_msg.h"
#include "runtime/log.h"

#define SEG_MAX 128 /* segments per slice: rounds 0..127 and 128..255 */

/* One receive the pipeline needs, in the order it needs them. */
typedef struct pipe_rx {
    char *dst;
    size_t bytes;
    int who;   /* index into the member list */
    int round; /* < SEG_MAX: reduce-scatter segment; else allgather */
} pipe_rx_t;

typedef struct pipe {
    symm_group_t *g;
    const int *who; /* group indices of the members (NULL: every member) */
    int m, self;
    size_t count, elem;
    size_t lo, hi;    /* my slice, elements */
    size_t seg;       /* elements in each of my segments */
    size_t seg_bytes; /* the largest segment of any member, bytes */
    char *acc;        /* my slice of dest */
    const char *mine; /* my slice of source */
    char *mine_copy;  /* a segment of mine, where reducing in place overwrites it */
    char *slots;      /* window + 1 receive buffers of seg_bytes */
    int window;
    pipe_rx_t *rx;
    int n_rx;
    int last_rx[SEG_MAX]; /* the last receive of segment s: after it, s is in dest */
    symm_reduce_fn op;
    symm_msg_tag_t tag;
    sends_t q;
    int n_scatter;     /* q's first handles: the reduce-scatter's sends */
    int scatter_done;  /* they have completed (or need not) */
    const char *first; /* the first member's part of the segment being folded */
    int folded;        /* members folded into it so far */
    int how;
    const symm_reduce_prep_t *prep; /* makes source's segments, hears dest's land */
    void *whole; /* dest overlaps source: the result goes here first */
    const char *routine;
} pipe_t;

static int member(const pipe_t *p, int k)
{
    return p->who != NULL ? p->who[k] : k;
}

static void slice_of(const pipe_t *p, int k, size_t *lo, size_t *hi)
{
    *lo = p->count * (size_t)k / (size_t)p->m;
    *hi = p->count * (size_t)(k + 1) / (size_t)p->m;
}

/* Elements per segment of a slice of span elements: the same on sender and
 * receiver, since both compute it from the slice. */
static size_t seg_elems(const pipe_t *p, size_t span)
{
    size_t se = p->g->s->cfg.coll.segment / p->elem;
    se = se != 0 ? se : 1;
    if ((span + se - 1) / se > SEG_MAX)
        se = (span + SEG_MAX - 1) / SEG_MAX;
    return se;
}

static size_t n_segs(const pipe_t *p, size_t span)
{
    size_t se = seg_elems(p, span);
    return span == 0 ? 0 : (span + se - 1) / se;
}

/* Segments in the slice with the most. */
static size_t most_segs(const pipe_t *p)
{
    size_t most = 0;
    for (int k = 0; k < p->m; k++) {
        size_t lo, hi;
        slice_of(p, k, &lo, &hi);
        most = n_segs(p, hi - lo) > most ? n_segs(p, hi - lo) : most;
    }
    return most;
}

/* Post the reduce-scatter's sends: segment s of member j's slice, to j,
 * segment-major so every member's first segment leaves first; each
 * segment, mine too, made (p->prep) just before: on return all of source
 * is made. */
static void pipe_send_slices(pipe_t *p, const char *source)
{
    size_t most = most_segs(p);
    for (size_t s = 0; s < most; s++)
        for (int k = 0; k < p->m; k++) {
            int j = (p->self + k) % p->m;
            size_t lo, hi;
            slice_of(p, j, &lo, &hi);
            size_t se = seg_elems(p, hi - lo), a = lo + s * se;
            if (a >= hi)
                continue;
            size_t b = a + se < hi ? a + se : hi;
            if (p->prep != NULL)
                p->prep->make(p->prep->arg, a, b);
            if (k == 0) /* my own segment: read when folded */
                continue;
            symm_coll_send_to(p->g, &p->q, p->tag, (int)s, member(p, j), source + a * p->elem,
                              (b - a) * p->elem, p->how, p->routine);
        }
}

/* Receives of segment s of every other member's reduced slice, into dest. */
static int pipe_plan_gather(pipe_t *p, char *dest, size_t s, int n)
{
    for (int k = 0; k < p->m; k++) {
        size_t lo, hi;
        slice_of(p, k, &lo, &hi);
        size_t se = seg_elems(p, hi - lo), a = lo + s * se;
        if (k == p->self || a >= hi)
            continue;
        size_t b = a + se < hi ? a + se : hi;
        p->rx[n++] = (pipe_rx_t){.dst = dest + a * p->elem,
                                 .bytes = (b - a) * p->elem,
                                 .who = k,
                                 .round = SEG_MAX + (int)s};
    }
    return n;
}

/* The receives, in the order they are needed: segment s of my slice from
 * every other member (member order), then segment s of every other
 * member's reduced slice; in place, the reduced slices after all of mine. */
static void pipe_plan(pipe_t *p, char *dest, int in_place)
{
    size_t my_n = n_segs(p, p->hi - p->lo), most = most_segs(p);
    int n = 0;
    for (size_t s = 0; s < most; s++) {
        for (int k = 0; k < p->m && s < my_n; k++) {
            size_t a = p->lo + s * p->seg, b = a + p->seg < p->hi ? a + p->seg : p->hi;
            if (k != p->self)
                p->rx[n++] = (pipe_rx_t){.bytes = (b - a) * p->elem, .who = k, .round = (int)s};
        }
        if (!in_place)
            n = pipe_plan_gather(p, dest, s, n);
    }
    for (size_t s = 0; s < most && in_place; s++)
        n = pipe_plan_gather(p, dest, s, n);
    p->n_rx = n;
    for (int i = 0; i < n; i++)
        p->last_rx[p->rx[i].round % SEG_MAX] = i;
}

/* Start receive i if its message is here (reduce-scatter segments into a
 * slot; a slot is reused window + 1 receives later, when the one before
 * has been folded in). In place, the allgather lands on what my
 * reduce-scatter sends read: before its first receive, those sends
 * complete (those alone: my allgather sends complete only as the others
 * take them, after this same wait). */
static int pipe_post(void *arg, size_t i, void **h)
{
    pipe_t *p = arg;
    pipe_rx_t *r = &p->rx[i];
    if (r->round >= SEG_MAX && !p->scatter_done) {
        for (int k = 0; k < p->n_scatter; k++) {
            symm_coll_recv_wait(p->g, p->q.h[k], p->routine);
            p->q.h[k] = NULL;
        }
        p->scatter_done = 1;
    }
    if (r->round < SEG_MAX)
        r->dst = p->slots + (i % (size_t)(p->window + 1)) * p->seg_bytes;
    return symm_coll_recv_try(p->g, p->tag, r->round, member(p, r->who), r->dst, r->bytes, h,
                              p->routine);
}

/* Fold the reduce-scatter receive i into my segment: members in order,
 * mine where it falls; the last one of a segment sends the segment on. */
static void pipe_fold(void *arg, size_t i)
{
    pipe_t *p = arg;
    const pipe_rx_t *r = &p->rx[i];
    if (r->round >= SEG_MAX) /* an allgather segment: in place already */
        return;
    const char **first = &p->first;
    int *folded = &p->folded;
    size_t s = (size_t)r->round, a = p->lo + s * p->seg;
    size_t b = a + p->seg < p->hi ? a + p->seg : p->hi;
    size_t n = b - a, off = (a - p->lo) * p->elem;
    char *acc = p->acc + off;
    const char *mine = p->mine + off;
    if (*folded == 0 && p->mine_copy != NULL) {
        memcpy(p->mine_copy, mine, n * p->elem);
        mine = p->mine_copy;
    } else if (p->mine_copy != NULL) {
        mine = p->mine_copy;
    }
    int last = r->who == p->m - 1 || (r->who == p->m - 2 && p->self == p->m - 1);
    for (int k = *folded; k <= r->who || (last && k < p->m); k++) {
        const char *x = k == p->self ? mine : r->dst;
        if (k == 0)
            *first = x;
        else if (k == 1)
            p->op(acc, *first, x, n);
        else
            p->op(acc, acc, x, n);
        *folded = k + 1;
    }
    if (!last)
        return;
    *folded = 0;
    for (int k = 1; k < p->m; k++)
        symm_coll_send_to(p->g, &p->q, p->tag, SEG_MAX + (int)s, member(p, (p->self + k) % p->m),
                          acc, n * p->elem, p->how, p->routine);
}

/* Receive i is in: fold it; the last of its segment tells p->prep that
 * the segment is in dest (segments complete in order: each one's last
 * receive comes after the last of the one before, in both plans). */
static void pipe_done(void *arg, size_t i)
{
    pipe_t *p = arg;
    pipe_fold(p, i);
    int s = p->rx[i].round % SEG_MAX;
    if (p->prep != NULL && p->prep->landed != NULL && p->last_rx[s] == (int)i && p->whole == NULL)
        p->prep->landed(p->prep->arg, (size_t)s);
}

size_t symm_coll_reduce_pipe_segs(const symm_group_t *g, int m, size_t count, size_t elem)
{
    pipe_t p = {.g = (symm_group_t *)g, .m = m, .count = count, .elem = elem};
    return most_segs(&p);
}

int symm_coll_reduce_pipe_seg(const symm_group_t *g, int m, size_t count, size_t elem, int k,
                              size_t s, size_t *lo, size_t *hi)
{
    pipe_t p = {.g = (symm_group_t *)g, .m = m, .count = count, .elem = elem};
    size_t a, b;
    slice_of(&p, k, &a, &b);
    size_t se = seg_elems(&p, b - a);
    if (a + s * se >= b)
        return 0;
    *lo = a + s * se;
    *hi = *lo + se < b ? *lo + se : b;
    return 1;
}

void symm_coll_reduce_pipe(symm_group_t *g, const int *who, int m, int self, void *dest,
                           const void *source, size_t count, size_t elem, symm_reduce_fn op,
                           symm_msg_tag_t tag, const symm_reduce_prep_t *prep, const char *routine)
{
    size_t bytes = count * elem;
    const char *d = dest, *s = source;
    void *whole = NULL;
    if (d != s && bytes != 0 && d < s + bytes && s < d + bytes) /* overlapping, not in place */
        dest = whole = symm_coll_buf_get(g, bytes, routine);
    int in_place = dest == source && bytes != 0;
    pipe_t p = {.g = g,
                .who = who,
                .m = m,
                .self = self,
                .count = count,
                .elem = elem,
                .op = op,
                .tag = tag,
                .prep = prep,
                .routine = routine,
                .window = g->s->cfg.coll.window};
    p.how = exchange_how(g, bytes);
    slice_of(&p, self, &p.lo, &p.hi);
    p.seg = seg_elems(&p, p.hi - p.lo);
    for (int k = 0; k < m; k++) {
        size_t lo, hi;
        slice_of(&p, k, &lo, &hi);
        size_t sb = seg_elems(&p, hi - lo) * elem;
        p.seg_bytes = sb > p.seg_bytes ? sb : p.seg_bytes;
    }
    p.acc = (char *)dest + p.lo * elem;
    p.mine = (const char *)source + p.lo * elem;
    /* In place, members before me overwrite my segment before I fold it. */
    size_t extra = in_place && self >= 2 ? p.seg_bytes : 0;
    p.slots = symm_coll_buf_get(g, (size_t)(p.window + 1) * p.seg_bytes + extra + 1, routine);
    p.mine_copy = extra != 0 ? p.slots + (size_t)(p.window + 1) * p.seg_bytes : NULL;
    p.rx = malloc(sizeof(*p.rx) * (size_t)(2 * SEG_MAX * (m - 1)) + 1);
    if (p.rx == NULL)
        symm_fatal(routine, "out of memory for a reduction's %d receives", 2 * SEG_MAX * (m - 1));
    symm_coll_sends_init(&p.q, 2 * SEG_MAX * (m - 1), routine);
    pipe_send_slices(&p, source);
    p.n_scatter = p.q.n;
    pipe_plan(&p, dest, in_place);
    p.scatter_done = !in_place;
    p.whole = whole;
    symm_coll_recv_window(g, (size_t)p.n_rx, 64, pipe_post, pipe_done, &p, routine);
    symm_coll_sends_fini(g, &p.q, routine);
    free(p.rx);
    symm_coll_buf_put(p.slots);
    if (whole != NULL) {
        memcpy((void *)d, whole, bytes);
        symm_coll_buf_put(whole);
        if (prep != NULL && prep->landed != NULL && count != 0)
            prep->landed(prep->arg, most_segs(&p) - 1);
    }
}
