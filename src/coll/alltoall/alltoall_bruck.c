/*
 * alltoall_bruck.c - the node-aware alltoall's exchange between the heads
 * by Bruck (coll_heads.c chooses it: many nodes, small blocks;
 * alltoall_nodes.c calls it).
 */
#include <stdlib.h>
#include <string.h>

#include "coll/alltoall/alltoall_bruck.h"
#include "coll/coll_bufpool.h"

/* alltoall by Bruck between the heads. Slot j (1..N-1) starts as my
 * node's block for node my+j (its members' blocks for that node's members,
 * member order then destination order); in round k (d = 2^k) every slot
 * with bit d set goes, packed in slot order, d heads on, and the same
 * slots come from d heads back. The block in slot j was made by node
 * holder - (j & (d-1)) and is for that node + j; so every size is known
 * everywhere, and at the end slot j holds node my-j's block for mine.
 * ceil(log2 N) messages per head, each ~half the data. */
void symm_coll_alltoall_bruck(symm_group_t *g, const nodes_t *nd, symm_msg_tag_t tag, void *dest,
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
    char *mem = symm_coll_buf_get(g, arena, routine), *at_here[64],
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
        symm_coll_send_to(g, q, tag, k, nd->leader[(p + d) % N], out, (size_t)(a - out),
                          exchange_how(g, arena), routine);
        char *in = a;
        for (int j = d; j < N; j++)
            if (j & d) {
                /* (p - (j & (2d-1))): the holder d back made it at ORIGIN(p - d, j, d). */
                at[j] = a;
                len[j] = BLK(ORIGIN((p - d + N) % N, j, d), j);
                a += len[j];
            }
        symm_coll_recv_from(g, tag, k, nd->leader[(p - d + N) % N], in, (size_t)(a - in), routine);
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
    symm_coll_sends_wait(g, q, routine);
    symm_coll_buf_put(mem);
    if (at != at_here)
        free(at);
    if (len != len_here)
        free(len);
}
