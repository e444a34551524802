/*
 * The schema of the file: one table of keys per mapping, each key with the
 * setter that checks and stores its value. A new key is one row here (and a
 * comment in collshim.yaml.example).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "config/config_internal.h"
#include "config/config_yaml.h"
#include "config/library_rules.h"

/* ---- mappings ------------------------------------------------------------- */

static int cs_set_section(cs_yaml *y, const cs_key *key, yaml_node_t *value, void *obj, const char *path)
{
    return cs_yaml_mapping(y, value, key->sub, (char *)obj + key->off, path);
}

static int cs_set_coll_section(cs_yaml *y, const cs_key *key, yaml_node_t *value, void *obj, const char *path)
{
    y->coll = key->coll;
    return cs_set_section(y, key, value, obj, path);
}

/* ---- setters ------------------------------------------------------------ */

/*
 * No machine has costs near this (a start-up of 30 years), in seconds or in
 * any smaller unit a user might price in; and with far larger ones, finite
 * as they are, the model's products of costs and counts overflow to inf and
 * NaN: predictions of inf in the JSON log, comparisons that never hold.
 */
#define CS_COST_MAX 1e9
#define CS_RANKS_PER_NODE_MAX (1 << 30)

static int cs_set_cost(cs_yaml *y, const cs_key *key, yaml_node_t *value, void *obj, const char *path)
{
    double v;

    CS_YAML_PARSE(y, value, path, "a number", cs_cfg_parse_number(s, &v, why, sizeof why));
    if (v < 0)
        return cs_yaml_fail_at(y, value->start_mark, "%s: must be >= 0, got %s", path, cs_yaml_str(value));
    if (v > CS_COST_MAX)
        return cs_yaml_fail_at(y, value->start_mark, "%s: must be at most 1e9, got %s", path, cs_yaml_str(value));
    *(double *)((char *)obj + key->off) = v;
    return 0;
}

/* alpha_node, beta_node: a cost, and the model has two levels from now on. */
static int cs_set_node_cost(cs_yaml *y, const cs_key *key, yaml_node_t *value, void *obj, const char *path)
{
    if (cs_set_cost(y, key, value, obj, path) != 0)
        return -1;
    ((cs_model *)obj)->node_levels = 1;
    return 0;
}

/* ranks_per_node: a count of ranks, 0 (the ranks that share memory) to 2^30. */
static int cs_set_ranks_per_node(cs_yaml *y, const cs_key *key, yaml_node_t *value, void *obj, const char *path)
{
    CS_YAML_PARSE(y, value, path, "a count of ranks",
                  cs_cfg_parse_count(s, CS_RANKS_PER_NODE_MAX, &((cs_model *)obj)->ranks_per_node, why, sizeof why));
    return 0;
}

/* One of the words names[0 .. n - 1] (2 or 3 of them): its index into *out. */
static int cs_parse_word(const char *s, const char *const *names, int n, int *out, char *why, size_t wn)
{
    for (int i = 0; i < n; i++)
        if (strcmp(s, names[i]) == 0) {
            *out = i;
            return 0;
        }
    snprintf(why, wn, "expected %s%s%s or %s, got '%s'", names[0], n > 2 ? ", " : "", n > 2 ? names[1] : "",
             names[n - 1], s);
    return -1;
}

/* placement: block (0) or cyclic (1), how world ranks lie on ranks_per_node's nodes. */
static int cs_set_placement(cs_yaml *y, const cs_key *key, yaml_node_t *value, void *obj, const char *path)
{
    static const char *const names[] = {"block", "cyclic"};
    CS_YAML_PARSE(y, value, path, "block or cyclic",
                  cs_parse_word(s, names, 2, &((cs_model *)obj)->cyclic, why, sizeof why));
    return 0;
}

/* node_paths: rank (0) or pair (1), whether a rank's messages on its node queue on one path. */
static int cs_set_node_paths(cs_yaml *y, const cs_key *key, yaml_node_t *value, void *obj, const char *path)
{
    static const char *const names[] = {"rank", "pair"};
    CS_YAML_PARSE(y, value, path, "rank or pair",
                  cs_parse_word(s, names, 2, &((cs_model *)obj)->node_pairs, why, sizeof why));
    return 0;
}

/* link_share: world (0) or communicator (1), who else a communicator's nodes' links carry. */
static int cs_set_link_share(cs_yaml *y, const cs_key *key, yaml_node_t *value, void *obj, const char *path)
{
    static const char *const names[] = {"world", "communicator"};
    CS_YAML_PARSE(y, value, path, "world or communicator",
                  cs_parse_word(s, names, 2, &((cs_model *)obj)->link_own, why, sizeof why));
    return 0;
}

/* rendezvous_from: bytes, 0 (none) or more. */
static int cs_set_rendezvous_from(cs_yaml *y, const cs_key *key, yaml_node_t *value, void *obj, const char *path)
{
    CS_YAML_PARSE(y, value, path, "a size in bytes",
                  cs_cfg_parse_size(s, 0, &((cs_model *)obj)->rendezvous_from, why, sizeof why));
    return 0;
}

/* distance: none, xor or difference (CS_DISTANCE_*), how a message's links grow with its ranks. */
static int cs_set_distance(cs_yaml *y, const cs_key *key, yaml_node_t *value, void *obj, const char *path)
{
    static const char *const names[] = {"none", "xor", "difference"};
    CS_YAML_PARSE(y, value, path, "none, xor or difference",
                  cs_parse_word(s, names, 3, &((cs_model *)obj)->distance, why, sizeof why));
    return 0;
}

/* One factor of a band: a number, 0 (as a cost may be) to CS_COST_MAX. */
static int cs_yaml_factor(cs_yaml *y, yaml_node_t *node, const char *path, double *out)
{
    CS_YAML_PARSE(y, node, path, "a number", cs_cfg_parse_number(s, out, why, sizeof why));
    if (!(*out >= 0) || *out > CS_COST_MAX)
        return cs_yaml_fail_at(y, node->start_mark, "%s: a factor must be >= 0 and at most 1e9, got %s", path,
                               cs_yaml_str(node));
    return 0;
}

/* One "[from, alpha_factor, beta_factor]" item of model.bands. */
static int cs_yaml_band(cs_yaml *y, yaml_node_t *item, const char *path, cs_band *b)
{
    char child[CS_PATH_LEN];
    yaml_node_item_t *items = item->data.sequence.items.start;
    if (item->type != YAML_SEQUENCE_NODE || item->data.sequence.items.top - items != 3)
        return cs_yaml_fail_at(y, item->start_mark, "%s: expected a band [from, alpha_factor, beta_factor], got %s",
                               path,
                               item->type == YAML_SEQUENCE_NODE ? "a list of another length" : cs_yaml_kind(item));
    cs_path_index(child, path, 0);
    if (cs_yaml_size(y, cs_yaml_node(y, items[0]), child, 0, &b->from) != 0)
        return -1;
    cs_path_index(child, path, 1);
    if (cs_yaml_factor(y, cs_yaml_node(y, items[1]), child, &b->alpha_factor) != 0)
        return -1;
    cs_path_index(child, path, 2);
    return cs_yaml_factor(y, cs_yaml_node(y, items[2]), child, &b->beta_factor);
}

/* Bands live as long as the process: the model keeps a pointer, and a
 * configuration is copied whole. A few distinct sets, each kept once (a
 * process reads one file; the tests read the same ones again); NULL where
 * there is no room for another. */
enum { CS_BANDS_KEPT = 16 };

static const cs_bands *cs_bands_keep(const cs_bands *b)
{
    static cs_bands kept[CS_BANDS_KEPT];
    static int nkept;
    for (int i = 0; i < nkept; i++) {
        int same = kept[i].n == b->n;
        for (int j = 0; same && j < b->n; j++)
            same = kept[i].band[j].from == b->band[j].from && kept[i].band[j].alpha_factor == b->band[j].alpha_factor &&
                   kept[i].band[j].beta_factor == b->band[j].beta_factor;
        if (same)
            return &kept[i];
    }
    if (nkept == CS_BANDS_KEPT)
        return NULL;
    kept[nkept] = *b;
    return &kept[nkept++];
}

/* model.bands: a list of [from, alpha_factor, beta_factor], from increasing
 * (cs_bands_keep holds them); an empty list: none. */
static int cs_set_bands(cs_yaml *y, const cs_key *key, yaml_node_t *value, void *obj, const char *path)
{
    cs_model *model = obj;
    cs_bands bands = {0};
    if (!cs_yaml_is_null(value) && value->type != YAML_SEQUENCE_NODE)
        return cs_yaml_fail_at(y, value->start_mark, "%s: expected a list of [from, alpha_factor, beta_factor], got %s",
                               path, cs_yaml_kind(value));
    if (value->type == YAML_SEQUENCE_NODE)
        for (yaml_node_item_t *it = value->data.sequence.items.start; it < value->data.sequence.items.top; it++) {
            yaml_node_t *item = cs_yaml_node(y, *it);
            char child[CS_PATH_LEN];
            cs_path_index(child, path, (size_t)bands.n);
            if (bands.n == CS_BANDS_MAX)
                return cs_yaml_fail_at(y, item->start_mark, "%s: more than %d bands", path, CS_BANDS_MAX);
            if (cs_yaml_band(y, item, child, &bands.band[bands.n]) != 0)
                return -1;
            if (bands.n > 0 && bands.band[bands.n].from <= bands.band[bands.n - 1].from)
                return cs_yaml_fail_at(y, item->start_mark, "%s: from must increase, %zu after %zu", child,
                                       bands.band[bands.n].from, bands.band[bands.n - 1].from);
            bands.n++;
        }
    const cs_bands *held = bands.n > 0 ? cs_bands_keep(&bands) : NULL;
    if (bands.n > 0 && !held)
        return cs_yaml_fail_at(y, value->start_mark, "%s: more than %d different sets of bands in one process", path,
                               CS_BANDS_KEPT);
    model->bands = held;
    return 0;
}

static int cs_set_margin(cs_yaml *y, const cs_key *key, yaml_node_t *value, void *obj, const char *path)
{
    double v;

    CS_YAML_PARSE(y, value, path, "a number", cs_cfg_parse_number(s, &v, why, sizeof why));
    if (!(v >= 0 && v < 1))
        return cs_yaml_fail_at(y, value->start_mark, "%s: must be >= 0 and < 1, got %s", path, cs_yaml_str(value));
    ((cs_model *)obj)->margin = v;
    return 0;
}

static int cs_set_library(cs_yaml *y, const cs_key *key, yaml_node_t *value, void *obj, const char *path)
{
    CS_YAML_PARSE(y, value, path, "a library name",
                  cs_cfg_parse_library(s, &((cs_model *)obj)->library, why, sizeof why));
    return 0;
}

/* model.library_rules: the file is read now; one that cannot be read is
 * said on stderr and the library's own decisions are priced (not an error
 * of the configuration: the library itself runs without the file then). */
static int cs_set_library_rules(cs_yaml *y, const cs_key *key, yaml_node_t *value, void *obj, const char *path)
{
    cs_model *model = obj;
    cs_library_rules *rules;
    char why[PATH_MAX + 256];
    const char *s = cs_yaml_scalar(y, value, path, "a file");
    if (!s)
        return -1;
    if (cs_library_rules_load(s, &rules, why, sizeof why) != 0) {
        fprintf(stderr, "collshim: %s: %s; the library's own decisions are priced\n", path, why);
        return 0;
    }
    cs_library_rules_free((cs_library_rules *)model->library_rules); /* the key given twice */
    model->library_rules = rules;
    return 0;
}

static int cs_set_bool(cs_yaml *y, const cs_key *key, yaml_node_t *value, void *obj, const char *path)
{
    int *field = (int *)((char *)obj + key->off);

    CS_YAML_PARSE(y, value, path, "true or false", cs_cfg_parse_bool(s, field, why, sizeof why));
    return 0;
}

static int cs_set_level(cs_yaml *y, const cs_key *key, yaml_node_t *value, void *obj, const char *path)
{
    cs_config *cfg = obj;

    CS_YAML_PARSE(y, value, path, "a log level", cs_cfg_parse_level(s, &cfg->log_level, why, sizeof why));
    return 0;
}

static int cs_set_log_file(cs_yaml *y, const cs_key *key, yaml_node_t *value, void *obj, const char *path)
{
    cs_config *cfg = obj;

    CS_YAML_PARSE(y, value, path, "stderr or a path", cs_cfg_parse_log_file(s, cfg->log_file, why, sizeof why));
    return 0;
}

static int cs_set_algorithm(cs_yaml *y, const cs_key *key, yaml_node_t *value, void *obj, const char *path)
{
    cs_coll_config *cc = obj;

    CS_YAML_PARSE(y, value, path, "auto, native or an algorithm name",
                  cs_cfg_parse_choice(y->coll, s, cc, why, sizeof why));
    cc->from_env = 0;
    return 0;
}

int cs_yaml_size(cs_yaml *y, yaml_node_t *node, const char *path, int allow_inf, size_t *out)
{
    CS_YAML_PARSE(y, node, path, "a size", cs_cfg_parse_size(s, allow_inf, out, why, sizeof why));
    return 0;
}

/* One "[lo, hi]" item of a native list. */
int cs_yaml_range(cs_yaml *y, yaml_node_t *item, const char *path, cs_range *r)
{
    char child[CS_PATH_LEN];
    yaml_node_item_t *items = item->data.sequence.items.start;

    if (item->type != YAML_SEQUENCE_NODE || item->data.sequence.items.top - items != 2)
        return cs_yaml_fail_at(y, item->start_mark, "%s: expected a range [lo, hi], got %s", path,
                               item->type == YAML_SEQUENCE_NODE ? "a list of another length" : cs_yaml_kind(item));
    cs_path_index(child, path, 0);
    if (cs_yaml_size(y, cs_yaml_node(y, items[0]), child, 0, &r->lo) != 0)
        return -1;
    cs_path_index(child, path, 1);
    if (cs_yaml_size(y, cs_yaml_node(y, items[1]), child, 1, &r->hi) != 0)
        return -1;
    if (r->lo > r->hi)
        return cs_yaml_fail_at(y, item->start_mark, "%s: empty range, lo %zu > hi %zu", path, r->lo, r->hi);
    return 0;
}

static int cs_range_cmp(const void *a, const void *b)
{
    const cs_range *x = a, *y = b;
    return (x->lo > y->lo) - (x->lo < y->lo);
}

/* Sort, and merge ranges that overlap or touch, so that lookups can bisect. */
static int cs_ranges_normalize(cs_range *r, int n)
{
    int out = 0;

    qsort(r, (size_t)n, sizeof *r, cs_range_cmp);
    for (int i = 0; i < n; i++) {
        if (out > 0 && (r[out - 1].hi == SIZE_MAX || r[i].lo <= r[out - 1].hi + 1)) {
            if (r[i].hi > r[out - 1].hi)
                r[out - 1].hi = r[i].hi;
        } else {
            r[out++] = r[i];
        }
    }
    return out;
}

static int cs_set_native(cs_yaml *y, const cs_key *key, yaml_node_t *value, void *obj, const char *path)
{
    cs_coll_config *cc = obj;
    cs_range ranges[CS_MAX_RANGES];
    int n = 0;

    if (!cs_yaml_is_null(value) && value->type != YAML_SEQUENCE_NODE)
        return cs_yaml_fail_at(y, value->start_mark, "%s: expected a list of [lo, hi] ranges, got %s", path,
                               cs_yaml_kind(value));
    if (value->type == YAML_SEQUENCE_NODE) {
        for (yaml_node_item_t *it = value->data.sequence.items.start; it < value->data.sequence.items.top; it++, n++) {
            yaml_node_t *item = cs_yaml_node(y, *it);
            char child[CS_PATH_LEN];

            cs_path_index(child, path, (size_t)n);
            if (n == CS_MAX_RANGES)
                return cs_yaml_fail_at(y, item->start_mark, "%s: more than %d ranges", path, CS_MAX_RANGES);
            if (cs_yaml_range(y, item, child, &ranges[n]) != 0)
                return -1;
        }
    }
    cc->nnative = cs_ranges_normalize(ranges, n);
    memcpy(cc->native, ranges, (size_t)cc->nnative * sizeof ranges[0]);
    return 0;
}

static int cs_yaml_rank(cs_yaml *y, yaml_node_t *node, const char *path, int *out)
{
    CS_YAML_PARSE(y, node, path, "a rank", cs_cfg_parse_rank(s, out, why, sizeof why));
    return 0;
}

static int cs_int_cmp(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static int cs_set_ranks(cs_yaml *y, const cs_key *key, yaml_node_t *value, void *obj, const char *path)
{
    cs_config *cfg = obj;
    int n = 0;

    if (value->type == YAML_SCALAR_NODE && strcmp(cs_yaml_str(value), "all") == 0) {
        cfg->log_all_ranks = 1;
        cfg->nlog_ranks = 0;
        return 0;
    }
    if (value->type != YAML_SEQUENCE_NODE) {
        if (cs_yaml_rank(y, value, path, &cfg->log_ranks[0]) != 0)
            return -1;
        n = 1;
    } else {
        for (yaml_node_item_t *it = value->data.sequence.items.start; it < value->data.sequence.items.top; it++, n++) {
            yaml_node_t *item = cs_yaml_node(y, *it);
            char child[CS_PATH_LEN];

            if (n == CS_MAX_LOG_RANKS)
                return cs_yaml_fail_at(y, item->start_mark, "%s: more than %d ranks", path, CS_MAX_LOG_RANKS);
            cs_path_index(child, path, (size_t)n);
            if (cs_yaml_rank(y, item, child, &cfg->log_ranks[n]) != 0)
                return -1;
        }
    }
    /* Sorted and unique, so that a rank finds itself by bisection. */
    qsort(cfg->log_ranks, (size_t)n, sizeof(int), cs_int_cmp);
    cfg->nlog_ranks = 0;
    for (int i = 0; i < n; i++)
        if (i == 0 || cfg->log_ranks[i] != cfg->log_ranks[i - 1])
            cfg->log_ranks[cfg->nlog_ranks++] = cfg->log_ranks[i];
    cfg->log_all_ranks = 0;
    return 0;
}

/* ---- the schema ----------------------------------------------------------- */

#define CS_NKEYS(keys) (sizeof keys / sizeof keys[0])

static const cs_key cs_model_keys[] = {
    {"alpha", cs_set_cost, offsetof(cs_model, alpha), 0, NULL},
    {"beta", cs_set_cost, offsetof(cs_model, beta), 0, NULL},
    {"rho", cs_set_cost, offsetof(cs_model, rho), 0, NULL},
    {"gamma", cs_set_cost, offsetof(cs_model, gamma), 0, NULL},
    {"overhead", cs_set_cost, offsetof(cs_model, overhead), 0, NULL},
    {"alpha_node", cs_set_node_cost, offsetof(cs_model, alpha_node), 0, NULL},
    {"beta_node", cs_set_node_cost, offsetof(cs_model, beta_node), 0, NULL},
    {"node_paths", cs_set_node_paths, offsetof(cs_model, node_pairs), 0, NULL},
    {"beta_link", cs_set_cost, offsetof(cs_model, beta_link), 0, NULL},
    {"beta_core", cs_set_cost, offsetof(cs_model, beta_core), 0, NULL},
    {"ranks_per_node", cs_set_ranks_per_node, offsetof(cs_model, ranks_per_node), 0, NULL},
    {"placement", cs_set_placement, offsetof(cs_model, cyclic), 0, NULL},
    {"link_share", cs_set_link_share, offsetof(cs_model, link_own), 0, NULL},
    {"rendezvous_from", cs_set_rendezvous_from, offsetof(cs_model, rendezvous_from), 0, NULL},
    {"distance", cs_set_distance, offsetof(cs_model, distance), 0, NULL},
    {"alpha_hop", cs_set_cost, offsetof(cs_model, alpha_hop), 0, NULL},
    {"bands", cs_set_bands, offsetof(cs_model, bands), 0, NULL},
    {"margin", cs_set_margin, offsetof(cs_model, margin), 0, NULL},
    {"library", cs_set_library, offsetof(cs_model, library), 0, NULL},
    {"library_rules", cs_set_library_rules, offsetof(cs_model, library_rules), 0, NULL},
};
static const cs_section cs_model_section = {"model", cs_model_keys, CS_NKEYS(cs_model_keys)};

static const cs_key cs_coll_keys[] = {
    {"algorithm", cs_set_algorithm, 0, 0, NULL},
    {"native", cs_set_native, 0, 0, NULL},
    {"rules", cs_set_rules, 0, 0, NULL},
};
static const cs_key cs_alltoall_keys[] = {
    {"algorithm", cs_set_algorithm, 0, 0, NULL},
    {"native", cs_set_native, 0, 0, NULL},
    {"hull", cs_set_hull, 0, 0, NULL},
    {"rules", cs_set_rules, 0, 0, NULL},
};
static const cs_section cs_alltoall_section = {"alltoall", cs_alltoall_keys, CS_NKEYS(cs_alltoall_keys)};
static const cs_section cs_allreduce_section = {"allreduce", cs_coll_keys, CS_NKEYS(cs_coll_keys)};
static const cs_section cs_reduce_section = {"reduce", cs_coll_keys, CS_NKEYS(cs_coll_keys)};

/* The log keys set fields of cs_config itself (off 0 from the log section). */
static const cs_key cs_log_keys[] = {
    {"level", cs_set_level, 0, 0, NULL},
    {"file", cs_set_log_file, 0, 0, NULL},
    {"ranks", cs_set_ranks, 0, 0, NULL},
};
static const cs_section cs_log_section = {"log", cs_log_keys, CS_NKEYS(cs_log_keys)};

static int cs_set_window_method(cs_yaml *y, const cs_key *key, yaml_node_t *value, void *obj, const char *path)
{
    cs_config *cfg = obj;

    CS_YAML_PARSE(y, value, path, "auto or a window method",
                  cs_cfg_parse_window_method(s, &cfg->coll[CS_COLL_WINDOW], why, sizeof why));
    return 0;
}

/* The window keys set fields of cs_config itself, like the log keys. */
static const cs_key cs_window_keys[] = {
    {"method", cs_set_window_method, 0, 0, NULL},
};
static const cs_section cs_window_section = {"window", cs_window_keys, CS_NKEYS(cs_window_keys)};

static const cs_key cs_top_keys[] = {
    {"model", cs_set_section, offsetof(cs_config, model), 0, &cs_model_section},
    {"alltoall", cs_set_coll_section, offsetof(cs_config, coll[CS_COLL_ALLTOALL]), CS_COLL_ALLTOALL,
     &cs_alltoall_section},
    {"allreduce", cs_set_coll_section, offsetof(cs_config, coll[CS_COLL_ALLREDUCE]), CS_COLL_ALLREDUCE,
     &cs_allreduce_section},
    {"reduce", cs_set_coll_section, offsetof(cs_config, coll[CS_COLL_REDUCE]), CS_COLL_REDUCE, &cs_reduce_section},
    {"log", cs_set_section, 0, 0, &cs_log_section},
    {"window", cs_set_section, 0, 0, &cs_window_section},
    {"strict", cs_set_bool, offsetof(cs_config, strict), 0, NULL},
    {"reproducible", cs_set_bool, offsetof(cs_config, reproducible), 0, NULL},
};
const cs_section cs_config_schema = {"the top level", cs_top_keys, CS_NKEYS(cs_top_keys)};
