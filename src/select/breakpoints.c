/*
 * Breakpoints: the model's choice per message size for one collective, p and
 * variant, computed once per communicator by sampling sizes and bisecting
 * where the choice changes, then looked up by binary search.
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>

#include "select/library.h"
#include "select/select.h"
#include "select/select_internal.h"

/* A breakpoint entry as one number: the table index and the tuned
 * parameters that a call would otherwise tune again (select.h). */
/* A parameter as one byte of the key: v where 1 <= v < 256, else 0 (none). */
static long cs_bp_byte(int v)
{
    return v >= 1 && v < 256 ? v : 0;
}

static long cs_bp_key(int alg, const cs_params *params)
{
    const long radix = params->radix >= 2 ? cs_bp_byte(params->radix) : 0;
    const long k1 = params->k >= 0 ? cs_bp_byte(params->k + 1) : 0;
    const long rmax = params->rmax >= 3 ? cs_bp_byte(params->rmax) : 0;
    return alg + (radix << 8) + (k1 << 16) + (rmax << 24) + (cs_bp_byte(params->sub) << 32) +
           (cs_bp_byte(params->node_radix) << 40) + (cs_bp_byte(params->node_level) << 48);
}

/* Entry i of bp as the key cs_bp_key made it from. */
long cs_bp_entry_key(const cs_breakpoints *bp, int i)
{
    return bp->alg[i] + ((long)bp->radix[i] << 8) + ((long)bp->k1[i] << 16) + ((long)bp->rmax[i] << 24) +
           ((long)bp->sub[i] << 32) + ((long)bp->node_radix[i] << 40) + ((long)bp->node_level[i] << 48);
}

/* The table index a breakpoint key holds, and its parameters on fresh
 * params (cs_bp_key's inverse): what a call runs, tuning nothing more. */
int cs_bp_key_params(long key, cs_params *params)
{
    const int radix = (int)((key >> 8) & 0xff), k1 = (int)((key >> 16) & 0xff), rmax = (int)((key >> 24) & 0xff);
    const int sub = (int)((key >> 32) & 0xff), node_radix = (int)((key >> 40) & 0xff),
              node_level = (int)((key >> 48) & 0xff);
    params->radix = radix ? radix : params->radix;
    params->k = k1 ? k1 - 1 : params->k;
    params->rmax = rmax ? rmax : params->rmax;
    params->sub = sub ? sub : params->sub;
    params->node_radix = node_radix ? node_radix : params->node_radix;
    params->node_level = node_level ? node_level : params->node_level;
    return (int)(key & 0xff);
}

/* The variant at one size, in bytes of 1-byte elements: the breakpoints
 * serve every datatype of the variant (with the call's element size and
 * count = bytes, a schedule-priced reduce was priced at elem times its
 * size). Contiguity is checked at the call. */
static cs_problem cs_bp_problem(const cs_problem *variant, size_t bytes)
{
    cs_problem prob = *variant;
    prob.bytes = prob.count = bytes;
    prob.elem = 1;
    prob.flags |= CS_PROB_CONTIG;
    return prob;
}

/* The model's choice at one size, ignoring per-call restrictions other than
 * p, the operator and exactness. */
static long cs_breakpoints_choice(const cs_model *model, const cs_problem *variant, size_t bytes, long hint)
{
    const cs_problem prob = cs_bp_problem(variant, bytes);
    cs_params params;
    double cost;
    const char *name;
    double library;
    int n;
    const cs_alg *const *table = cs_alg_table(prob.coll, &n);
    int i = cs_select_cheapest_from(model, &prob, (int)(hint & 0xff), &params, &cost);
    if (i < 0 || cs_select_library_keeps(model, &prob, table[i], &params, cost, &library, &name))
        return 0;
    return cs_bp_key(i, &params);
}

/*
 * The choice at one size between two of ours alone, a and b: each priced
 * with the parameters it holds (no tuning), the cheaper kept (on a tie, a)
 * unless the library keeps the call. It is cs_breakpoints_choice wherever
 * the model's cheapest there is a or b, which the bisection between two
 * samples that chose them assumes (a third choice inside the interval was
 * never entered: the entry at its end is the later sample's). Not where
 * one is the library's: whether it keeps the call depends on which of
 * ours is cheapest (back to back, one row loses where another does not).
 * Two rows priced, not every row tuned: at p = 65,535 a reduce's
 * bisection steps cost a tenth of what they did.
 */
static long cs_breakpoints_between(const cs_model *model, const cs_problem *variant, size_t bytes, long a, long b)
{
    const cs_problem prob = cs_bp_problem(variant, bytes);
    const long keys[2] = {a, b};
    int n, best = 0;
    long best_key = 0;
    double cost = INFINITY, library;
    cs_params best_params;
    const char *name;
    const cs_alg *const *table = cs_alg_table(prob.coll, &n);
    for (int j = 0; j < 2; j++) {
        cs_params params;
        cs_params_init(&params);
        const int i = cs_bp_key_params(keys[j], &params);
        if (i == 0)
            continue; /* the library's: kept below, or not at all */
        const double t = cs_select_price(model, table[i], &prob, &params, cost);
        if (t < cost) {
            cost = t;
            best = i;
            best_key = keys[j];
            best_params = params;
        }
    }
    if (!best || cs_select_library_keeps(model, &prob, table[best], &best_params, cost, &library, &name))
        return 0;
    return best_key;
}

static void cs_breakpoints_add(cs_breakpoints *bp, size_t lo, long key)
{
    if (bp->n && cs_bp_entry_key(bp, bp->n - 1) == key)
        return;
    if (bp->n == CS_BP_MAX)
        return; /* more changes than the table holds: the last entry stays */
    bp->lo[bp->n] = lo;
    bp->radix[bp->n] = (unsigned char)(key >> 8);
    bp->k1[bp->n] = (unsigned char)(key >> 16);
    bp->rmax[bp->n] = (unsigned char)(key >> 24);
    bp->sub[bp->n] = (unsigned char)(key >> 32);
    bp->node_radix[bp->n] = (unsigned char)(key >> 40);
    bp->node_level[bp->n] = (unsigned char)(key >> 48);
    bp->alg[bp->n++] = (unsigned char)key;
}

/*
 * Between sizes lo and hi, whose choices lo_key and hi_key differ, the
 * entries to the byte or to 1/2^CS_BP_PRECISION of the size: bisected, and
 * where a size between them chooses a third (a butterfly's k that changes
 * where the library's recursive doubling gives way to its reduce-scatter),
 * each side of it in turn, so that none is passed over.
 */
enum { CS_BP_PRECISION = 7 };
static void cs_breakpoints_bisect(const cs_model *model, const cs_problem *variant, cs_breakpoints *bp, size_t lo,
                                  long lo_key, size_t hi, long hi_key)
{
    while (hi - lo > 1 && hi - lo > (lo >> CS_BP_PRECISION)) {
        const size_t mid = lo + (hi - lo) / 2;
        const long there = lo_key && hi_key ? cs_breakpoints_between(model, variant, mid, lo_key, hi_key)
                                            : cs_breakpoints_choice(model, variant, mid, lo_key);
        if (there == lo_key) {
            lo = mid;
        } else if (there == hi_key) {
            hi = mid;
        } else { /* a third: up to it, then on from it */
            cs_breakpoints_bisect(model, variant, bp, lo, lo_key, mid, there);
            lo = mid;
            lo_key = there;
        }
    }
    cs_breakpoints_add(bp, hi, hi_key);
}

/*
 * One sample: the choice at size, and where it differs from the last
 * sample's (at prev), the entries between them. 0 where no call runs ours
 * from size on (the library takes it first).
 */
static int cs_breakpoints_sample(const cs_model *model, const cs_problem *variant, cs_breakpoints *bp, size_t size,
                                 size_t *prev, long *prev_alg)
{
    const cs_problem at = cs_bp_problem(variant, size);
    if (cs_collective_of(variant->coll)->native && cs_collective_largest_message(&at) > (double)INT_MAX)
        return 0; /* the library runs every call from here (cs_select): no entry is looked up */
    const long alg = cs_breakpoints_choice(model, variant, size, *prev_alg);
    if (alg != *prev_alg)
        cs_breakpoints_bisect(model, variant, bp, *prev, *prev_alg, size, alg);
    *prev = size;
    *prev_alg = alg;
    return 1;
}

static int cs_size_order(const void *a, const void *b)
{
    const size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

/*
 * Sample the sizes 2^(i/4) bytes up to 2^40 (or the largest size a call can
 * run ours at) and bisect between samples whose choices differ, down to the
 * byte or to 1/2^CS_BP_PRECISION of the size: there the two choices' prices
 * cross, and within 0.8% of a crossing they differ by less than the model
 * can tell (it errs by 10% and more). To the byte, a reduce's first
 * decision at p = 65,535 took 120 ms, most of it in bisecting. The sizes
 * where the library's own choice changes (cs_library_switches: Open MPI's
 * ring below 16 B at p = 4, MPICH's reduce-scatter from 2049 B) are samples
 * too: its price jumps there, not a crossing within the model's error, and
 * an entry that straddled one kept ours on its far side, where the
 * library's other algorithm may be as cheap.
 */
void cs_breakpoints_compute(const cs_model *model, const cs_problem *variant, cs_breakpoints *bp)
{
    size_t prev = 1, switches[64];
    long prev_alg = cs_breakpoints_choice(model, variant, 1, 0);
    const int library = cs_collective_of(variant->coll)->native;
    const int nswitches = library ? cs_library_switches(model, variant, switches, 64) : 0;
    int next = 0; /* the next switch size not sampled yet */

    qsort(switches, (size_t)nswitches, sizeof *switches, cs_size_order);
    bp->n = 0;
    cs_breakpoints_add(bp, 1, prev_alg);
    for (int i = 1; i <= 160; i++) {
        size_t size = (size_t)ldexp(1.0, i / 4) + (size_t)((ldexp(1.0, i / 4) * (i % 4)) / 4);
        int more = 1;
        for (; more && next < nswitches && switches[next] < size; next++)
            if (switches[next] > prev)
                more = cs_breakpoints_sample(model, variant, bp, switches[next], &prev, &prev_alg);
        if (!more || (size > prev && !cs_breakpoints_sample(model, variant, bp, size, &prev, &prev_alg)))
            break;
    }
    const cs_problem prob = cs_bp_problem(variant, 1);
    cs_params params;
    double cost;
    if (bp->n == 1 && bp->alg[0] == 0 && cs_select_cheapest(model, &prob, &params, &cost) < 0)
        cs_select_first_declined(&prob, &bp->passed, &bp->declined);
    bp->computed = 1;
}

int cs_breakpoints_lookup(const cs_breakpoints *bp, size_t bytes)
{
    return bp->alg[cs_breakpoints_entry(bp, bytes)];
}

int cs_breakpoints_entry(const cs_breakpoints *bp, size_t bytes)
{
    int lo = 0, hi = bp->n - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (bp->lo[mid] <= bytes)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}
