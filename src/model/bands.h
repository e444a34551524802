/*
 * Size bands from ping-pong times: where one line alpha + beta*m does not
 * price every message size (a library switching from its eager to its
 * rendezvous protocol, SimGrid SMPI's latency and bandwidth factors), the
 * bands (cs_bands, common.h) that do, with factors relative to the model's
 * alpha and beta.
 *
 * Method: segmented least squares. A dynamic programme over contiguous runs
 * of at least 3 points (sizes ascending) chooses the runs that minimise the
 * squared relative residuals ((t - a - b*x) / t)^2 of each run's own line
 * (cs_fit_line: relative error, a >= 0 and b >= 0) plus a penalty per run,
 * so that noise does not open bands: tol^2, or more where the points are
 * noisier than that (a robust estimate of their noise, with the Bayesian
 * information criterion's price of a run's three parameters). A point's part is
 * capped at tol^2 too, so one point far off, a timing disturbed once, cannot
 * buy a band by itself. Each run becomes a band from its smallest size, the
 * first from 0. A term a run cannot measure (beta where beta*m is under 5%
 * of its times, alpha where alpha is) is taken from the nearest band that
 * measures it, else from the model, where that one is under 5% there too,
 * and the other term refitted: no slope of 0 or 100 times beta where the
 * noise of a few small sizes would have it. The first bands that the model's line prices
 * within 5% are left out (the model prices those sizes), and adjacent bands
 * that price their sizes within 5% of each other are one.
 * The bands are kept where they cost less than the line, penalties
 * included, and miss fewer points by more than tol; else there are none.
 */
#ifndef CS_BANDS_H
#define CS_BANDS_H

#include "common.h"

/*
 * The bands that price n ping-pong points: x[i] bytes (whole numbers,
 * non-decreasing; repeated sizes allowed) and t[i] > 0 seconds, the time of
 * one message (half a round trip), against the model's alpha and beta (> 0;
 * the line fitted over all of the points). out->n = 0 where one line is good
 * enough: every point within tol (relative, > 0) of alpha + beta*x, or bands
 * that would not be better by their penalties or would bring no point the
 * line misses by more than tol within it.
 * The factors are relative to alpha and beta as given: against a line fitted
 * across a step, a band from 0 mostly sets right the sizes below it.
 * Returns 0, or -1 on bad input (n < 1, a t <= 0, x negative or descending,
 * alpha, beta or tol <= 0, out NULL) or when out of memory.
 */
int cs_bands_fit(const double *x, const double *t, int n, double alpha, double beta, double tol, cs_bands *out);

/* The time bands b (NULL: none) give a message of m bytes: alpha*af + beta*bf*m
 * of the band m falls in, alpha + beta*m below the first. */
double cs_bands_time(const cs_bands *b, double alpha, double beta, double m);

#endif
