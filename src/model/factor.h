/*
 * The multiphase complete exchange on any p (Bokhari 1993 generalised to a
 * mixed radix): which factorisation p = k_1 k_2 .. k_n is cheapest for
 * blocks of m bytes, and the hull of optimality over all factorisations.
 *
 * A phase of radix k costs g_k(m) = (k - 1)(alpha + beta m p/k) + rho m p,
 * whatever its place: the cost of a factorisation is the sum over its
 * factors, so only the multiset counts, and as a line in m it is the
 * cs_part_line {msgs Σ(k_i - 1), wire Σ(k_i - 1) p/k_i, copied n p} (for
 * p = 2^d and k_i = 2^{d_i} exactly eq. (6) of the paper).
 *
 * What Theorem 1 becomes (proof in factor.c): two factors a <= b of an
 * optimal factorisation are the most balanced pair of their product ab: no
 * divisor of ab lies strictly between a and sqrt(ab) (a is the largest
 * divisor of ab up to sqrt(ab)). Every factorisation on the hull is
 * "pairwise balanced" in this sense; with rho > 0 no other is optimal at any
 * m >= 0, with rho = 0 another may touch the hull at a vertex only. For
 * p = 2^d, {2^a, 2^b} is balanced iff |a - b| <= 1: the equipartitions,
 * Bokhari's Theorem 1. Unlike p = 2^d, one cardinality may have several
 * balanced factorisations, or none.
 *
 * The optimum at one m is found without enumerating factorisations, by
 * dynamic programming over the divisors of p (the cost is a sum of
 * per-factor terms, so an optimal factorisation of q is a factor k and an
 * optimal one of q/k): O(τ(p)^2) for τ(p) divisors. The hull is the same
 * recursion on lower envelopes (a sum of a line and an envelope is an
 * envelope; a minimum of envelopes is the envelope of their lines).
 */
#ifndef CS_FACTOR_H
#define CS_FACTOR_H

#include "model/hull.h"

/* Factors of a factorisation at most: 2^30 has 30. */
#define CS_FACTOR_MAX 30
/* Faces of a hull kept at most (far more than any p <= 2^30 needs). */
#define CS_FACTOR_MAX_FACES 64

/* The divisors of p >= 1 in increasing order, at most max; their number
 * (-1 if there are more than max). */
int cs_divisors(int p, int *out, int max);

/* The line of a factorisation of p (factors in any order; each divides p). */
cs_part_line cs_factor_line(int p, const int *factors, int n);

/* The cheapest factorisation of p >= 1 at block size m, factors >= 2 in
 * increasing order into factors[CS_FACTOR_MAX]; returns their number (0 for
 * p = 1) and its cost in *cost if cost is not NULL. Ties go to the
 * factorisation whose first factor (in the recursion) is smallest, the
 * same on every rank. -1 if p has too many divisors to search (none below
 * 2^31 has). */
int cs_factor_best(const cs_model *model, int p, double m, int *factors, double *cost);

/* Is every pair of factors the most balanced pair of its product? */
int cs_factor_balanced(const int *factors, int n);

typedef struct cs_factor_face {
    size_t first; /* the smallest block size (bytes) this face is chosen for */
    double from;  /* the vertex where it starts (0 for the first face) */
    cs_part_line line;
    int n;
    int factors[CS_FACTOR_MAX]; /* increasing */
} cs_factor_face;

/* The hull of optimality for p over all factorisations: faces in order of
 * increasing block size (most phases first, one phase last). */
typedef struct cs_factor_hull {
    int p;
    int nfaces;
    cs_factor_face face[CS_FACTOR_MAX_FACES];
} cs_factor_hull;

/* 0, or -1 if p has too many divisors or the hull too many faces. */
int cs_factor_hull_compute(const cs_model *model, int p, cs_factor_hull *hull);

/* "4x4x6" into buf; "1x7" for one factor; returns the length as snprintf would. */
int cs_factors_format(const int *factors, int n, char *buf, size_t size);

#endif
