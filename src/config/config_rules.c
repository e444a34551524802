/*
 * <coll>.rules: the measured rules of a collective (collshim-calibrate
 * writes them), one mapping per rule, checked against their own small
 * schema.
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "config/config.h"
#include "config/config_internal.h"
#include "config/config_yaml.h"

/* ---- <coll>.rules --------------------------------------------------------- */

/* p: [lo, hi], communicator sizes from 1, inf as the upper bound. */
static int cs_set_rule_p(cs_yaml *y, const cs_key *key, yaml_node_t *value, void *obj, const char *path)
{
    cs_rule *rule = obj;
    cs_range r;
    if (cs_yaml_range(y, value, path, &r) != 0)
        return -1;
    if (r.lo < 1 || r.lo > INT_MAX || (r.hi != SIZE_MAX && r.hi > INT_MAX))
        return cs_yaml_fail_at(y, value->start_mark, "%s: communicator sizes run from 1 to %d (or inf)", path, INT_MAX);
    rule->p_lo = (int)r.lo;
    rule->p_hi = r.hi == SIZE_MAX ? INT_MAX : (int)r.hi;
    return 0;
}

static int cs_set_rule_bytes(cs_yaml *y, const cs_key *key, yaml_node_t *value, void *obj, const char *path)
{
    return cs_yaml_range(y, value, path, &((cs_rule *)obj)->bytes);
}

static int cs_set_rule_algorithm(cs_yaml *y, const cs_key *key, yaml_node_t *value, void *obj, const char *path)
{
    cs_rule *rule = obj;
    CS_YAML_PARSE(y, value, path, "auto, native or an algorithm name",
                  cs_cfg_parse_pick(y->coll, s, &rule->choice, &rule->alg, &rule->params, why, sizeof why));
    return 0;
}

static const cs_key cs_rule_keys[] = {
    {"p", cs_set_rule_p, 0, 0, NULL},
    {"bytes", cs_set_rule_bytes, 0, 0, NULL},
    {"algorithm", cs_set_rule_algorithm, 0, 0, NULL},
};
static const cs_section cs_rule_section = {"a rule", cs_rule_keys, sizeof cs_rule_keys / sizeof cs_rule_keys[0]};

/* One rule: a mapping with p and algorithm (bytes: every size if not given). */
static int cs_yaml_rule(cs_yaml *y, yaml_node_t *item, const char *path, cs_rule *rule)
{
    *rule = (cs_rule){.bytes = {0, SIZE_MAX}, .choice = (cs_choice)-1, .line = (int)item->start_mark.line + 1};
    cs_params_init(&rule->params);
    if (item->type != YAML_MAPPING_NODE)
        return cs_yaml_fail_at(y, item->start_mark,
                               "%s: expected a rule {p: [lo, hi], bytes: [lo, hi], algorithm: NAME}, got %s", path,
                               cs_yaml_kind(item));
    if (cs_yaml_mapping(y, item, &cs_rule_section, rule, path) != 0)
        return -1;
    if (rule->p_lo == 0)
        return cs_yaml_fail_at(y, item->start_mark, "%s: a rule needs p: [lo, hi]", path);
    if (rule->choice == (cs_choice)-1)
        return cs_yaml_fail_at(y, item->start_mark, "%s: a rule needs an algorithm", path);
    return 0;
}

int cs_set_rules(cs_yaml *y, const cs_key *key, yaml_node_t *value, void *obj, const char *path)
{
    cs_coll_config *cc = obj;
    int n = 0;

    if (!cs_yaml_is_null(value) && value->type != YAML_SEQUENCE_NODE)
        return cs_yaml_fail_at(y, value->start_mark, "%s: expected a list of rules, got %s", path, cs_yaml_kind(value));
    if (value->type == YAML_SEQUENCE_NODE) {
        for (yaml_node_item_t *it = value->data.sequence.items.start; it < value->data.sequence.items.top; it++, n++) {
            yaml_node_t *item = cs_yaml_node(y, *it);
            char child[CS_PATH_LEN];

            cs_path_index(child, path, (size_t)n);
            if (n == CS_MAX_RULES)
                return cs_yaml_fail_at(y, item->start_mark, "%s: more than %d rules", path, CS_MAX_RULES);
            if (cs_yaml_rule(y, item, child, &cc->rules[n]) != 0)
                return -1;
        }
    }
    cc->nrules = n;
    return 0;
}
