/*
 * The four protocols of Rabenseifner and Träff 2004, §3.5, as the paper
 * prices them (its Table 1): ring and elimination, each latency-optimal
 * (whole vectors) or bandwidth-optimal (halving). These are the paper's
 * formulas, for comparison; collshim's own algorithms carry exact closed
 * forms of their schedules (src/coll/).
 */
#ifndef CS_PROTOCOLS_H
#define CS_PROTOCOLS_H

typedef enum cs_protocol {
    CS_PROTO_RING_LAT,
    CS_PROTO_ELIM_LAT,
    CS_PROTO_RING_BW,
    CS_PROTO_ELIM_BW,
    CS_PROTO_LAST
} cs_protocol;

const char *cs_protocol_name(cs_protocol proto);

/* The three terms (alpha, beta, gamma) of one protocol's time on p
 * processes, beta_m = beta * m and gamma_m = gamma * m. */
void cs_protocol_terms(cs_protocol proto, int p, double alpha, double beta_m, double gamma_m, double terms[3]);

double cs_protocol_time(cs_protocol proto, int p, double alpha, double beta_m, double gamma_m);

#endif
