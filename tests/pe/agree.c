/*
 * agree.c - collective state changes are agreed: a step that fails on one
 * PE (injected with SYMM_FAULT, on PE 1, PE 0 in a job of one) fails on
 * every PE, and the PEs stay in step afterwards.
 *
 *   agree grow    SHMEM_SYMMETRIC_SIZE=1M, SYMM_FAULT=ftruncate@1#2 (or
 *                 ucx_reg@1, which only a SYMM_TRANSPORT=ucx run has):
 *                 shmem_malloc(4 MiB) must grow the heap, one PE cannot,
 *                 so it is NULL on every PE; the next one succeeds
 *   agree calloc  SYMM_FAULT=calloc@1#3: the allocator's records of the
 *                 second shmem_malloc cannot be had on one PE: NULL on
 *                 every PE
 *   agree team    SYMM_FAULT=team@1#1: the first split fails on one PE:
 *                 every PE gets a nonzero return and SHMEM_TEAM_INVALID;
 *                 the next split works
 * After each failure every PE's later allocations have the same offsets
 * (compared across PEs) and a put into a peer's block arrives.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <shmem.h>

#include "check.h"

static long offset_here;

/* Every PE's offset of p from base is mine; a put to my right neighbour's
 * copy of p lands where it reads it. */
static void check_same_offset(const char *what, char *base, char *p, size_t bytes)
{
    int me = shmem_my_pe(), npes = shmem_n_pes();
    offset_here = (long)(p - base);
    shmem_barrier_all();
    for (int pe = 0; pe < npes; pe++)
        CHECK(shmem_long_g(&offset_here, pe) == offset_here,
              "%s: PE %d has offset %ld, this PE %ld", what, pe, shmem_long_g(&offset_here, pe),
              offset_here);
    memset(p, 0, bytes);
    shmem_barrier_all();
    long v = 1000 + me;
    shmem_putmem(p + bytes - sizeof(long), &v, sizeof(v), (me + 1) % npes);
    shmem_barrier_all();
    long got;
    memcpy(&got, p + bytes - sizeof(long), sizeof(got));
    CHECK_EQ("value put by the left neighbour", 1000 + (me + npes - 1) % npes, got);
    shmem_barrier_all();
}

static int fault_applies(void)
{
    const char *f = getenv("SYMM_FAULT"), *t = getenv("SYMM_TRANSPORT");
    if (f != NULL && strstr(f, "ucx_reg") != NULL)
        return t != NULL && strcmp(t, "ucx") == 0 && shmem_n_pes() > 1;
    return 1;
}

static void grow(void)
{
    char *base = shmem_malloc(1024);
    CHECK(base != NULL, "first small allocation failed");
    char *big = shmem_malloc(4 << 20);
    if (fault_applies()) {
        CHECK(big == NULL, "the growth failed on one PE, but shmem_malloc returned %p here",
              (void *)big);
        big = shmem_malloc(4 << 20);
    }
    CHECK(big != NULL, "allocation after the failed growth failed");
    check_same_offset("block after a failed growth", base, big, 4 << 20);
    char *small = shmem_malloc(4096);
    CHECK(small != NULL, "small allocation failed");
    check_same_offset("small block after a failed growth", base, small, 4096);
    shmem_free(small);
    shmem_free(big);
    shmem_free(base);
}

static void alloc_records(void)
{
    char *base = shmem_malloc(1024);
    CHECK(base != NULL, "first small allocation failed");
    char *p = shmem_malloc(2048);
    CHECK(p == NULL, "the allocator failed on one PE, but shmem_malloc returned %p here",
          (void *)p);
    char *q = shmem_malloc(2048);
    CHECK(q != NULL, "allocation after the failed one failed");
    check_same_offset("block after a failed allocation", base, q, 2048);
    shmem_free(q);
    shmem_free(base);
}

static void team(void)
{
    shmem_team_t t = (shmem_team_t)1;
    int npes = shmem_n_pes();
    int rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &t);
    CHECK(rc != 0, "the split failed on one PE, but returned %d here", rc);
    CHECK(t == SHMEM_TEAM_INVALID, "the split failed on one PE, but this PE got a team");
    rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &t);
    CHECK(rc == 0 && t != SHMEM_TEAM_INVALID, "the second split failed: %d", rc);
    CHECK_EQ("team size", npes, shmem_team_n_pes(t));
    shmem_team_sync(t);
    shmem_team_destroy(t);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    shmem_init();
    if (strcmp(mode, "grow") == 0)
        grow();
    else if (strcmp(mode, "calloc") == 0)
        alloc_records();
    else if (strcmp(mode, "team") == 0)
        team();
    else
        CHECK(0, "unknown mode '%s'", mode);
    shmem_finalize();
    return 0;
}
