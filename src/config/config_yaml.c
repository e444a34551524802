/*
 * The YAML file (collshim.yaml.example documents it). libyaml loads the whole
 * document, then a walk over the tables of keys in config_schema.c checks and
 * applies it; every error names the file, the 1-based line and column, the
 * key path and what was expected. The load is all or nothing, except strict
 * (see cs_yaml_salvage_strict).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <yaml.h>

#include "config/config.h"
#include "config/config_internal.h"
#include "config/config_yaml.h"

/* ---- nodes and errors --------------------------------------------------- */

int cs_yaml_fail_at(cs_yaml *y, yaml_mark_t mark, const char *fmt, ...)
{
    va_list ap;

    cs_cfg_error(y->err, y->file, (int)mark.line + 1, (int)mark.column + 1, "%s", "");
    va_start(ap, fmt);
    vsnprintf(y->err->message, sizeof y->err->message, fmt, ap);
    va_end(ap);
    return -1;
}

yaml_node_t *cs_yaml_node(cs_yaml *y, int index)
{
    return yaml_document_get_node(y->doc, index);
}

int cs_yaml_is_null(const yaml_node_t *node)
{
    static const char *const nulls[] = {"", "~", "null", "Null", "NULL"};

    if (node->type != YAML_SCALAR_NODE || node->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return 0;
    for (size_t i = 0; i < sizeof nulls / sizeof nulls[0]; i++)
        if (strcmp(cs_yaml_str(node), nulls[i]) == 0)
            return 1;
    return 0;
}

const char *cs_yaml_kind(const yaml_node_t *node)
{
    switch (node->type) {
    case YAML_MAPPING_NODE: return "a mapping";
    case YAML_SEQUENCE_NODE: return "a list";
    default: return cs_yaml_is_null(node) ? "nothing" : "a scalar";
    }
}

const char *cs_yaml_scalar(cs_yaml *y, yaml_node_t *node, const char *path, const char *expected)
{
    if (node->type != YAML_SCALAR_NODE || cs_yaml_is_null(node)) {
        /* "algorithm: butterfly: b=1" parses as a mapping; say how to write it. */
        const char *hint = node->type == YAML_MAPPING_NODE ? " (quote values that contain ': ')" : "";
        cs_yaml_fail_at(y, node->start_mark, "%s: expected %s, got %s%s", path, expected, cs_yaml_kind(node), hint);
        return NULL;
    }
    if (strlen(cs_yaml_str(node)) != node->data.scalar.length) {
        cs_yaml_fail_at(y, node->start_mark, "%s: value contains a NUL byte", path);
        return NULL;
    }
    return cs_yaml_str(node);
}

static void cs_path_join(char *out, const char *parent, const char *name)
{
    snprintf(out, CS_PATH_LEN, "%s%s%.40s", parent, *parent ? "." : "", name);
}

void cs_path_index(char *out, const char *parent, size_t i)
{
    snprintf(out, CS_PATH_LEN, "%.80s[%zu]", parent, i);
}

/* ---- mappings ----------------------------------------------------------- */

static const cs_key *cs_section_find(const cs_section *sec, const char *name)
{
    for (size_t i = 0; i < sec->nkeys; i++)
        if (strcmp(sec->keys[i].name, name) == 0)
            return &sec->keys[i];
    return NULL;
}

static int cs_yaml_unknown_key(cs_yaml *y, const cs_section *sec, yaml_node_t *key)
{
    char valid[320];
    size_t used = 0;

    valid[0] = '\0';
    for (size_t i = 0; i < sec->nkeys && used < sizeof valid; i++)
        used += (size_t)snprintf(valid + used, sizeof valid - used, "%s%s", i ? ", " : "", sec->keys[i].name);
    return cs_yaml_fail_at(y, key->start_mark, "unknown key '%.40s' in %s (valid: %s)", cs_yaml_str(key), sec->where,
                           valid);
}

/* libyaml keeps duplicate keys; a second value silently winning would hide a mistake. */
static int cs_yaml_check_duplicate(cs_yaml *y, yaml_node_pair_t *first, yaml_node_pair_t *pair)
{
    yaml_node_t *key = cs_yaml_node(y, pair->key);

    for (yaml_node_pair_t *p = first; p < pair; p++) {
        yaml_node_t *seen = cs_yaml_node(y, p->key);
        if (seen->type == YAML_SCALAR_NODE && strcmp(cs_yaml_str(seen), cs_yaml_str(key)) == 0)
            return cs_yaml_fail_at(y, key->start_mark, "duplicate key '%.40s' (first at line %d)", cs_yaml_str(key),
                                   (int)seen->start_mark.line + 1);
    }
    return 0;
}

int cs_yaml_mapping(cs_yaml *y, yaml_node_t *node, const cs_section *sec, void *obj, const char *path)
{
    yaml_node_pair_t *first, *pair;

    if (cs_yaml_is_null(node)) /* "log:" with nothing under it */
        return 0;
    if (node->type != YAML_MAPPING_NODE)
        return cs_yaml_fail_at(y, node->start_mark, "%s: expected a mapping of keys, got %s",
                               *path ? path : "top level", cs_yaml_kind(node));
    first = node->data.mapping.pairs.start;
    for (pair = first; pair < node->data.mapping.pairs.top; pair++) {
        yaml_node_t *key = cs_yaml_node(y, pair->key);
        const cs_key *row;
        char child[CS_PATH_LEN];

        if (key->type != YAML_SCALAR_NODE)
            return cs_yaml_fail_at(y, key->start_mark, "%s: expected a key name, got %s", *path ? path : "top level",
                                   cs_yaml_kind(key));
        /* "strict\0x" (a quoted "\0") would otherwise be read as strict. */
        if (strlen(cs_yaml_str(key)) != key->data.scalar.length)
            return cs_yaml_fail_at(y, key->start_mark, "%s: a key contains a NUL byte", *path ? path : "top level");
        if (!(row = cs_section_find(sec, cs_yaml_str(key))))
            return cs_yaml_unknown_key(y, sec, key);
        if (cs_yaml_check_duplicate(y, first, pair) != 0)
            return -1;
        cs_path_join(child, path, row->name);
        if (row->set(y, row, cs_yaml_node(y, pair->value), obj, child) != 0)
            return -1;
    }
    return 0;
}

/* ---- the file ------------------------------------------------------------- */

/* The whole file in memory: config files are small, and a reader error's
 * byte offset can then be turned into a line and column. */
static int cs_read_file(const char *path, unsigned char **text, size_t *len)
{
    FILE *f = fopen(path, "rb");
    struct stat st;
    size_t cap = 4096, n = 0;
    unsigned char *buf = NULL;
    int saved;

    if (!f)
        return -1;
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        errno = EISDIR;
        goto fail;
    }
    for (;;) {
        unsigned char *grown = realloc(buf, cap);
        if (!grown)
            goto fail;
        buf = grown;
        n += fread(buf + n, 1, cap - n, f);
        if (ferror(f))
            goto fail;
        if (n < cap)
            break;
        cap *= 2;
    }
    fclose(f);
    *text = buf;
    *len = n;
    return 0;
fail:
    saved = errno ? errno : EIO;
    free(buf);
    fclose(f);
    errno = saved;
    return -1;
}

static yaml_mark_t cs_mark_of_offset(const unsigned char *text, size_t len, size_t offset)
{
    yaml_mark_t mark = {0, 0, 0};

    for (size_t i = 0; i < offset && i < len; i++) {
        if (text[i] == '\n') {
            mark.line++;
            mark.column = 0;
        } else if ((text[i] & 0xC0) != 0x80) { /* count characters, not UTF-8 bytes */
            mark.column++;
        }
    }
    return mark;
}

static int cs_yaml_syntax_error(cs_yaml *y, const yaml_parser_t *p, const unsigned char *text, size_t len)
{
    const char *problem = p->problem ? p->problem : "unknown error";

    switch (p->error) {
    case YAML_MEMORY_ERROR: return cs_yaml_fail_at(y, (yaml_mark_t){0, 0, 0}, "out of memory while parsing");
    case YAML_READER_ERROR:
        return cs_yaml_fail_at(y, cs_mark_of_offset(text, len, p->problem_offset), "cannot decode the file: %s",
                               problem);
    case YAML_COMPOSER_ERROR: /* an undefined alias, for one */
        return cs_yaml_fail_at(y, p->problem_mark, "%s", problem);
    default:
        if (p->context)
            return cs_yaml_fail_at(y, p->problem_mark, "syntax error: %s (%s at line %d, column %d)", problem,
                                   p->context, (int)p->context_mark.line + 1, (int)p->context_mark.column + 1);
        return cs_yaml_fail_at(y, p->problem_mark, "syntax error: %s", problem);
    }
}

/*
 * A file that fails still says whether the user wants strict behaviour, and
 * a strict user must get the abort even when the error is elsewhere in the
 * file. Scan the events up to the error (or to the end) for a valid top-level
 * "strict: <bool>".
 */
static void cs_yaml_salvage_strict(const unsigned char *text, size_t len, int *strict)
{
    yaml_parser_t p;
    yaml_event_t ev;
    int depth = 0, root_is_map = 0, want_key = 1, key_is_strict = 0, done = 0;
    char why[CS_WHY_LEN];

    if (!yaml_parser_initialize(&p))
        return;
    yaml_parser_set_input_string(&p, text, len);
    while (!done && yaml_parser_parse(&p, &ev)) {
        yaml_event_type_t t = ev.type;
        int node = t == YAML_SCALAR_EVENT || t == YAML_ALIAS_EVENT || t == YAML_MAPPING_START_EVENT ||
                   t == YAML_SEQUENCE_START_EVENT;

        /* Lengths too: a NUL byte makes neither the key nor the value valid. */
        if (depth == 1 && root_is_map && node) {
            if (want_key)
                key_is_strict = t == YAML_SCALAR_EVENT && ev.data.scalar.length == 6 &&
                                strcmp((const char *)ev.data.scalar.value, "strict") == 0;
            else if (key_is_strict && t == YAML_SCALAR_EVENT &&
                     strlen((const char *)ev.data.scalar.value) == ev.data.scalar.length)
                cs_cfg_parse_bool((const char *)ev.data.scalar.value, strict, why, sizeof why);
            want_key = !want_key;
        }
        if (t == YAML_MAPPING_START_EVENT || t == YAML_SEQUENCE_START_EVENT)
            root_is_map |= depth++ == 0 && t == YAML_MAPPING_START_EVENT;
        else if (t == YAML_MAPPING_END_EVENT || t == YAML_SEQUENCE_END_EVENT)
            depth--;
        done = t == YAML_DOCUMENT_END_EVENT || t == YAML_STREAM_END_EVENT;
        yaml_event_delete(&ev);
    }
    yaml_parser_delete(&p);
}

/* The first document over *cfg; a second one is an error, not ignored. */
static int cs_yaml_apply(cs_yaml *y, yaml_parser_t *p, const unsigned char *text, size_t len, cs_config *cfg)
{
    yaml_document_t doc;
    yaml_node_t *root;
    int rc;

    if (!yaml_parser_load(p, &doc))
        return cs_yaml_syntax_error(y, p, text, len);
    y->doc = &doc;
    root = yaml_document_get_root_node(&doc);
    rc = root ? cs_yaml_mapping(y, root, &cs_config_schema, cfg, "") : 0;
    yaml_document_delete(&doc);
    if (rc != 0 || !root)
        return rc;

    if (!yaml_parser_load(p, &doc))
        return cs_yaml_syntax_error(y, p, text, len);
    if ((root = yaml_document_get_root_node(&doc)))
        rc = cs_yaml_fail_at(y, root->start_mark, "a second YAML document; the file must hold one");
    yaml_document_delete(&doc);
    return rc;
}

int cs_config_load(const char *path, cs_config *cfg, cs_config_error *err)
{
    cs_yaml y = {.file = path, .err = err};
    yaml_parser_t parser;
    unsigned char *text;
    size_t len;
    cs_config next = *cfg;
    int rc;

    if (cs_read_file(path, &text, &len) != 0) {
        cs_cfg_error(err, path, 1, 1, "cannot open: %s", strerror(errno));
        return -1;
    }
    if (!yaml_parser_initialize(&parser)) {
        free(text);
        cs_cfg_error(err, path, 1, 1, "out of memory");
        return -1;
    }
    yaml_parser_set_input_string(&parser, text, len);
    rc = cs_yaml_apply(&y, &parser, text, len, &next);
    yaml_parser_delete(&parser);
    if (rc == 0) {
        snprintf(next.source, sizeof next.source, "%s", path);
        *cfg = next;
    } else {
        cs_yaml_salvage_strict(text, len, &cfg->strict);
    }
    free(text);
    return rc;
}
