/*
 * f_consts_c.c - the C side of f_consts.f90: the names and shmem.h values
 * of the constants, in the order the Fortran program passes them; the
 * pSync sizes as the number of 4-byte INTEGERs that hold that many longs.
 */
#include <shmem.h>
#include <stdio.h>
#include <string.h>

#define FINTS(longs) (((longs) * (int)sizeof(long) + 3) / 4)

static const struct {
    const char *name;
    long value;
} symm_fconsts[] = {
    {"SHMEM_MAJOR_VERSION", SHMEM_MAJOR_VERSION},
    {"SHMEM_MINOR_VERSION", SHMEM_MINOR_VERSION},
    {"SHMEM_MAX_NAME_LEN", SHMEM_MAX_NAME_LEN},
    {"SHMEM_THREAD_SINGLE", SHMEM_THREAD_SINGLE},
    {"SHMEM_THREAD_FUNNELED", SHMEM_THREAD_FUNNELED},
    {"SHMEM_THREAD_SERIALIZED", SHMEM_THREAD_SERIALIZED},
    {"SHMEM_THREAD_MULTIPLE", SHMEM_THREAD_MULTIPLE},
    {"SHMEM_CMP_EQ", SHMEM_CMP_EQ},
    {"SHMEM_CMP_NE", SHMEM_CMP_NE},
    {"SHMEM_CMP_GT", SHMEM_CMP_GT},
    {"SHMEM_CMP_LE", SHMEM_CMP_LE},
    {"SHMEM_CMP_LT", SHMEM_CMP_LT},
    {"SHMEM_CMP_GE", SHMEM_CMP_GE},
    {"SHMEM_SYNC_VALUE", SHMEM_SYNC_VALUE},
    {"SHMEM_REDUCE_MIN_WRKDATA_SIZE", SHMEM_REDUCE_MIN_WRKDATA_SIZE},
    {"SHMEM_BARRIER_SYNC_SIZE", FINTS(SHMEM_BARRIER_SYNC_SIZE)},
    {"SHMEM_BCAST_SYNC_SIZE", FINTS(SHMEM_BCAST_SYNC_SIZE)},
    {"SHMEM_REDUCE_SYNC_SIZE", FINTS(SHMEM_REDUCE_SYNC_SIZE)},
    {"SHMEM_COLLECT_SYNC_SIZE", FINTS(SHMEM_COLLECT_SYNC_SIZE)},
    {"SHMEM_ALLTOALL_SYNC_SIZE", FINTS(SHMEM_ALLTOALL_SYNC_SIZE)},
    {"SHMEM_ALLTOALLS_SYNC_SIZE", FINTS(SHMEM_ALLTOALLS_SYNC_SIZE)},
    {"SHMEM_SYNC_SIZE", FINTS(SHMEM_SYNC_SIZE)},
};

void symm_fconsts_check_(const int *vals, const int *n, int *nbad);
void symm_fconsts_vendor_(const char *s, int *nbad, size_t len);

void symm_fconsts_check_(const int *vals, const int *n, int *nbad)
{
    int count = (int)(sizeof(symm_fconsts) / sizeof(symm_fconsts[0]));
    if (*n != count) {
        printf("FAIL: the Fortran side passes %d constants, the C side has %d\n", *n, count);
        ++*nbad;
        fflush(stdout);
        return;
    }
    for (int i = 0; i < count; i++) {
        if (vals[i] != symm_fconsts[i].value) {
            printf("FAIL: %s is %d in shmem.fh, %ld from shmem.h\n", symm_fconsts[i].name, vals[i],
                   symm_fconsts[i].value);
            ++*nbad;
        }
    }
}

/* SHMEM_VENDOR_STRING: a CHARACTER of SHMEM_MAX_NAME_LEN, blank-padded. */
void symm_fconsts_vendor_(const char *s, int *nbad, size_t len)
{
    size_t n = strlen(SHMEM_VENDOR_STRING);
    int ok = len == SHMEM_MAX_NAME_LEN && memcmp(s, SHMEM_VENDOR_STRING, n) == 0;
    for (size_t i = n; ok && i < len; i++)
        ok = s[i] == ' ';
    if (!ok) {
        printf("FAIL: SHMEM_VENDOR_STRING is '%.*s' (length %zu) in shmem.fh, '%s' in shmem.h\n",
               (int)len, s, len, SHMEM_VENDOR_STRING);
        ++*nbad;
        fflush(stdout);
    }
}
