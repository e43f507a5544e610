/*
 * main.c - the generic-dispatch test's driver: runs every generic's unit
 * (the list tests/generic.cmake writes into gen_list.h) and checks each
 * call hit exactly one typed routine of the generic's operation, of the
 * argument's width and kind (plain char, signed, unsigned, floating,
 * complex), plain or ctx as called. Every mismatch is printed; any fails.
 */
#include <stdio.h>
#include <string.h>

#include "generic/gen.h"
#include "pe/check.h"

gen_buf_t gen_dest[4], gen_src[4], gen_fetch[4];
uint64_t gen_sig;
size_t gen_indices[4];
int gen_pairs, gen_failures;

static int hits;
static char hit_name[128];
static size_t hit_size;
static char hit_kind;

void gen_hit(const char *routine, size_t size, char kind)
{
    if (hits++ == 0) {
        snprintf(hit_name, sizeof(hit_name), "%s", routine);
        hit_size = size;
        hit_kind = kind;
    }
}

void gen_reset(void)
{
    memset(gen_dest, 0, sizeof(gen_dest));
    memset(gen_src, 0, sizeof(gen_src));
    memset(gen_fetch, 0, sizeof(gen_fetch));
    gen_sig = 0;
    hits = 0;
    hit_name[0] = '\0';
}

/* shmem.h's TYPENAME part of a typed routine's name. */
static const char *const typenames[] = {
    "float", "double", "longdouble", "char", "schar", "short", "int", "long", "longlong",
    "uchar", "ushort", "uint", "ulong", "ulonglong", "int8", "int16", "int32", "int64",
    "uint8", "uint16", "uint32", "uint64", "size", "ptrdiff", "complexd", "complexf"};

/* Is name "shmem_" ["ctx_"] TYPENAME "_" op, op being generic's name less
 * its "shmem_"? */
static int name_fits(const char *name, const char *generic, int ctx)
{
    const char *op = generic + strlen("shmem_");
    const char *p = name;
    if (strncmp(p, "shmem_", 6) != 0)
        return 0;
    p += 6;
    if (ctx) {
        if (strncmp(p, "ctx_", 4) != 0)
            return 0;
        p += 4;
    }
    for (size_t i = 0; i < sizeof(typenames) / sizeof(typenames[0]); i++) {
        size_t n = strlen(typenames[i]);
        if (strncmp(p, typenames[i], n) == 0 && p[n] == '_' && strcmp(p + n + 1, op) == 0)
            return 1;
    }
    return 0;
}

/* The deprecated generic AMO names and the current routine each may reach
 * in place of its deprecated one. */
static const char *const depr_ops[][2] = {
    {"shmem_cswap", "shmem_atomic_compare_swap"}, {"shmem_finc", "shmem_atomic_fetch_inc"},
    {"shmem_inc", "shmem_atomic_inc"},            {"shmem_fadd", "shmem_atomic_fetch_add"},
    {"shmem_add", "shmem_atomic_add"},            {"shmem_swap", "shmem_atomic_swap"},
    {"shmem_fetch", "shmem_atomic_fetch"},        {"shmem_set", "shmem_atomic_set"}};

static int name_fits_any(const char *name, const char *generic, int ctx)
{
    if (name_fits(name, generic, ctx))
        return 1;
    for (size_t i = 0; i < sizeof(depr_ops) / sizeof(depr_ops[0]); i++)
        if (strcmp(generic, depr_ops[i][0]) == 0)
            return name_fits(name, depr_ops[i][1], ctx);
    return 0;
}

void gen_check(const char *generic, int ctx, const char *type, size_t size, char kind)
{
    gen_pairs++;
    const char *form = ctx ? "ctx, " : "";
    if (hits != 1) {
        fprintf(stderr, "FAIL: %s(%s%s *): %d typed routines called (first %s), expected 1\n",
                generic, form, type, hits, hits ? hit_name : "none");
        gen_failures++;
    } else if (!name_fits_any(hit_name, generic, ctx) || hit_size != size || hit_kind != kind) {
        fprintf(stderr,
                "FAIL: %s(%s%s *) called %s (%zu bytes, kind %c), expected "
                "shmem_%sTYPE_%s of %zu bytes, kind %c\n",
                generic, form, type, hit_name, hit_size, hit_kind, ctx ? "ctx_" : "",
                generic + strlen("shmem_"), size, kind);
        gen_failures++;
    }
}

#define X(OP) void gen_fn_##OP(void);
#include "gen_list.h"
#undef X

int main(void)
{
    shmem_init();
    int units = 0;
#define X(OP) (gen_fn_##OP(), units++);
#include "gen_list.h"
#undef X
    printf("generic dispatch: %d generics, %d calls checked, %d wrong\n", units, gen_pairs,
           gen_failures);
    CHECK(gen_failures == 0, "%d of %d generic calls dispatched wrongly (FAIL lines above)",
          gen_failures, gen_pairs);
    shmem_finalize();
    return 0;
}
