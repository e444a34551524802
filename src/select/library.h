/*
 * The MPI library priced (docs/architecture.md, "Decisions"): what the library runs by
 * default for a call, as the schedule of our rows that mirrors it, and its
 * price under the model. select keeps the library unless ours is predicted
 * cheaper by model.margin.
 */
#ifndef CS_LIBRARY_H
#define CS_LIBRARY_H

#include "common.h"

/*
 * The price of the library's default algorithm for prob (seconds) and its
 * name in words (*name, static text: "recursive doubling"). Only values
 * equal on every rank are read. The mirror is model->library's default
 * choice: MPICH 4.0.2's (also for CS_LIBRARY_AUTO), Open MPI 4.1's, or
 * SimGrid 3.32 SMPI's mpich or ompi selector's (library.c says which
 * schedules stand for them).
 */
double cs_library_price(const cs_model *model, const cs_problem *prob, const char **name);

/*
 * Does the library send small messages eagerly, so that ranks done with a
 * call run ahead into the next? MPICH and Open MPI do; SimGrid's SMPI, as the
 * scale lab runs it, sends every message synchronously (a loop of 20 reduces
 * costs what one does: 18.01 us a call, binomial, p = 64 on fattree-64).
 */
int cs_library_eager(const cs_model *model);

/*
 * The sizes at which the library's choice for variant's p and flags may
 * change, in bytes of 1-byte elements as the breakpoints price them: its
 * thresholds of message size (the first size past each), and the counts
 * it tests (count < p, count < p': as that many bytes). The breakpoints
 * sample each, so that no entry of theirs straddles one. Unsorted, up to
 * max; how many. (Not an MPICH selection file's own thresholds.)
 */
int cs_library_switches(const cs_model *model, const cs_problem *variant, size_t *sizes, int max);

/*
 * Does the library test prob's count where the same bytes in 1-byte
 * elements (the breakpoints' problem) would test otherwise: Open MPI's
 * ring or Rabenseifner's algorithm with fewer elements than p or p' (it
 * then runs recursive doubling, or a linear reduce and broadcast), MPICH's
 * "count<pow2"? Then the library's price for the call is not the one the
 * breakpoints compared ours with. No pricing: a few comparisons.
 */
int cs_library_count_matters(const cs_model *model, const cs_problem *prob);

#endif
