/*
 * shmem_ctx.c - communication contexts: create, destroy, team.
 *
 * A context is an independent stream of operations for ordering (fence)
 * and completion (quiet). Operations to mapped peers complete in program
 * order, so on one node a context carries no state; a network transport
 * attaches its per-context state to ctx->net.
 */
#include <stdlib.h>

#include "ops/sync.h"
#include "runtime/log.h"
#include "shmem.h"
#include "api/shmem/shmem_profile.h"
#include "team/team.h"

int shmem_ctx_create(long options, shmem_ctx_t *ctx)
{
    symm_instance_t *s = symm_inst(__func__);
    long known = SHMEM_CTX_SERIALIZED | SHMEM_CTX_PRIVATE | SHMEM_CTX_NOSTORE;
    if (ctx == NULL)
        symm_fatal(__func__, "ctx is NULL");
    *ctx = SHMEM_CTX_INVALID;
    if ((options & ~known) != 0) {
        symm_warn(__func__, "unknown options 0x%lx", options & ~known);
        return 1;
    }
    struct symm_ctx *c = calloc(1, sizeof(*c));
    if (c == NULL)
        return 1;
    c->inst = s;
    c->team = s->team_world;
    c->options = options;
    if (s->net != NULL && s->net->ctx_create != NULL && s->net->ctx_create(c) != 0) {
        free(c);
        return 1;
    }
    *ctx = (shmem_ctx_t)c;
    return 0;
}

void shmem_ctx_destroy(shmem_ctx_t ctx)
{
    symm_instance_t *s = symm_inst(__func__);
    struct symm_ctx *c = (struct symm_ctx *)ctx;
    if (c == NULL)
        return;
    if (c == &s->ctx_default)
        symm_fatal(__func__, "SHMEM_CTX_DEFAULT cannot be destroyed");
    /* Destroying a context completes its outstanding operations. */
    symm_quiet(s, c);
    if (s->net != NULL && s->net->ctx_destroy != NULL)
        s->net->ctx_destroy(c);
    free(c);
}

int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team)
{
    symm_inst(__func__);
    if (team == NULL)
        return -1;
    if (ctx == SHMEM_CTX_INVALID) {
        *team = SHMEM_TEAM_INVALID;
        return -1;
    }
    *team = (shmem_team_t)((struct symm_ctx *)ctx)->team;
    return 0;
}

SYMM_PALIAS(shmem_ctx_create)
SYMM_PALIAS(shmem_ctx_destroy)
SYMM_PALIAS(shmem_ctx_get_team)
