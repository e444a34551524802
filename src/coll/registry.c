/*
 * The algorithm tables, native first. A new algorithm is one file and one
 * row here.
 */
#include <stdio.h>
#include <string.h>

#include "coll/coll.h"

extern const cs_alg cs_alltoall_direct;
extern const cs_alg cs_alltoall_multiphase;
extern const cs_alg cs_alltoall_standard;
extern const cs_alg cs_alltoall_bruck;
extern const cs_alg cs_alltoall_linear;
extern const cs_alg cs_allreduce_butterfly;
extern const cs_alg cs_allreduce_elimination;
extern const cs_alg cs_allreduce_ring;
extern const cs_alg cs_allreduce_windowed;
extern const cs_alg cs_allreduce_linear;
extern const cs_alg cs_reduce_butterfly;
extern const cs_alg cs_reduce_binomial;
extern const cs_alg cs_reduce_knomial;
extern const cs_alg cs_reduce_elimination;
extern const cs_alg cs_reduce_ring;
extern const cs_alg cs_allreduce_leader;
extern const cs_alg cs_reduce_leader;
extern const cs_alg cs_allreduce_multileader;
extern const cs_alg cs_alltoall_leader;
extern const cs_alg cs_window_recursive;
extern const cs_alg cs_window_prefix_suffix;
extern const cs_alg cs_window_prefix_suffix_inverse;
extern const cs_alg cs_window_block_prefix_suffix;
extern const cs_alg cs_window_block_differences;

static const cs_alg cs_native[CS_COLL_LAST] = {
    [CS_COLL_ALLTOALL] = {.name = "native", .description = "the MPI library's MPI_Alltoall", .coll = CS_COLL_ALLTOALL},
    [CS_COLL_ALLREDUCE] = {.name = "native",
                           .description = "the MPI library's MPI_Allreduce",
                           .coll = CS_COLL_ALLREDUCE},
    [CS_COLL_REDUCE] = {.name = "native", .description = "the MPI library's MPI_Reduce", .coll = CS_COLL_REDUCE},
};

/* multiphase before standard: at equal cost ({1,...,1}) the hull's choice is logged. */
static const cs_alg *const cs_alltoall_table[] = {
    &cs_native[CS_COLL_ALLTOALL], &cs_alltoall_direct, &cs_alltoall_multiphase, &cs_alltoall_standard,
    &cs_alltoall_bruck,           &cs_alltoall_linear, &cs_alltoall_leader};
static const cs_alg *const cs_allreduce_table[] = {
    &cs_native[CS_COLL_ALLREDUCE], &cs_allreduce_butterfly, &cs_allreduce_elimination, &cs_allreduce_ring,
    &cs_allreduce_windowed,        &cs_allreduce_linear,    &cs_allreduce_leader,      &cs_allreduce_multileader};
static const cs_alg *const cs_reduce_table[] = {&cs_native[CS_COLL_REDUCE], &cs_reduce_butterfly, &cs_reduce_binomial,
                                                &cs_reduce_elimination,     &cs_reduce_ring,      &cs_reduce_knomial,
                                                &cs_reduce_leader};
/* The extension API: no library version; the first row runs every call. */
static const cs_alg *const cs_window_table[] = {&cs_window_recursive, &cs_window_prefix_suffix,
                                                &cs_window_prefix_suffix_inverse};
static const cs_alg *const cs_window_block_table[] = {&cs_window_block_prefix_suffix, &cs_window_block_differences};

#define CS_ROWS(t) (t), (int)(sizeof(t) / sizeof((t)[0]))

/*
 * Largest messages: alltoall phases carry up to p/2 blocks; a whole ring
 * gathered by Bruck's concatenation sends up to (f - 1)/2 <= 3 vectors; a
 * window message packs up to three; the block exchange sends at most the
 * slice.
 */
static const cs_collective cs_collectives[CS_COLL_COUNT] = {
    [CS_COLL_ALLTOALL] = {CS_COLL_ALLTOALL, CS_ROWS(cs_alltoall_table), 1, 1, 1.0, 1},
    [CS_COLL_ALLREDUCE] = {CS_COLL_ALLREDUCE, CS_ROWS(cs_allreduce_table), 1, 1, 4.0, 0},
    [CS_COLL_REDUCE] = {CS_COLL_REDUCE, CS_ROWS(cs_reduce_table), 1, 1, 4.0, 0},
    [CS_COLL_WINDOW] = {CS_COLL_WINDOW, CS_ROWS(cs_window_table), 0, 0, 3.0, 0},
    [CS_COLL_WINDOW_BLOCK] = {CS_COLL_WINDOW_BLOCK, CS_ROWS(cs_window_block_table), 0, 0, 1.0, 0},
};

const cs_collective *cs_collective_of(cs_coll coll)
{
    return &cs_collectives[coll];
}

double cs_collective_largest_message(const cs_problem *prob)
{
    const cs_collective *c = &cs_collectives[prob->coll];
    return (double)prob->bytes * c->blocks_per_message * (c->blocks_times_p ? (double)prob->p : 1.0);
}

const cs_alg *const *cs_alg_table(cs_coll coll, int *n)
{
    if ((unsigned)coll >= CS_COLL_COUNT) {
        *n = 0;
        return NULL;
    }
    *n = cs_collectives[coll].nalgs;
    return cs_collectives[coll].table;
}

const cs_alg *cs_alg_native(cs_coll coll)
{
    return cs_collectives[coll].table[0];
}

void cs_params_init(cs_params *params)
{
    memset(params, 0, sizeof(*params));
    params->b = -1;
    params->k = -1;
    params->rmax = -1;
    params->radix = -1;
    params->levels = -1;
    params->window = -1;
}

const cs_alg *cs_alg_lookup(cs_coll coll, const char *spec, cs_params *params, const char **why)
{
    const char *colon = strchr(spec, ':');
    const size_t len = colon ? (size_t)(colon - spec) : strlen(spec);
    int n;
    const cs_alg *const *table = cs_alg_table(coll, &n);

    cs_params_init(params);
    for (int i = 0; i < n; i++) {
        if (strlen(table[i]->name) != len || strncmp(table[i]->name, spec, len))
            continue;
        if (!colon)
            return table[i];
        if (!table[i]->parse) {
            *why = "this algorithm takes no parameters";
            return NULL;
        }
        if (table[i]->parse(colon + 1, params)) {
            *why = table[i]->syntax ? table[i]->syntax : "bad parameters";
            return NULL;
        }
        return table[i];
    }
    *why = "unknown algorithm";
    return NULL;
}

void cs_alg_spec(const cs_alg *alg, const cs_params *params, char *buf, size_t size)
{
    int n = snprintf(buf, size, "%s", alg->name);
    if (alg->format && n > 0 && (size_t)n + 1 < size) {
        buf[n] = ':';
        if (alg->format(params, buf + n + 1, size - (size_t)n - 1) <= 0)
            buf[n] = '\0';
    }
}
