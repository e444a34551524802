/*
 * Bokhari's hull of optimality (1993, §3): for alltoall on p = 2^d with
 * blocks of m bytes, the lower envelope over m of the cost lines of the
 * multiphase partitions of d. Only equipartitions can be on it (Theorem 1);
 * §3.5 finds the ones that are in Θ(√d), and its faces are then looked up by
 * binary search in O(log d).
 *
 * The cost of a partition A = {a_1..a_n} of d is eq. (6) of the paper in our
 * notation (alpha = λ+δ, beta = τ, rho = ρ):
 *   t(m) = alpha Σ(2^{a_i} - 1) + m [beta Σ(2^{a_i} - 1) 2^{d-a_i} + rho n 2^d]
 * a line in m, whose integer coefficients cs_part_line gives.
 *
 * A face's sizes are whole bytes: face i is chosen for first[i] <= m <
 * first[i+1] (the smallest integer at or right of the vertex between them).
 */
#ifndef CS_HULL_H
#define CS_HULL_H

#include <stddef.h>
#include <stdint.h>

#include "common.h"

#define CS_HULL_MAX_D 30     /* p up to 2^30 */
#define CS_HULL_MAX_FACES 18 /* 3⌊√30⌋ = 15 faces at most (§3.5), and §3.5's candidates */

/* The cost line of a partition as integers: t(m) = alpha msgs + m (beta wire + rho copied). */
typedef struct cs_part_line {
    int64_t msgs;   /* messages sent per rank */
    int64_t wire;   /* bytes on the wire per rank, per byte of m */
    int64_t copied; /* bytes permuted per rank, per byte of m */
} cs_part_line;

typedef struct cs_hull_face {
    size_t first;     /* the smallest block size (bytes) this face is chosen for */
    double from;      /* the vertex where the face starts (0 for the first face) */
    double intercept; /* its line under the model, seconds: intercept + slope m */
    double slope;
    int nparts;
    unsigned char parts[CS_HULL_MAX_D];
} cs_hull_face;

/* Faces in order of increasing block size: most phases first, Direct last. */
typedef struct cs_hull {
    int d;
    int nfaces;
    int from_config; /* the faces were given by the configuration, not computed */
    cs_hull_face face[CS_HULL_MAX_FACES];
} cs_hull;

/* One face as a configuration gives it: from this block size on, this partition. */
typedef struct cs_hull_given_face {
    size_t first;
    unsigned char nparts;
    unsigned char parts[CS_HULL_MAX_D];
} cs_hull_given_face;

/* Faces a configuration gives for p = 2^d, instead of the model's hull. */
typedef struct cs_hull_given {
    int d;
    int nfaces;
    cs_hull_given_face face[CS_HULL_MAX_FACES];
} cs_hull_given;

/* The line of a partition of d (parts in any order) as integers. */
cs_part_line cs_part_line_of(int d, const unsigned char *parts, int nparts);

/* Its cost in seconds at block size m under a model. */
double cs_part_line_cost(const cs_model *model, const cs_part_line *line, double m);

/* Where line b (flatter) meets line a (steeper), in bytes of m, from exact
 * integer differences; and the smallest whole block size at or right of it. */
double cs_part_line_vertex(const cs_model *model, const cs_part_line *a, const cs_part_line *b);
size_t cs_hull_first_byte(double x);

/* The equipartition of d with n parts, eq. (3): n - d mod n parts ⌊d/n⌋ then d mod n parts ⌈d/n⌉. */
void cs_equipartition(int d, int n, unsigned char *parts);

/* The hull for 0 <= d <= CS_HULL_MAX_D under a model, by §3.5 in Θ(√d). */
void cs_hull_compute(const cs_model *model, int d, cs_hull *hull);

/* The hull from faces a configuration gave (checked by the loader), priced under a model. */
void cs_hull_from_given(const cs_model *model, int d, const cs_hull_given *given, cs_hull *hull);

/* The face chosen for block size m: binary search, O(log d). */
const cs_hull_face *cs_hull_lookup(const cs_hull *hull, size_t m);

/* The lower envelope over m >= 0 of partition lines sorted by decreasing
 * slope under the model (any order among equal slopes): the indices of its
 * faces, in order of increasing m, go to out[] and their number is returned.
 * A line that touches the envelope only at a vertex is not a face. Exposed
 * for the tests, which run it over every partition of d. */
int cs_envelope(const cs_model *model, const cs_part_line *lines, int n, int *out);

/*
 * A model's table: the hull of every d under the model, or the faces
 * given[0..ngiven) configure for their d. Built once with the configuration
 * and hung on its model (cs_model.hulls); read only afterwards, so the call
 * path needs no lock.
 */
typedef struct cs_hull_table {
    cs_model model; /* the model it was built under */
    cs_hull hull[CS_HULL_MAX_D + 1];
} cs_hull_table;

void cs_hull_table_init(cs_hull_table *table, const cs_model *model, const cs_hull_given *given, int ngiven);

/* The hull of d for a model: its table's if the table was built under the
 * same costs, else computed into *scratch (tests, tools). */
const cs_hull *cs_hull_get(const cs_model *model, int d, cs_hull *scratch);

/* "2,2,1" into buf; returns the length as snprintf would. */
int cs_parts_format(const unsigned char *parts, int nparts, char *buf, size_t size);

#endif
