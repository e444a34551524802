/*
 * A row priced on a node map (coll.h, cs_alg_price_map: uneven nodes, or a
 * row whose closed form sees one level): every rank's schedule built, and
 * the event pricer run on the map.
 */
#include <stdlib.h>

#include "coll/coll.h"
#include "sched/pricer.h"

double cs_alg_price_map(const cs_alg *alg, const cs_model *model, const cs_problem *prob, const cs_params *params)
{
    const int p = prob->p;
    double t = -1.0;
    if (!alg->build || !prob->node || p < 1)
        return -1.0;
    cs_sched *s = calloc((size_t)p, sizeof *s);
    if (!s)
        return -1.0;
    int r = 0;
    for (; r < p; r++) {
        cs_sched_init(&s[r]);
        if (alg->build(prob, params, r, &s[r]) != 0)
            break;
    }
    if (r == p)
        t = cs_price_critical_path_map(model, s, p, prob->node, prob->nodes, NULL);
    for (int i = 0; i < p; i++)
        cs_sched_free(&s[i]);
    free(s);
    return t;
}
