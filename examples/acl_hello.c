/*
 * acl_hello.c - an aclshmem program in DEFAULT mode, with no launcher.
 *
 * Every process is told its PE number, the number of PEs and the address
 * where PE 0 serves the rendezvous; start them any way you like:
 *
 *   for i in 0 1 2 3; do ./acl_hello $i 4 tcp://127.0.0.1:29500 & done; wait
 *
 * (or tcp6://[::1]:29500). Then, as CANN's host samples do: each PE writes
 * its slice of an allgather into every PE, and passes a token around the
 * ring with put-with-signal on an int32 signal word. Exits 0 when every
 * value it received is right.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <aclshmem.h>

#define SLICE 256

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s MY_PE N_PES tcp://HOST:PORT\n", argv[0]);
        return 2;
    }
    aclshmemx_init_attr_t attr = ACLSHMEMX_INIT_ATTR_INITIALIZER;
    attr.my_pe = atoi(argv[1]);
    attr.n_pes = atoi(argv[2]);
    attr.local_mem_size = 64u << 20;
    attr.option_attr.shm_init_timeout = 30;
    snprintf(attr.ip_port, sizeof(attr.ip_port), "%s", argv[3]);
    int rc = aclshmemx_init_attr(ACLSHMEMX_INIT_WITH_DEFAULT, &attr);
    if (rc != ACLSHMEM_SUCCESS || aclshmemx_init_status() != ACLSHMEM_STATUS_IS_INITIALIZED) {
        fprintf(stderr, "PE %d: aclshmemx_init_attr failed: %d\n", attr.my_pe, rc);
        return 1;
    }
    int me = aclshmem_my_pe(), n = aclshmem_n_pes(), bad = 0;

    /* Allgather: my slice into every PE's buffer, at my offset. */
    int32_t *all = (int32_t *)aclshmem_calloc((size_t)n * SLICE, sizeof(int32_t));
    int32_t mine[SLICE];
    for (int i = 0; i < SLICE; i++)
        mine[i] = me * 1000 + i;
    for (int pe = 0; pe < n; pe++)
        aclshmem_int32_put(all + me * SLICE, mine, SLICE, pe);
    aclshmem_barrier_all();
    for (int pe = 0; pe < n; pe++)
        for (int i = 0; i < SLICE; i++)
            bad += all[pe * SLICE + i] != pe * 1000 + i;

    /* A token around the ring: data, then the int32 signal that says so. */
    int32_t *sig = (int32_t *)aclshmem_calloc(1, sizeof(int32_t));
    int64_t *token = (int64_t *)aclshmem_calloc(1, sizeof(int64_t));
    int64_t t = 0;
    if (me == 0) {
        t = 1;
        aclshmemx_putmem_signal(token, &t, sizeof(t), sig, 1, ACLSHMEM_SIGNAL_SET, (me + 1) % n);
    }
    aclshmem_signal_wait_until(sig, ACLSHMEM_CMP_GE, 1);
    t = *token;
    bad += t != me + (me == 0 ? n : 0);
    if (me != 0) {
        t++;
        aclshmemx_putmem_signal(token, &t, sizeof(t), sig, 1, ACLSHMEM_SIGNAL_SET, (me + 1) % n);
    }
    aclshmem_barrier_all();

    printf("PE %d of %d: %s\n", me, n, bad ? "WRONG VALUES" : "ok");
    aclshmem_free(token);
    aclshmem_free(sig);
    aclshmem_free(all);
    aclshmem_finalize();
    return bad != 0;
}
