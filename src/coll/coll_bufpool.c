/*
 * coll_bufpool.c - the pool of private buffers the collectives receive
 * messages into or send them from (declared in coll/coll_bufpool.h), kept
 * between collectives and given back at finalize (RELEASE hook), and the
 * private copy of a source that overlaps its dest.
 *
 * Why a pool: a fresh malloc of a large block is a fresh mapping, and a
 * rendezvous into it costs UCX (over tcp) far more than one into memory it
 * has used before. A few are kept; threads in collectives at once each get
 * their own.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "coll/coll_bufpool.h"
#include "runtime/log.h"

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

void *symm_coll_buf_get(symm_group_t *g, size_t n, const char *routine)
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

void symm_coll_buf_put(void *p)
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

const void *symm_coll_unaliased(symm_group_t *g, const void *source, size_t slen, const void *dest,
                                size_t dlen, void **tmp, const char *routine)
{
    const char *s = source, *d = dest;
    *tmp = NULL;
    if (slen == 0 || dlen == 0 || !(s < d + dlen && d < s + slen))
        return source;
    *tmp = symm_coll_buf_get(g, slen, routine);
    memcpy(*tmp, source, slen);
    return *tmp;
}
