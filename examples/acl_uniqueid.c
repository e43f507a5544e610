/*
 * acl_uniqueid.c - an aclshmem program in UNIQUEID mode: PE 0 makes the job's
 * unique id and hands it to the others through a file (any channel will do:
 * MPI_Bcast, a socket, torch.distributed, ...).
 *
 *   ./acl_uniqueid MY_PE N_PES /tmp/job.uid     # one per PE, started any way
 *   oshrun -np 4 ./acl_uniqueid /tmp/job.uid    # PE number from SYMM_RANK
 *
 * The work: a producer/consumer pipeline on int32 signals. Every PE produces
 * ROUNDS batches for its right neighbour: it waits for the neighbour's
 * acknowledgement of the previous batch, puts the batch and sets the
 * neighbour's ready signal to the batch number in one call; the consumer
 * waits for the signal, checks the batch and acknowledges. Exits 0 when
 * every batch arrived intact.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <aclshmem.h>

#define BATCH 512
#define ROUNDS 100

/* PE 0 writes the id (atomically: write, then rename); the others wait
 * for the file and read it. */
static int share_uid(aclshmemx_uniqueid_t *uid, int me, const char *path)
{
    if (me == 0) {
        char tmp[4096];
        if (aclshmemx_get_uniqueid(uid) != ACLSHMEM_SUCCESS)
            return -1;
        snprintf(tmp, sizeof(tmp), "%s.tmp%ld", path, (long)getpid());
        FILE *f = fopen(tmp, "wb");
        if (f == NULL || fwrite(uid, sizeof(*uid), 1, f) != 1 || fclose(f) != 0)
            return -1;
        return rename(tmp, path);
    }
    for (int i = 0; i < 3000; i++) {
        FILE *f = fopen(path, "rb");
        if (f != NULL) {
            size_t got = fread(uid, sizeof(*uid), 1, f);
            fclose(f);
            if (got == 1)
                return 0;
        }
        usleep(10000);
    }
    return -1;
}

int main(int argc, char **argv)
{
    const char *r = getenv("SYMM_RANK"), *s = getenv("SYMM_SIZE"), *path;
    int me, n;
    if (argc == 4) {
        me = atoi(argv[1]);
        n = atoi(argv[2]);
        path = argv[3];
    } else if (argc == 2 && r != NULL && s != NULL) {
        me = atoi(r);
        n = atoi(s);
        path = argv[1];
    } else {
        fprintf(stderr, "usage: %s MY_PE N_PES UID_FILE (or UID_FILE under oshrun)\n", argv[0]);
        return 2;
    }

    aclshmemx_uniqueid_t uid = ACLSHMEM_UNIQUEID_INITIALIZER;
    aclshmemx_init_attr_t attr = ACLSHMEMX_INIT_ATTR_INITIALIZER;
    if (share_uid(&uid, me, path) != 0) {
        fprintf(stderr, "PE %d: no unique id in %s\n", me, path);
        return 1;
    }
    int rc = aclshmemx_set_attr_uniqueid_args(me, n, 32 << 20, &uid, &attr);
    if (rc == ACLSHMEM_SUCCESS)
        rc = aclshmemx_init_attr(ACLSHMEMX_INIT_WITH_UNIQUEID, &attr);
    if (rc != ACLSHMEM_SUCCESS) {
        fprintf(stderr, "PE %d: initialization failed: %d\n", me, rc);
        return 1;
    }
    if (me == 0)
        unlink(path); /* everybody joined, so everybody has read it */

    int right = (me + 1) % n, left = (me + n - 1) % n, bad = 0;
    int32_t *ready = (int32_t *)aclshmem_calloc(2, sizeof(int32_t)); /* [0] ready, [1] ack */
    float *batch = (float *)aclshmem_calloc(BATCH, sizeof(float));
    float out[BATCH];
    for (int k = 1; k <= ROUNDS; k++) {
        /* Producer: the previous batch was consumed, so the buffer is free. */
        aclshmem_int32_wait_until(&ready[1], ACLSHMEM_CMP_GE, k - 1);
        for (int i = 0; i < BATCH; i++)
            out[i] = (float)(me * 1000000 + k * 1000 + i);
        aclshmem_float_put_signal(batch, out, BATCH, (uint8_t *)&ready[0], k, ACLSHMEM_SIGNAL_SET,
                                  right);
        /* Consumer. */
        aclshmem_signal_wait_until(&ready[0], ACLSHMEM_CMP_GE, k);
        for (int i = 0; i < BATCH; i++)
            bad += batch[i] != (float)(left * 1000000 + k * 1000 + i);
        aclshmem_int32_p(&ready[1], k, left);
    }
    aclshmem_barrier_all();
    printf("PE %d of %d: %d batches from PE %d %s\n", me, n, ROUNDS, left,
           bad ? "WRONG" : "ok");
    aclshmem_free(batch);
    aclshmem_free(ready);
    aclshmem_finalize();
    return bad != 0;
}
