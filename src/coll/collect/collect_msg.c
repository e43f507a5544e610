/*
 * collect_msg.c - collect by messages (a group with unmapped members, no
 * node-aware layout): one round, every member's block to every other.
 */
#include <stdlib.h>
#include <string.h>

#include "coll/coll_algs.h"
#include "coll/coll_msg.h"

/* collect: one round. Every member sends its block, whatever its size, to
 * every other; the lengths of the messages give each block's offset (an
 * exclusive scan in member order), then each is taken into place. */
void symm_coll_collect_msg(symm_group_t *g, void *dest, const void *source, size_t nbytes,
                           const char *routine)
{
    int n = g->size;
    symm_msg_tag_t tag = symm_group_next_tag(g);
    sends_t q;
    symm_coll_sends_init(&q, n, routine);
    /* The spec forbids source and dest to overlap; unlike fcollect's,
     * dest's extent is known only from the messages, too late to copy. */
    /* (Each member knows only its own block: it bounds the round by n-1
     * blocks of its size, as fcollect's.) */
    int how = exchange_how(g, nbytes * (size_t)(n - 1));
    for (int k = 1; k < n; k++)
        symm_coll_send_to(g, &q, tag, 0, (g->me + k) % n, source, nbytes, how, routine);
    size_t off = 0, mine = 0;
    size_t here[64], *len = n <= 64 ? here : malloc(sizeof(size_t) * (size_t)n);
    if (len == NULL)
        symm_fatal(routine, "out of memory for %d lengths", n);
    for (int j = 0; j < n; j++) {
        len[j] = j == g->me ? nbytes : symm_coll_arrived(g, tag, 0, j);
        if (j == g->me)
            mine = off;
        off += len[j];
    }
    memmove((char *)dest + mine, source, nbytes);
    off = 0;
    for (int j = 0; j < n; j++) {
        if (j != g->me)
            symm_coll_recv_from(g, tag, 0, j, (char *)dest + off, len[j], routine);
        off += len[j];
    }
    symm_coll_sends_fini(g, &q, routine);
    if (len != here)
        free(len);
}
