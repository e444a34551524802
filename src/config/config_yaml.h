/*
 * Private to src/config/: the walk over a loaded YAML document
 * (config_yaml.c) and the schema it checks the document against
 * (config_schema.c, with config_rules.c and config_hull.c). A section is a table of keys; each key has a setter that
 * checks its value and stores it, or walks a nested section.
 */
#ifndef CS_CONFIG_YAML_H
#define CS_CONFIG_YAML_H

#include <stddef.h>
#include <yaml.h>

#include "config/config.h"

#define CS_PATH_LEN 96 /* "alltoall.native[15][1]" and the like */
#define CS_WHY_LEN 200

typedef struct cs_yaml {
    yaml_document_t *doc;
    const char *file;
    cs_config_error *err;
    cs_coll coll; /* the collective whose section is being read */
} cs_yaml;

typedef struct cs_key cs_key;
typedef struct cs_section cs_section;

/* Check one value and store it in obj (the struct the section fills); path
 * is the key's dotted name for messages ("alltoall.native[1]"). 0 or -1. */
typedef int (*cs_key_set)(cs_yaml *y, const cs_key *key, yaml_node_t *value, void *obj, const char *path);

struct cs_key {
    const char *name;
    cs_key_set set;
    size_t off;            /* the field of obj this key sets */
    cs_coll coll;          /* collective sections */
    const cs_section *sub; /* nested mappings */
};

struct cs_section {
    const char *where; /* for "unknown key 'x' in <where>" */
    const cs_key *keys;
    size_t nkeys;
};

/* The top level of the file (config_schema.c, with config_rules.c and config_hull.c). */
extern const cs_section cs_config_schema;

/* Fill y->err at mark (1-based in the message); returns -1. */
int cs_yaml_fail_at(cs_yaml *y, yaml_mark_t mark, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

yaml_node_t *cs_yaml_node(cs_yaml *y, int index);

static inline const char *cs_yaml_str(const yaml_node_t *scalar)
{
    return (const char *)scalar->data.scalar.value;
}

/* An empty value ("key:" with nothing after it), ~ or null, not quoted. */
int cs_yaml_is_null(const yaml_node_t *node);

/* "a mapping", "a list", "a scalar", "nothing": for "expected X, got Y". */
const char *cs_yaml_kind(const yaml_node_t *node);

/* The text of a scalar value, or NULL after an error saying what was expected. */
const char *cs_yaml_scalar(cs_yaml *y, yaml_node_t *node, const char *path, const char *expected);

/* Walk a mapping against a section: every key known, none twice. */
int cs_yaml_mapping(cs_yaml *y, yaml_node_t *node, const cs_section *sec, void *obj, const char *path);

/* "parent[i]" into out[CS_PATH_LEN] */
void cs_path_index(char *out, const char *parent, size_t i);

/* The scalar of a key through one of the shared parsers; errors at the value. */
#define CS_YAML_PARSE(y, value, path, expected, call)                                                                  \
    do {                                                                                                               \
        char why[CS_WHY_LEN];                                                                                          \
        const char *s = cs_yaml_scalar(y, value, path, expected);                                                      \
        if (!s)                                                                                                        \
            return -1;                                                                                                 \
        if ((call) != 0)                                                                                               \
            return cs_yaml_fail_at(y, (value)->start_mark, "%s: %s", path, why);                                       \
    } while (0)

/* The setters of the schema that live in files of their own. */
int cs_set_rules(cs_yaml *y, const cs_key *key, yaml_node_t *value, void *obj, const char *path);
int cs_set_hull(cs_yaml *y, const cs_key *key, yaml_node_t *value, void *obj, const char *path);

/* A size in bytes (inf if allow_inf), and a "[lo, hi]" range of sizes. */
int cs_yaml_size(cs_yaml *y, yaml_node_t *node, const char *path, int allow_inf, size_t *out);
int cs_yaml_range(cs_yaml *y, yaml_node_t *item, const char *path, cs_range *r);

#endif
