/*
 * collshim-calibrate's decisions, as pure functions of its measurements (no
 * MPI): which choice a measured cell gets, and the rules (<coll>.rules) that
 * say it for every size of the communicator sizes measured.
 */
#ifndef CS_CAL_DERIVE_H
#define CS_CAL_DERIVE_H

#include "config/config.h"

/* Paired repetitions: the median of the ratios and their noise. */
typedef struct cs_cal_ratio {
    double median; /* of t_a / t_b over the repetitions */
    double noise;  /* a relative margin: half the interquartile range of the ratios, at least a floor */
} cs_cal_ratio;

/* Is a faster than b, or slower, beyond the noise? (ratio = a / b) */
static inline int cs_cal_faster(cs_cal_ratio r)
{
    return r.median < 1.0 - r.noise;
}
static inline int cs_cal_slower(cs_cal_ratio r)
{
    return r.median > 1.0 + r.noise;
}

/*
 * What a ratio a / b says, in words that follow its numbers: faster or slower
 * beyond the noise; within it, as fast where the median itself is within
 * floor (the least difference that counts) of 1, else inconclusive: the
 * spread covers 1 (1.62 +- 18.7 is neither ok nor slower).
 */
typedef enum cs_cal_verdict { CS_CAL_FASTER, CS_CAL_AS_FAST, CS_CAL_SLOWER, CS_CAL_NOISY } cs_cal_verdict;
cs_cal_verdict cs_cal_verdict_of(cs_cal_ratio r, double floor);
const char *cs_cal_verdict_name(cs_cal_verdict v);

/* The median and noise of ratios[0..n) (sorted in place); floor: the least noise. */
cs_cal_ratio cs_cal_ratio_of(double *ratios, int n, double floor);

/* The ratios a[r] / b[r] of n paired repetitions: their median and noise (floor: the least). */
cs_cal_ratio cs_cal_ratio_paired(const double *a, const double *b, int n, double floor);

/*
 * The worse for a (the larger median) of its paired ratios to b timed two
 * ways: calls back to back (a_loop, b_loop) and one call from a common start
 * (a_start, b_start), as collshim-calibrate times every path (measure.h). A
 * program that calls the collective in a loop sees the first, one that calls
 * it once between phases of computation the second: a decision that makes
 * neither slower goes by the worse.
 */
cs_cal_ratio cs_cal_ratio_worse(const double *a_loop, const double *b_loop, const double *a_start,
                                const double *b_start, int n, double floor);

/* Every node's ranks in pairs, in rank order: its first with its second,
 * third with fourth, and so on; an odd one out waits (peer -1). node_of[r]:
 * the rank naming r's node, its first (0 <= node_of[r] <= r); pending:
 * scratch; both p entries. Rank 0's partner is its node's second. */
void cs_cal_node_pairs(const int *node_of, int p, int *pending, int *peer);

/* Every rank in a pair with a rank of another node: the nodes, in the order
 * of their first ranks, pair up (first with second, third with fourth), and
 * a node's i-th rank with its partner node's i-th; the rest wait (peer -1).
 * node_of as above; scratch: 4p + 1 entries; peer: p. Rank 0's partner is
 * the first rank off its node. */
void cs_cal_cross_node_pairs(const int *node_of, int p, int *scratch, int *peer);

/*
 * Blocks of ranks the network groups, from the latency of world rank 0 to
 * every rank (lat[1..p), seconds; lat[0] unused), where each rank has a node
 * of its own: the least g, 2 <= g <= p / 2 dividing p, whose ranks 1..g-1 are
 * all nearer than every rank from g on by CS_CAL_BLOCK_STEP (a fat tree's
 * leaf switch: 2 links against 4); 0 where there is none (a hypercube, whose
 * distances grow bit by bit, or one switch). *near and *far (optional) get
 * the farthest of ranks 1..g-1 and the nearest past them.
 */
#define CS_CAL_BLOCK_STEP 1.25
int cs_cal_latency_block(const double *lat, int p, double *near, double *far);

/*
 * Did a receive posted late (cs_cal_late_receive: late seconds for `bytes`)
 * find its block waiting for it (rendezvous)? Then it took a message's time,
 * a + b bytes (a ping-pong's fit, whose intercept is alpha + o); else the
 * block was in already (eager) and it took o and a copy, o + rho bytes. It
 * waited where it took more than the geometric mean of the two.
 */
int cs_cal_late_waited(double late, double a, double b, double overhead, double rho, size_t bytes);

/*
 * The network's core (model.beta_core) from a ping-pong's seconds per byte
 * between one pair of nodes alone (one) and between `pairs` pairs of nodes
 * at once (many: each pair's): where the many are slower than the one by
 * more than CS_CAL_CORE_STEP, what they shared, per byte of the aggregate,
 * many / pairs; else 0 (full bisection, or a slowdown within the noise). 0
 * with fewer than two pairs (nothing to share).
 */
#define CS_CAL_CORE_STEP 1.1
double cs_cal_core_beta(double one, double many, int pairs);

/* The pairs of that measurement: the first ranks of the nodes (node_of as
 * above: node_of[r] == r), the i-th with the (i + n/2)-th of the n of them
 * (node i with node i + n/2: every pair's path crosses the middle of the
 * machine); the rest wait (peer -1). Returns the pairs made. */
int cs_cal_core_pairs(const int *node_of, int p, int *scratch, int *peer);

/* The value at quantile q (0..1) of v[0..n), sorted in place. */
double cs_cal_quantile(double *v, int n, double q);

/* One measured cell: a collective at one p and one message size. */
typedef struct cs_cal_cell {
    int p;
    size_t bytes;
    const cs_alg *best;       /* the fastest of ours measured; NULL: none ran */
    const char *best_given;   /* its parameters if they were given (cs_alg.measured: "r=8"), else NULL */
    const cs_alg *model;      /* the model's choice among ours; NULL: none, or select keeps the library */
    cs_cal_ratio best_native; /* t_best / t_native */
    cs_cal_ratio model_best;  /* t_model / t_best */
    cs_cal_ratio model_native;
} cs_cal_cell;

/* The choice of a cell, and why in words (each ratio the worse of back to
 * back and from a common start):
 *   native  the best of ours measured no faster than the library, beyond the
 *           noise or within it (unsure: the library), or none of ours ran;
 *   auto    the model's choice measured as fast as the best of ours, within
 *           the noise, and faster than the library: the model decides;
 *   forced  the measured best of ours, where the model's choice measured
 *           slower than it or no faster than the library, or where the
 *           model keeps the library (cell->model NULL) and ours is faster. */
cs_choice cs_cal_cell_choice(const cs_cal_cell *cell, const cs_alg **alg, const char **why);

/* The time of the cell's choice over the library's, as measured (the worse
 * of the two timings): 1 where the choice is the library. */
double cs_cal_cell_gain(const cs_cal_cell *cell);

/*
 * The rules for cells[0..n) of one collective, sorted by p then bytes: per
 * p, runs of sizes with one choice make a byte range whose ends lie at the
 * geometric means of neighbouring sizes (the first from 0, the last at the
 * largest size measured); then neighbouring communicator sizes (p and p + 1)
 * with the same ranges share rules. Sizes above the largest measured and p
 * that were not measured get none: select sends them to the library, to be
 * safe. At most max rules: the p that would pass it get
 * none either, and *cut says how many p that was. Returns the rules written.
 */
int cs_cal_rules(const cs_cal_cell *cells, int n, cs_rule *rules, int max, int *cut);

#endif
