/*
 * state.c - the current instance and the shutdown hooks of an instance.
 *
 * Owns symm_cur and the hook table's discipline (state.h). Never creates or
 * tears down an instance: core/instance.c does, running the hooks here.
 */
#include "runtime/state.h"

#include <pthread.h>

#include "runtime/log.h"

symm_instance_t *symm_cur;

/* Streams register from the user's threads; init and finalize are not on
 * a hot path. */
static pthread_mutex_t hooks_lock = PTHREAD_MUTEX_INITIALIZER;

symm_instance_t *symm_require_init(const char *routine)
{
    symm_fatal(routine, "called before shmem_init (or after shmem_finalize)");
}

void symm_on_fini(symm_instance_t *inst, symm_fini_phase_t phase, symm_fini_fn fn, void *arg)
{
    pthread_mutex_lock(&hooks_lock);
    for (int i = 0; i < inst->n_fini_hooks; i++) {
        const struct symm_fini_hook *h = &inst->fini_hooks[i];
        if (h->fn == fn && h->arg == arg && h->phase == (int)phase) {
            pthread_mutex_unlock(&hooks_lock);
            return;
        }
    }
    if (inst->n_fini_hooks == SYMM_FINI_HOOKS_MAX)
        symm_fatal("symm_on_fini", "more than %d shutdown hooks", SYMM_FINI_HOOKS_MAX);
    inst->fini_hooks[inst->n_fini_hooks++] =
        (struct symm_fini_hook){.fn = fn, .arg = arg, .phase = (int)phase};
    pthread_mutex_unlock(&hooks_lock);
}

void symm_run_fini(symm_instance_t *inst, symm_fini_phase_t phase)
{
    for (;;) {
        /* The latest hook of the phase, taken out before it runs: a hook
         * may register or run others (a stream's drain, say). */
        struct symm_fini_hook h = {0};
        pthread_mutex_lock(&hooks_lock);
        for (int i = inst->n_fini_hooks - 1; i >= 0; i--) {
            if (inst->fini_hooks[i].phase != (int)phase)
                continue;
            h = inst->fini_hooks[i];
            for (int j = i; j + 1 < inst->n_fini_hooks; j++)
                inst->fini_hooks[j] = inst->fini_hooks[j + 1];
            inst->n_fini_hooks--;
            break;
        }
        pthread_mutex_unlock(&hooks_lock);
        if (h.fn == NULL)
            return;
        h.fn(inst, h.arg);
    }
}
