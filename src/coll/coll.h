/*
 * The collectives and their algorithm tables: one row per algorithm, one
 * table and one descriptor (cs_collective) per collective. Adding an
 * algorithm is one file in src/coll/<collective>/ and one row in
 * src/coll/registry.c.
 */
#ifndef CS_COLL_H
#define CS_COLL_H

#include "common.h"
#include "sched/sched.h"

/* Restrictions, as data; src/select/ checks them in one place. */
enum {
    CS_REQ_POW2 = 1u << 0,        /* p is a power of two */
    CS_REQ_COMMUTATIVE = 1u << 1, /* the operator is commutative */
    CS_REQ_EXACT = 1u << 2,       /* the result may not depend on operand order */
    CS_REQ_CONTIG = 1u << 3,      /* contiguous datatypes */
    CS_REQ_NOT_POW2 = 1u << 4,    /* p is not a power of two (the butterfly's domain otherwise) */
    CS_REQ_SMALL_ODD = 1u << 5,   /* p has an odd factor 3, 5 or 7 */
    CS_REQ_PARTITION = 1u << 6,   /* parts given in advance sum to log2 p (cs_params_parts_fit) */
    CS_REQ_INVERSE = 1u << 7,     /* the operator has an exact inverse (CS_PROB_INVERSE) */
    CS_REQ_FACTORS = 1u << 8,     /* factors given in advance multiply to p (cs_params_factors_fit) */
    CS_REQ_NODES = 1u << 9,       /* a node map (cs_problem.node) with 1 < nodes < p: compositions */
    CS_REQ_NODE_ORDER = 1u << 10, /* each node's ranks consecutive (CS_PROB_NODE_RANGES), or commutative */
    CS_REQ_NODE_EVEN = 1u << 11   /* every node holds the same number of ranks */
};

/* cs_alg.critical_path */
enum { CS_PATH_SUM = 0, CS_PATH_EXACT = 1 };

#define CS_MAX_PARTS 32

/* Parameters of one algorithm for one call. */
typedef struct cs_params {
    long long b; /* butterfly: halving threshold in bytes; < 0: the model decides */
    int k;       /* butterfly: halving rounds of this call (derived); elimination, ring: split stages */
    int rmax;    /* ring: odd prime factors up to rmax run as rings; < 0: the model decides */
    int nparts;  /* multiphase: the partition of d, or with factors set the factors of p */
    int parts[CS_MAX_PARTS];
    int factors; /* multiphase: parts[] are radices k_i with p = k_1 k_2 .. (4x4x6), not bits */
    int radix;   /* bruck, knomial: the radix r >= 2; < 0: the model decides */
    int levels;  /* knomial: rounds L >= 1, for the least radix with r^L >= p (tune sets radix); < 0: none */
    int window;  /* linear: blocks per batch, a wait between batches (MPICH's throttle, 32); < 0: all at once */
    /* multiphase, derived when the hull chose the parts: the block sizes
     * face_lo..face_hi (bytes, inclusive; SIZE_MAX: no bound) of the hull's
     * face; face_src 0: parts given, 1: the model's hull, 2: the configured one. */
    size_t face_lo, face_hi;
    int face_src;
    /* compositions (src/coll/compose/): the leaders' row, its index in the
     * table (0: not tuned; its parameters are the fields above), and the
     * node tree's radix; the leader rows' node level (CS_NODE_*) */
    int sub, node_radix, node_level;
} cs_params;

void cs_params_init(cs_params *params);

/* Do the parts of params (if any were given, as a partition) partition log2 p? */
static inline int cs_params_parts_fit(const cs_params *params, int p)
{
    int d = 0, sum = 0;
    while (d < 30 && (1 << d) < p)
        d++;
    for (int i = 0; i < params->nparts; i++)
        sum += params->parts[i];
    return params->nparts == 0 || params->factors || ((1 << d) == p && sum == d);
}

/* Do the factors of params (if any were given, as factors) multiply to p? */
static inline int cs_params_factors_fit(const cs_params *params, int p)
{
    long long product = 1;
    for (int i = 0; i < params->nparts && product <= p; i++)
        product *= params->parts[i];
    return !params->factors || product == p;
}

typedef struct cs_alg {
    const char *name;
    const char *description;
    cs_coll coll;
    unsigned requires; /* CS_REQ_* */
    /* Parse "args" of "name:args"; NULL: the algorithm takes none. 0 on success. */
    int (*parse)(const char *args, cs_params *params);
    /* Optional: what parse accepts, in words, for the error when it rejects. */
    const char *syntax;
    /* Fill the per-call parameters that were not given; NULL: none. */
    void (*tune)(const cs_model *model, const cs_problem *prob, cs_params *params);
    /* Tune and price in one (NULL: tune, then cost), for rows whose price is
     * dear: the price; or, where the row cannot be cheaper than stop, a
     * price at or above stop (the parameters then any); -1 where it did not
     * price (parameters given: cost prices them). */
    double (*tune_priced)(const cs_model *model, const cs_problem *prob, cs_params *params, double stop);
    /* The closed-form cost in seconds; NULL for native (unknown to the model). */
    double (*cost)(const cs_model *model, const cs_problem *prob, const cs_params *params);
    /* Optional, for rows whose price is dear: cost, or where the row cannot
     * be cheaper than stop, a price at or above it (cs_alg_cost_within). */
    double (*cost_within)(const cs_model *model, const cs_problem *prob, const cs_params *params, double stop);
    /* The schedule of one rank; NULL for native. Returns an MPI error code. */
    int (*build)(const cs_problem *prob, const cs_params *params, int rank, cs_sched *s);
    /* Write the parameters as "k=2,b=4096" (empty if none); returns the length. */
    int (*format)(const cs_params *params, char *buf, size_t size);
    /* Optional, for the log: the plan in words, e.g. "butterfly 2x2 (split 2), ring 3, elimination 5". */
    int (*describe)(const cs_problem *prob, const cs_params *params, char *buf, size_t size);
    /* Optional, for the log's reason: how the tuning chose the parameters,
     * e.g. "; hull face 64..4095 B (model)"; returns the length. */
    int (*explain)(const cs_params *params, char *buf, size_t size);
    /* Optional: the row that runs in its place when it is forced on a call
     * it cannot run (prefix-suffix for prefix-suffix-inverse); NULL: the
     * model chooses among the others. */
    const struct cs_alg *instead;
    /* Optional: parameters collshim-calibrate also times, each as a path of
     * its own ("r=8", NULL-terminated), where the model cannot choose them
     * (a radix that pays off when a node takes several messages at once). */
    const char *const *measured;
    /* CS_PATH_EXACT: cost is the critical path of the schedules build makes,
     * as the event pricer finds it (sched/pricer.h; the pricer suite checks
     * it for every p up to 64 and more); CS_PATH_SUM: the slowest rank's sum
     * over its rounds, an estimate that cannot see a rank waiting for another
     * (the engine's elimination, rings and one-way reduce; pricing those by
     * the pricer took 5 to 13 s for a first decision at p = 96). */
    int critical_path;
    /* Nonzero: the model prices it (the log, collshim-calibrate's timings
     * and its error) but never chooses it: only a forced choice or a
     * measured rule runs it, where its price lacks what decides it on
     * some machines (the linear allreduce: a node's link shared by its
     * ranks, a path of several hops). */
    int rules_only;
    /* Nonzero: its closed form sees one level, so on a node map the event
     * pricer prices it wherever it prices maps (cs_alg_priced_on_map). */
    int one_level;
} cs_alg;

/*
 * What collshim knows of a collective, in one place: its table, whether
 * the MPI library has it, how its decisions are cached, its largest
 * message. The shim's side (how a call is described, run and logged) is
 * src/shim/collectives.c.
 */
typedef struct cs_collective {
    cs_coll coll; /* named by cs_coll_name: in the log, the configuration, COLLSHIM_<NAME> */
    const cs_alg *const *table;
    int nalgs;
    /* table[0]: the MPI library's collective (native), or, for the
     * extension API, ours that runs every call (the fallback). */
    int native;
    /* The model's choice depends on the size and the variant only, so it
     * is kept as breakpoints per communicator (not for the windows: n, r). */
    int breakpoints;
    /* The largest message any of its schedules sends, in units of prob->bytes
     * (alltoall: times p); the executor counts bytes in an int. */
    double blocks_per_message;
    int blocks_times_p;
} cs_collective;

const cs_collective *cs_collective_of(cs_coll coll);

/* Rows priced on a node map by the event pricer up to this many ranks: a
 * communicator's first decision prices each row at every breakpoint sample,
 * and an alltoall's schedules hold p - 1 messages a rank (on 2 cores, first
 * decisions on a round-robin map: reductions 0.1 to 0.3 s up to 128 ranks;
 * alltoall 0.3 s at 32 ranks, 2 s at 64). */
enum { CS_MAP_PRICED_MAX = 128, CS_MAP_PRICED_ALLTOALL_MAX = 32 };

/* Is prob within the sizes the event pricer prices maps at? */
static inline int cs_map_priced_size(const cs_problem *prob)
{
    return prob->p <= (prob->coll == CS_COLL_ALLTOALL ? CS_MAP_PRICED_ALLTOALL_MAX : CS_MAP_PRICED_MAX);
}

/* Is a row of prob, on a map of uneven nodes, priced by the event pricer? */
static inline int cs_alg_map_priced(const cs_model *model, const cs_problem *prob)
{
    return cs_model_map_uneven(model, prob) && cs_map_priced_size(prob);
}

/* Could the event pricer price prob on its map of blocks of several ranks
 * a node (within its sizes), for a row whose closed form cannot see them? */
static inline int cs_alg_blocks_on_map(const cs_model *model, const cs_problem *prob)
{
    return prob->node && prob->ppn > 1 && prob->ppn < prob->p && cs_model_nodes(model, prob) &&
           cs_map_priced_size(prob);
}

/* Is prob a communicator of one rank a node that shares its nodes' links
 * with others like it (a column of a process grid, cs_problem.share), within
 * the pricer's sizes, and the row's closed form the slowest rank's sum
 * (CS_PATH_SUM) rather than the critical path? Such a sum misses the waits
 * that the shared links lengthen: the lab's column of 6, reduce of 4 KiB by
 * elimination, 9.6 us by the sum, 12.8 by the pricer, 13.3 measured. */
static inline int cs_alg_column_on_map(const cs_alg *alg, const cs_model *model, const cs_problem *prob)
{
    return alg->critical_path == CS_PATH_SUM && !(alg->requires & CS_REQ_NODES) && prob->node && prob->ppn == 1 &&
           prob->share > 1 && cs_model_nodes(model, prob) && cs_map_priced_size(prob);
}

/* Is this row of prob priced by the event pricer on the node map: on a map
 * of uneven nodes, or on blocks of several ranks a node for a row whose
 * closed form sees one level (cs_alg.one_level; one rank a node is one
 * level, cs_model_one_level), or a column's row whose closed form is a sum
 * (cs_alg_column_on_map), up to cs_alg_map_priced's sizes? */
static inline int cs_alg_priced_on_map(const cs_alg *alg, const cs_model *model, const cs_problem *prob)
{
    return cs_alg_map_priced(model, prob) || (alg->one_level && cs_alg_blocks_on_map(model, prob)) ||
           cs_alg_column_on_map(alg, model, prob);
}

/* A row on a node map that is not blocks of one size (cs_model_map_uneven),
 * which its closed form does not see: the critical path of its schedules
 * on the map (sched/pricer.h), built for every rank (price_map.c); -1 where
 * it is not so priced (no schedules, not cs_alg_map_priced, no memory): the
 * closed form then prices it as one level. It allocates: a communicator's
 * decisions are made once and kept. */
double cs_alg_price_map(const cs_alg *alg, const cs_model *model, const cs_problem *prob, const cs_params *params);

/* The problem a flat row's closed form prices on a map of uneven nodes that
 * the event pricer does not price (beyond cs_alg_map_priced's sizes): where
 * rank r is on node r / b for every r (blocks of b, the last node part
 * full, as mpiexec places a p that b does not divide), prob with ppn b,
 * whose closed forms find each rank's node so; otherwise prob as it is
 * (one level). The compositions price such maps themselves. O(p). */
static inline cs_problem cs_alg_map_shape(const cs_alg *alg, const cs_model *model, const cs_problem *prob)
{
    cs_problem shaped = *prob;
    if ((alg->requires & CS_REQ_NODES) || !cs_model_map_uneven(model, prob))
        return shaped;
    int b = 1;
    while (b < prob->p && prob->node[b] == 0)
        b++;
    for (int r = b; r < prob->p; r++)
        if (prob->node[r] != r / b)
            return shaped;
    shaped.ppn = b;
    return shaped;
}

/* The cost of a row with its parameters: cs_alg_price_map's on a map of
 * uneven nodes where it prices, else the closed form's (cs_alg_map_shape). */
static inline double cs_alg_cost_on_map(const cs_alg *alg, const cs_model *model, const cs_problem *prob,
                                        const cs_params *params)
{
    const double on_map = cs_alg_priced_on_map(alg, model, prob) ? cs_alg_price_map(alg, model, prob, params) : -1.0;
    if (on_map >= 0.0)
        return on_map;
    const cs_problem shaped = cs_alg_map_shape(alg, model, prob);
    return alg->cost(model, &shaped, params);
}

/* The cost of a row with its parameters, or a price at or above stop where
 * it cannot be cheaper (a row with cost_within stops pricing there); on a
 * map of uneven nodes, cs_alg_price_map's where it prices, else the closed
 * form's (cs_alg_map_shape). */
static inline double cs_alg_cost_within(const cs_alg *alg, const cs_model *model, const cs_problem *prob,
                                        const cs_params *params, double stop)
{
    const double on_map = cs_alg_priced_on_map(alg, model, prob) ? cs_alg_price_map(alg, model, prob, params) : -1.0;
    if (on_map >= 0.0)
        return on_map;
    const cs_problem shaped = cs_alg_map_shape(alg, model, prob);
    return alg->cost_within ? alg->cost_within(model, &shaped, params, stop) : alg->cost(model, &shaped, params);
}

/* One CS_REQ_* flag in words, as decisions give it ("needs p a power of two"); NULL if unknown. */
const char *cs_alg_restriction_words(unsigned flag);

/* NULL if the algorithm can run the problem, else its restriction in words. */
const char *cs_alg_restriction(const cs_alg *alg, const cs_problem *prob);

/* The same for parameters given in advance (a forced "name:args"): also
 * whether they fit the call (CS_REQ_PARTITION). */
const char *cs_alg_restriction_given(const cs_alg *alg, const cs_problem *prob, const cs_params *given);

/* A bound on the largest message of a call's schedules, in bytes. */
double cs_collective_largest_message(const cs_problem *prob);

/* The table of a collective, native (or the fallback) first; *n gets its length. */
const cs_alg *const *cs_alg_table(cs_coll coll, int *n);

/* The first row of a collective: the MPI library's own algorithm, or the
 * extension API's fallback (cs_collective.native). */
const cs_alg *cs_alg_native(cs_coll coll);

/*
 * Look up "name" or "name:args" (as written in a config file or environment
 * variable) for a collective. Returns NULL if the name is unknown or the
 * arguments do not parse; then *why says which, in words.
 */
const cs_alg *cs_alg_lookup(cs_coll coll, const char *spec, cs_params *params, const char **why);

/* The inverse of cs_alg_lookup: "name" or "name:args" as a configuration
 * would say it (the parameters given, or tuned: "butterfly:k=2"). */
void cs_alg_spec(const cs_alg *alg, const cs_params *params, char *buf, size_t size);

/* A round of the linear exchange, its blocks j in [lo, hi) but j = 0 of
 * `bytes` each way, all in flight at once, as the critical path prices it
 * (alltoall_linear.c): n receives posted, then the sends, the last leaving
 * after its post or the n - 1 before it on the link, arriving alpha later,
 * o n + max(o n, o + (n - 1) beta bytes) + alpha + beta bytes; on prob's
 * nodes, where the model sees them, the node's blocks on its own path and
 * the others through the node's link with every rank of the node sending
 * at once (an estimate). Both linear rows' rounds. */
double cs_linear_round(const cs_model *model, const cs_problem *prob, int lo, int hi, double bytes);

/* The linear allreduce's schedule (allreduce_linear.c) with the vector in
 * `parts` parts (1 to p) owned by ranks 0 .. parts - 1: round 1 reduces part
 * j onto rank j in rank order, round 2 sends it to every rank; the others
 * own nothing (the multileader's node level on a node of more ranks than
 * parts). */
int cs_allreduce_linear_build_parts(const cs_problem *prob, int parts, int rank, cs_sched *s);

#endif
