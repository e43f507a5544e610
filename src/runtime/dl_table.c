/*
 * dl_table.c - libraries opened at run time, and tables of the symbols
 * taken from them (dl_table.h).
 *
 * Owns the dlopen of a library by its listed names and the filling of a
 * caller's table of symbols. Must never log (the callers say what failed),
 * nor dlclose (a library whose symbols are in a table stays loaded: libpmix
 * runs a progress thread, and the tables outlive every caller).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* RTLD_DEFAULT */
#endif
#include "runtime/dl_table.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

void *symm_dl_open(const symm_dl_lib_t *lib, const char **dlerr_p)
{
    static __thread char first_err[256];
    void *h = NULL;
    for (size_t i = 0; h == NULL && lib->names[i] != NULL; i++) {
        h = dlopen(lib->names[i], lib->flags);
        if (h == NULL && i == 0 && dlerr_p != NULL) {
            const char *e = dlerror();
            if (e != NULL)
                snprintf(first_err, sizeof(first_err), "%s", e);
            *dlerr_p = e != NULL ? first_err : NULL;
        }
    }
    return h;
}

void *symm_dl_lookup(const symm_dl_lib_t *lib, void *h, const char *name)
{
    void *p = lib->global_first ? dlsym(RTLD_DEFAULT, name) : NULL;
    return p != NULL ? p : dlsym(h, name);
}

const char *symm_dl_resolve(const symm_dl_lib_t *lib, void *h, const symm_dl_sym_t *syms, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        void *p = symm_dl_lookup(lib, h, syms[i].name);
        /* A function pointer and a void * have the same size and
         * representation on every platform with dlsym (POSIX). */
        memcpy(syms[i].ptr, &p, sizeof(p));
        if (p == NULL)
            return syms[i].name;
    }
    return NULL;
}

int symm_dl_load(const symm_dl_lib_t *lib, const symm_dl_sym_t *syms, size_t n, void **h_p,
                 const char **missing_p, const char **dlerr_p)
{
    void *h = symm_dl_open(lib, dlerr_p);
    *missing_p = NULL;
    if (h == NULL)
        return -1;
    if (h_p != NULL)
        *h_p = h;
    *missing_p = symm_dl_resolve(lib, h, syms, n);
    return *missing_p == NULL ? 0 : -2;
}
