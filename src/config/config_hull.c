/*
 * alltoall.hull: for some p, the hull's faces (first block size and
 * multiphase partition) given instead of the model's.
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "config/config.h"
#include "config/config_internal.h"
#include "config/config_yaml.h"

/* ---- alltoall.hull -------------------------------------------------------- */

/* "p: [[first, "parts"], ...]": p a power of two, 2 .. 2^30. */
static int cs_yaml_hull_p(cs_yaml *y, yaml_node_t *key, const char *path, int *d)
{
    int p;
    CS_YAML_PARSE(y, key, path, "a communicator size", cs_cfg_parse_rank(s, &p, why, sizeof why));
    for (*d = 1; *d <= CS_HULL_MAX_D && (1 << *d) != p; (*d)++)
        ;
    if (*d > CS_HULL_MAX_D)
        return cs_yaml_fail_at(y, key->start_mark, "%s: p must be a power of two from 2 to 2^%d, got %s", path,
                               CS_HULL_MAX_D, cs_yaml_str(key));
    return 0;
}

/* The partition of one face: multiphase's arguments, summing to d. */
static int cs_yaml_hull_parts(cs_yaml *y, yaml_node_t *node, const char *path, int d, cs_hull_given_face *f)
{
    char spec[CS_WHY_LEN];
    const char *why = NULL, *s = cs_yaml_scalar(y, node, path, "a partition such as \"2,2,1\"");
    cs_params params;
    int sum = 0;
    if (!s)
        return -1;
    /* Too long for spec: a truncated copy could parse as another partition. */
    if ((size_t)snprintf(spec, sizeof spec, "multiphase:%s", s) >= sizeof spec ||
        !cs_alg_lookup(CS_COLL_ALLTOALL, spec, &params, &why))
        return cs_yaml_fail_at(y, node->start_mark, "%s: expected a partition such as \"2,2,1\", got '%.40s'", path, s);
    for (int i = 0; i < params.nparts; i++)
        sum += params.parts[i];
    if (sum != d)
        return cs_yaml_fail_at(y, node->start_mark, "%s: '%.40s' is not a partition of log2 p = %d", path, s, d);
    f->nparts = (unsigned char)params.nparts;
    for (int i = 0; i < params.nparts; i++)
        f->parts[i] = (unsigned char)params.parts[i];
    return 0;
}

/* One "[first, parts]" face; firsts start at 0 and increase. */
static int cs_yaml_hull_face(cs_yaml *y, yaml_node_t *item, const char *path, cs_hull_given *g)
{
    char child[CS_PATH_LEN];
    yaml_node_item_t *items = item->data.sequence.items.start;
    cs_hull_given_face *f = &g->face[g->nfaces];

    if (item->type != YAML_SEQUENCE_NODE || item->data.sequence.items.top - items != 2)
        return cs_yaml_fail_at(y, item->start_mark, "%s: expected a face [first block size, \"parts\"], got %s", path,
                               item->type == YAML_SEQUENCE_NODE ? "a list of another length" : cs_yaml_kind(item));
    cs_path_index(child, path, 0);
    if (cs_yaml_size(y, cs_yaml_node(y, items[0]), child, 0, &f->first) != 0)
        return -1;
    if (g->nfaces == 0 && f->first != 0)
        return cs_yaml_fail_at(y, item->start_mark, "%s: the first face must start at 0, not %zu", path, f->first);
    if (g->nfaces > 0 && f->first <= g->face[g->nfaces - 1].first)
        return cs_yaml_fail_at(y, item->start_mark, "%s: block sizes must increase, %zu after %zu", path, f->first,
                               g->face[g->nfaces - 1].first);
    cs_path_index(child, path, 1);
    if (cs_yaml_hull_parts(y, cs_yaml_node(y, items[1]), child, g->d, f) != 0)
        return -1;
    g->nfaces++;
    return 0;
}

static int cs_yaml_hull_faces(cs_yaml *y, yaml_node_t *value, const char *path, cs_hull_given *g)
{
    if (value->type != YAML_SEQUENCE_NODE || value->data.sequence.items.start == value->data.sequence.items.top)
        return cs_yaml_fail_at(y, value->start_mark,
                               "%s: expected a list of faces [first block size, \"parts\"], got %s", path,
                               value->type == YAML_SEQUENCE_NODE ? "an empty list" : cs_yaml_kind(value));
    for (yaml_node_item_t *it = value->data.sequence.items.start; it < value->data.sequence.items.top; it++) {
        yaml_node_t *item = cs_yaml_node(y, *it);
        char child[CS_PATH_LEN];
        cs_path_index(child, path, (size_t)g->nfaces);
        if (g->nfaces == CS_HULL_MAX_FACES)
            return cs_yaml_fail_at(y, item->start_mark, "%s: more than %d faces", path, CS_HULL_MAX_FACES);
        if (cs_yaml_hull_face(y, item, child, g) != 0)
            return -1;
    }
    return 0;
}

/* alltoall.hull: for some p, the hull's faces instead of the model's. */
int cs_set_hull(cs_yaml *y, const cs_key *key, yaml_node_t *value, void *obj, const char *path)
{
    cs_coll_config *cc = obj;
    cs_hull_given hull[CS_MAX_HULLS];
    int n = 0;

    if (cs_yaml_is_null(value)) {
        cc->nhulls = 0;
        return 0;
    }
    if (value->type != YAML_MAPPING_NODE)
        return cs_yaml_fail_at(y, value->start_mark, "%s: expected a mapping of p to faces, got %s", path,
                               cs_yaml_kind(value));
    for (yaml_node_pair_t *pair = value->data.mapping.pairs.start; pair < value->data.mapping.pairs.top; pair++) {
        yaml_node_t *k = cs_yaml_node(y, pair->key);
        char child[CS_PATH_LEN];
        snprintf(child, sizeof child, "%s.%s", path, k->type == YAML_SCALAR_NODE ? cs_yaml_str(k) : "?");
        if (n == CS_MAX_HULLS)
            return cs_yaml_fail_at(y, k->start_mark, "%s: more than %d communicator sizes", path, CS_MAX_HULLS);
        hull[n] = (cs_hull_given){.nfaces = 0};
        if (cs_yaml_hull_p(y, k, child, &hull[n].d) != 0)
            return -1;
        for (int i = 0; i < n; i++)
            if (hull[i].d == hull[n].d)
                return cs_yaml_fail_at(y, k->start_mark, "%s: p given twice", child);
        if (cs_yaml_hull_faces(y, cs_yaml_node(y, pair->value), child, &hull[n]) != 0)
            return -1;
        n++;
    }
    memcpy(cc->hull, hull, (size_t)n * sizeof hull[0]);
    cc->nhulls = n;
    return 0;
}
