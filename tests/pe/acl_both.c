/*
 * acl_both.c - aclshmem.h and shmem.h in one file, and both APIs on one
 * instance. Built twice: as C with aclshmem.h first, and (where a C++
 * compiler exists) as C++ with shmem.h first (ACL_SHMEM_FIRST), which also
 * checks CANN's C++ defaults of aclshmemx_init_attr_t. Runs under oshrun;
 * the job itself starts in unique-id mode (SYMM_RANK/SYMM_SIZE tell the
 * rank and size, the file named by argv[1] carries the id). An aclshmem
 * team handle turned into an OpenSHMEM team (shmemx_team_from_aclshmem).
 */
#ifdef ACL_SHMEM_FIRST
#include <shmem.h>
#include <shmemx.h>
#include <aclshmem.h>
#else
#include <aclshmem.h>
#include <shmem.h>
#include <shmemx.h>
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHECK(cond, what)                                                                   \
    do {                                                                                    \
        if (!(cond)) {                                                                      \
            fprintf(stderr, "FAIL: %s (PE %d) [acl_both.c:%d]\n", what, aclshmem_my_pe(),   \
                    __LINE__);                                                              \
            if (aclshmemx_init_status() == ACLSHMEM_STATUS_IS_INITIALIZED)                  \
                aclshmem_global_exit(1);                                                    \
            exit(1);                                                                        \
        }                                                                                   \
    } while (0)

static void share_uid(aclshmemx_uniqueid_t *uid, int rank, const char *path)
{
    if (rank == 0) {
        char tmp[4096];
        CHECK(aclshmemx_get_uniqueid(uid) == ACLSHMEM_SUCCESS, "get_uniqueid");
        snprintf(tmp, sizeof(tmp), "%s.tmp%ld", path, (long)getpid());
        FILE *f = fopen(tmp, "wb");
        CHECK(f != NULL && fwrite(uid, sizeof(*uid), 1, f) == 1 && fclose(f) == 0, "write id");
        CHECK(rename(tmp, path) == 0, "rename id");
        return;
    }
    for (int i = 0; i < 6000; i++) {
        FILE *f = fopen(path, "rb");
        if (f != NULL) {
            size_t got = fread(uid, sizeof(*uid), 1, f);
            fclose(f);
            if (got == 1)
                return;
        }
        usleep(5000);
    }
    CHECK(0, "no unique id");
}

int main(int argc, char **argv)
{
    const char *r = getenv("SYMM_RANK"), *s = getenv("SYMM_SIZE");
    int rank = r ? atoi(r) : 0, size = s ? atoi(s) : 1;
    CHECK(argc == 2, "usage: acl_both UID_FILE");

#ifdef __cplusplus
    aclshmemx_init_attr_t attr; /* CANN's defaults, as C++ code expects them */
    CHECK(attr.option_attr.shm_init_timeout == DEFAULT_TIMEOUT && attr.instance_id == 0 &&
              attr.comm_args == nullptr && attr.ip_port[0] == '\0' &&
              attr.option_attr.data_op_engine_type == ACLSHMEM_DATA_OP_MTE,
          "C++ default member values");
    aclshmemx_uniqueid_t uid = ACLSHMEM_UNIQUEID_INITIALIZER;
#else
    aclshmemx_init_attr_t attr = ACLSHMEMX_INIT_ATTR_INITIALIZER;
    aclshmemx_uniqueid_t uid = ACLSHMEM_UNIQUEID_INITIALIZER;
#endif
    share_uid(&uid, rank, argv[1]);
    /* CANN's shmem_* names that do not collide with OpenSHMEM's. */
    CHECK(shmem_set_attr_uniqueid_args(rank, size, 8 << 20, &uid, &attr) == ACLSHMEM_SUCCESS,
          "set_attr");
    CHECK(shmem_init_attr(ACLSHMEMX_INIT_WITH_UNIQUEID, &attr) == ACLSHMEM_SUCCESS, "init_attr");
    if (rank == 0)
        unlink(argv[1]);
    CHECK(shmem_init_status() == ACLSHMEM_STATUS_IS_INITIALIZED, "shmem_init_status");

    /* OpenSHMEM on the aclshmem instance. */
    int initialized = 0;
    shmem_query_initialized(&initialized);
    CHECK(initialized, "shmem_query_initialized");
    int me = shmem_my_pe(), n = shmem_n_pes(), right = (me + 1) % n, left = (me + n - 1) % n;
    CHECK(me == aclshmem_my_pe() && me == rank && n == aclshmem_n_pes(), "PE numbers");
    CHECK(shmem_team_n_pes(SHMEM_TEAM_WORLD) == n, "SHMEM_TEAM_WORLD");
    int *x = (int *)shmem_malloc(4 * sizeof(int));
    int32_t *y = (int32_t *)aclshmem_calloc(4, sizeof(int32_t));
    shmem_int_p(x, 10 + me, right);
    int32_t v = 20 + me;
    shmem_put_int32_mem(y, &v, 1, right); /* CANN's alias of aclshmem_int32_put */
    aclshmem_barrier_all();
    CHECK(x[0] == 10 + left, "shmem_int_p into shmem_malloc memory");
    CHECK(y[0] == 20 + left, "shmem_put_int32_mem into aclshmem_calloc memory");
    shmem_putmem(&y[1], &v, sizeof(v), right); /* OpenSHMEM's shmem_putmem */
    shmem_barrier_all();
    CHECK(y[1] == 20 + left, "shmem_putmem into aclshmem memory");
    CHECK(shmem_ptr(y, right) == aclshmem_ptr(y, right), "shmem_ptr and aclshmem_ptr agree");
    CHECK(shmemx_heap_size() > 0, "shmemx_heap_size");

    /* An aclshmem team handle as an OpenSHMEM team: queries and a reduction
     * on it agree with the handle's; invalid handles give SHMEM_TEAM_INVALID. */
    CHECK(shmemx_team_from_aclshmem(ACLSHMEM_TEAM_WORLD) == SHMEM_TEAM_WORLD,
          "ACLSHMEM_TEAM_WORLD is SHMEM_TEAM_WORLD");
    CHECK(shmemx_team_from_aclshmem(ACLSHMEM_TEAM_INVALID) == SHMEM_TEAM_INVALID &&
              shmemx_team_from_aclshmem(4321) == SHMEM_TEAM_INVALID,
          "invalid handles");
    aclshmem_team_t odd = ACLSHMEM_TEAM_INVALID;
    CHECK(n < 2 || aclshmem_team_split_strided(ACLSHMEM_TEAM_WORLD, 1, 2, n / 2, &odd) ==
                       ACLSHMEM_SUCCESS, "split_strided");
    shmem_team_t todd = shmemx_team_from_aclshmem(odd);
    int *red = (int *)shmem_malloc(2 * sizeof(int));
    if (me % 2 == 1) {
        CHECK(todd != SHMEM_TEAM_INVALID, "the odd team as an OpenSHMEM team");
        CHECK(shmem_team_my_pe(todd) == aclshmem_team_my_pe(odd) &&
                  shmem_team_n_pes(todd) == n / 2 && shmem_team_my_pe(todd) == me / 2,
              "shmem_team_my_pe/n_pes of the converted team");
        red[0] = me;
        CHECK(shmem_int_sum_reduce(todd, &red[1], &red[0], 1) == 0, "sum_reduce on it");
        CHECK(red[1] == (n / 2) * (n / 2), "sum of the odd PEs"); /* 1 + 3 + ... */
        aclshmem_team_destroy(odd);
        CHECK(shmemx_team_from_aclshmem(odd) == SHMEM_TEAM_INVALID, "a destroyed handle");
    } else {
        CHECK(todd == SHMEM_TEAM_INVALID, "not a member");
    }
    shmem_free(red);
    shmem_free(x);
    aclshmem_free(y);

#ifdef __cplusplus
    CHECK(aclshmem_finalize() == ACLSHMEM_SUCCESS, "finalize");
#else
    /* What a CANN program's shmem_finalize() does here: OpenSHMEM's
     * shmem_finalize ends the current instance; aclshmem notices. */
    shmem_finalize();
    CHECK(aclshmemx_instance_ctx_get() == NULL, "an instance after shmem_finalize");
    CHECK(aclshmem_finalize() == ACLSHMEM_SUCCESS, "aclshmem_finalize after shmem_finalize");
#endif
    CHECK(aclshmemx_init_status() == ACLSHMEM_STATUS_NOT_INITIALIZED, "init status");
    shmem_query_initialized(&initialized);
    CHECK(!initialized, "still initialized after aclshmem_finalize");
    if (me == 0)
        printf("%s: both APIs on one instance of %d PEs: ok\n",
#ifdef __cplusplus
               "C++",
#else
               "C",
#endif
               n);
    return 0;
}
