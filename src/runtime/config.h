/*
 * config.h - parsed configuration of one instance, from env_def.h.
 */
#ifndef SYMM_CONFIG_H
#define SYMM_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "runtime/env_def.h"

#define SYMM_CFG_TYPE_SIZE size_t
#define SYMM_CFG_TYPE_BOOL bool
#define SYMM_CFG_TYPE_INT int
#define SYMM_CFG_TYPE_DOUBLE double
#define SYMM_CFG_TYPE_STR const char *
#define SYMM_CFG_TYPE_SECRET const char *

typedef struct symm_config {
#define SYMM_CFG_FIELD(name, kind, vis, field, def, help) SYMM_CFG_TYPE_##kind field;
    SYMM_ENV_TABLE(SYMM_CFG_FIELD)
#undef SYMM_CFG_FIELD
} symm_config_t;

/* Parse the environment into *cfg. A malformed value is an error that quotes
 * it (logged here); returns 0 or SYMM_ERR_INVALID. */
int symm_config_load(symm_config_t *cfg);

/* Parse "<number>[K|M|G|T][B|iB]" (case-insensitive) into bytes. */
int symm_parse_size(const char *s, size_t *bytes_p);

/* Write bytes with the largest unit that divides it exactly ("1T",
 * "1536M", "100"): how a SIZE reads back in messages. */
void symm_format_size(size_t bytes, char *buf, size_t len);

/* Print the version line, then every variable with its value and meaning
 * (SHMEM_INFO, symm-info); HIDDEN ones only at SYMM_LOG_LEVEL >= 3. */
void symm_config_print(const symm_config_t *cfg, int fd);

#endif
