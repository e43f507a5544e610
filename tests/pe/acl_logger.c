/* aclshmemx_set_extern_logger receives symm's own (core) messages too, in
 * CANN's level numbering (2 = warn), and nothing reaches stderr. */
#include <aclshmem.h>
#include <shmem.h>
#include <stdio.h>
#include <string.h>

static int seen, bad_level;

static void logger(int level, const char *msg)
{
    if (strstr(msg, "shmem_ctx_create: unknown options") != NULL) {
        seen++;
        if (level != 2)
            bad_level = level;
    }
}

int main(void)
{
    aclshmemx_set_extern_logger(logger);
    shmem_init();
    shmem_ctx_t ctx;
    int rc = shmem_ctx_create(1L << 20, &ctx); /* warns: unknown options */
    int ok = rc != 0 && seen == 1 && bad_level == 0;
    if (!ok)
        printf("FAIL: logger saw %d core warning(s) (expected 1), level %d, rc %d (PE %d)\n", seen,
               bad_level, rc, shmem_my_pe());
    shmem_finalize();
    return ok ? 0 : 1;
}
