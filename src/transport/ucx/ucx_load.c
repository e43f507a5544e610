/*
 * ucx_load.c - libucp.so.0, opened at run time: fills the table through which
 * the transport makes every UCP/UCS call (ucx.h), once, and says UCX's
 * version (symm-info).
 *
 * Owns the table, its loading (runtime/dl_table.h) and the load error.
 * Never calls UCX but through the table, and no file of symm may call a
 * UCP/UCS function directly: libsymm has no link dependency on UCX, and programs that never
 * leave the node never load it (ucx.h says why).
 */
#define _GNU_SOURCE
#include "transport/transport.h"

#ifdef SYMM_HAVE_UCX

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#include "runtime/dl_table.h"
#include "transport/ucx/ucx.h"

struct symm_ucx_fns symm_ucx_fn;
static int ucx_loaded; /* 1 loaded, -1 failed */
static char ucx_load_error[256];

/* Load libucp (and through it libucs and libuct, which dlsym searches
 * with it) once; thread-safe by pthread_once. */
static pthread_once_t ucx_once = PTHREAD_ONCE_INIT;
static const char *const ucx_libs[] = {"libucp.so.0", NULL};
static const symm_dl_lib_t ucx_lib = {ucx_libs, RTLD_NOW | RTLD_GLOBAL, 0};

static void ucx_load_once(void)
{
/* f names the function; ucx.h makes the name expand to its field of the
 * table, while #f spells it as libucp exports it. */
#define UCX_SYM(f) SYMM_DL_SYM(f, #f),
    const symm_dl_sym_t syms[] = {UCX_FUNCS(UCX_SYM)};
#undef UCX_SYM
    const char *err = NULL, *missing;
    int rc = symm_dl_load(&ucx_lib, syms, sizeof(syms) / sizeof(syms[0]), NULL, &missing, &err);
    if (rc == -1) {
        snprintf(ucx_load_error, sizeof(ucx_load_error), "cannot load libucp.so.0 (%s): "
                 "install UCX (Debian: libucx0)", err);
        ucx_loaded = -1;
        return;
    }
    if (rc != 0) {
        snprintf(ucx_load_error, sizeof(ucx_load_error), "libucp.so.0 has no %s", missing);
        ucx_loaded = -1;
        return;
    }
    ucx_loaded = 1;
}

int symm_ucx_load(void)
{
    pthread_once(&ucx_once, ucx_load_once);
    return ucx_loaded == 1;
}

const char *symm_ucx_load_error(void) { return ucx_load_error; }

const char *symm_ucx_version(void) { return symm_ucx_load() ? ucp_get_version_string() : NULL; }

#else /* !SYMM_HAVE_UCX */

const char *symm_ucx_version(void) { return NULL; }

#endif
