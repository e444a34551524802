/*
 * Why a call ran what it ran, and how far the model was off: the log's "reason" (written by
 * src/select/select.c, src/shim/args.c and src/shim/call.c) grouped into a few classes a reader
 * of the report can act on, and the words for a prediction far from the measured time.
 */
#ifndef CS_REPORT_WHY_H
#define CS_REPORT_WHY_H

#include <stddef.h>

typedef enum cs_why {
    CS_WHY_MODEL,       /* the model's choice: ours, or the library's own where it prices it as cheap */
    CS_WHY_RULE,        /* a rule of the configuration (or no rule covering the call) */
    CS_WHY_FORCED,      /* forced by the environment or the configuration, native included */
    CS_WHY_RANGE,       /* a native size range of the configuration */
    CS_WHY_RESTRICTION, /* none of our algorithms can run the call */
    CS_WHY_ERRONEOUS,   /* an erroneous call, the library's to judge */
    CS_WHY_OUTSIDE,     /* p = 1, an empty message, over INT_MAX bytes, an intercommunicator */
    CS_WHY_WRONG,       /* the library computes the operator on the type otherwise: ours, always */
    CS_WHY_OTHER,       /* a reason this report does not know */
    CS_WHY_LAST
} cs_why;

/* The class of a reason as logged ("" when the line has none: other). */
cs_why cs_why_of(const char *reason);

/* "model", "rule", "forced", "native-range", ...; one letter for the SVG ('M', 'R', ...); and what
 * the class means, in a few words. */
const char *cs_why_word(cs_why why);
char cs_why_letter(cs_why why);
const char *cs_why_meaning(cs_why why);

/* The class with the most calls of counts[CS_WHY_LAST] (ties: the first), and a label: "model",
 * or "model 4, forced 2" where the calls had several. */
cs_why cs_why_main(const size_t *counts);
void cs_why_label(const size_t *counts, char *buf, size_t size);

/* A prediction this many times from the measured time, either way, is far off. */
#define CS_FAR_OFF 3.0

/* How far a prediction is from the measured time: -1 when it is CS_FAR_OFF times faster or more,
 * +1 when that much slower, else 0 (also where either is not positive); *factor >= 1. */
int cs_far_off(double predicted, double measured, double *factor);

/* The likely cause of a prediction far off, as the report can tell it: the calls were set-up
 * (one a rank), the node had more ranks than cores, else the model is not this machine's. */
typedef enum cs_far_cause { CS_FAR_MODEL, CS_FAR_SETUP, CS_FAR_OVERSUBSCRIBED } cs_far_cause;

/* "the model predicted 40x faster: set-up? (one call a rank)", "...: oversubscribed? (6 ranks
 * on a node of 2 cores)" (ranks and cores: only for CS_FAR_OVERSUBSCRIBED), "...: not calibrated
 * on this machine? (collshim-calibrate)", for cs_far_off's dir and factor. */
void cs_far_off_words(int dir, double factor, cs_far_cause cause, int ranks, int cores, char *buf, size_t size);

#endif
