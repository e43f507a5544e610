/*
 * tcp_boot.c - the built-in bootstrap over TCP (also the unique-id mode):
 * the object, its creation and its operations.
 *
 * Owns the bootstrap object (tcp_priv.h's tcp_boot_t) and its creation: the
 * parameters' check, the choice of the shape (a star through rank 0,
 * tcp_star.c, or from SYMM_BOOT_TREE_MIN PEs on a K-ary tree, tcp_tree.c;
 * made at creation, every call after that goes to the one chosen) and of
 * the TLS mode (boot/tls.h's settings, logged at info level), then joining:
 * rank 0 accepts (tcp_accept.c), the others connect and say hello
 * (tcp_hello.c). With a pre-shared key the other ranks' hello goes out as
 * early data at creation, and they finish their handshake at their first
 * collective, so creation waits no more than without TLS.
 *
 * Must never: sleep on the common path (a small job's init costs a few round
 * trips, no timer ticks), or leak the inherited listening socket (it is
 * closed once every PE has joined, or on failure). Not thread-safe: one
 * caller at a time.
 */
#include "boot/boot_io.h"
#include "boot/tcp/tcp_priv.h"
#include "boot/tls.h"
#include "runtime/log.h"
#include "runtime/status.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int tcp_collective(tcp_boot_t *tb, int type, const void *in, void *out, size_t len)
{
    if (tb->failed != SYMM_OK)
        return tb->failed;
    tb->seq++;
    if (tb->tree_k > 0)
        return symm_tree_collective(tb, type, in, out, len);
    return symm_tcp_star_collective(tb, type, in, out, len);
}

static int tcp_barrier(symm_boot_t *boot)
{
    return tcp_collective((tcp_boot_t *)boot, TCP_MSG_BARRIER, NULL, NULL, 0);
}

static int tcp_allgather(symm_boot_t *boot, const void *in, void *out, size_t len)
{
    if (len > SIZE_MAX / 2 / (size_t)boot->size) {
        symm_error("bootstrap", "allgather of %zu bytes per PE is too large", len);
        return SYMM_ERR_INVALID;
    }
    return tcp_collective((tcp_boot_t *)boot, TCP_MSG_ALLGATHER, in, out, len);
}

static void tcp_fini(symm_boot_t *boot)
{
    tcp_boot_t *tb = (tcp_boot_t *)boot;
    symm_tcp_conn_close(&tb->up);
    for (int r = tb->lo; tb->peer != NULL && r < tb->hi; r++)
        symm_tcp_conn_close(tcp_peer(tb, r));
    free(tb->peer);
    if (tb->dir != NULL) {
        free(tb->dir->addr);
        free(tb->dir->seen);
        free(tb->dir);
    }
    symm_tls_ctx_destroy(tb->tls);
    symm_tls_ctx_destroy(tb->tls_cli);
    free(tb->pfd);
    free(tb->pfd_rank);
    free(tb->moved);
    free(tb->hdr);
    free(tb);
}

static const symm_boot_ops_t tcp_ops = {
    .name = "tcp",
    /* The tree is the same bootstrap, shaped otherwise: its name stays. */
    .barrier = tcp_barrier,
    .allgather = tcp_allgather,
    .fini = tcp_fini,
};

/* ---- creation ------------------------------------------------------------- */

/* Choose the TLS mode, and make the context a job of several PEs needs. */
static int tls_start(tcp_boot_t *tb)
{
    int rc = symm_tls_mode(&tb->tls_mode);
    if (rc != SYMM_OK)
        return rc;
    if (tb->tls_mode == SYMM_TLS_OFF) {
        symm_info("bootstrap", "TLS off: bootstrap traffic is plain%s",
                  symm_tls_built() ? " (SYMM_BOOT_TLS=0 or aclshmemx_set_conf_store_tls)"
                                   : " (built without OpenSSL)");
        return SYMM_OK;
    }
    if (tb->base.size == 1) {
        symm_info("bootstrap", "TLS %s: nothing to protect in a job of one PE",
                  symm_tls_mode_name(tb->tls_mode));
        return SYMM_OK;
    }
    /* The accepting side (rank 0, the tree's parents) and the joining side
     * (every other rank) each need their context; a tree parent both. */
    if (tb->lo < tb->hi)
        rc = symm_tls_ctx_create(tb->tls_mode, 1, tb->base.secret, &tb->tls);
    if (rc == SYMM_OK && tb->base.rank != 0)
        rc = symm_tls_ctx_create(tb->tls_mode, 0, tb->base.secret, &tb->tls_cli);
    if (rc == SYMM_OK)
        symm_info("bootstrap", "TLS %s",
                  symm_tls_ctx_describe(tb->tls != NULL ? tb->tls : tb->tls_cli));
    return rc;
}

static int root_start(tcp_boot_t *tb, const symm_boot_tcp_params_t *p, double end)
{
    size_t n = (size_t)p->size;
    int rc = SYMM_OK;

    tb->peer = malloc(n * sizeof(*tb->peer));
    for (int r = 0; tb->peer != NULL && r < p->size; r++)
        tb->peer[r] = (symm_tcp_conn_t){-1, NULL, POLLIN};
    tb->pfd = malloc(n * sizeof(*tb->pfd));
    tb->pfd_rank = malloc(n * sizeof(*tb->pfd_rank));
    tb->moved = calloc(n, sizeof(*tb->moved));
    tb->hdr = malloc(n * TCP_HDR_LEN);
    if (!tb->peer || !tb->pfd || !tb->pfd_rank || !tb->moved || !tb->hdr) {
        symm_error("bootstrap", "out of memory for %d PEs", p->size);
        rc = SYMM_ERR_NOMEM;
        goto close_listen;
    }
    if (p->size > 1)
        return symm_tcp_root_accept(tb, p->root_addr, p->listen_fd, end);
    /* A job of one PE: nobody to wait for. */
close_listen:
    if (p->listen_fd >= 0)
        close(p->listen_fd);
    return rc;
}

/* Takes ownership of params->listen_fd: it is closed once every PE has
 * connected, or on failure. */
int symm_boot_tcp_create(const symm_boot_tcp_params_t *params, symm_boot_t **boot_p)
{
    const symm_boot_tcp_params_t *p = params;
    double end = symm_boot_deadline(p->timeout_s);
    tcp_boot_t *tb;
    int rc;

    int secret_ok = symm_boot_secret_valid(p->secret);
    if (p->size < 1 || p->rank < 0 || p->rank >= p->size || !secret_ok) {
        symm_error("bootstrap", "bad TCP bootstrap parameters (rank %d, size %d, secret %s)",
                   p->rank, p->size, secret_ok ? "ok" : "not 32 hex characters");
        rc = SYMM_ERR_INVALID;
        goto err_close_listen;
    }
    tb = calloc(1, sizeof(*tb));
    if (tb == NULL) {
        symm_error("bootstrap", "out of memory");
        rc = SYMM_ERR_NOMEM;
        goto err_close_listen;
    }
    tb->base.ops = &tcp_ops;
    tb->base.rank = p->rank;
    tb->base.size = p->size;
    tb->base.timeout_s = p->timeout_s;
    memcpy(tb->base.secret, p->secret, TCP_SECRET_LEN);
    tb->base.secret[TCP_SECRET_LEN] = '\0';
    tb->up = (symm_tcp_conn_t){-1, NULL, POLLIN};
    tb->up_rank = p->rank == 0 ? -1 : 0;
    tb->lo = 1;
    tb->hi = p->rank == 0 ? p->size : 1;
    tb->tree_k = symm_tree_fanout(p->size);
    if (tb->tree_k < 0) {
        rc = SYMM_ERR_INVALID;
        goto err_free_boot_close_listen;
    }
    if (tb->tree_k > 0) {
        /* A K-ary tree: the parent of r is (r-1)/K, its children K*r+1... */
        int64_t lo = (int64_t)p->rank * tb->tree_k + 1;
        tb->up_rank = p->rank == 0 ? -1 : (p->rank - 1) / tb->tree_k;
        tb->lo = lo < p->size ? (int)lo : p->size;
        tb->hi = lo + tb->tree_k < p->size ? (int)(lo + tb->tree_k) : p->size;
        tb->peer_base = tb->lo;
    }

    rc = tls_start(tb);
    if (rc != SYMM_OK)
        goto err_free_boot_close_listen;
    if (tb->tree_k > 0)
        rc = symm_tree_create(tb, p, end);
    else if (p->rank == 0)
        rc = root_start(tb, p, end);
    else
        rc = symm_tcp_peer_join(tb, p->root_addr, 1, end);
    if (rc != SYMM_OK)
        goto err_free_boot;
    *boot_p = &tb->base;
    return SYMM_OK;

err_free_boot:
    tcp_fini(&tb->base);
    return rc;
err_free_boot_close_listen:
    tcp_fini(&tb->base);
err_close_listen:
    if (p->listen_fd >= 0 && p->rank == 0)
        close(p->listen_fd);
    return rc;
}
