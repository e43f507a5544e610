/*
 * same_address.c - one virtual address per heap on a node (SYMM_SAME_ADDRESS):
 *  - the seed's KV-cache flow: PE 0 allocates with aclshmemx_malloc and
 *    fills it, hands the raw pointer value to the next PE through symmetric
 *    memory, and that PE reads PE 0's data through the pointer itself, with
 *    no symm call;
 *  - a linked list built across every PE's heap out of raw pointers, walked
 *    by every process;
 *  - aclshmem_ptr / shmem_ptr of a peer's object is the object's address in
 *    the peer's own process, and heap growth keeps it so.
 * Run with argument "off" under SYMM_SAME_ADDRESS=0 or an injected conflict
 * that never clears: then only the fallback's symmetric offsets are checked
 * and shmem_ptr must still work. Expected values are computed here.
 */
#include <aclshmem.h>
#include <shmem.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(cond, ...)                                                                   \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            fprintf(stderr, "FAIL (PE %d, same_address.c:%d): ", shmem_my_pe(), __LINE__); \
            fprintf(stderr, __VA_ARGS__);                                                  \
            fprintf(stderr, "\n");                                                         \
            shmem_global_exit(1);                                                          \
        }                                                                                  \
    } while (0)

#define KV_LEN 4096

struct node {
    struct node *next;
    long owner, value;
};

static uintptr_t handed;    /* a raw pointer value, put here by a peer */
static uintptr_t heads[64]; /* each PE's list node address, by PE */

int main(int argc, char **argv)
{
    int same = !(argc > 1 && strcmp(argv[1], "off") == 0);
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    CHECK(n <= 64, "at most 64 PEs");
    /* Every PE must be node-local for the pointer checks (oshrun, one host). */
    for (int pe = 0; pe < n; pe++)
        CHECK(shmem_ptr(&handed, pe) != NULL, "PE %d is not mapped here", pe);

    /* The KV cache: PE 0 fills its copy; the next PE reads it by pointer. */
    long *kv = (long *)aclshmemx_malloc(KV_LEN * sizeof(long), DEVICE_SIDE);
    CHECK(kv != NULL, "aclshmemx_malloc");
    if (me == 0)
        for (int i = 0; i < KV_LEN; i++)
            kv[i] = 1000003L * i + 7;
    if (me == 0 && n > 1)
        shmem_putmem(&handed, &kv, sizeof(kv), 1);
    shmem_barrier_all();
    if (me == 1 && same) {
        const long *same_addr = (const long *)handed; /* PE 0's pointer, as PE 0 has it */
        for (int i = 0; i < KV_LEN; i++)
            CHECK(same_addr[i] == 1000003L * i + 7, "kv[%d] through PE 0's pointer: %ld", i,
                  same_addr[i]);
        CHECK(aclshmem_ptr(kv, 0) == (void *)handed,
              "aclshmem_ptr(kv, 0) %p is not PE 0's own address %p", aclshmem_ptr(kv, 0),
              (void *)handed);
    }
    if (me == 1) { /* either way, offsets are symmetric */
        const long *peer = (const long *)aclshmem_ptr(kv, 0);
        CHECK(peer != NULL && peer[KV_LEN - 1] == 1000003L * (KV_LEN - 1) + 7, "aclshmem_ptr read");
    }
    shmem_barrier_all();

    /* A list through every PE's heap: PE i's node points at PE i+1's. */
    struct node *mine = (struct node *)shmem_malloc(sizeof(struct node));
    CHECK(mine != NULL, "shmem_malloc");
    heads[me] = (uintptr_t)mine;
    for (int pe = 0; pe < n; pe++)
        shmem_putmem(&heads[me], &heads[me], sizeof(uintptr_t), pe);
    shmem_barrier_all();
    for (int pe = 0; pe < n; pe++)
        CHECK(same ? (void *)heads[pe] == shmem_ptr(mine, pe) : heads[pe] != 0,
              "PE %d's node: its address %p, shmem_ptr here %p", pe, (void *)heads[pe],
              shmem_ptr(mine, pe));
    mine->owner = me;
    mine->value = 31L * me + 5;
    mine->next = me + 1 < n ? (struct node *)heads[me + 1] : NULL;
    shmem_barrier_all();
    if (same) {
        long count = 0;
        for (struct node *p = (struct node *)heads[0]; p != NULL; p = p->next, count++)
            CHECK(p->owner == count && p->value == 31L * count + 5, "list node %ld: %ld %ld", count,
                  p->owner, p->value);
        CHECK(count == n, "walked %ld nodes of %d", count, n);
    }
    shmem_barrier_all();

    /* Growth keeps one address: an allocation past the initial heap. */
    size_t big = (size_t)3 << 30;
    char *g = (char *)shmem_malloc(big);
    CHECK(g != NULL, "shmem_malloc of 3 GiB (growth)");
    g[big - 1] = (char)(me + 1);
    shmem_barrier_all();
    for (int pe = 0; pe < n; pe++) {
        char *q = (char *)shmem_ptr(g, pe);
        CHECK(q != NULL && q[big - 1] == (char)(pe + 1), "grown heap of PE %d", pe);
    }
    handed = (uintptr_t)g;
    shmem_barrier_all();
    if (same && n > 1) {
        uintptr_t theirs = shmem_uint64_g((uint64_t *)&handed, (me + 1) % n);
        CHECK((char *)theirs == (char *)shmem_ptr(g, (me + 1) % n),
              "grown block of PE %d: its address %p, here %p", (me + 1) % n, (void *)theirs,
              shmem_ptr(g, (me + 1) % n));
    }
    shmem_barrier_all();
    shmem_free(g);
    shmem_free(mine);
    aclshmemx_free(kv, DEVICE_SIDE);
    shmem_finalize();
    if (me == 0)
        printf("same_address (%s): ok on %d PEs\n", same ? "one address" : "fallback", n);
    return 0;
}
