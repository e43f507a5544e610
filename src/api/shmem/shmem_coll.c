/*
 * shmem_coll.c - collective entry points: team-based (1.5) and the deprecated
 * active-set forms, generated from the type tables. Each builds a group
 * (coll/coll.h) and calls one core routine.
 */
#include <string.h>

#include "api/api_coll.h"
#include "api/shmem/shmem_profile.h"
#include "coll/coll.h"
#include "coll/reduce_ops.h"
#include "ops/rma.h"
#include "runtime/log.h"
#include "shmem.h"
#include "shmemx.h"
#include "team/team.h"

/* The group of a team; -1 (and a message under SHMEM_DEBUG) if invalid. */
static int team_group(shmem_team_t team, symm_group_t *g, const char *routine)
{
    symm_instance_t *s = symm_inst(routine);
    struct symm_team *t = (struct symm_team *)team;
    if (t == NULL) {
        if (s->debug)
            symm_error(routine, "team is SHMEM_TEAM_INVALID");
        return -1;
    }
    symm_group_of_team(g, t);
    return 0;
}

/* The group of an active set; bad arguments end the job (these routines
 * return nothing to report them with). -1: this PE is not in the set, and
 * the routine returns at once (docs/conformance.md). */
static int active_group(int start, int log_stride, int size, long *psync, symm_group_t *g,
                        const char *routine)
{
    return symm_group_of_active_set(g, symm_inst(routine), start, log_stride, size, psync,
                                    routine);
}

static int check_root(const symm_group_t *g, int root, const char *routine)
{
    if (root < 0 || root >= g->size) {
        symm_error(routine, "PE_root %d outside [0,%d) of the team", root, g->size);
        return -1;
    }
    return 0;
}

/* dest (dn bytes from it) and source (sn bytes) are symmetric: checked
 * here, on every member and every transport, since which form runs decides
 * whether a buffer is ever translated (a pull reads a peer's copy of the
 * source; a message form never translates either). */
static void check_bufs(const symm_group_t *g, const void *dest, size_t dn, const void *source,
                       size_t sn, const char *routine)
{
    symm_check_sym_start(g->s, routine, dest, dn, "dest");
    symm_check_sym_start(g->s, routine, source, sn, "source");
}

/* The bytes a strided alltoall touches from buf: size blocks of nelems
 * elements, stride elements apart. */
static size_t strided_extent(const symm_group_t *g, ptrdiff_t stride, size_t nelems, size_t elem)
{
    size_t n = (size_t)g->size * nelems;
    if (n == 0)
        return 0;
    return ((n - 1) * (size_t)(stride < 0 ? -stride : stride) + 1) * elem;
}

/* ---- team-based --------------------------------------------------------- */
int symm_api_broadcast(shmem_team_t team, void *dest, const void *source, size_t nbytes,
                       int root, const char *routine)
{
    symm_group_t g;
    if (team_group(team, &g, routine) != 0 || check_root(&g, root, routine) != 0)
        return -1;
    check_bufs(&g, dest, nbytes, source, nbytes, routine);
    int taken = symm_group_doing(&g, routine, root, nbytes);
    symm_coll_broadcast(&g, dest, source, nbytes, root, 1, routine);
    symm_doing_end(taken);
    return 0;
}

#define DEF_TEAM_COLL(NAME, CALL, SAME, DEST_BLOCKS, SOURCE_BLOCKS)                          \
    int symm_api_##NAME(shmem_team_t team, void *dest, const void *source, size_t nbytes,    \
                        const char *routine)                                                 \
    {                                                                                        \
        symm_group_t g;                                                                      \
        if (team_group(team, &g, routine) != 0)                                              \
            return -1;                                                                       \
        check_bufs(&g, dest, nbytes * (size_t)(DEST_BLOCKS), source,                          \
                   nbytes * (size_t)(SOURCE_BLOCKS), routine);                               \
        int taken = symm_group_doing(&g, routine, -1, (SAME) ? nbytes : 0);                  \
        CALL(&g, dest, source, nbytes, routine);                                             \
        symm_doing_end(taken);                                                               \
        return 0;                                                                            \
    }
/* SAME: every member passes the same size (collect's may differ). The
 * blocks of nbytes checked in dest and source (collect's dest: at least
 * this member's block; the total is known only inside). */
DEF_TEAM_COLL(collect, symm_coll_collect, 0, 1, 1)
DEF_TEAM_COLL(fcollect, symm_coll_fcollect, 1, g.size, 1)
DEF_TEAM_COLL(alltoall, symm_coll_alltoall, 1, g.size, g.size)

int symm_api_alltoalls(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst,
                       ptrdiff_t sst, size_t nelems, size_t elem, const char *routine)
{
    symm_group_t g;
    if (team_group(team, &g, routine) != 0)
        return -1;
    check_bufs(&g, dest, strided_extent(&g, dst, nelems, elem), source,
               strided_extent(&g, sst, nelems, elem), routine);
    int taken = symm_group_doing(&g, routine, -1, nelems * elem);
    symm_coll_alltoalls(&g, dest, source, dst, sst, nelems, elem, routine);
    symm_doing_end(taken);
    return 0;
}

int symm_api_reduce(shmem_team_t team, void *dest, const void *source, size_t count,
                    size_t elem, symm_reduce_fn op, const char *routine)
{
    symm_group_t g;
    if (team_group(team, &g, routine) != 0)
        return -1;
    check_bufs(&g, dest, count * elem, source, count * elem, routine);
    int taken = symm_group_doing(&g, routine, -1, count * elem);
    symm_coll_reduce(&g, dest, source, count, elem, op, routine);
    symm_doing_end(taken);
    return 0;
}

#define DEF_COLL_FORMS(PFX, T, SIZE)                                                         \
    int shmem_##PFX##broadcast(shmem_team_t team, T *dest, const T *source, size_t nelems,  \
                               int PE_root)                                                  \
    {                                                                                        \
        return symm_api_broadcast(team, dest, source, nelems * (SIZE), PE_root, __func__);   \
    }                                                                                        \
    int shmem_##PFX##collect(shmem_team_t team, T *dest, const T *source, size_t nelems)    \
    {                                                                                        \
        return symm_api_collect(team, dest, source, nelems * (SIZE), __func__);              \
    }                                                                                        \
    int shmem_##PFX##fcollect(shmem_team_t team, T *dest, const T *source, size_t nelems)   \
    {                                                                                        \
        return symm_api_fcollect(team, dest, source, nelems * (SIZE), __func__);             \
    }                                                                                        \
    int shmem_##PFX##alltoall(shmem_team_t team, T *dest, const T *source, size_t nelems)   \
    {                                                                                        \
        return symm_api_alltoall(team, dest, source, nelems * (SIZE), __func__);             \
    }                                                                                        \
    int shmem_##PFX##alltoalls(shmem_team_t team, T *dest, const T *source, ptrdiff_t dst,  \
                               ptrdiff_t sst, size_t nelems)                                 \
    {                                                                                        \
        return symm_api_alltoalls(team, dest, source, dst, sst, nelems, (SIZE), __func__);   \
    }                                                                                        \
    SYMM_PALIAS(shmem_##PFX##broadcast) SYMM_PALIAS(shmem_##PFX##collect)                    \
    SYMM_PALIAS(shmem_##PFX##fcollect) SYMM_PALIAS(shmem_##PFX##alltoall)                    \
    SYMM_PALIAS(shmem_##PFX##alltoalls)
#define DEF_COLL(T, N) DEF_COLL_FORMS(N##_, T, sizeof(T))
SHMEM_RMA_TYPES(DEF_COLL)

/* The untyped forms, named shmem_<op>mem. */
int shmem_broadcastmem(shmem_team_t team, void *dest, const void *source, size_t nelems,
                       int PE_root)
{
    return symm_api_broadcast(team, dest, source, nelems, PE_root, __func__);
}
int shmem_collectmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
    return symm_api_collect(team, dest, source, nelems, __func__);
}
int shmem_fcollectmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
    return symm_api_fcollect(team, dest, source, nelems, __func__);
}
int shmem_alltoallmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
    return symm_api_alltoall(team, dest, source, nelems, __func__);
}
int shmem_alltoallsmem(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst,
                       ptrdiff_t sst, size_t nelems)
{
    return symm_api_alltoalls(team, dest, source, dst, sst, nelems, 1, __func__);
}
SYMM_PALIAS(shmem_broadcastmem) SYMM_PALIAS(shmem_collectmem) SYMM_PALIAS(shmem_fcollectmem)
SYMM_PALIAS(shmem_alltoallmem) SYMM_PALIAS(shmem_alltoallsmem)

#define DEF_REDUCE(T, N, OP)                                                                 \
    int shmem_##N##_##OP##_reduce(shmem_team_t team, T *dest, const T *source, size_t nreduce) \
    {                                                                                        \
        return symm_api_reduce(team, dest, source, nreduce, sizeof(T), symm_reduce_##N##_##OP, \
                           __func__);                                                        \
    }                                                                                        \
    SYMM_PALIAS(shmem_##N##_##OP##_reduce)
#define DEF_REDUCE_BIT(T, N) DEF_REDUCE(T, N, and) DEF_REDUCE(T, N, or) DEF_REDUCE(T, N, xor)
#define DEF_REDUCE_MINMAX(T, N) DEF_REDUCE(T, N, max) DEF_REDUCE(T, N, min)
#define DEF_REDUCE_ARITH(T, N) DEF_REDUCE(T, N, sum) DEF_REDUCE(T, N, prod)
SHMEM_REDUCE_BIT_TYPES(DEF_REDUCE_BIT)
SHMEM_REDUCE_MINMAX_TYPES(DEF_REDUCE_MINMAX)
SHMEM_REDUCE_ARITH_TYPES(DEF_REDUCE_ARITH)

/* ---- shmemx_reduce_private: the reductions by name --------------------- */
typedef struct reduce_entry {
    const char *name;
    size_t elem;
    symm_reduce_fn fn;
} reduce_entry_t;

#define REDUCE_ENTRY(T, N, OP) {#N "_" #OP, sizeof(T), symm_reduce_##N##_##OP},
#define REDUCE_ENTRY_BIT(T, N)                                                               \
    REDUCE_ENTRY(T, N, and) REDUCE_ENTRY(T, N, or) REDUCE_ENTRY(T, N, xor)
#define REDUCE_ENTRY_MINMAX(T, N) REDUCE_ENTRY(T, N, max) REDUCE_ENTRY(T, N, min)
#define REDUCE_ENTRY_ARITH(T, N) REDUCE_ENTRY(T, N, sum) REDUCE_ENTRY(T, N, prod)
static const reduce_entry_t reduce_by_name[] = {
    SHMEM_REDUCE_BIT_TYPES(REDUCE_ENTRY_BIT) SHMEM_REDUCE_MINMAX_TYPES(REDUCE_ENTRY_MINMAX)
        SHMEM_REDUCE_ARITH_TYPES(REDUCE_ENTRY_ARITH)};

int shmemx_reduce_private(shmem_team_t team, void *dest, const void *source, size_t count,
                          const char *type_op)
{
    const char *routine = __func__;
    symm_group_t g;
    if (team_group(team, &g, routine) != 0)
        return -1;
    const reduce_entry_t *e = NULL;
    for (size_t i = 0; type_op != NULL && i < sizeof(reduce_by_name) / sizeof(*e); i++)
        if (strcmp(reduce_by_name[i].name, type_op) == 0)
            e = &reduce_by_name[i];
    if (e == NULL) {
        symm_error(routine, "type_op '%s' names no reduction (e.g. float_sum, long_max)",
                   type_op != NULL ? type_op : "(null)");
        return -1;
    }
    if (g.size == 1) {
        memmove(dest, source, count * e->elem);
        return 0;
    }
    if (!symm_coll_private_ok(&g))
        return -2;
    int taken = symm_group_doing(&g, routine, -1, count * e->elem);
    symm_coll_reduce(&g, dest, source, count, e->elem, e->fn, routine);
    symm_doing_end(taken);
    return 0;
}

/* ---- OpenSHMEM 1.6 scans: the SUM reduction's types -------------------- */
static int coll_scan(shmem_team_t team, void *dest, const void *source, size_t count,
                     size_t elem, symm_reduce_fn op, int exclusive, const char *routine)
{
    symm_group_t g;
    if (team_group(team, &g, routine) != 0)
        return -1;
    check_bufs(&g, dest, count * elem, source, count * elem, routine);
    int taken = symm_group_doing(&g, routine, -1, count * elem);
    symm_coll_scan(&g, dest, source, count, elem, op, exclusive, routine);
    symm_doing_end(taken);
    return 0;
}

#define DEF_SCAN(T, N)                                                                       \
    int shmem_##N##_sum_inscan(shmem_team_t team, T *dest, const T *source, size_t nelems)  \
    {                                                                                        \
        return coll_scan(team, dest, source, nelems, sizeof(T), symm_reduce_##N##_sum, 0,   \
                         __func__);                                                          \
    }                                                                                        \
    int shmem_##N##_sum_exscan(shmem_team_t team, T *dest, const T *source, size_t nelems)  \
    {                                                                                        \
        return coll_scan(team, dest, source, nelems, sizeof(T), symm_reduce_##N##_sum, 1,   \
                         __func__);                                                          \
    }                                                                                        \
    SYMM_PALIAS(shmem_##N##_sum_inscan) SYMM_PALIAS(shmem_##N##_sum_exscan)
SHMEM_REDUCE_ARITH_TYPES(DEF_SCAN)

/* ---- deprecated active-set forms ---------------------------------------- */
/* pSync's collect word goes back to SHMEM_SYNC_VALUE after the closing
 * barrier; the barrier words already are. */
static void active_done(symm_group_t *g)
{
    if (g->team == NULL) /* not a world set run as the world team (coll/coll_group.c) */
        __atomic_store_n(g->count, 0, __ATOMIC_RELAXED);
}

void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    symm_group_t g;
    if (active_group(PE_start, logPE_stride, PE_size, pSync, &g, __func__) != 0)
        return;
    SYMM_DOING_SCOPE(symm_group_doing(&g, __func__, -1, 0));
    symm_group_barrier(&g, 1);
}

void shmem_sync(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    symm_group_t g;
    if (active_group(PE_start, logPE_stride, PE_size, pSync, &g, __func__) != 0)
        return;
    SYMM_DOING_SCOPE(symm_group_doing(&g, __func__, -1, 0));
    symm_group_barrier(&g, 0);
}
SYMM_PALIAS(shmem_barrier) SYMM_PALIAS(shmem_sync)

#define DEF_ACTIVE_SIZED(BITS)                                                               \
    void shmem_broadcast##BITS(void *dest, const void *source, size_t nelems, int PE_root,  \
                               int PE_start, int logPE_stride, int PE_size, long *pSync)    \
    {                                                                                        \
        symm_group_t g;                                                                      \
        if (active_group(PE_start, logPE_stride, PE_size, pSync, &g, __func__) != 0)         \
            return;                                                                          \
        SYMM_DOING_SCOPE(symm_group_doing(&g, __func__, -1, 0));                            \
        if (check_root(&g, PE_root, __func__) != 0)                                          \
            symm_fatal(__func__, "invalid PE_root");                                         \
        check_bufs(&g, dest, nelems * (BITS / 8), source, nelems * (BITS / 8), __func__);    \
        symm_coll_broadcast(&g, dest, source, nelems * (BITS / 8), PE_root, 0, __func__);    \
    }                                                                                        \
    void shmem_collect##BITS(void *dest, const void *source, size_t nelems, int PE_start,   \
                             int logPE_stride, int PE_size, long *pSync)                     \
    {                                                                                        \
        symm_group_t g;                                                                      \
        if (active_group(PE_start, logPE_stride, PE_size, pSync, &g, __func__) != 0)         \
            return;                                                                          \
        SYMM_DOING_SCOPE(symm_group_doing(&g, __func__, -1, 0));                            \
        check_bufs(&g, dest, nelems * (BITS / 8), source, nelems * (BITS / 8), __func__);    \
        symm_coll_collect(&g, dest, source, nelems * (BITS / 8), __func__);                  \
        active_done(&g);                                                                     \
    }                                                                                        \
    void shmem_fcollect##BITS(void *dest, const void *source, size_t nelems, int PE_start,  \
                              int logPE_stride, int PE_size, long *pSync)                    \
    {                                                                                        \
        symm_group_t g;                                                                      \
        if (active_group(PE_start, logPE_stride, PE_size, pSync, &g, __func__) != 0)         \
            return;                                                                          \
        SYMM_DOING_SCOPE(symm_group_doing(&g, __func__, -1, 0));                            \
        check_bufs(&g, dest, nelems * (BITS / 8) * (size_t)g.size, source,                   \
                   nelems * (BITS / 8), __func__);                                           \
        symm_coll_fcollect(&g, dest, source, nelems * (BITS / 8), __func__);                 \
    }                                                                                        \
    void shmem_alltoall##BITS(void *dest, const void *source, size_t nelems, int PE_start,  \
                              int logPE_stride, int PE_size, long *pSync)                    \
    {                                                                                        \
        symm_group_t g;                                                                      \
        if (active_group(PE_start, logPE_stride, PE_size, pSync, &g, __func__) != 0)         \
            return;                                                                          \
        SYMM_DOING_SCOPE(symm_group_doing(&g, __func__, -1, 0));                            \
        check_bufs(&g, dest, nelems * (BITS / 8) * (size_t)g.size, source,                   \
                   nelems * (BITS / 8) * (size_t)g.size, __func__);                          \
        symm_coll_alltoall(&g, dest, source, nelems * (BITS / 8), __func__);                 \
    }                                                                                        \
    void shmem_alltoalls##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, \
                               size_t nelems, int PE_start, int logPE_stride, int PE_size,   \
                               long *pSync)                                                  \
    {                                                                                        \
        symm_group_t g;                                                                      \
        if (active_group(PE_start, logPE_stride, PE_size, pSync, &g, __func__) != 0)         \
            return;                                                                          \
        SYMM_DOING_SCOPE(symm_group_doing(&g, __func__, -1, 0));                            \
        check_bufs(&g, dest, strided_extent(&g, dst, nelems, BITS / 8), source,              \
                   strided_extent(&g, sst, nelems, BITS / 8), __func__);                     \
        symm_coll_alltoalls(&g, dest, source, dst, sst, nelems, BITS / 8, __func__);         \
    }                                                                                        \
    SYMM_PALIAS(shmem_broadcast##BITS) SYMM_PALIAS(shmem_collect##BITS)                      \
    SYMM_PALIAS(shmem_fcollect##BITS) SYMM_PALIAS(shmem_alltoall##BITS)                      \
    SYMM_PALIAS(shmem_alltoalls##BITS)
DEF_ACTIVE_SIZED(32)
DEF_ACTIVE_SIZED(64)

#define DEF_TO_ALL(T, N, OP)                                                                 \
    void shmem_##N##_##OP##_to_all(T *dest, const T *source, int nreduce, int PE_start,     \
                                   int logPE_stride, int PE_size, T *pWrk, long *pSync)     \
    {                                                                                        \
        symm_group_t g;                                                                      \
        (void)pWrk; /* peers' sources are read directly: no work array needed */             \
        if (active_group(PE_start, logPE_stride, PE_size, pSync, &g, __func__) != 0)         \
            return;                                                                          \
        SYMM_DOING_SCOPE(symm_group_doing(&g, __func__, -1, 0));                            \
        if (nreduce < 0)                                                                     \
            symm_fatal(__func__, "nreduce %d is negative", nreduce);                         \
        check_bufs(&g, dest, (size_t)nreduce * sizeof(T), source, (size_t)nreduce * sizeof(T), \
                   __func__);                                                                \
        symm_coll_reduce(&g, dest, source, (size_t)nreduce, sizeof(T), symm_reduce_##N##_##OP, \
                         __func__);                                                          \
    }                                                                                        \
    SYMM_PALIAS(shmem_##N##_##OP##_to_all)
#define DEF_TO_ALL_BIT(T, N) DEF_TO_ALL(T, N, and) DEF_TO_ALL(T, N, or) DEF_TO_ALL(T, N, xor)
#define DEF_TO_ALL_MINMAX(T, N) DEF_TO_ALL(T, N, max) DEF_TO_ALL(T, N, min)
#define DEF_TO_ALL_ARITH(T, N) DEF_TO_ALL(T, N, sum) DEF_TO_ALL(T, N, prod)
SHMEM_TO_ALL_BIT_TYPES(DEF_TO_ALL_BIT)
SHMEM_TO_ALL_MINMAX_TYPES(DEF_TO_ALL_MINMAX)
SHMEM_TO_ALL_ARITH_TYPES(DEF_TO_ALL_ARITH)
