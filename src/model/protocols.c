/*
 * §3.5 of Rabenseifner and Träff 2004, with p' = 2^floor(log2 p):
 *   t_ring,lat = alpha ceil(log2 p) + beta m (p - 1) + gamma m (p - 1)
 *   t_elim,lat = alpha (ceil(log2 p) + 1) + beta m (ceil(log2 p) + 1) + gamma m ceil(log2 p)
 *   t_ring,bw  = alpha (ceil(log2 p) + p - 1) + beta m 2 (1 - 1/p) + gamma m (1 - 1/p)
 *   t_elim,bw  = alpha 2 ceil(log2 p) + beta m 2 (1.5 - 1/p') + gamma m (1.5 - 1/p')
 */
#include "common.h"
#include "model/protocols.h"

const char *cs_protocol_name(cs_protocol proto)
{
    static const char *const names[CS_PROTO_LAST] = {"ring-lat", "elim-lat", "ring-bw", "elim-bw"};
    return (unsigned)proto < CS_PROTO_LAST ? names[proto] : "?";
}

void cs_protocol_terms(cs_protocol proto, int p, double alpha, double beta_m, double gamma_m, double terms[3])
{
    const int lg = cs_ceil_log2(p);
    int pp = 1;
    while (pp * 2 <= p)
        pp *= 2;
    switch (proto) {
    case CS_PROTO_RING_LAT:
        terms[0] = alpha * lg;
        terms[1] = beta_m * (p - 1);
        terms[2] = gamma_m * (p - 1);
        break;
    case CS_PROTO_ELIM_LAT:
        terms[0] = alpha * (lg + 1);
        terms[1] = beta_m * (lg + 1);
        terms[2] = gamma_m * lg;
        break;
    case CS_PROTO_RING_BW:
        terms[0] = alpha * (lg + p - 1);
        terms[1] = beta_m * 2 * (1 - 1.0 / p);
        terms[2] = gamma_m * (1 - 1.0 / p);
        break;
    default:
        terms[0] = alpha * 2 * lg;
        terms[1] = beta_m * 2 * (1.5 - 1.0 / pp);
        terms[2] = gamma_m * (1.5 - 1.0 / pp);
        break;
    }
}

double cs_protocol_time(cs_protocol proto, int p, double alpha, double beta_m, double gamma_m)
{
    double t[3];
    cs_protocol_terms(proto, p, alpha, beta_m, gamma_m, t);
    return t[0] + t[1] + t[2];
}
