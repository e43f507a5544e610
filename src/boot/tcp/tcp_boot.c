/*
 * tcp_boot.c - the built-in bootstrap over TCP (also the unique-id mode):
 * the object, its creation and its operations.
 *
 * Owns the bootstrap object (tcp_priv.h's tcp_boot_t) and its creation: the
 * parameters' check, the tree's fan-out K (SYMM_BOOT_TREE_K; a job of at
 * most K+1 PEs is a star, every PE a child of rank 0), the TLS mode
 * (boot/tls.h's settings, logged at info level), then joining (tcp_tree.c:
 * every PE but rank 0 joins its parent, tcp_hello.c; every PE with
 * children accepts them, tcp_accept.c). With a pre-shared key a leaf's
 * hello goes out as early data at creation and it finishes its handshake
 * at its first collective, so creation waits no more than without TLS.
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
    return symm_tree_collective(tb, type, in, out, len);
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
    /* The accepting side (the PEs with children) and the joining side
     * (every rank but 0) each need their context; an inner PE both. */
    if (tb->lo < tb->hi)
        rc = symm_tls_ctx_create(tb->tls_mode, 1, tb->secret, &tb->tls);
    if (rc == SYMM_OK && tb->base.rank != 0)
        rc = symm_tls_ctx_create(tb->tls_mode, 0, tb->secret, &tb->tls_cli);
    if (rc == SYMM_OK)
        symm_info("bootstrap", "TLS %s",
                  symm_tls_ctx_describe(tb->tls != NULL ? tb->tls : tb->tls_cli));
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
    memcpy(tb->secret, p->secret, TCP_SECRET_LEN);
    tb->secret[TCP_SECRET_LEN] = '\0';
    tb->up = (symm_tcp_conn_t){-1, NULL, POLLIN};
    tb->tree_k = symm_tree_fanout();
    if (tb->tree_k < 0) {
        rc = SYMM_ERR_INVALID;
        goto err_free_boot_close_listen;
    }
    /* A K-ary tree: the parent of r is (r-1)/K, its children K*r+1... */
    int64_t lo = (int64_t)p->rank * tb->tree_k + 1;
    tb->up_rank = p->rank == 0 ? -1 : (p->rank - 1) / tb->tree_k;
    tb->lo = lo < p->size ? (int)lo : p->size;
    tb->hi = lo + tb->tree_k < p->size ? (int)(lo + tb->tree_k) : p->size;

    rc = tls_start(tb);
    if (rc != SYMM_OK)
        goto err_free_boot_close_listen;
    rc = symm_tree_create(tb, p, end);
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
