/*
 * stream.c - streams: the queue of work items, the progress thread, and the
 * streams' lifecycle (create, synchronize, destroy, the default stream).
 * The public entry points that use them are in api/api_stream.c.
 *
 * Queue: a chain of blocks of SYMM_STREAM_BLOCK items. Producers (any user
 * thread) append under the stream's mutex and publish the new count with a
 * release store to `enqueued`; the thread reads `enqueued` with acquire order
 * and runs every item up to it without the lock, so a burst of enqueues never
 * waits on the thread and the thread takes the lock only to go to sleep. A
 * finished block goes back as the stream's one spare (an atomic exchange).
 *
 * Idle: the thread polls `enqueued` for the instance's spin count (as every
 * symm wait spins first; few polls when PEs outnumber cores), then sleeps on
 * work_cv; a producer signals it only when it sleeps. No core burns while
 * idle. Synchronize likewise polls, then sleeps on done_cv: waking a thread
 * costs tens of microseconds on a VM, a spin a few.
 *
 * Completion: synchronize (and destroy) enqueue a SYNC item (a quiet) and
 * wait for the thread's `done` count to reach its ticket. The thread stores
 * `done` after every item; after a SYNC item it also wakes the waiters when
 * there are any (store done, then load waiters; a waiter counts itself, then
 * loads done: both sequentially consistent, so one of them sees the other).
 *
 * Must never: run before shmem_init (the thread would exist while init remaps
 * the program's globals), take a lock or allocate on symm's RMA paths, or
 * leave signals to the thread that the user's threads expect to handle.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ops/sync.h"
#include "runtime/log.h"
#include "runtime/state.h"
#include "stream/stream.h"
#include "team/team.h"

#define SYMM_STREAM_BLOCK 256 /* items per block: 12 KiB */
#define SYMM_STREAM_MAGIC 0x6d727473736d7973ull

typedef struct stream_block {
    struct stream_block *next;
    symm_stream_item_t items[SYMM_STREAM_BLOCK];
} stream_block_t;

struct symm_stream {
    uint64_t magic;
    pthread_mutex_t lock;
    pthread_cond_t work_cv; /* the thread sleeps here when the queue is empty */
    pthread_cond_t done_cv; /* synchronize sleeps here */
    /* --- producers, under lock --- */
    stream_block_t *tail;
    unsigned tail_idx;
    int idle; /* the thread sleeps on work_cv */
    int stop; /* destroy: run what is queued, then end */
    /* --- shared, atomic --- */
    uint64_t enqueued;     /* items appended (release, under lock) */
    uint64_t done;         /* items run (by the thread) */
    unsigned waiters;      /* threads in synchronize */
    stream_block_t *spare; /* one finished block, for the next append */
    /* --- the thread's own --- */
    stream_block_t *head;
    unsigned head_idx;
    pthread_t thread;
    int spin; /* polls before sleeping: the instance's spin (fewer when oversubscribed) */
    /* --- the list of live streams, under streams_lock --- */
    struct symm_stream *prev, *next;
};

static pthread_mutex_t streams_lock = PTHREAD_MUTEX_INITIALIZER;
static struct symm_stream *streams;        /* live streams */
static struct symm_stream *default_stream; /* made by the first NULL stream; atomic */
/* Destroyed streams, kept (without their queue) for the next create: a
 * destroyed handle stays readable, so using it is a clear error, not a read
 * of freed memory. */
static struct symm_stream *graveyard;
static pthread_mutex_t default_lock = PTHREAD_MUTEX_INITIALIZER; /* making the default stream */

static stream_block_t *block_get(struct symm_stream *st)
{
    stream_block_t *b = __atomic_exchange_n(&st->spare, NULL, __ATOMIC_ACQ_REL);
    if (b == NULL) {
        b = malloc(sizeof(*b));
        if (b == NULL)
            symm_fatal("symm_stream_enqueue", "out of memory for a stream's queue (%zu bytes)",
                       sizeof(*b));
    }
    b->next = NULL;
    return b;
}

static void block_recycle(struct symm_stream *st, stream_block_t *b)
{
    free(__atomic_exchange_n(&st->spare, b, __ATOMIC_ACQ_REL));
}

uint64_t symm_stream_enqueue(struct symm_stream *st, const symm_stream_item_t *item)
{
    pthread_mutex_lock(&st->lock);
    if (st->tail_idx == SYMM_STREAM_BLOCK) {
        stream_block_t *b = block_get(st);
        st->tail->next = b;
        st->tail = b;
        st->tail_idx = 0;
    }
    st->tail->items[st->tail_idx++] = *item;
    uint64_t ticket = __atomic_load_n(&st->enqueued, __ATOMIC_RELAXED) + 1;
    __atomic_store_n(&st->enqueued, ticket, __ATOMIC_RELEASE);
    if (st->idle)
        pthread_cond_signal(&st->work_cv);
    pthread_mutex_unlock(&st->lock);
    return ticket;
}

/* The count of items to run, past `executed`; the same count once the stream
 * is stopped and drained. */
static uint64_t stream_next_work(struct symm_stream *st, uint64_t executed)
{
    uint64_t avail = __atomic_load_n(&st->enqueued, __ATOMIC_ACQUIRE);
    for (int i = 0; avail == executed && i < st->spin; i++) {
        symm_cpu_relax();
        avail = __atomic_load_n(&st->enqueued, __ATOMIC_ACQUIRE);
    }
    if (avail != executed)
        return avail;
    pthread_mutex_lock(&st->lock);
    while ((avail = __atomic_load_n(&st->enqueued, __ATOMIC_ACQUIRE)) == executed && !st->stop) {
        st->idle = 1;
        pthread_cond_wait(&st->work_cv, &st->lock);
    }
    st->idle = 0;
    pthread_mutex_unlock(&st->lock);
    return avail;
}

static void stream_publish(struct symm_stream *st, uint64_t executed, int wake)
{
    if (!wake) {
        __atomic_store_n(&st->done, executed, __ATOMIC_RELEASE);
        return;
    }
    __atomic_store_n(&st->done, executed, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&st->waiters, __ATOMIC_SEQ_CST) != 0) {
        pthread_mutex_lock(&st->lock);
        pthread_cond_broadcast(&st->done_cv);
        pthread_mutex_unlock(&st->lock);
    }
}

static void *stream_main(void *arg)
{
    struct symm_stream *st = arg;
    uint64_t executed = 0;
    for (;;) {
        uint64_t avail = stream_next_work(st, executed);
        if (avail == executed)
            return NULL; /* stopped and drained */
        while (executed < avail) {
            if (st->head_idx == SYMM_STREAM_BLOCK) {
                /* The producer linked the next block before publishing the
                 * item that needed it, and no longer appends to this one. */
                stream_block_t *old = st->head;
                st->head = old->next;
                st->head_idx = 0;
                block_recycle(st, old);
            }
            const symm_stream_item_t *item = &st->head->items[st->head_idx++];
            symm_stream_exec(item);
            stream_publish(st, ++executed, item->op == SYMM_STREAM_SYNC);
        }
    }
}

/* Enqueue a SYNC and wait until the thread has run it. */
static void stream_wait_all(struct symm_stream *st, const char *routine)
{
    symm_stream_item_t sync = {.op = SYMM_STREAM_SYNC, .routine = routine};
    uint64_t ticket = symm_stream_enqueue(st, &sync);
    for (int i = 0; i < st->spin; i++) {
        if (__atomic_load_n(&st->done, __ATOMIC_ACQUIRE) >= ticket)
            return;
        symm_cpu_relax();
    }
    pthread_mutex_lock(&st->lock);
    __atomic_fetch_add(&st->waiters, 1, __ATOMIC_SEQ_CST);
    while (__atomic_load_n(&st->done, __ATOMIC_SEQ_CST) < ticket)
        pthread_cond_wait(&st->done_cv, &st->lock);
    __atomic_fetch_sub(&st->waiters, 1, __ATOMIC_SEQ_CST);
    pthread_mutex_unlock(&st->lock);
}

/* Free the queue and the sync objects; the struct goes to the graveyard. */
static void stream_free(struct symm_stream *st)
{
    stream_block_t *b = st->head;
    while (b != NULL) {
        stream_block_t *next = b->next;
        free(b);
        b = next;
    }
    free(st->spare);
    pthread_cond_destroy(&st->done_cv);
    pthread_cond_destroy(&st->work_cv);
    pthread_mutex_destroy(&st->lock);
    memset(st, 0, sizeof(*st));
    pthread_mutex_lock(&streams_lock);
    st->next = graveyard;
    graveyard = st;
    pthread_mutex_unlock(&streams_lock);
}

/* Where the thread may run. oshrun pins each PE to one CPU when there are
 * enough of them, and a thread inherits its creator's pinning: on the
 * caller's CPU the stream could only take turns with the caller, never
 * overlap with it. So when the caller is pinned to one CPU, the stream may
 * run on every other CPU (the kernel keeps it inside the job's cpuset); a
 * caller allowed several CPUs passes its own set on unchanged. */
static void stream_placement(pthread_attr_t *attr)
{
    long ncpu = sysconf(_SC_NPROCESSORS_CONF);
    if (ncpu < 2)
        return;
    cpu_set_t *set = CPU_ALLOC((int)ncpu);
    size_t size = CPU_ALLOC_SIZE((int)ncpu);
    if (set == NULL)
        return;
    if (sched_getaffinity(0, size, set) == 0 && CPU_COUNT_S(size, set) == 1) {
        for (int c = 0; c < (int)ncpu; c++) {
            if (CPU_ISSET_S(c, size, set))
                CPU_CLR_S(c, size, set);
            else
                CPU_SET_S(c, size, set);
        }
        pthread_attr_setaffinity_np(attr, size, set);
    }
    CPU_FREE(set);
}

/* A stream with its thread started, not yet in the list. */
static int stream_new(struct symm_stream **st_p, const char *routine)
{
    /* From now on team barriers may run here and in the program's thread. */
    if (symm_cur != NULL)
        __atomic_store_n(&symm_cur->teams->threads_share_teams, 1, __ATOMIC_RELAXED);
    pthread_mutex_lock(&streams_lock);
    struct symm_stream *st = graveyard;
    if (st != NULL)
        graveyard = st->next;
    pthread_mutex_unlock(&streams_lock);
    if (st != NULL)
        memset(st, 0, sizeof(*st));
    else
        st = calloc(1, sizeof(*st));
    if (st == NULL)
        goto err_nomem;
    st->head = st->tail = calloc(1, sizeof(stream_block_t));
    if (st->head == NULL)
        goto err_free_stream;
    pthread_mutex_init(&st->lock, NULL);
    pthread_cond_init(&st->work_cv, NULL);
    pthread_cond_init(&st->done_cv, NULL);
    st->magic = SYMM_STREAM_MAGIC;
    st->spin = symm_cur->spin;

    /* Asynchronous signals stay with the user's threads; faults the thread
     * itself raises must still reach their handlers. */
    sigset_t block, old;
    sigfillset(&block);
    sigdelset(&block, SIGSEGV);
    sigdelset(&block, SIGBUS);
    sigdelset(&block, SIGFPE);
    sigdelset(&block, SIGILL);
    sigdelset(&block, SIGTRAP);
    sigdelset(&block, SIGABRT);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    stream_placement(&attr);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    int rc = pthread_create(&st->thread, &attr, stream_main, st);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
    if (rc != 0) {
        symm_error(routine, "cannot start the stream's progress thread: %s", strerror(rc));
        goto err_free_queue;
    }
    pthread_setname_np(st->thread, "symm-stream");
    *st_p = st;
    return 0;

err_free_queue:
    stream_free(st);
    return -1;
err_free_stream:
    free(st);
err_nomem:
    symm_error(routine, "out of memory for a stream");
    return -1;
}

/* Finalize drains every stream first: their work may touch the heap. */
static void drain_at_fini(symm_instance_t *inst, void *arg)
{
    (void)inst;
    (void)arg;
    symm_stream_fini_all();
}

static void stream_link(struct symm_stream *st)
{
    symm_on_fini(symm_cur, SYMM_FINI_DRAIN, drain_at_fini, NULL);
    pthread_mutex_lock(&streams_lock);
    st->prev = NULL;
    st->next = streams;
    if (streams != NULL)
        streams->prev = st;
    streams = st;
    pthread_mutex_unlock(&streams_lock);
}

static void stream_unlink(struct symm_stream *st)
{
    pthread_mutex_lock(&streams_lock);
    if (st->prev != NULL)
        st->prev->next = st->next;
    else
        streams = st->next;
    if (st->next != NULL)
        st->next->prev = st->prev;
    if (__atomic_load_n(&default_stream, __ATOMIC_RELAXED) == st)
        __atomic_store_n(&default_stream, NULL, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&streams_lock);
}

/* Run everything queued, complete it, end the thread, free the stream. */
static int stream_end(struct symm_stream *st, const char *routine)
{
    stream_wait_all(st, routine);
    pthread_mutex_lock(&st->lock);
    st->stop = 1;
    pthread_cond_signal(&st->work_cv);
    pthread_mutex_unlock(&st->lock);
    int rc = pthread_join(st->thread, NULL);
    if (rc != 0)
        symm_error(routine, "cannot join the stream's progress thread: %s", strerror(rc));
    stream_unlink(st);
    stream_free(st);
    return rc == 0 ? 0 : -1;
}

static struct symm_stream *stream_check(void *h, const char *routine)
{
    struct symm_stream *st = h;
    if (st->magic != SYMM_STREAM_MAGIC)
        symm_fatal(routine,
                   "stream %p is not a live stream (destroyed, or not made by "
                   "shmemx_stream_create)",
                   h);
    return st;
}

struct symm_stream *symm_stream_get(void *h, const char *routine)
{
    symm_inst(routine);
    if (h != NULL)
        return stream_check(h, routine);
    struct symm_stream *st = __atomic_load_n(&default_stream, __ATOMIC_ACQUIRE);
    if (st != NULL)
        return st;
    pthread_mutex_lock(&default_lock);
    st = __atomic_load_n(&default_stream, __ATOMIC_ACQUIRE);
    if (st == NULL) {
        if (stream_new(&st, routine) != 0)
            symm_fatal(routine, "cannot create the default stream");
        stream_link(st);
        __atomic_store_n(&default_stream, st, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&default_lock);
    return st;
}

void symm_stream_fini_all(void)
{
    for (;;) {
        pthread_mutex_lock(&streams_lock);
        struct symm_stream *st = streams;
        pthread_mutex_unlock(&streams_lock);
        if (st == NULL)
            return;
        stream_end(st, "shmem_finalize");
    }
}

int symm_stream_create(struct symm_stream **st_p, const char *routine)
{
    symm_inst(routine);
    if (st_p == NULL)
        symm_fatal(routine, "stream_p is NULL");
    struct symm_stream *st;
    if (stream_new(&st, routine) != 0)
        return -1;
    stream_link(st);
    *st_p = st;
    return 0;
}

/* The live stream h names, or (h NULL) the default stream if it was ever
 * made, else NULL: nothing was put on it, so there is nothing to do. */
static struct symm_stream *stream_existing(void *h, const char *routine)
{
    symm_inst(routine);
    if (h != NULL)
        return stream_check(h, routine);
    return __atomic_load_n(&default_stream, __ATOMIC_ACQUIRE);
}

int symm_stream_destroy(void *h, const char *routine)
{
    struct symm_stream *st = stream_existing(h, routine);
    return st == NULL ? 0 : stream_end(st, routine);
}

int symm_stream_synchronize(void *h, const char *routine)
{
    struct symm_stream *st = stream_existing(h, routine);
    if (st != NULL)
        stream_wait_all(st, routine);
    return 0;
}
