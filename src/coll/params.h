#ifndef CS_PARAMS_H
#define CS_PARAMS_H

#include "coll/coll.h"

enum {
    CS_PARAM_B = 1u << 0,
    CS_PARAM_K = 1u << 1,
    CS_PARAM_RMAX = 1u << 2,
    CS_PARAM_R = 1u << 3,
    CS_PARAM_L = 1u << 4,
    CS_PARAM_W = 1u << 5
};

/* Parse "key=value,..." with the keys allowed; 0, or -1 if anything is off. */
int cs_params_parse(const char *args, unsigned keys, cs_params *params);

/* The parameters that are set, in the form cs_params_parse reads. */
int cs_params_format(const cs_params *params, unsigned keys, char *buf, size_t size);

/* The rows whose parameters are b and k (butterfly, elimination), and b, k
 * and rmax (ring), as cs_alg.parse and cs_alg.format. */
int cs_params_parse_bk(const char *args, cs_params *params);
int cs_params_format_bk(const cs_params *params, char *buf, size_t size);
int cs_params_parse_bkr(const char *args, cs_params *params);
int cs_params_format_bkr(const cs_params *params, char *buf, size_t size);
/* What they accept, in words, as cs_alg.syntax (the error when they reject). */
#define CS_PARAMS_SYNTAX_BK                                                                                            \
    "expected b=<bytes>, halve while the block is larger, and/or k=<stages>, the stages that split "                   \
    "(k=2 or b=4096,k=1)"
#define CS_PARAMS_SYNTAX_BKR                                                                                           \
    "expected b=<bytes>, k=<stages> and/or rmax=<3, 5 or 7>, the largest odd factor run as a ring (rmax=5)"
/* ... and the rows whose one parameter is a radix r >= 2 (bruck, knomial). */
int cs_params_parse_radix(const char *args, cs_params *params);
int cs_params_format_radix(const cs_params *params, char *buf, size_t size);
/* ... and linear's: a window w >= 1, the blocks posted per batch. */
int cs_params_parse_window(const char *args, cs_params *params);
int cs_params_format_window(const cs_params *params, char *buf, size_t size);
#define CS_PARAMS_SYNTAX_W "expected w=<blocks>, at least 1, the blocks in flight per batch (w=32, MPICH's throttle)"
/* ... and knomial's: a radix r >= 2, or the tree's rounds l >= 1, not both. */
int cs_params_parse_radix_or_levels(const char *args, cs_params *params);
int cs_params_format_radix_or_levels(const cs_params *params, char *buf, size_t size);

#endif
