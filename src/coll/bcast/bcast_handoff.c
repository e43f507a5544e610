/*
 * bcast_handoff.c - the sends a message broadcast handed off (declared,
 * with why, in bcast/bcast_handoff.h): a table of them, every instance's
 * together, completed when an instance has too many out or at finalize's
 * drain.
 */
#include <pthread.h>

#include "coll/bcast/bcast_handoff.h"
#include "coll/coll_bufpool.h"

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

void symm_coll_handoff_reap(symm_instance_t *s, int keep)
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
        symm_coll_sends_fini(&g1, &h.q, "shmem_broadcast");
        symm_coll_buf_put(h.buf);
    }
}

static void handoff_drain(symm_instance_t *s, void *arg)
{
    (void)arg;
    symm_coll_handoff_reap(s, 0);
}

void symm_coll_handoff_park(symm_group_t *g, sends_t *q, void *copy, const char *routine)
{
    struct handoff mine = {.s = g->s, .q = *q, .buf = copy};
    if (q->h == q->here)
        mine.q.h = mine.q.here;
    pthread_mutex_lock(&handoff_lock);
    int kept = n_handoff < HANDOFF_SLOTS;
    if (kept)
        handoff_move(&handoff[n_handoff++], &mine);
    pthread_mutex_unlock(&handoff_lock);
    if (!kept) { /* every slot taken (many instances): complete it here */
        symm_coll_sends_fini(g, &mine.q, routine);
        symm_coll_buf_put(copy);
        return;
    }
    symm_on_fini(g->s, SYMM_FINI_DRAIN, handoff_drain, NULL);
}
