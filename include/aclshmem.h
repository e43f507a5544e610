/*
 * aclshmem.h - the host API of the Ascend CANN shmem library (aclshmem_*),
 * on symm's OpenSHMEM core.
 *
 * Code written for CANN's shmem ports by recompiling against this header:
 * the names, signatures, types, constants and values are CANN's (its
 * include/host/ headers and host_device/shmem_common_types.h). Every routine
 * is a thin wrapper over an OpenSHMEM entry point or a core routine of symm;
 * nothing is implemented twice. Usable from C (C99 and later) and C++; in C++
 * the structures carry CANN's default member values and the aclshmemx_*
 * allocation routines CANN's default arguments. A file may include this
 * header alone, or together with shmem.h (in either order).
 *
 * Where symm differs from CANN (all host memory, no NPU):
 *  - aclshmem_mem_type_t is accepted and ignored: HOST_SIDE and DEVICE_SIDE
 *    name the same symmetric heap.
 *  - aclshmem_team_t is an int handle, 0 the world team of the current
 *    instance, as in CANN; teams work in every instance (CANN: instance 0).
 *  - Signals of the put-with-signal routines are 32-bit words
 *    (ACLSHMEM_SIGNAL_SIZE is CANN's 8: room allocated per signal).
 *  - ACLSHMEM_CMP_* are CANN's values (GE 3, LE 5), not OpenSHMEM's
 *    (SHMEM_CMP_GE 5, SHMEM_CMP_LE 3); aclshmem routines take CANN's.
 *
 * Initialisation (aclshmemx_init_attr):
 *  - ACLSHMEMX_INIT_WITH_DEFAULT: attr->ip_port is "tcp://host:port" or
 *    "tcp6://[addr]:port"; PE 0 serves the rendezvous there, the others
 *    connect. No launcher is needed: N processes started any way form a job.
 *    Port 0 takes the port from SHMEM_INSTANCE_PORT_RANGE=start:end
 *    (start + instance_id), as CANN. The job secret is derived from the
 *    address string: DEFAULT mode is only as private as the address is (any
 *    process that knows it may join); use the unique-id mode where that
 *    matters. With an empty ip_port and attr->comm_args set, the unique id
 *    there is used (CANN's order: ip_port, then uid).
 *  - ACLSHMEMX_INIT_WITH_UNIQUEID: PE 0 calls aclshmemx_get_uniqueid (address
 *    from SHMEM_UID_SESSION_ID=ip:port, else the IPv4 address of interface
 *    SHMEM_UID_SOCK_IFNAME, else the first non-loopback IPv4 address, else
 *    127.0.0.1; a free port; a 128-bit random secret), ships the id to the
 *    other PEs by any means; every PE then calls
 *    aclshmemx_set_attr_uniqueid_args and aclshmemx_init_attr. A PE holding
 *    a wrong or stale id is refused (bad secret) or times out naming PE 0.
 *  - ACLSHMEMX_INIT_WITH_MPI: attr->comm_args points at an MPI_Comm (NULL:
 *    MPI_COMM_WORLD), initialised by the program; the PE number is the rank
 *    in it. ACLSHMEM_NOT_SUPPORTED in builds without symm's MPI bootstrap.
 *  - attr->instance_id selects the instance: several may live in one
 *    process (each its own job, heap and teams). aclshmemx_init_attr makes
 *    the new one current; aclshmemx_instance_ctx_set switches; every
 *    aclshmem and OpenSHMEM routine acts on the current instance.
 *  - local_mem_size is the initial heap (0: SHMEM_SYMMETRIC_SIZE); the heap
 *    grows on demand up to SYMM_MAX_SYMMETRIC_SIZE.
 *    option_attr.shm_init_timeout (seconds) bounds the rendezvous; 0 means
 *    SYMM_BOOT_TIMEOUT. The other optional attributes are accepted and
 *    ignored (one engine: loads, stores and memcpy on mapped peers).
 */
#ifndef SYMM_ACLSHMEM_H
#define SYMM_ACLSHMEM_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#ifndef __cplusplus
#include <stdbool.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define ACLSHMEM_HOST_API __attribute__((visibility("default")))
#define SYMM_ACL_NORETURN __attribute__((noreturn))
#else
#define ACLSHMEM_HOST_API
#define SYMM_ACL_NORETURN
#endif

/* CANN's default arguments and member values exist only in C++. */
#ifdef __cplusplus
#define SYMM_ACL_DEFAULT(v) = v
#else
#define SYMM_ACL_DEFAULT(v)
#endif

/* ---- versions and limits ------------------------------------------------ */
#define ACLSHMEM_MAJOR_VERSION 1
#define ACLSHMEM_MINOR_VERSION 1
#define ACLSHMEM_MAX_NAME_LEN 256
#define ACLSHMEM_VENDOR_MAJOR_VER 1
#define ACLSHMEM_VENDOR_MINOR_VER 1
#define ACLSHMEM_VENDOR_PATCH_VER 1
#define ACLSHMEM_MAX_IP_PORT_LEN 64
#define ACLSHMEM_UNIQUE_ID_INNER_LEN 124
#define ACLSHMEM_MAX_PES 16384
#define ACLSHMEM_MAX_TEAMS 2048
#define ACLSHMEM_SIGNAL_SIZE 8
#define ACLSHMEM_MAX_LOCAL_SIZE (40UL * 1024 * 1024 * 1024)
#define TEAM_CONFIG_PADDING 48
/* Seconds; CANN's constexpr DEFAULT_TIMEOUT. */
#define ACLSHMEM_DEFAULT_TIMEOUT 120
#ifdef __cplusplus
constexpr int DEFAULT_TIMEOUT = ACLSHMEM_DEFAULT_TIMEOUT;
#else
enum { DEFAULT_TIMEOUT = ACLSHMEM_DEFAULT_TIMEOUT };
#endif

/* ---- enumerations (CANN's names and values) ----------------------------- */
typedef enum aclshmem_error_code_t {
    ACLSHMEM_SUCCESS = 0,
    ACLSHMEM_INVALID_PARAM = -1,
    ACLSHMEM_INVALID_VALUE = -2,
    ACLSHMEM_SMEM_ERROR = -3,
    ACLSHMEM_INNER_ERROR = -4,
    ACLSHMEM_NOT_INITED = -5,
    ACLSHMEM_BOOTSTRAP_ERROR = -6,
    ACLSHMEM_TIMEOUT_ERROR = -7,
    ACLSHMEM_MALLOC_FAILED = -8,
    ACLSHMEM_DL_FUNC_FAILED = -9,
    ACLSHMEM_INNER_TIMEOUT = -10,
    ACLSHMEM_UNDER_API_UNLOAD = -11,
    ACLSHMEM_NOT_SUPPORTED = -100
} aclshmem_error_code_t;

typedef enum aclshmemx_bootstrap_t {
    ACLSHMEMX_INIT_WITH_DEFAULT = 1 << 0,
    ACLSHMEMX_INIT_WITH_MPI = 1 << 1,
    ACLSHMEMX_INIT_WITH_UNIQUEID = 1 << 3,
    ACLSHMEMX_INIT_MAX = INT_MIN /* CANN: 1 << 31 */
} aclshmemx_bootstrap_t;

typedef enum aclshmemx_init_status_t {
    ACLSHMEM_STATUS_NOT_INITIALIZED = 0,
    ACLSHMEM_STATUS_SHM_CREATED,
    ACLSHMEM_STATUS_IS_INITIALIZED,
    ACLSHMEM_STATUS_INVALID = INT_MAX
} aclshmemx_init_status_t;

typedef enum aclshmem_transport_t {
    ACLSHMEM_TRANSPORT_MTE = 1 << 0,
    ACLSHMEM_TRANSPORT_ROCE = 1 << 1,
    ACLSHMEM_TRANSPORT_SDMA = 1 << 2,
    ACLSHMEM_TRANSPORT_UDMA = 1 << 3
} aclshmem_transport_t;

typedef enum data_op_engine_type_t {
    ACLSHMEM_DATA_OP_MTE = 0x01,
    ACLSHMEM_DATA_OP_SDMA = 0x02,
    ACLSHMEM_DATA_OP_ROCE = 0x04,
    ACLSHMEM_DATA_OP_UDMA = 0x08,
    ACLSHMEM_DATA_OP_MAX = 0x08
} data_op_engine_type_t;

/* Accepted and ignored: every symmetric allocation is host memory here. */
typedef enum aclshmem_mem_type_t { HOST_SIDE = 0, DEVICE_SIDE } aclshmem_mem_type_t;

#include "aclshmem_types.h"
/* In C the enum tags become type names too, as in C++. */
typedef enum aclshmem_team_index_t aclshmem_team_index_t;
typedef enum aclshmem_signal_op_type_t aclshmem_signal_op_type_t;
typedef enum aclshmem_cmp_op_type_t aclshmem_cmp_op_type_t;

/* ---- structures --------------------------------------------------------- */
typedef uint64_t aclshmemx_team_uniqueid_t;

typedef struct {
    int32_t version;
    int32_t num_contexts;
    aclshmemx_team_uniqueid_t uniqueid;
    char padding[TEAM_CONFIG_PADDING];
} aclshmem_team_config_t;

/* Timeouts in seconds; 0 (or a zeroed structure from C) means the default. */
typedef struct {
    int version;
    data_op_engine_type_t data_op_engine_type;
    uint32_t shm_init_timeout;
    uint32_t shm_create_timeout;
    uint32_t control_operation_timeout;
    int32_t sockFd;
} aclshmem_init_optional_attr_t;

#define ACLSHMEM_OPTIONAL_ATTR_VERSION ((1 << 16) + (int)sizeof(aclshmem_init_optional_attr_t))

typedef struct aclshmemx_init_attr_t {
    int my_pe;
    int n_pes;
    char ip_port[ACLSHMEM_MAX_IP_PORT_LEN] SYMM_ACL_DEFAULT({});
    uint64_t local_mem_size;
    aclshmem_init_optional_attr_t option_attr SYMM_ACL_DEFAULT(
        (aclshmem_init_optional_attr_t{ACLSHMEM_OPTIONAL_ATTR_VERSION, ACLSHMEM_DATA_OP_MTE,
                                       DEFAULT_TIMEOUT, DEFAULT_TIMEOUT, DEFAULT_TIMEOUT, 0}));
    void *comm_args SYMM_ACL_DEFAULT(nullptr);
    uint64_t instance_id SYMM_ACL_DEFAULT(0);
} aclshmemx_init_attr_t;

/* C: a zeroed attribute block with CANN's optional defaults, e.g.
 *   aclshmemx_init_attr_t attr = ACLSHMEMX_INIT_ATTR_INITIALIZER; */
#ifndef __cplusplus
#define ACLSHMEMX_INIT_ATTR_INITIALIZER                                                     \
    {0, 0, {0}, 0,                                                                          \
     {ACLSHMEM_OPTIONAL_ATTR_VERSION, ACLSHMEM_DATA_OP_MTE, DEFAULT_TIMEOUT, DEFAULT_TIMEOUT, \
      DEFAULT_TIMEOUT, 0},                                                                  \
     NULL, 0}
#endif

typedef struct {
    int32_t version;
    int my_pe;
    int n_pes;
    char internal[ACLSHMEM_UNIQUE_ID_INNER_LEN];
} aclshmemx_uniqueid_t;

#define ACLSHMEM_UNIQUEID_VERSION ((int32_t)((1 << 16) + sizeof(aclshmemx_uniqueid_t)))
#define ACLSHMEM_UNIQUEID_INITIALIZER {ACLSHMEM_UNIQUEID_VERSION, 0, 0, {0}}

/* The current instance: id, and a reserved pointer. */
typedef struct {
    uint64_t id;
    void *instance;
} aclshmem_instance_ctx;

/* ---- type tables ---------------------------------------------------------
 * CANN's forms (each entry followed by ';'), for code that uses them, and
 * the same lists as plain X-macros (symm's, used below and in src/api). */
#define ACLSHMEM_TYPE_FUNC(FUNC)                                                               \
    FUNC(float, float);                                                                        \
    FUNC(double, double);                                                                      \
    FUNC(int8, int8_t);                                                                        \
    FUNC(int16, int16_t);                                                                      \
    FUNC(int32, int32_t);                                                                      \
    FUNC(int64, int64_t);                                                                      \
    FUNC(uint8, uint8_t);                                                                      \
    FUNC(uint16, uint16_t);                                                                    \
    FUNC(uint32, uint32_t);                                                                    \
    FUNC(uint64, uint64_t);                                                                    \
    FUNC(char, char)
#define ACLSHMEM_P2P_SYNC_TYPE_FUNC(FUNC)                                                      \
    FUNC(float, float);                                                                        \
    FUNC(int8, int8_t);                                                                        \
    FUNC(int16, int16_t);                                                                      \
    FUNC(int32, int32_t);                                                                      \
    FUNC(int64, int64_t);                                                                      \
    FUNC(uint8, uint8_t);                                                                      \
    FUNC(uint16, uint16_t);                                                                    \
    FUNC(uint32, uint32_t);                                                                    \
    FUNC(uint64, uint64_t);                                                                    \
    FUNC(char, char)
#define ACLSHMEM_SIZE_FUNC(FUNC)                                                               \
    FUNC(8);                                                                                   \
    FUNC(16);                                                                                  \
    FUNC(32);                                                                                  \
    FUNC(64);                                                                                  \
    FUNC(128)

#define SYMM_ACL_RMA_TYPES(X)                                                                  \
    X(float, float) X(double, double) X(int8, int8_t) X(int16, int16_t) X(int32, int32_t)      \
    X(int64, int64_t) X(uint8, uint8_t) X(uint16, uint16_t) X(uint32, uint32_t)                \
    X(uint64, uint64_t) X(char, char)
#define SYMM_ACL_P2P_TYPES(X)                                                                  \
    X(float, float) X(int8, int8_t) X(int16, int16_t) X(int32, int32_t) X(int64, int64_t)      \
    X(uint8, uint8_t) X(uint16, uint16_t) X(uint32, uint32_t) X(uint64, uint64_t) X(char, char)
#define SYMM_ACL_SIZES(X) X(8) X(16) X(32) X(64) X(128)
/* The reductions' types: OpenSHMEM's AND/OR/XOR types among CANN's, and
 * those with MAX/MIN/SUM/PROD. */
#define SYMM_ACL_REDUCE_BIT_TYPES(X)                                                           \
    X(int8, int8_t) X(int16, int16_t) X(int32, int32_t) X(int64, int64_t) X(uint8, uint8_t)    \
    X(uint16, uint16_t) X(uint32, uint32_t) X(uint64, uint64_t)
#define SYMM_ACL_REDUCE_TYPES(X)                                                               \
    SYMM_ACL_REDUCE_BIT_TYPES(X) X(float, float) X(double, double) X(char, char)

/* ---- setup, instances, queries ----------------------------------------- */
ACLSHMEM_HOST_API int aclshmemx_init_status(void);
ACLSHMEM_HOST_API int aclshmemx_get_uniqueid(aclshmemx_uniqueid_t *uid);
ACLSHMEM_HOST_API int aclshmemx_set_attr_uniqueid_args(int my_pe, int n_pes,
                                                       int64_t local_mem_size,
                                                       aclshmemx_uniqueid_t *uid,
                                                       aclshmemx_init_attr_t *aclshmem_attr);
ACLSHMEM_HOST_API int aclshmemx_init_attr(aclshmemx_bootstrap_t bootstrap_flags,
                                          aclshmemx_init_attr_t *attributes);
/* Finalize the current instance; a non-zero one falls back to instance 0. */
ACLSHMEM_HOST_API int aclshmem_finalize(void);
ACLSHMEM_HOST_API int aclshmemx_finalize(uint64_t instance_id);
ACLSHMEM_HOST_API aclshmem_instance_ctx *aclshmemx_instance_ctx_get(void);
ACLSHMEM_HOST_API int aclshmemx_instance_ctx_set(uint64_t instance_id);
ACLSHMEM_HOST_API void aclshmem_info_get_version(int *major, int *minor);
ACLSHMEM_HOST_API void aclshmem_info_get_name(char *name);
ACLSHMEM_HOST_API void aclshmem_global_exit(int status) SYMM_ACL_NORETURN;
ACLSHMEM_HOST_API int aclshmem_my_pe(void);
ACLSHMEM_HOST_API int aclshmem_n_pes(void);
/* 0 debug, 1 info, 2 warn, 3 error (CANN's levels). */
ACLSHMEM_HOST_API int32_t aclshmemx_set_log_level(int level);
/* func receives the messages of the aclshmem layer (level as above, one
 * line without the newline); NULL restores stderr. */
ACLSHMEM_HOST_API int32_t aclshmemx_set_extern_logger(void (*func)(int level, const char *msg));

/* ---- symmetric heap ----------------------------------------------------- */
ACLSHMEM_HOST_API void *aclshmem_malloc(size_t size);
ACLSHMEM_HOST_API void *aclshmem_calloc(size_t nmemb, size_t size);
ACLSHMEM_HOST_API void *aclshmem_align(size_t alignment, size_t size);
ACLSHMEM_HOST_API void aclshmem_free(void *ptr);
ACLSHMEM_HOST_API void *aclshmemx_malloc(size_t size,
                                         aclshmem_mem_type_t mem_type SYMM_ACL_DEFAULT(DEVICE_SIDE));
ACLSHMEM_HOST_API void *aclshmemx_calloc(size_t count, size_t size,
                                         aclshmem_mem_type_t mem_type SYMM_ACL_DEFAULT(DEVICE_SIDE));
ACLSHMEM_HOST_API void *aclshmemx_align(size_t alignment, size_t size,
                                        aclshmem_mem_type_t mem_type SYMM_ACL_DEFAULT(DEVICE_SIDE));
ACLSHMEM_HOST_API void aclshmemx_free(void *ptr,
                                      aclshmem_mem_type_t mem_type SYMM_ACL_DEFAULT(DEVICE_SIDE));
ACLSHMEM_HOST_API void *aclshmemx_get_heap_base(
    aclshmem_mem_type_t mem_type SYMM_ACL_DEFAULT(DEVICE_SIDE));
/* The address of ptr's copy on pe if it is reachable with loads and
 * stores, else NULL. */
ACLSHMEM_HOST_API void *aclshmem_ptr(void *ptr, int pe);

/* ---- RMA ---------------------------------------------------------------- */
#define SYMM_ACL_DECL_RMA(NAME, TYPE)                                                          \
    ACLSHMEM_HOST_API void aclshmem_##NAME##_put(TYPE *dest, TYPE *source, size_t nelems, int pe); \
    ACLSHMEM_HOST_API void aclshmem_##NAME##_put_nbi(TYPE *dest, TYPE *source, size_t nelems,   \
                                                     int pe);                                  \
    ACLSHMEM_HOST_API void aclshmem_##NAME##_get(TYPE *dest, TYPE *source, size_t nelems, int pe); \
    ACLSHMEM_HOST_API void aclshmem_##NAME##_get_nbi(TYPE *dest, TYPE *source, size_t nelems,   \
                                                     int pe);                                  \
    ACLSHMEM_HOST_API void aclshmem_##NAME##_iput(TYPE *dest, TYPE *source, ptrdiff_t dst,     \
                                                  ptrdiff_t sst, size_t nelems, int pe);       \
    ACLSHMEM_HOST_API void aclshmem_##NAME##_iget(TYPE *dest, TYPE *source, ptrdiff_t dst,     \
                                                  ptrdiff_t sst, size_t nelems, int pe);       \
    ACLSHMEM_HOST_API void aclshmem_##NAME##_p(TYPE *dst, const TYPE value, int pe);           \
    ACLSHMEM_HOST_API TYPE aclshmem_##NAME##_g(TYPE *src, int32_t pe);                          \
    ACLSHMEM_HOST_API void aclshmem_##NAME##_put_signal(TYPE *dst, TYPE *src, size_t elem_size, \
                                                        uint8_t *sig_addr, int32_t signal,     \
                                                        int sig_op, int pe);                   \
    ACLSHMEM_HOST_API void aclshmem_##NAME##_put_signal_nbi(TYPE *dst, TYPE *src,              \
                                                            size_t elem_size, uint8_t *sig_addr, \
                                                            int32_t signal, int sig_op, int pe);
SYMM_ACL_RMA_TYPES(SYMM_ACL_DECL_RMA)
#undef SYMM_ACL_DECL_RMA

#define SYMM_ACL_DECL_SIZED(BITS)                                                              \
    ACLSHMEM_HOST_API void aclshmem_put##BITS(void *dst, void *src, uint32_t elem_size,         \
                                              int32_t pe);                                     \
    ACLSHMEM_HOST_API void aclshmem_put##BITS##_nbi(void *dst, void *src, uint32_t elem_size,   \
                                                    int32_t pe);                               \
    ACLSHMEM_HOST_API void aclshmem_get##BITS(void *dst, void *src, uint32_t elem_size,         \
                                              int32_t pe);                                     \
    ACLSHMEM_HOST_API void aclshmem_get##BITS##_nbi(void *dst, void *src, uint32_t elem_size,   \
                                                    int32_t pe);                               \
    ACLSHMEM_HOST_API void aclshmem_iput##BITS(void *dest, void *source, ptrdiff_t dst,         \
                                               ptrdiff_t sst, size_t nelems, int pe);          \
    ACLSHMEM_HOST_API void aclshmem_iget##BITS(void *dest, void *source, ptrdiff_t dst,         \
                                               ptrdiff_t sst, size_t nelems, int pe);          \
    ACLSHMEM_HOST_API void aclshmem_put##BITS##_signal(void *dst, void *src, size_t nelems,     \
                                                       int32_t *sig_addr, int32_t signal,      \
                                                       int sig_op, int pe);                    \
    ACLSHMEM_HOST_API void aclshmem_put##BITS##_signal_nbi(void *dst, void *src, size_t nelems, \
                                                           int32_t *sig_addr, int32_t signal,  \
                                                           int sig_op, int pe);
SYMM_ACL_SIZES(SYMM_ACL_DECL_SIZED)
#undef SYMM_ACL_DECL_SIZED

ACLSHMEM_HOST_API void aclshmem_putmem(void *dst, void *src, size_t elem_size, int32_t pe);
ACLSHMEM_HOST_API void aclshmem_getmem(void *dst, void *src, size_t elem_size, int32_t pe);
ACLSHMEM_HOST_API void aclshmem_putmem_nbi(void *dst, void *src, size_t elem_size, int32_t pe);
ACLSHMEM_HOST_API void aclshmem_getmem_nbi(void *dst, void *src, size_t elem_size, int32_t pe);
/* Put elem_size bytes, then set or add to the 32-bit signal word sig_addr
 * on pe: a PE that sees the signal sees the data. */
ACLSHMEM_HOST_API void aclshmemx_putmem_signal(void *dst, void *src, size_t elem_size,
                                               void *sig_addr, int32_t signal, int sig_op, int pe);
ACLSHMEM_HOST_API void aclshmemx_putmem_signal_nbi(void *dst, void *src, size_t elem_size,
                                                   void *sig_addr, int32_t signal, int sig_op,
                                                   int pe);
/* Set (ACLSHMEM_SIGNAL_SET) or add to (ACLSHMEM_SIGNAL_ADD) the 32-bit signal
 * word sig_addr on pe, atomically, with release order: CANN's device
 * routine (device/gm2gm/aclshmem_device_p2p_sync.h) on the host, where it
 * is atomic (CANN's device one is not guaranteed to be). */
ACLSHMEM_HOST_API void aclshmemx_signal_op(int32_t *sig_addr, int32_t signal, int sig_op, int pe);

/* ---- ordering (CANN's device routines, device/gm2gm/aclshmem_device_mo.h,
 * on the host) ----------------------------------------------------------
 * quiet: every put, get, atomic and signal this PE issued (default context)
 * is complete. fence: they are delivered to each PE in order; CANN's device
 * fence is a quiet, symm's an ordering (what both promise). */
ACLSHMEM_HOST_API void aclshmem_quiet(void);
ACLSHMEM_HOST_API void aclshmem_fence(void);

/* ---- point-to-point synchronization (cmp: ACLSHMEM_CMP_*) --------------- */
ACLSHMEM_HOST_API void aclshmem_signal_wait_until(int32_t *sig_addr, int cmp, int32_t cmp_val);

#define SYMM_ACL_DECL_P2P(NAME, TYPE)                                                          \
    ACLSHMEM_HOST_API void aclshmem_##NAME##_wait_until(TYPE *ivar, int cmp, TYPE cmp_value);   \
    ACLSHMEM_HOST_API void aclshmem_##NAME##_wait(TYPE *ivar, TYPE cmp_value);                  \
    ACLSHMEM_HOST_API void aclshmem_##NAME##_wait_until_all(TYPE *ivars, size_t nelems,         \
                                                            const int *status, int cmp,        \
                                                            TYPE cmp_value);                   \
    ACLSHMEM_HOST_API void aclshmem_##NAME##_wait_until_any(TYPE *ivars, size_t nelems,         \
                                                            const int *status, int cmp,        \
                                                            TYPE cmp_value, size_t *res_out);  \
    ACLSHMEM_HOST_API void aclshmem_##NAME##_wait_until_some(                                  \
        TYPE *ivars, size_t nelems, size_t *indices, const int *status, int cmp,               \
        TYPE cmp_value, size_t *res_out);                                                      \
    ACLSHMEM_HOST_API void aclshmem_##NAME##_wait_until_all_vector(                            \
        TYPE *ivars, size_t nelems, const int *status, int cmp, TYPE *cmp_values);             \
    ACLSHMEM_HOST_API void aclshmem_##NAME##_wait_until_any_vector(                            \
        TYPE *ivars, size_t nelems, const int *status, int cmp, TYPE *cmp_values,              \
        size_t *res_out);                                                                      \
    ACLSHMEM_HOST_API void aclshmem_##NAME##_wait_until_some_vector(                           \
        TYPE *ivars, size_t nelems, size_t *indices, const int *status, int cmp,               \
        TYPE *cmp_values, size_t *res_out);                                                    \
    ACLSHMEM_HOST_API void aclshmem_##NAME##_test(TYPE *ivars, int cmp, TYPE cmp_value,         \
                                                  int *res_out);                               \
    ACLSHMEM_HOST_API void aclshmem_##NAME##_test_any(TYPE *ivars, size_t nelems,               \
                                                      const int *status, int cmp,              \
                                                      TYPE cmp_value, size_t *res_out);        \
    ACLSHMEM_HOST_API void aclshmem_##NAME##_test_some(TYPE *ivars, size_t nelems,              \
                                                       size_t *indices, const int *status,     \
                                                       int cmp, TYPE cmp_value,                \
                                                       size_t *res_out);                       \
    ACLSHMEM_HOST_API void aclshmem_##NAME##_test_all_vector(TYPE *ivars, size_t nelems,        \
                                                             const int *status, int cmp,       \
                                                             TYPE *cmp_values, int *res_out);  \
    ACLSHMEM_HOST_API void aclshmem_##NAME##_test_any_vector(TYPE *ivars, size_t nelems,        \
                                                             const int *status, int cmp,       \
                                                             TYPE *cmp_values,                 \
                                                             size_t *res_out);                 \
    ACLSHMEM_HOST_API void aclshmem_##NAME##_test_some_vector(                                 \
        TYPE *ivars, size_t nelems, size_t *indices, const int *status, int cmp,               \
        TYPE *cmp_values, size_t *res_out);
SYMM_ACL_P2P_TYPES(SYMM_ACL_DECL_P2P)
#undef SYMM_ACL_DECL_P2P

/* ---- teams, barriers ---------------------------------------------------- */
ACLSHMEM_HOST_API int aclshmem_team_split_strided(aclshmem_team_t parent_team, int pe_start,
                                                  int pe_stride, int pe_size,
                                                  aclshmem_team_t *new_team);
ACLSHMEM_HOST_API int aclshmem_team_split_2d(aclshmem_team_t parent_team, int x_range,
                                             aclshmem_team_t *x_team, aclshmem_team_t *y_team);
ACLSHMEM_HOST_API int aclshmem_team_translate_pe(aclshmem_team_t src_team, int src_pe,
                                                 aclshmem_team_t dest_team);
ACLSHMEM_HOST_API void aclshmem_team_destroy(aclshmem_team_t team);
ACLSHMEM_HOST_API int aclshmem_team_my_pe(aclshmem_team_t team);
ACLSHMEM_HOST_API int aclshmem_team_n_pes(aclshmem_team_t team);
ACLSHMEM_HOST_API int aclshmem_team_get_config(aclshmem_team_t team,
                                               aclshmem_team_config_t *config);
/* barrier: complete this PE's puts, then meet; sync: only meet. */
ACLSHMEM_HOST_API void aclshmem_barrier(aclshmem_team_t team);
ACLSHMEM_HOST_API void aclshmem_barrier_all(void);
ACLSHMEM_HOST_API void aclshmem_sync(aclshmem_team_t team);
ACLSHMEM_HOST_API void aclshmem_sync_all(void);

/* ---- team collectives ------------------------------------------------------
 * CANN's host API has none (barriers and syncs only); these are
 * OpenSHMEM 1.5's team collectives named as CANN names the rest of its
 * host API (aclshmem_ + the OpenSHMEM name, CANN's type names), on
 * aclshmem_team_t: the same arguments, semantics and return (0, or
 * ACLSHMEM_INVALID_PARAM for a team this PE has no handle of in the
 * current instance, or a bad root). dest and source are symmetric;
 * collect's nelems may differ between PEs, the others' may not.
 * aclshmem_team_all_gather is aclshmem_fcollectmem (nelems bytes from
 * every member, in team order). Blocking, on the host: no stream. */
#define SYMM_ACL_DECL_COLL(NAME, TYPE)                                                         \
    ACLSHMEM_HOST_API int aclshmem_##NAME##_broadcast(aclshmem_team_t team, TYPE *dest,        \
                                                      const TYPE *source, size_t nelems,       \
                                                      int pe_root);                            \
    ACLSHMEM_HOST_API int aclshmem_##NAME##_collect(aclshmem_team_t team, TYPE *dest,          \
                                                    const TYPE *source, size_t nelems);        \
    ACLSHMEM_HOST_API int aclshmem_##NAME##_fcollect(aclshmem_team_t team, TYPE *dest,         \
                                                     const TYPE *source, size_t nelems);       \
    ACLSHMEM_HOST_API int aclshmem_##NAME##_alltoall(aclshmem_team_t team, TYPE *dest,         \
                                                     const TYPE *source, size_t nelems);       \
    ACLSHMEM_HOST_API int aclshmem_##NAME##_alltoalls(aclshmem_team_t team, TYPE *dest,        \
                                                      const TYPE *source, ptrdiff_t dst,       \
                                                      ptrdiff_t sst, size_t nelems);
SYMM_ACL_RMA_TYPES(SYMM_ACL_DECL_COLL)
#undef SYMM_ACL_DECL_COLL
ACLSHMEM_HOST_API int aclshmem_broadcastmem(aclshmem_team_t team, void *dest, const void *source,
                                            size_t nelems, int pe_root);
ACLSHMEM_HOST_API int aclshmem_collectmem(aclshmem_team_t team, void *dest, const void *source,
                                          size_t nelems);
ACLSHMEM_HOST_API int aclshmem_fcollectmem(aclshmem_team_t team, void *dest, const void *source,
                                           size_t nelems);
ACLSHMEM_HOST_API int aclshmem_alltoallmem(aclshmem_team_t team, void *dest, const void *source,
                                           size_t nelems);
ACLSHMEM_HOST_API int aclshmem_alltoallsmem(aclshmem_team_t team, void *dest, const void *source,
                                            ptrdiff_t dst, ptrdiff_t sst, size_t nelems);
ACLSHMEM_HOST_API int aclshmem_team_all_gather(aclshmem_team_t team, void *dest,
                                               const void *source, size_t nelems);
#define SYMM_ACL_DECL_REDUCE(NAME, TYPE, OP)                                                   \
    ACLSHMEM_HOST_API int aclshmem_##NAME##_##OP##_reduce(aclshmem_team_t team, TYPE *dest,    \
                                                          const TYPE *source, size_t nreduce);
#define SYMM_ACL_DECL_REDUCE_BIT(NAME, TYPE)                                                   \
    SYMM_ACL_DECL_REDUCE(NAME, TYPE, and)                                                      \
    SYMM_ACL_DECL_REDUCE(NAME, TYPE, or) SYMM_ACL_DECL_REDUCE(NAME, TYPE, xor)
#define SYMM_ACL_DECL_REDUCE_ARITH(NAME, TYPE)                                                 \
    SYMM_ACL_DECL_REDUCE(NAME, TYPE, max) SYMM_ACL_DECL_REDUCE(NAME, TYPE, min)                \
    SYMM_ACL_DECL_REDUCE(NAME, TYPE, sum) SYMM_ACL_DECL_REDUCE(NAME, TYPE, prod)
SYMM_ACL_REDUCE_BIT_TYPES(SYMM_ACL_DECL_REDUCE_BIT)
SYMM_ACL_REDUCE_TYPES(SYMM_ACL_DECL_REDUCE_ARITH)
#undef SYMM_ACL_DECL_REDUCE_ARITH
#undef SYMM_ACL_DECL_REDUCE_BIT
#undef SYMM_ACL_DECL_REDUCE

/* ---- CANN's shmem_* compatibility names ---------------------------------
 * Only those that do not collide with OpenSHMEM's (shmem_malloc, shmem_ptr,
 * shmem_putmem, shmem_team_*, shmem_my_pe, ... keep their OpenSHMEM meaning;
 * call the aclshmem_ names for CANN's). */
#define shmem_error_code_t aclshmem_error_code_t
#define shmemx_bootstrap_t aclshmemx_bootstrap_t
#define shmem_init_status_t aclshmemx_init_status_t
#define shmem_transport_t aclshmem_transport_t
#define shmem_init_optional_attr_t aclshmem_init_optional_attr_t
#define shmem_init_attr_t aclshmemx_init_attr_t
#define shmem_uniqueid_t aclshmemx_uniqueid_t
#define shmem_init_status aclshmemx_init_status
#define shmem_get_uniqueid aclshmemx_get_uniqueid
#define shmem_set_attr_uniqueid_args aclshmemx_set_attr_uniqueid_args
#define shmem_init_attr aclshmemx_init_attr
#define shmemx_finalize aclshmemx_finalize
#define shmem_set_log_level aclshmemx_set_log_level
#define shmem_set_extern_logger aclshmemx_set_extern_logger
#define shmem_put_float_mem aclshmem_float_put
#define shmem_put_double_mem aclshmem_double_put
#define shmem_put_int8_mem aclshmem_int8_put
#define shmem_put_int16_mem aclshmem_int16_put
#define shmem_put_int32_mem aclshmem_int32_put
#define shmem_put_int64_mem aclshmem_int64_put
#define shmem_put_uint8_mem aclshmem_uint8_put
#define shmem_put_uint16_mem aclshmem_uint16_put
#define shmem_put_uint32_mem aclshmem_uint32_put
#define shmem_put_uint64_mem aclshmem_uint64_put
#define shmem_put_char_mem aclshmem_char_put
#define shmem_put_float_mem_nbi aclshmem_float_put_nbi
#define shmem_put_double_mem_nbi aclshmem_double_put_nbi
#define shmem_put_int8_mem_nbi aclshmem_int8_put_nbi
#define shmem_put_int16_mem_nbi aclshmem_int16_put_nbi
#define shmem_put_int32_mem_nbi aclshmem_int32_put_nbi
#define shmem_put_int64_mem_nbi aclshmem_int64_put_nbi
#define shmem_put_uint8_mem_nbi aclshmem_uint8_put_nbi
#define shmem_put_uint16_mem_nbi aclshmem_uint16_put_nbi
#define shmem_put_uint32_mem_nbi aclshmem_uint32_put_nbi
#define shmem_put_uint64_mem_nbi aclshmem_uint64_put_nbi
#define shmem_put_char_mem_nbi aclshmem_char_put_nbi
#define shmem_get_float_mem aclshmem_float_get
#define shmem_get_double_mem aclshmem_double_get
#define shmem_get_int8_mem aclshmem_int8_get
#define shmem_get_int16_mem aclshmem_int16_get
#define shmem_get_int32_mem aclshmem_int32_get
#define shmem_get_int64_mem aclshmem_int64_get
#define shmem_get_uint8_mem aclshmem_uint8_get
#define shmem_get_uint16_mem aclshmem_uint16_get
#define shmem_get_uint32_mem aclshmem_uint32_get
#define shmem_get_uint64_mem aclshmem_uint64_get
#define shmem_get_char_mem aclshmem_char_get
#define shmem_get_float_mem_nbi aclshmem_float_get_nbi
#define shmem_get_double_mem_nbi aclshmem_double_get_nbi
#define shmem_get_int8_mem_nbi aclshmem_int8_get_nbi
#define shmem_get_int16_mem_nbi aclshmem_int16_get_nbi
#define shmem_get_int32_mem_nbi aclshmem_int32_get_nbi
#define shmem_get_int64_mem_nbi aclshmem_int64_get_nbi
#define shmem_get_uint8_mem_nbi aclshmem_uint8_get_nbi
#define shmem_get_uint16_mem_nbi aclshmem_uint16_get_nbi
#define shmem_get_uint32_mem_nbi aclshmem_uint32_get_nbi
#define shmem_get_uint64_mem_nbi aclshmem_uint64_get_nbi
#define shmem_get_char_mem_nbi aclshmem_char_get_nbi
#define shmem_put_float_mem_signal aclshmem_float_put_signal
#define shmem_put_double_mem_signal aclshmem_double_put_signal
#define shmem_put_int8_mem_signal aclshmem_int8_put_signal
#define shmem_put_int16_mem_signal aclshmem_int16_put_signal
#define shmem_put_int32_mem_signal aclshmem_int32_put_signal
#define shmem_put_int64_mem_signal aclshmem_int64_put_signal
#define shmem_put_uint8_mem_signal aclshmem_uint8_put_signal
#define shmem_put_uint16_mem_signal aclshmem_uint16_put_signal
#define shmem_put_uint32_mem_signal aclshmem_uint32_put_signal
#define shmem_put_uint64_mem_signal aclshmem_uint64_put_signal
#define shmem_put_char_mem_signal aclshmem_char_put_signal
#define shmem_put_float_mem_signal_nbi aclshmem_float_put_signal_nbi
#define shmem_put_double_mem_signal_nbi aclshmem_double_put_signal_nbi
#define shmem_put_int8_mem_signal_nbi aclshmem_int8_put_signal_nbi
#define shmem_put_int16_mem_signal_nbi aclshmem_int16_put_signal_nbi
#define shmem_put_int32_mem_signal_nbi aclshmem_int32_put_signal_nbi
#define shmem_put_int64_mem_signal_nbi aclshmem_int64_put_signal_nbi
#define shmem_put_uint8_mem_signal_nbi aclshmem_uint8_put_signal_nbi
#define shmem_put_uint16_mem_signal_nbi aclshmem_uint16_put_signal_nbi
#define shmem_put_uint32_mem_signal_nbi aclshmem_uint32_put_signal_nbi
#define shmem_put_uint64_mem_signal_nbi aclshmem_uint64_put_signal_nbi
#define shmem_put_char_mem_signal_nbi aclshmem_char_put_signal_nbi

#ifdef __cplusplus
}
#endif

/* The rest of CANN's host surface where symm has it: bootstrap TLS
 * (aclshmemx_set_conf_store_tls, ...) and streams (aclshmemx_*_on_stream). */
#if defined(__has_include)
#if __has_include("symm_tls.h")
#include "symm_tls.h"
#endif
#if __has_include("symm_stream.h")
#include "symm_stream.h"
#endif
#endif

#endif
