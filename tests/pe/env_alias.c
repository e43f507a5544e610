/*
 * env_alias.c - the legacy SMA_ names (runtime/env_def.h): the heap's
 * initial size is what argv[1] says (bytes), whichever of
 * SMA_SYMMETRIC_SIZE / SHMEM_SYMMETRIC_SIZE tests/launcher.cmake set; the
 * SHMEM_INFO listing and the disagreement warning are matched there.
 */
#include "pe/check.h"

#include <shmemx.h>

int main(int argc, char **argv)
{
    shmem_init();
    CHECK(argc == 2, "usage: env_alias HEAP_BYTES");
    size_t want = (size_t)strtoull(argv[1], NULL, 0);
    CHECK(shmemx_heap_size() == want, "initial heap %zu bytes, expected %zu (SMA_SYMMETRIC_SIZE %s, "
          "SHMEM_SYMMETRIC_SIZE %s)", shmemx_heap_size(), want,
          getenv("SMA_SYMMETRIC_SIZE") ? getenv("SMA_SYMMETRIC_SIZE") : "unset",
          getenv("SHMEM_SYMMETRIC_SIZE") ? getenv("SHMEM_SYMMETRIC_SIZE") : "unset");
    shmem_finalize();
    return 0;
}
