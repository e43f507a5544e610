/*
 * aclshmem_init.c - aclshmem setup: the three bootstrap modes, unique ids,
 * instances (create, select, finalize), queries and logging.
 *
 * Owns the table of live aclshmem instances; the unique ids' text, the ports
 * held for them, addresses and secrets are src/boot's (uid.h, addr.h,
 * secret.h). An instance is what symm_instance_create makes from a bootstrap
 * built here (the TCP star in DEFAULT and UNIQUEID modes, symm_boot_mpi_create in
 * MPI mode); making it current is symm_instance_select, so every aclshmem and
 * OpenSHMEM routine acts on it. Nothing here moves data.
 *
 * Must never: keep a second copy of instance state (symm_instance_t is the
 * state), or block without the bootstrap's timeout.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aclshmem.h"
#include "api/acl/acl_api.h"
#include "api/api_instance.h"
#include "boot/addr.h"
#include "boot/boot.h"
#include "boot/secret.h"
#include "core/pe_report.h"
#include "boot/uid.h"
#include "core/instance.h"
#include "runtime/config.h"
#include "runtime/log.h"
#include "runtime/state.h"
#include "runtime/status.h"
#include "shmem.h"

#define ACL_MAX_INSTANCES 16

typedef struct acl_instance {
    symm_instance_t *inst; /* NULL: free slot */
    uint64_t id;
} acl_instance_t;

/* Recursive: destroying an instance under it runs the instance's hook that
 * takes it out of the table (forget_instance). */
static pthread_mutex_t acl_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static acl_instance_t live[ACL_MAX_INSTANCES];
static aclshmem_instance_ctx cur_ctx;
static int atexit_done;
static int log_level_set = -1; /* symm level asked by aclshmemx_set_log_level */
static void (*extern_logger)(int level, const char *msg);

/* ---- logging -------------------------------------------------------------- */

/* Messages of the aclshmem layer: symm's log line, or the program's logger
 * (CANN's levels: 0 debug .. 3 error, symm's reversed). */
void symm_acl_log(int level, const char *routine, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    if (level > symm_log_level())
        return;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    symm_log(level, routine, "%s", msg);
}

/* Every symm line, core ones included, to the program's logger in CANN's
 * level numbering (0 debug .. 3 error; symm's is reversed). */
static void extern_sink(int level, const char *line)
{
    void (*logger)(int, const char *) = extern_logger;
    if (logger != NULL)
        logger(SYMM_LOG_DEBUG - level, line);
}
#define acl_error(routine, ...) symm_acl_log(SYMM_LOG_ERROR, routine, __VA_ARGS__)
#define acl_warn(routine, ...) symm_acl_log(SYMM_LOG_WARN, routine, __VA_ARGS__)

int32_t aclshmemx_set_log_level(int level)
{
    if (level < 0 || level > 3) {
        acl_error(__func__, "log level %d is not 0 (debug), 1 (info), 2 (warn) or 3 (error)",
                  level);
        return ACLSHMEM_INVALID_PARAM;
    }
    log_level_set = SYMM_LOG_DEBUG - level;
    symm_log_set_level(log_level_set);
    return ACLSHMEM_SUCCESS;
}

int32_t aclshmemx_set_extern_logger(void (*func)(int level, const char *msg))
{
    extern_logger = func;
    symm_log_set_sink(func != NULL ? extern_sink : NULL);
    return ACLSHMEM_SUCCESS;
}

/* ---- status codes --------------------------------------------------------- */

static int acl_status(int rc)
{
    switch ((symm_status_t)rc) {
    case SYMM_OK: return ACLSHMEM_SUCCESS;
    case SYMM_ERR_INVALID: return ACLSHMEM_INVALID_PARAM;
    case SYMM_ERR_NOMEM: return ACLSHMEM_MALLOC_FAILED;
    case SYMM_ERR_SYS: return ACLSHMEM_INNER_ERROR;
    case SYMM_ERR_TIMEOUT: return ACLSHMEM_TIMEOUT_ERROR;
    case SYMM_ERR_BOOT: return ACLSHMEM_BOOTSTRAP_ERROR;
    case SYMM_ERR_NOT_INIT: return ACLSHMEM_NOT_INITED;
    case SYMM_ERR_UNSUPPORTED: return ACLSHMEM_NOT_SUPPORTED;
    case SYMM_ERR_PEER: return ACLSHMEM_BOOTSTRAP_ERROR;
    }
    return ACLSHMEM_INNER_ERROR;
}

/* ---- unique ids ------------------------------------------------------------ */

/* The text (src/boot/uid.h) is all of the id but its version and PE numbers. */
int aclshmemx_get_uniqueid(aclshmemx_uniqueid_t *uid)
{
    char text[ACLSHMEM_UNIQUE_ID_INNER_LEN];
    if (uid == NULL) {
        acl_error(__func__, "uid is NULL");
        return ACLSHMEM_INVALID_PARAM;
    }
    int rc = symm_uid_create(text, sizeof(text), __func__);
    if (rc != SYMM_OK)
        return acl_status(rc);
    memset(uid, 0, sizeof(*uid));
    uid->version = ACLSHMEM_UNIQUEID_VERSION;
    memcpy(uid->internal, text, strlen(text) + 1);
    return ACLSHMEM_SUCCESS;
}

/* Secret and PE 0's address from a unique id. */
static int uid_parse(const aclshmemx_uniqueid_t *uid, char secret[SYMM_SECRET_LEN + 1], char *addr,
                     size_t cap, const char *routine)
{
    if (uid == NULL) {
        acl_error(routine, "no unique id (attributes->comm_args is NULL): fill the attributes "
                  "with aclshmemx_set_attr_uniqueid_args");
        return ACLSHMEM_INVALID_PARAM;
    }
    if (uid->version != ACLSHMEM_UNIQUEID_VERSION) {
        acl_error(routine, "unique id version %d, expected %d: not an id of this library",
                  (int)uid->version, (int)ACLSHMEM_UNIQUEID_VERSION);
        return ACLSHMEM_INVALID_PARAM;
    }
    return acl_status(
        symm_uid_parse(uid->internal, sizeof(uid->internal), secret, addr, cap, routine));
}

int aclshmemx_set_attr_uniqueid_args(int my_pe, int n_pes, int64_t local_mem_size,
                                     aclshmemx_uniqueid_t *uid, aclshmemx_init_attr_t *aclshmem_attr)
{
    char secret[SYMM_SECRET_LEN + 1], addr[SYMM_ADDR_MAX];
    if (aclshmem_attr == NULL) {
        acl_error(__func__, "aclshmem_attr is NULL");
        return ACLSHMEM_INVALID_PARAM;
    }
    if (n_pes < 1 || n_pes > ACLSHMEM_MAX_PES || my_pe < 0 || my_pe >= n_pes ||
        local_mem_size < 0) {
        acl_error(__func__, "my_pe %d, n_pes %d, local_mem_size %lld: need 0 <= my_pe < n_pes "
                  "<= %d and local_mem_size >= 0", my_pe, n_pes, (long long)local_mem_size,
                  ACLSHMEM_MAX_PES);
        return ACLSHMEM_INVALID_VALUE;
    }
    int rc = uid_parse(uid, secret, addr, sizeof(addr), __func__);
    if (rc != ACLSHMEM_SUCCESS)
        return rc;
    uid->my_pe = my_pe;
    uid->n_pes = n_pes;
    aclshmem_attr->my_pe = my_pe;
    aclshmem_attr->n_pes = n_pes;
    aclshmem_attr->local_mem_size = (uint64_t)local_mem_size;
    aclshmem_attr->comm_args = uid;
    return ACLSHMEM_SUCCESS;
}

/* ---- bootstraps of the three modes ------------------------------------------ */

static int tcp_boot(const aclshmemx_init_attr_t *attr, const char *addr, const char *secret,
                    int listen_fd, double timeout, symm_boot_t **boot_p)
{
    symm_boot_tcp_params_t p = {.rank = attr->my_pe, .size = attr->n_pes, .root_addr = addr,
                                .listen_fd = listen_fd, .secret = secret, .timeout_s = timeout};
    return acl_status(symm_boot_tcp_create(&p, boot_p));
}

static int uid_boot(const aclshmemx_init_attr_t *attr, double timeout, symm_boot_t **boot_p,
                    const char *routine)
{
    char secret[SYMM_SECRET_LEN + 1], addr[SYMM_ADDR_MAX];
    int rc = uid_parse((const aclshmemx_uniqueid_t *)attr->comm_args, secret, addr, sizeof(addr),
                       routine);
    if (rc != ACLSHMEM_SUCCESS)
        return rc;
    /* The port this process reserved for the id: PE 0 listens on it. */
    int fd = symm_uid_listen_fd(secret, attr->my_pe, addr, routine);
    return tcp_boot(attr, addr, secret, fd, timeout, boot_p);
}

/* attr->ip_port (a URL, src/boot/addr.h) into PE 0's "host:port". */
static int default_addr(const aclshmemx_init_attr_t *attr, char *addr, size_t cap,
                        const char *routine)
{
    char url[ACLSHMEM_MAX_IP_PORT_LEN + 1];
    memcpy(url, attr->ip_port, ACLSHMEM_MAX_IP_PORT_LEN);
    url[ACLSHMEM_MAX_IP_PORT_LEN] = '\0';
    return acl_status(symm_addr_from_url(url, attr->instance_id, addr, cap, routine));
}

/* key: SYMM_JOB_KEY, for DEFAULT mode's secret (src/boot/secret.h). */
static int make_boot(aclshmemx_bootstrap_t flags, const aclshmemx_init_attr_t *attr,
                     const char *key, double timeout, symm_boot_t **boot_p, const char *routine)
{
    int f = (int)flags;
    if (f & ACLSHMEMX_INIT_WITH_UNIQUEID)
        return uid_boot(attr, timeout, boot_p, routine);
    if (f & ACLSHMEMX_INIT_WITH_MPI) {
        /* comm_args: a pointer to an MPI_Comm; NULL is MPI_COMM_WORLD. */
        int rc = symm_boot_mpi_create(attr->comm_args, timeout, boot_p);
        if (rc == SYMM_ERR_UNSUPPORTED && !symm_boot_mpi_built())
            acl_error(routine, "ACLSHMEMX_INIT_WITH_MPI: this install of symm has no MPI "
                      "bootstrap plugin; use ACLSHMEMX_INIT_WITH_DEFAULT or _UNIQUEID");
        return acl_status(rc);
    }
    if (f & ACLSHMEMX_INIT_WITH_DEFAULT) {
        char addr[SYMM_ADDR_MAX], secret[SYMM_SECRET_LEN + 1];
        if (attr->ip_port[0] == '\0' && attr->comm_args != NULL)
            return uid_boot(attr, timeout, boot_p, routine);
        int rc = default_addr(attr, addr, sizeof(addr), routine);
        if (rc != ACLSHMEM_SUCCESS)
            return rc;
        /* Only PE 0 warns of a secret without a key: every PE would say the same. */
        rc = acl_status(symm_secret_default(addr, key, attr->my_pe == 0, secret, routine));
        if (rc != ACLSHMEM_SUCCESS)
            return rc;
        return tcp_boot(attr, addr, secret, -1, timeout, boot_p);
    }
    acl_error(routine, "bootstrap flags %#x name no mode (ACLSHMEMX_INIT_WITH_DEFAULT, _MPI or "
              "_UNIQUEID)", (unsigned)f);
    return ACLSHMEM_INVALID_PARAM;
}

/* ---- the instance table ------------------------------------------------------- */

static int slot_of_id(uint64_t id)
{
    for (int i = 0; i < ACL_MAX_INSTANCES; i++)
        if (live[i].inst != NULL && live[i].id == id)
            return i;
    return -1;
}

static int slot_of_inst(const symm_instance_t *inst)
{
    for (int i = 0; inst != NULL && i < ACL_MAX_INSTANCES; i++)
        if (live[i].inst == inst)
            return i;
    return -1;
}

/* A RELEASE hook of every instance in the table: whoever ends it (this
 * file, or shmem_finalize: CANN's shmem_finalize name is OpenSHMEM's here),
 * the table forgets it before its memory goes. */
static void forget_instance(symm_instance_t *inst, void *arg)
{
    (void)arg;
    pthread_mutex_lock(&acl_lock);
    int i = slot_of_inst(inst);
    if (i >= 0)
        live[i].inst = NULL;
    pthread_mutex_unlock(&acl_lock);
}

/* Collective over the instance's job: complete, meet, tear down. The next
 * current instance: the one current before (when another), else instance 0,
 * else none. Called with acl_lock held. */
static int destroy_slot(int i, const char *routine)
{
    symm_instance_t *inst = live[i].inst, *prev = symm_cur;
    int rc = ACLSHMEM_SUCCESS;
    /* The barrier's atomics act on the current instance. */
    symm_instance_select(inst);
    int brc = symm_instance_finalize(inst, routine);
    if (brc != SYMM_OK) {
        acl_error(routine, "final bootstrap barrier of instance %llu failed: %s",
                  (unsigned long long)live[i].id, symm_status_str((symm_status_t)brc));
        rc = acl_status(brc);
    }
    symm_instance_destroy(inst); /* forget_instance empties slot i */
    if (prev == inst) {
        int z = slot_of_id(0);
        prev = z >= 0 ? live[z].inst : NULL;
    }
    symm_instance_select(prev);
    return rc;
}

/* Exit with status 0: every live instance is finalized (peers blocked in
 * their finalize are released). Another status before finalize: the peers
 * are not coming to a finalize, so none is attempted (as api/shmem/shmem_setup.c). */
static void finalize_all_at_exit(int status, void *arg)
{
    (void)arg;
    if (status != 0) {
        /* No lock: the exit may come from a thread that holds it. */
        for (int i = 0; i < ACL_MAX_INSTANCES; i++)
            if (live[i].inst != NULL)
                symm_report_exit(live[i].inst, status, "aclshmem_finalize");
        return;
    }
    fflush(stdout);
    pthread_mutex_lock(&acl_lock);
    /* Ascending ids: every process meets its peers in the same order. */
    for (;;) {
        int best = -1;
        for (int i = 0; i < ACL_MAX_INSTANCES; i++)
            if (live[i].inst != NULL && (best < 0 || live[i].id < live[best].id))
                best = i;
        if (best < 0)
            break;
        destroy_slot(best, "aclshmem_finalize (at exit)");
    }
    pthread_mutex_unlock(&acl_lock);
}

/* option_attr.data_op_engine_type: bits of the engines CANN names, or an
 * error naming the others. symm has none of those engines: whichever is
 * asked for, node-local data moves by CPU copies through the mappings and
 * other nodes' by UCX; SHMEM_INFO says so once (PE 0). */
static int check_engines(const aclshmemx_init_attr_t *a, const symm_config_t *cfg,
                         const char *routine)
{
    unsigned eng = (unsigned)a->option_attr.data_op_engine_type;
    unsigned known = ACLSHMEM_DATA_OP_MTE | ACLSHMEM_DATA_OP_SDMA | ACLSHMEM_DATA_OP_ROCE |
                     ACLSHMEM_DATA_OP_UDMA;
    if (eng & ~known) {
        acl_error(routine,
                  "option_attr.data_op_engine_type 0x%x has bits no engine has (0x%x; the "
                  "engines: MTE 0x1, SDMA 0x2, ROCE 0x4, UDMA 0x8)",
                  eng, eng & ~known);
        return ACLSHMEM_INVALID_PARAM;
    }
    if (eng != 0 && cfg->core.info && a->my_pe == 0)
        dprintf(2,
                "symm: data_op_engine_type 0x%x: symm has no MTE, SDMA, ROCE or UDMA engine; "
                "it moves data by CPU copies through mapped memory on a node and by UCX "
                "between nodes, whichever is asked for\n",
                eng);
    return ACLSHMEM_SUCCESS;
}

int aclshmemx_init_attr(aclshmemx_bootstrap_t bootstrap_flags, aclshmemx_init_attr_t *attributes)
{
    const aclshmemx_init_attr_t *a = attributes;
    symm_boot_t *boot = NULL;
    symm_instance_t *inst;
    symm_config_t cfg;
    int rc, slot = -1;

    if (a == NULL) {
        acl_error(__func__, "attributes is NULL");
        return ACLSHMEM_INVALID_PARAM;
    }
    if (!((int)bootstrap_flags & ACLSHMEMX_INIT_WITH_MPI) &&
        (a->n_pes < 1 || a->n_pes > ACLSHMEM_MAX_PES || a->my_pe < 0 || a->my_pe >= a->n_pes)) {
        acl_error(__func__, "my_pe %d of n_pes %d: need 0 <= my_pe < n_pes <= %d", a->my_pe,
                  a->n_pes, ACLSHMEM_MAX_PES);
        return ACLSHMEM_INVALID_PARAM;
    }
    if (symm_config_load(&cfg) != SYMM_OK)
        return ACLSHMEM_INVALID_PARAM;
    if (check_engines(a, &cfg, __func__) != ACLSHMEM_SUCCESS)
        return ACLSHMEM_INVALID_PARAM;
    double timeout = a->option_attr.shm_init_timeout != 0 ? (double)a->option_attr.shm_init_timeout
                                                          : cfg.boot.timeout;

    pthread_mutex_lock(&acl_lock);
    if ((slot = slot_of_id(a->instance_id)) >= 0) {
        acl_warn(__func__, "instance %llu exists already: it is made current, not created again",
                 (unsigned long long)a->instance_id);
        symm_instance_select(live[slot].inst);
        pthread_mutex_unlock(&acl_lock);
        return ACLSHMEM_SUCCESS;
    }
    for (int i = 0; i < ACL_MAX_INSTANCES && slot < 0; i++)
        if (live[i].inst == NULL)
            slot = i;
    if (slot < 0) {
        acl_error(__func__, "%d instances are alive already (the most one process may hold)",
                  ACL_MAX_INSTANCES);
        pthread_mutex_unlock(&acl_lock);
        return ACLSHMEM_INVALID_VALUE;
    }
    /* Failures below are logged where they are found. */
    rc = make_boot(bootstrap_flags, a, cfg.boot.job_key, timeout, &boot, __func__);
    if (rc != ACLSHMEM_SUCCESS) {
        pthread_mutex_unlock(&acl_lock);
        return rc;
    }
    symm_instance_args_t args = {.thread_level = SHMEM_THREAD_MULTIPLE, .boot = boot,
                                 .heap_size = (size_t)a->local_mem_size,
                                 .instance_id = a->instance_id};
    rc = symm_instance_create(&args, &inst); /* destroys boot on failure */
    if (log_level_set >= 0)
        symm_log_set_level(log_level_set); /* creation applied SYMM_LOG_LEVEL */
    if (rc != SYMM_OK) {
        pthread_mutex_unlock(&acl_lock);
        return acl_status(rc);
    }
    live[slot].inst = inst;
    live[slot].id = a->instance_id;
    symm_on_fini(inst, SYMM_FINI_RELEASE, forget_instance, NULL);
    symm_instance_select(inst);
    if (!atexit_done) {
        on_exit(finalize_all_at_exit, NULL);
        atexit_done = 1;
    }
    pthread_mutex_unlock(&acl_lock);
    return ACLSHMEM_SUCCESS;
}

int aclshmem_finalize(void)
{
    pthread_mutex_lock(&acl_lock);
    int i = slot_of_inst(symm_cur), rc = ACLSHMEM_SUCCESS;
    if (i >= 0)
        rc = destroy_slot(i, __func__);
    pthread_mutex_unlock(&acl_lock);
    if (i < 0 && symm_cur != NULL)
        shmem_finalize(); /* an instance of shmem_init */
    return rc;
}

int aclshmemx_finalize(uint64_t instance_id)
{
    pthread_mutex_lock(&acl_lock);
    int i = slot_of_id(instance_id), rc;
    if (i < 0) {
        acl_error(__func__, "no instance %llu", (unsigned long long)instance_id);
        rc = ACLSHMEM_INVALID_PARAM;
    } else {
        rc = destroy_slot(i, __func__);
    }
    pthread_mutex_unlock(&acl_lock);
    return rc;
}

aclshmem_instance_ctx *aclshmemx_instance_ctx_get(void)
{
    pthread_mutex_lock(&acl_lock);
    symm_instance_t *s = symm_cur;
    aclshmem_instance_ctx *ctx = NULL;
    if (s != NULL) {
        int i = slot_of_inst(s);
        cur_ctx.id = i >= 0 ? live[i].id : s->instance_id;
        cur_ctx.instance = s;
        ctx = &cur_ctx;
    }
    pthread_mutex_unlock(&acl_lock);
    return ctx;
}

int aclshmemx_instance_ctx_set(uint64_t instance_id)
{
    pthread_mutex_lock(&acl_lock);
    int i = slot_of_id(instance_id);
    if (i >= 0)
        symm_instance_select(live[i].inst);
    pthread_mutex_unlock(&acl_lock);
    if (i < 0) {
        acl_error(__func__, "no instance %llu (create it with aclshmemx_init_attr)",
                  (unsigned long long)instance_id);
        return ACLSHMEM_INVALID_PARAM;
    }
    return ACLSHMEM_SUCCESS;
}

/* ---- queries ------------------------------------------------------------------ */

int aclshmemx_init_status(void)
{
    return symm_cur != NULL ? ACLSHMEM_STATUS_IS_INITIALIZED : ACLSHMEM_STATUS_NOT_INITIALIZED;
}

int aclshmem_my_pe(void)
{
    symm_instance_t *s = symm_cur;
    return s != NULL ? s->my_pe : -1;
}

int aclshmem_n_pes(void)
{
    symm_instance_t *s = symm_cur;
    return s != NULL ? s->n_pes : -1;
}

void aclshmem_info_get_version(int *major, int *minor)
{
    if (major != NULL)
        *major = ACLSHMEM_MAJOR_VERSION;
    if (minor != NULL)
        *minor = ACLSHMEM_MINOR_VERSION;
}

void aclshmem_info_get_name(char *name)
{
    if (name != NULL)
        shmem_info_get_name(name);
}

void aclshmem_global_exit(int status) { shmem_global_exit(status); }
