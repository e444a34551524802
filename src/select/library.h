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

#endif
