/*
 * Rank arithmetic of simultaneous parallel reduction (Szymanski, Maniatty and
 * Sinharoy 1995), shared by the windowed algorithms.
 *
 * The ranks are the processor array. Rank i gets the reduction, in rank
 * order, of the vectors of ranks max(0, i - r) .. min(i - r + n - 1, p - 1)
 * (eq. (1): window n, result offset r). The array is thought of as padded
 * with empty positions on both sides; a position q in [-p, 2p) is kept by
 * rank q mod p, so a rank keeps at most one position besides its own (the
 * positions a value reaches are within n - 1 <= p - 1 of it), and the
 * shifts to and from padding positions are the ring's wrap-around
 * messages. In the wrapped (cyclic) variant rank i gets the cyclic window,
 * the clipped windows of positions i - p, i and i + p combined in rank order.
 */
#ifndef CS_WINDOW_H
#define CS_WINDOW_H

#include <stdint.h>

#include "sched/sched.h"

/* A closed interval of ranks [lo, hi]; empty when lo > hi. */
typedef struct cs_span {
    int lo, hi;
} cs_span;

static inline int cs_span_empty(cs_span s)
{
    return s.lo > s.hi;
}

static inline int cs_span_eq(cs_span a, cs_span b)
{
    return (cs_span_empty(a) && cs_span_empty(b)) || (a.lo == b.lo && a.hi == b.hi);
}

/* The kinds of partial values of Fig. 2: the power-of-two block (leftsubsec)
 * and the partial result (res); CS_WIN_RES is the result. */
enum { CS_WIN_B = 1u, CS_WIN_R = 2u, CS_WIN_RES = 4u };

/*
 * Which partial values are needed, for every level and position: computed
 * once from (p, n, r, wrap), the same on every rank. Level k = 0..h-1 holds
 * the values after round k (blocks of 2^(k+1)), level -1 the inputs, level h
 * the results (CS_WIN_RES).
 */
typedef struct cs_window_plan {
    int p, n, r, wrap;
    int h;         /* floor(log2 n) */
    int rounds;    /* ceil(log2 n): h block rounds, and one more unless n is a power of two */
    uint8_t *need; /* need[(k + 1) * 3p + q + p], k = -1..h: CS_WIN_B | CS_WIN_R | CS_WIN_RES */
} cs_window_plan;

/* 0 on success; MPI_ERR_NO_MEM or MPI_ERR_ARG (n outside 1..p, r outside 0..n-1). */
int cs_window_plan_make(int p, int n, int r, int wrap, cs_window_plan *plan);
void cs_window_plan_free(cs_window_plan *plan);

/* The same plan, made once per thread and kept while the arguments repeat
 * (not to be freed); NULL on a failure. */
const cs_window_plan *cs_window_plan_cached(int p, int n, int r, int wrap);

/* A value: position q's partial of one kind at level k. */
typedef struct cs_window_ref {
    int k, q;
    unsigned kind; /* 0: no value */
} cs_window_ref;

/* The ranks a value reduces, clipped to 0..p-1: CS_WIN_B or CS_WIN_R at
 * level k = -1..h-1, CS_WIN_RES (at level h) the result of position q. */
cs_span cs_window_span(const cs_window_plan *plan, cs_window_ref v);

/* Is the value needed by some result? (positions outside [-p, 2p) never are) */
int cs_window_needed(const cs_window_plan *plan, cs_window_ref v);

/* The partner of every position in round k: q - 2^k when bit k of r is set
 * (it holds the left operands), else q + 2^k. Returns -2^k or +2^k. */
int cs_window_shift(const cs_window_plan *plan, int k);

/* The operands of a value of level k >= 0 (a result: k = h), at level k - 1:
 * op[0] the left, op[1] the right; kind 0 where there is none. */
void cs_window_operands(const cs_window_plan *plan, cs_window_ref v, cs_window_ref op[2]);

/*
 * The schedule of one rank: the vector of m = count * elem bytes starts in
 * CS_BUF_SEND (in RECV when in place) and the rank's result ends in RECV.
 * TMP0 holds the partial values, TMP1 packs messages of more than one.
 */
int cs_window_build(const cs_window_plan *plan, int rank, size_t count, size_t elem, int inplace, cs_sched *s);

/* Prefix-suffix (window_prefix_suffix.c): the schedule of one rank, the
 * same buffers as cs_window_build; MPI_ERR_ARG for arguments out of range.
 * inverse: the operator has an exact inverse (sched/inverse.h); the
 * schedule may then hold CS_STEP_UNREDUCE steps. */
int cs_window_ps_build(int p, int n, int r, int rank, size_t count, size_t elem, int inplace, int inverse, cs_sched *s);

/* ---- the two methods side by side (window_method.c) */

typedef enum cs_window_method {
    CS_WIN_RECURSIVE,
    CS_WIN_PREFIX_SUFFIX,
    CS_WIN_PREFIX_SUFFIX_INVERSE, /* only for operators with an inverse */
    CS_WIN_METHODS
} cs_window_method;

/* "recursive", "prefix-suffix", "prefix-suffix-inverse" */
const char *cs_window_method_name(cs_window_method method);

/* The method of a name; -1 if none. */
int cs_window_method_parse(const char *name);

/* One rank's schedule of a window reduction (not wrapped) by `method`. */
int cs_window_method_build(cs_window_method method, int p, int n, int r, int rank, size_t count, size_t elem,
                           int inplace, cs_sched *s);

/* A window reduction's shape: the method, p, n, r; wrap: the wrapped ring
 * (recursive combination only: the allreduce row "windowed"). */
typedef struct cs_window_shape {
    cs_window_method method;
    int p, n, r, wrap;
} cs_window_shape;

/*
 * The slowest of the p ranks' costs under model for vectors of `bytes`.
 * Every length of these schedules is a multiple of the vector's, so rank
 * i's cost is a_i alpha + m k_i: a_i and k_i come from pricing the
 * schedules of a one-byte vector (O(p log n) builds), kept per thread for
 * the last shape, inplace and per-byte prices, and the price of any m is
 * then O(p) arithmetic. HUGE_VAL if a schedule cannot be built.
 */
double cs_window_price(const cs_model *model, const cs_window_shape *shape, size_t bytes, int inplace);

/* The methods' costs into cost[] (when not NULL; HUGE_VAL for the inverse
 * one without `inverse`) and the cheapest; the first on a tie. */
cs_window_method cs_window_method_choose(const cs_model *model, int p, int n, int r, size_t bytes, int inplace,
                                         int inverse, double cost[CS_WIN_METHODS]);

/* ---- §3.3's factorization algorithm: step counts only (window_factor.c) */

enum { CS_FACTOR_S = 17 }; /* s = 0..16: n up to 2^16 - 1 */
enum { CS_FACTOR_RECURSIVE, CS_FACTOR_PRODUCT, CS_FACTOR_SUM };

/* How (n, s) is reached: recursive combination, a * (n / a) (a built
 * first) or a + (n - a); sa and sb the s of the two parts. */
typedef struct cs_factor_entry {
    uint8_t c, kind, sa, sb;
    int a;
} cs_factor_entry;

typedef struct cs_factor_table {
    int nmax;
    cs_factor_entry *e; /* [(nmax + 1) * CS_FACTOR_S] */
} cs_factor_table;

/* c(n) for every n <= nmax (1..65535): MPI_SUCCESS, MPI_ERR_ARG, MPI_ERR_NO_MEM. */
int cs_factor_table_make(int nmax, cs_factor_table *t);
void cs_factor_table_free(cs_factor_table *t);

/* c(n), the fewest steps; -1 outside the table. */
int cs_factor_count(const cs_factor_table *t, int n);

/* The plan of n as the paper writes it ("2 + 5*9"); 0, or -1 if it does not fit. */
int cs_factor_format(const cs_factor_table *t, int n, char *buf, size_t size);

#endif
