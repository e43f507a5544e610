/*
 * active_sig_slots.c - SHMEM_DEBUG's collective check across two active
 * sets that share a PE: A = (0, 1, 2) = PEs {0, 2} and B = (1, 0, 2) = PEs
 * {1, 2}. PE 2 is the root of a broadcast on A, then of one on B, then all
 * meet in shmem_barrier_all; PE 0 reaches A's broadcast first, so it waits
 * for PE 2's signature of the call, while PE 2 may see PE 0's, send and
 * move on to B's call before PE 0 looks. Each call must check and return:
 * the signature PE 0 looks for must still be readable however far PE 2 has
 * gone. Run with SHMEM_DEBUG=1 at 3 PEs (other PEs only take part in the
 * barriers).
 */
#include <stdio.h>
#include <unistd.h>

#include <shmem.h>

#include "check.h"

#define ROUNDS 40

static long psa[SHMEM_BCAST_SYNC_SIZE], psb[SHMEM_BCAST_SYNC_SIZE];
static long src[4], dst[4];

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    for (int i = 0; i < SHMEM_BCAST_SYNC_SIZE; i++)
        psa[i] = psb[i] = SHMEM_SYNC_VALUE;
    shmem_barrier_all();
    for (int r = 0; r < ROUNDS && npes >= 3; r++) {
        for (int i = 0; i < 4; i++) {
            src[i] = 1000L * r + i;
            dst[i] = -1;
        }
        /* PE 0 is first in A's call and has waited long enough to nap
         * between its looks at PE 2's signature (ops/wait_status.c). */
        if (me == 2)
            usleep(20000);
        if (me == 0 || me == 2) /* A: root index 1, PE 2 */
            shmem_broadcast64(dst, src, 4, 1, 0, 1, 2, psa);
        if (me == 0)
            for (int i = 0; i < 4; i++)
                CHECK(dst[i] == 1000L * r + i, "round %d: A's dest[%d] expected %ld got %ld", r, i,
                      1000L * r + i, dst[i]);
        if (me == 1 || me == 2) /* B: root index 1, PE 2 */
            shmem_broadcast64(dst, src, 4, 1, 1, 0, 2, psb);
        if (me == 1)
            for (int i = 0; i < 4; i++)
                CHECK(dst[i] == 1000L * r + i, "round %d: B's dest[%d] expected %ld got %ld", r, i,
                      1000L * r + i, dst[i]);
        shmem_barrier_all();
    }
    shmem_finalize();
    printf("active_sig_slots: ok on %d PEs\n", npes);
    return 0;
}
