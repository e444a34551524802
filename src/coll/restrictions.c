/*
 * The restrictions of the rows (CS_REQ_*), as data: whether a row can run
 * a problem, and why not in words, as decisions and the log give it.
 */
#include "coll/coll.h"
#include "coll/compose/compose.h"

static const struct {
    unsigned flag;
    const char *words;
} cs_restrictions[] = {
    {CS_REQ_POW2, "needs p a power of two"},
    {CS_REQ_COMMUTATIVE, "needs a commutative operator"},
    {CS_REQ_EXACT, "needs an exact type and operator"},
    {CS_REQ_CONTIG, "needs a contiguous datatype"},
    {CS_REQ_NOT_POW2, "is for p not a power of two"},
    {CS_REQ_SMALL_ODD, "needs an odd factor 3, 5 or 7 in p"},
    {CS_REQ_PARTITION, "needs parts that sum to log2 p"},
    {CS_REQ_INVERSE, "needs an operator with an exact inverse"},
    {CS_REQ_FACTORS, "needs factors whose product is p"},
    {CS_REQ_NODES, "needs a node map of more than one node and fewer nodes than ranks (alltoall: a node's "
                   "blocks within INT_MAX bytes)"},
    {CS_REQ_NODE_ORDER, "needs a commutative operator where a node's ranks are not consecutive"},
    {CS_REQ_NODE_EVEN, "needs nodes that all hold the same number of ranks"},
};

const char *cs_alg_restriction_words(unsigned flag)
{
    for (size_t i = 0; i < sizeof(cs_restrictions) / sizeof(cs_restrictions[0]); i++)
        if (cs_restrictions[i].flag == flag)
            return cs_restrictions[i].words;
    return NULL;
}

/* given: parameters fixed in advance (a forced "name:args"), or NULL when
 * the algorithm's tune will choose them. */
static int cs_restriction_holds(unsigned flag, const cs_problem *prob, const cs_params *given)
{
    switch (flag) {
    case CS_REQ_POW2: return (prob->p & (prob->p - 1)) == 0;
    case CS_REQ_COMMUTATIVE: return (prob->flags & CS_PROB_COMMUTATIVE) != 0;
    case CS_REQ_EXACT: return (prob->flags & CS_PROB_EXACT) != 0;
    case CS_REQ_CONTIG: return (prob->flags & CS_PROB_CONTIG) != 0;
    case CS_REQ_INVERSE: return (prob->flags & CS_PROB_INVERSE) != 0;
    case CS_REQ_NOT_POW2: return (prob->p & (prob->p - 1)) != 0;
    case CS_REQ_SMALL_ODD: return prob->p % 3 == 0 || prob->p % 5 == 0 || prob->p % 7 == 0;
    case CS_REQ_PARTITION: return !given || cs_params_parts_fit(given, prob->p);
    case CS_REQ_FACTORS: return !given || cs_params_factors_fit(given, prob->p);
    case CS_REQ_NODES: return cs_compose_applies(prob);
    case CS_REQ_NODE_ORDER: return (prob->flags & (CS_PROB_COMMUTATIVE | CS_PROB_NODE_RANGES)) != 0;
    case CS_REQ_NODE_EVEN: return cs_compose_even(prob);
    default: return 0;
    }
}

const char *cs_alg_restriction_given(const cs_alg *alg, const cs_problem *prob, const cs_params *given)
{
    for (size_t i = 0; i < sizeof(cs_restrictions) / sizeof(cs_restrictions[0]); i++)
        if ((alg->requires & cs_restrictions[i].flag) && !cs_restriction_holds(cs_restrictions[i].flag, prob, given))
            return cs_restrictions[i].words;
    return NULL;
}

const char *cs_alg_restriction(const cs_alg *alg, const cs_problem *prob)
{
    return cs_alg_restriction_given(alg, prob, NULL);
}
