/*
 * The words of the configuration reference (docs/configuration.md): one row
 * per key of the schema (config_schema.c) and per environment variable
 * (config_env.c, and COLLSHIM_CONFIG). The names and their nesting come from
 * the tables themselves; these rows only say what a value is and means.
 * tools/docs/collshim-gen-docs fails when a key or variable has no row here,
 * or a row names none, so a new key cannot go undocumented.
 */
#ifndef CS_CONFIG_DOC_H
#define CS_CONFIG_DOC_H

#include <stddef.h>

typedef struct cs_config_doc {
    const char *name;    /* "model.alpha"; "*.algorithm": that key in every collective section */
    const char *values;  /* what may be written, in Markdown */
    const char *meaning; /* what it does, in Markdown */
} cs_config_doc;

extern const cs_config_doc cs_config_key_docs[];
extern const size_t cs_config_nkey_docs;
extern const cs_config_doc cs_config_env_docs[];
extern const size_t cs_config_nenv_docs;

/* The name of the i-th COLLSHIM_* variable applied over the file, in the
 * order they are applied; NULL past the last (config_env.c). */
const char *cs_config_env_name(size_t i);

#endif
