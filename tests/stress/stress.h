/*
 * stress.h - the seeded randomized stress tester's shared parts (docs/stress.md).
 *
 * One seed gives every PE the same schedule: lane L (thread L of every PE)
 * runs steps 0..steps-1, the kind and shared parameters of step s from
 * st_rng(seed, s, ST_SHARED, L, purpose), each PE's own choices from
 * st_rng(seed, s, pe, L, purpose). Every PE can therefore recompute what
 * every other PE wrote, read and contributed, and every value read or
 * received is checked against that model, never against symm.
 *
 * Files: stress.c (driver, lanes, failure report), stress_model.c (values:
 * patterns, the windows' interval model, the types' wide values, compare),
 * stress_rma.c (put/get/strided and their checks), stress_sig.c (signals
 * and point-to-point waits), stress_amo.c (AMOs and locks), stress_coll.c
 * (team collectives), stress_active.c (active-set collectives),
 * stress_pool.c (team and context pools, the heap step), stress_stream.c
 * (symm's CPU streams through the aclshmem calls).
 */
#ifndef SYMM_STRESS_H
#define SYMM_STRESS_H

#include <stddef.h>
#include <stdint.h>

#include <shmem.h>

#define ST_MAX_LANES 4
#define ST_MAX_PES 64
#define ST_MAX_TEAMS 8   /* pool entries per lane, the lane team included */
#define ST_MAX_CTX 4     /* context pool per lane */
#define ST_MAX_BLOCKS 6  /* heap blocks (lane 0) */
#define ST_SHARED 0xffff /* "pe" of the lane's shared random stream */

/* What a random stream is for: one stream per (step, pe, lane, purpose). */
enum {
    P_KIND = 1,
    P_SYNC,
    P_RMA,
    P_GET,
    P_SIG,
    P_SIGWAIT,
    P_AMO,
    P_AMOCHK,
    P_LOCK,
    P_COLL,
    P_COLLDATA,
    P_TEAM,
    P_CTX,
    P_HEAP,
    P_HEAPREAD,
    P_AUDIT,
    P_KEY,
    P_STREAM,
    P_STREAMGET
};

/* ---- random numbers: splitmix64 ------------------------------------------ */
typedef struct {
    uint64_t s;
} st_rng_t;

static inline uint64_t st_mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static inline uint64_t st_hash(uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t e)
{
    return st_mix(st_mix(st_mix(st_mix(st_mix(a) ^ b) ^ c) ^ d) ^ e);
}

static inline uint64_t st_next(st_rng_t *r)
{
    r->s += 0x9e3779b97f4a7c15ull;
    uint64_t z = r->s;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform in [0, n), n >= 1. */
static inline uint64_t st_below(st_rng_t *r, uint64_t n)
{
    return n <= 1 ? 0 : st_next(r) % n;
}
/* 1 with probability num/den. */
static inline int st_chance(st_rng_t *r, unsigned num, unsigned den)
{
    return st_below(r, den) < num;
}
/* Log-uniform in [lo, hi] (lo >= 1): a bit length first, then a value of it. */
static inline size_t st_logu(st_rng_t *r, size_t lo, size_t hi)
{
    int blo = 0, bhi = 0;
    while (((size_t)1 << blo) <= lo && blo < 63)
        blo++;
    while (((size_t)1 << bhi) <= hi && bhi < 63)
        bhi++;
    int b = blo + (int)st_below(r, (uint64_t)(bhi - blo + 1));
    size_t a = b > 0 ? (size_t)1 << (b - 1) : 0, z = ((size_t)1 << b) - 1;
    if (a < lo)
        a = lo;
    if (z > hi)
        z = hi;
    return a + (size_t)st_below(r, z - a + 1);
}

/* ---- configuration of the run (same on every thread) --------------------- */
typedef struct {
    uint64_t seed;
    long steps;
    int threads;
    int me, npes;
    long inject; /* SYMM_STRESS_INJECT: step from which the first check is corrupted; -1 off */
    int verbose;
    size_t wsize;     /* heap window size (per source PE, per lane) */
    size_t gwsize;    /* global (static data) window size */
    size_t heap_size; /* SHMEM_SYMMETRIC_SIZE as this program reads it */
    const char *prog;
} st_cfg_t;
extern st_cfg_t st;

/* ---- the model of a window: who wrote which bytes ------------------------ */
typedef struct {
    uint32_t a, b;   /* [a, b) in the window */
    uint32_t step;   /* the step that wrote it (UINT32_MAX: initial zeros) */
    uint16_t pe, op; /* the writer, the st_opname index of how */
    uint64_t key;    /* the pattern's key; 0: zeros */
} st_iv_t;

typedef struct {
    st_iv_t *v;
    int n, cap;
    uint32_t size;
} st_win_t;

enum { ST_AREA_HEAP, ST_AREA_GLOBAL, ST_NAREAS };

/* ---- pools --------------------------------------------------------------- */
enum { TK_LANE, TK_STRIDED, TK_X2D, TK_Y2D };

typedef struct {
    int used, kind;
    int parent;              /* pool index of the parent (TK_LANE: -1) */
    int start, stride, size; /* TK_STRIDED */
    int xrange, twin;        /* 2-D: the split's parameter, the other axis' entry */
    int psize;               /* the parent's members (the same list on all of them) */
    int pmembers[ST_MAX_PES];
    shmem_team_t h; /* mine, SHMEM_TEAM_INVALID where not a member */
    long created;   /* the step that made it */
} st_team_t;

typedef struct {
    int used;
    int team; /* pool index, or -1: shmem_ctx_create (world) */
    long options;
    shmem_ctx_t h; /* SHMEM_CTX_INVALID where this PE is not in the team */
} st_ctx_t;

typedef struct {
    int used;
    unsigned char *p;
    size_t size;
    uint64_t key; /* content: st_pattern(key ^ owner) at every offset < size */
    int zero;     /* calloc'd, not yet filled: zeros */
    size_t align;
} st_block_t;

/* ---- a lane: one thread of every PE, with its own everything ------------- */
typedef struct st_lane {
    int id;
    long step;
    const char *op;   /* what is checked now: the failure line's op= */
    char opbuf[128];  /* op's text where it is made up */
    char tdesc[128];  /* the failure line's team= (collectives) */
    char what[160];   /* the failure line's details */
    uint64_t nops;    /* operations issued */
    uint64_t nchecks; /* values checked */
    unsigned nsync;   /* syncs so far in this step */
    unsigned kinds[16];

    shmem_team_t team; /* WORLD for lane 0, its own split of WORLD otherwise */

    /* the windows: area[a] holds npes windows, one per source PE */
    unsigned char *area[ST_NAREAS];
    size_t wsize[ST_NAREAS];
    st_win_t *win;              /* [area][target][source] */
    unsigned char *sym_scratch; /* symmetric: put sources, get destinations */
    size_t sym_scratch_size;
    unsigned char *priv; /* private: put sources (one slice per op) */
    size_t priv_size;
    unsigned char *tmp, *tmp2; /* expected values */
    size_t tmp_size;

    /* signals and flags (heap) */
    uint64_t *sig;        /* [0, npes): SET words by source; [npes]: the ADD word */
    unsigned char *flags; /* flag words: [type][source], 8 bytes each */
    uint64_t *sig_model;  /* [target * (npes + 1) + i]: the words' values */

    /* AMOs (heap) */
    unsigned char *amo;  /* slots of 8 bytes: st_amo_slot() */
    long *tickets;       /* fetch_inc tickets */
    uint64_t *amo_model; /* [pe][slot] */

    /* lock */
    long *lock, *lock_cnt;
    long *lock_model; /* [pe] */

    /* collectives */
    unsigned char *coll_src, *coll_dst;
    size_t coll_src_size, coll_dst_size;
    long *bar;   /* team_sync's marks: [pe] */
    long *psync; /* 4 pSync arrays: 0-1 barriers, 2-3 collectives */
    unsigned char *pwrk;
    size_t pwrk_size;
    unsigned long nactive; /* active-set collectives so far */
    unsigned long nbar;    /* active-set barriers so far */

    st_team_t teams[ST_MAX_TEAMS];
    st_ctx_t ctxs[ST_MAX_CTX];
    st_block_t blocks[ST_MAX_BLOCKS];
} st_lane_t;

/* ---- stress.c ------------------------------------------------------------ */
st_rng_t st_rng(const st_lane_t *L, int pe, int purpose);
st_rng_t st_rng2(const st_lane_t *L, int pe, int purpose, uint64_t sub);
/* Prints one FAIL line and the replay line, ends the job. */
void st_fail(st_lane_t *L, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));
/* 1 once per process: the first check at or after SYMM_STRESS_INJECT's step. */
int st_inject_now(st_lane_t *L);
void st_lane_sync(st_lane_t *L);
void st_quiet_all(st_lane_t *L);
shmem_ctx_t st_ctx_handle(st_lane_t *L, int ctx);
void *st_xmalloc(size_t n);
/* Bytes of one put source / get destination slot: the larger window + 256. */
static inline size_t st_slot(void)
{
    return (st.wsize > st.gwsize ? st.wsize : st.gwsize) + 256;
}

/* ---- stress_model.c ------------------------------------------------------ */
void st_pattern(unsigned char *dst, uint64_t key, size_t pos, size_t n);
void st_win_init(st_win_t *w, size_t size);
void st_win_free(st_win_t *w);
void st_win_write(st_win_t *w, size_t a, size_t b, uint64_t key, long step, int pe, int op);
void st_win_expect(const st_win_t *w, size_t a, size_t n, unsigned char *out);
const st_iv_t *st_win_at(const st_win_t *w, size_t pos);
st_win_t *st_win(st_lane_t *L, int area, int target, int src);
unsigned char *st_win_addr(st_lane_t *L, int area, int src);
/* Compares n bytes; on a difference fails naming what and the window's writer. */
void st_check_bytes(st_lane_t *L, const char *what, const unsigned char *exp,
                    const unsigned char *got, size_t n, size_t base, const st_win_t *w);
/* Checks window (area, me, src) over [a, b) against the model. */
void st_check_window(st_lane_t *L, int area, int src, size_t a, size_t b);
void st_check_u64(st_lane_t *L, const char *what, uint64_t expected, uint64_t got);
extern const char *const st_opname[];
enum {
    OP_INIT,
    OP_PUT,
    OP_PUT_NBI,
    OP_P,
    OP_IPUT,
    OP_IBPUT,
    OP_PUTMEM,
    OP_PUTMEM_NBI,
    OP_PUTSZ,
    OP_PUTSZ_NBI,
    OP_PUT_SIGNAL,
    OP_PUT_SIGNAL_NBI,
    OP_PUT_FENCE_FLAG,
    OP_NOPS
};

/* Values of a type, wide enough for every type: integers in u
 * (sign-extended for signed types), floating values in re (and im). */
typedef enum { K_SINT, K_UINT, K_FLT, K_CPLX } st_kind_t;
typedef struct {
    uint64_t u;
    long double re, im;
} st_wide_t;
typedef struct {
    const char *name;
    size_t size;
    st_kind_t kind;
    void (*load)(const void *p, st_wide_t *w);
    void (*store)(const st_wide_t *w, void *p);
} st_type_t;
const st_type_t *st_type(const char *name);
int st_wide_eq(const st_type_t *t, const st_wide_t *a, const st_wide_t *b);
void st_wide_fmt(const st_type_t *t, const st_wide_t *w, char *buf, size_t cap);
/* Compares n values of type t; fails at the first difference. */
void st_check_typed(st_lane_t *L, const char *what, const st_type_t *t, const void *exp,
                    const void *got, size_t n);

/* ---- stress_coll.c: the reductions' values, shared with stress_active.c */
enum { O_AND, O_OR, O_XOR, O_MAX, O_MIN, O_SUM, O_PROD, O_INSCAN, O_EXSCAN };
extern const char *const st_red_opname[];
st_wide_t st_red_value(const st_type_t *t, int op, uint64_t u);
void st_combine(const st_type_t *t, int op, st_wide_t *a, const st_wide_t *x);
/* Member q's reduction source: n values of type t for op. */
void st_red_fill(const st_lane_t *L, const st_type_t *t, int op, int q, size_t n, void *out);
/* Member q's byte source of a collective (key of its pattern). */
uint64_t st_coll_key(const st_lane_t *L, int q);

/* ---- the steps ----------------------------------------------------------- */
void st_rma_setup(st_lane_t *L);
void st_sig_setup(st_lane_t *L);
void st_amo_setup(st_lane_t *L);
void st_coll_setup(st_lane_t *L);
void st_step_rma(st_lane_t *L);
void st_audit(st_lane_t *L);
void st_step_sig(st_lane_t *L);
void st_step_amo(st_lane_t *L);
void st_step_lock(st_lane_t *L);
void st_step_coll(st_lane_t *L);
void st_step_active(st_lane_t *L);
void st_step_team(st_lane_t *L);
void st_step_ctx(st_lane_t *L);
void st_step_heap(st_lane_t *L);
void st_stream_setup(st_lane_t *L);
void st_step_stream(st_lane_t *L);
void st_stream_teardown(st_lane_t *L);
void st_pool_teardown(st_lane_t *L);
void st_heap_teardown(st_lane_t *L);
/* The world PEs of pe's team in pool entry e (team order); 0: pe is not a member. */
int st_team_members(const st_lane_t *L, int e, int pe, int *out);
void st_team_desc(const st_lane_t *L, int e, char *buf, size_t cap);
/* A random usable pool entry of which `pe`... (shared choice): -1 none. */
int st_pick_team(st_lane_t *L, st_rng_t *r, int allow_2d);

#endif
