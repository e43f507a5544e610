/*
 * ucx_raw.c - raw UCX baseline for symm's UCX transport: the same operations
 * symm-bench times (put + flush, blocking get, blocking fetch-add, windows of
 * nbi puts + flush), done directly on UCP between two processes, with memory
 * registered the way symm registers its heap (ucp_mem_map of memory the
 * program owns) and the same endpoint error mode symm picks for the pair.
 *
 *   ucx_raw RANK DIR [ITERS]    run rank 1 and rank 0 with the same DIR
 *
 * Worker addresses and rkeys are exchanged through files in DIR. Rank 1
 * only runs UCX progress (as a symm target in a wait loop does) until rank 0
 * sets its done word. Rank 0 prints OSU-style rows. UCX_TLS etc. apply.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <ucp/api/ucp.h>

#define BUF (8u << 20)

static ucp_worker_h worker;

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static void die(const char *what, ucs_status_t st)
{
    fprintf(stderr, "ucx_raw: %s: %s\n", what, ucs_status_string(st));
    exit(1);
}

static void wait_req(ucs_status_ptr_t req)
{
    if (req == NULL)
        return;
    if (UCS_PTR_IS_ERR(req))
        die("request", UCS_PTR_STATUS(req));
    while (ucp_request_check_status(req) == UCS_INPROGRESS)
        ucp_worker_progress(worker);
    ucp_request_free(req);
}

static void flush(void)
{
    ucp_request_param_t p = {.op_attr_mask = 0};
    wait_req(ucp_worker_flush_nbx(worker, &p));
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: ucx_raw RANK DIR [ITERS]\n");
        return 2;
    }
    int rank = atoi(argv[1]);
    const char *dir = argv[2];
    int iters = argc > 3 ? atoi(argv[3]) : 10000;
    ucp_config_t *cfg;
    ucp_context_h ctx;
    ucs_status_t st;
    if ((st = ucp_config_read(NULL, NULL, &cfg)) != UCS_OK)
        die("config", st);
    ucp_params_t prm = {.field_mask = UCP_PARAM_FIELD_FEATURES,
                        .features = UCP_FEATURE_RMA | UCP_FEATURE_AMO32 | UCP_FEATURE_AMO64};
    if ((st = ucp_init(&prm, cfg, &ctx)) != UCS_OK)
        die("init", st);
    ucp_config_release(cfg);
    ucp_worker_params_t wp = {.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE,
                              .thread_mode = UCS_THREAD_MODE_SINGLE};
    if ((st = ucp_worker_create(ctx, &wp, &worker)) != UCS_OK)
        die("worker", st);
    char *buf = aligned_alloc(4096, BUF);
    memset(buf, 0, BUF);
    ucp_mem_map_params_t mp = {.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS |
                                             UCP_MEM_MAP_PARAM_FIELD_LENGTH,
                               .address = buf, .length = BUF};
    ucp_mem_h mh;
    if ((st = ucp_mem_map(ctx, &mp, &mh)) != UCS_OK)
        die("mem_map", st);
    void *rk;
    size_t rklen;
    ucp_address_t *addr;
    size_t alen;
    ucp_rkey_pack(ctx, mh, &rk, &rklen);
    ucp_worker_get_address(worker, &addr, &alen);

    char path[4096], tmp[4200];
    snprintf(path, sizeof(path), "%s/%d.bin", dir, rank);
    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    FILE *f = fopen(tmp, "wb");
    uint64_t base = (uint64_t)(uintptr_t)buf, al = alen, rl = rklen;
    fwrite(&base, 8, 1, f);
    fwrite(&al, 8, 1, f);
    fwrite(&rl, 8, 1, f);
    fwrite(addr, 1, alen, f);
    fwrite(rk, 1, rklen, f);
    fclose(f);
    rename(tmp, path);

    snprintf(path, sizeof(path), "%s/%d.bin", dir, 1 - rank);
    while ((f = fopen(path, "rb")) == NULL)
        usleep(1000);
    uint64_t pbase, pal, prl;
    if (fread(&pbase, 8, 1, f) != 1 || fread(&pal, 8, 1, f) != 1 || fread(&prl, 8, 1, f) != 1)
        return 1;
    char *paddr = malloc(pal), *prk = malloc(prl);
    if (fread(paddr, 1, pal, f) != pal || fread(prk, 1, prl, f) != prl)
        return 1;
    fclose(f);
    ucp_ep_params_t ep_p = {.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS |
                                          UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE,
                            .address = (ucp_address_t *)paddr,
                            .err_mode = getenv("RAW_ERR_PEER") ? UCP_ERR_HANDLING_MODE_PEER
                                                               : UCP_ERR_HANDLING_MODE_NONE};
    ucp_ep_h ep;
    if ((st = ucp_ep_create(worker, &ep_p, &ep)) != UCS_OK)
        die("ep", st);
    ucp_rkey_h rkey;
    if ((st = ucp_ep_rkey_unpack(ep, prk, &rkey)) != UCS_OK)
        die("rkey", st);

    volatile uint64_t *done = (volatile uint64_t *)(void *)buf;
    if (rank == 1) {
        while (*done == 0)
            ucp_worker_progress(worker);
    } else {
        ucp_request_param_t rp = {.op_attr_mask = 0};
        char *src = buf + 4096;
        uint64_t remote = pbase + 4096;
        printf("# ucx_raw (UCX %s), 2 processes, %d iterations\n", ucp_get_version_string(),
               iters);
        printf("# test              size   value\n");
        for (size_t sz = 8; sz <= 8; sz *= 2) {
            for (int w = 0; w < 100; w++) {
                wait_req(ucp_put_nbx(ep, src, sz, remote, rkey, &rp));
                flush();
            }
            double t = now_us();
            for (int i = 0; i < iters; i++) {
                wait_req(ucp_put_nbx(ep, src, sz, remote, rkey, &rp));
                flush();
            }
            printf("put_lat+flush   %8zu %10.3f us\n", sz, (now_us() - t) / iters);
            t = now_us();
            for (int i = 0; i < iters; i++)
                wait_req(ucp_get_nbx(ep, src, sz, remote, rkey, &rp));
            printf("get_lat         %8zu %10.3f us\n", sz, (now_us() - t) / iters);
        }
        uint64_t one = 1, old = 0;
        ucp_request_param_t ap = {.op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE |
                                                  UCP_OP_ATTR_FIELD_REPLY_BUFFER,
                                  .datatype = ucp_dt_make_contig(8), .reply_buffer = &old};
        double t = now_us();
        for (int i = 0; i < iters; i++)
            wait_req(ucp_atomic_op_nbx(ep, UCP_ATOMIC_OP_ADD, &one, 1, remote, rkey, &ap));
        printf("fetch_add       %8d %10.3f us\n", 8, (now_us() - t) / iters);
        for (size_t sz = 4096; sz <= (1u << 20); sz *= 16) {
            int win = 64, reps = sz >= (1u << 20) ? 20 : 200;
            t = now_us();
            for (int r = 0; r < reps; r++) {
                for (int k = 0; k < win; k++) {
                    ucs_status_ptr_t q = ucp_put_nbx(ep, src, sz, remote, rkey, &rp);
                    if (UCS_PTR_IS_PTR(q))
                        ucp_request_free(q); /* the flush below waits for it */
                }
                flush();
            }
            double us = now_us() - t;
            printf("put_bw          %8zu %10.1f MB/s\n", sz, (double)sz * win * reps / us);
        }
        uint64_t v = 1;
        wait_req(ucp_put_nbx(ep, &v, 8, pbase, rkey, &rp));
        flush();
    }
    ucp_rkey_destroy(rkey);
    ucp_request_param_t cp = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
                              .flags = getenv("RAW_ERR_PEER") ? UCP_EP_CLOSE_FLAG_FORCE : 0};
    wait_req(ucp_ep_close_nbx(ep, &cp));
    ucp_rkey_buffer_release(rk);
    ucp_worker_release_address(worker, addr);
    ucp_mem_unmap(ctx, mh);
    ucp_worker_destroy(worker);
    ucp_cleanup(ctx);
    free(buf);
    free(paddr);
    free(prk);
    return 0;
}
