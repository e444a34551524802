/*
 * collshim-calibrate's model: alpha, beta, o, rho, gamma, the nodes and the protocol, fitted from
 * micro-measurements (measure.h) and printed with their residuals (tool.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "calibrate/distance.h"
#include "calibrate/tool.h"
#include "model/fit.h"

#define CAL_BUSY_ALPHA 50e-6 /* an intra-node start-up above this: the ranks wait for cores */
#define CAL_OUTLIER 0.5      /* a ping-pong time this far off the fitted line is not fitted */

static const size_t pp_full[] = {0, 8, 64, 512, 4096, 32768, 262144, 1048576, 4194304};
static const size_t pp_quick[] = {0, 64, 4096, 262144, 1048576};

/* "\n#   measured:   t0 t1 ..." under a row of what was varied. */
static void print_measured(const double *t, int n)
{
    printf("\n#   measured:  ");
    for (int i = 0; i < n; i++)
        printf(" %9.3e", t[i]);
}

static void print_fit(const char *what, const cs_fit *f, const size_t *x, const double *t, const int *dropped, int n)
{
    printf("# %s: alpha %.3e s, beta %.3e s/B (%.2f GB/s); R^2 %.5f, residuals rms %.1f%% max %.1f%%%s\n", what, f->a,
           f->b, f->b > 0 ? 1e-9 / f->b : INFINITY, f->r2, 100 * f->rms_residual, 100 * f->max_residual,
           f->clamped ? " (a negative term set to 0)" : "");
    printf("#   bytes:     ");
    for (int i = 0; i < n; i++)
        printf(" %9zu", x[i]);
    print_measured(t, n);
    printf("\n#   residual:  ");
    for (int i = 0; i < n; i++)
        printf(" %8.1f%%%s", 100 * (t[i] - f->a - f->b * (double)x[i]) / t[i], dropped[i] ? "*" : "");
    printf("\n");
    for (int i = 0; i < n; i++)
        if (dropped[i]) {
            printf("#   * not fitted: more than %.0f%% off the line (a protocol switch of the library, or noise)\n",
                   100 * CAL_OUTLIER);
            break;
        }
}

/* Fit a line to the points not dropped; drop the worst while it is more
 * than CAL_OUTLIER off and more than 3 points remain. */
static int fit_robust(const size_t *x, const double *t, int n, int *dropped, cs_fit *f)
{
    for (;;) {
        double xs[16], ts[16];
        int m = 0, worst = -1;
        for (int i = 0; i < n; i++)
            if (!dropped[i]) {
                xs[m] = (double)x[i];
                ts[m++] = t[i];
            }
        if (cs_fit_line(xs, ts, m, f) != 0)
            return -1;
        for (int i = 0; i < n; i++) {
            const double e = fabs(t[i] - f->a - f->b * (double)x[i]) / t[i];
            if (!dropped[i] && e > CAL_OUTLIER &&
                (worst < 0 || e > fabs(t[worst] - f->a - f->b * (double)x[worst]) / t[worst]))
                worst = i;
        }
        if (worst < 0 || m <= 3)
            return 0;
        dropped[worst] = 1;
    }
}

/* alpha and beta of world rank 0's ping-pong with peer[0], every rank r in
 * one with peer[r] at once (-1: none): 0 on success. */
static int fit_pairs(const int *peer, const cal_opts *o, const char *what, cs_fit *f)
{
    const size_t *x = o->quick ? pp_quick : pp_full;
    const int n = o->quick ? NELEMS(pp_quick) : NELEMS(pp_full);
    double t[16];
    int dropped[16] = {0};
    for (int i = 0; i < n; i++)
        t[i] = cs_cal_pingpong_pairs(MPI_COMM_WORLD, peer, 0, x[i], o->reps, o->target / 4);
    int rc = fit_robust(x, t, n, dropped, f);
    if (cal_rank == 0 && rc == 0)
        print_fit(what, f, x, t, dropped, n);
    return rc;
}

/* Per-byte cost of f over sizes beyond the caches, with what it is. */
static double fit_per_byte(double (*time_of)(size_t bytes, const void *arg), const void *arg, const cal_opts *o)
{
    const size_t sizes[] = {(size_t)4 << 20, (size_t)16 << 20, (size_t)32 << 20};
    double x[3], t[3];
    const int n = o->quick ? 2 : 3;
    cs_fit f;
    int timed = 0;
    for (int i = 0; i < n; i++) {
        x[i] = (double)sizes[i];
        t[i] = time_of(sizes[i], arg);
        timed |= t[i] != 0.0;
        if (!timed) /* a simulator that charges no local computation (SMPI's simulate-computation:no) */
            return 0.0;
    }
    return cs_fit_slope(x, t, n, &f) == 0 ? f.b : -1.0;
}

#define CAL_LOCAL_REPS 5

static double time_copy(size_t bytes, const void *arg)
{
    return cs_cal_copy(MPI_COMM_WORLD, bytes, CAL_LOCAL_REPS);
}

typedef struct reduce_class {
    const char *name;
    MPI_Datatype type;
    MPI_Op op;
} reduce_class;

static double time_reduce(size_t bytes, const void *arg)
{
    const reduce_class *c = arg;
    return cs_cal_reduce_local(MPI_COMM_WORLD, c->type, c->op, bytes, CAL_LOCAL_REPS);
}

/*
 * o from round trips of k 8-byte messages between ranks 0 and 1 (cs_cal_fan),
 * k = 1, 2, 4, ... up to the larger of 8 and p - 1: half of one is
 * alpha + k o under the pricer (rank 0 posts k sends, rank 1 k receives, then
 * k sends back), a line in k (cs_fit_line). Its intercept is the alpha that
 * concurrent messages see, against the ping-pong's, pp_alpha: whether they
 * overlap their alpha, as the pricer assumes. (Messages to k different peers
 * measured the network's distances too: on a hypercube the k-th peer is
 * log2 k hops away, which read as an o of 0.19 us where there was none.)
 * 0 on success.
 */
static int fit_overhead(const cal_opts *o, double pp_alpha, double *overhead)
{
    double k[16], t[16];
    int n = 0;
    cs_fit f;
    for (int x = 1; n < 16 && x <= 256 && (x <= 8 || x <= cal_world - 1); x *= 2) {
        k[n] = x;
        t[n++] = cs_cal_fan(MPI_COMM_WORLD, x, 8, o->reps, o->target / 4);
    }
    if (cs_fit_line(k, t, n, &f) != 0)
        return -1;
    *overhead = f.b;
    if (cal_rank != 0)
        return 0;
    printf("# round trips of k 8-byte messages: o %.3e s per message posted; concurrent messages see alpha %.3e s "
           "(ping-pong's %.3e); residuals rms %.1f%% max %.1f%%\n#   k:         ",
           f.b, f.a, pp_alpha, 100 * f.rms_residual, 100 * f.max_residual);
    for (int i = 0; i < n; i++)
        printf(" %9.0f", k[i]);
    print_measured(t, n);
    printf("\n");
    if (f.a < 0.25 * pp_alpha && f.b > 0.5 * pp_alpha)
        printf("# warning: concurrent messages do not overlap their alpha as the model assumes (each adds %.0f%% of a\n"
               "#          ping-pong's): more ranks than free cores, or a library that serialises messages\n",
               100 * f.b / pp_alpha);
    return 0;
}

/* alpha and beta between world ranks 0 and b alone (peer: scratch, p entries). */
static int fit_pair(int b, int *peer, const cal_opts *o, const char *what, cs_fit *f)
{
    for (int r = 0; r < cal_world; r++)
        peer[r] = r == 0 ? b : r == b ? 0 : -1;
    return fit_pairs(peer, o, what, f);
}

#define CAL_LINK_SHARED 1.1

/*
 * A node's link (model.beta_link): every rank in a ping-pong with the
 * same-numbered rank of a partner node at once, so that each node's ranks
 * all send off it together; per byte each pair then sees its share of the
 * link. The link's own time per byte is that share over the ranks of world
 * rank 0's node in a pair (not less than the model's beta over them: a
 * link that one rank alone fills). node_of: world entries; scratch: 5 world + 1.
 */
static int fit_node_link(const int *node_of, int *scratch, const cal_opts *o, cs_model *m)
{
    int *peer = scratch + 4 * cal_world + 1, senders = 0;
    cs_fit loaded;
    cs_cal_cross_node_pairs(node_of, cal_world, scratch, peer);
    for (int r = 0; r < cal_world; r++)
        senders += node_of[r] == node_of[0] && peer[r] >= 0;
    if (fit_pairs(peer, o, "ping-pong between nodes, every rank in a pair at once", &loaded) != 0)
        return -1;
    /* shared where the pairs are slower than one alone beyond the noise (a fat tree's uplinks are not) */
    m->beta_link = senders > 1 && loaded.b > CAL_LINK_SHARED * m->beta ? loaded.b / senders : 0.0;
    if (cal_rank == 0)
        printf("# beta_link %.3e s/B: a node's link, %d of its ranks sending off it at once (%s)\n", m->beta_link,
               senders, m->beta_link > 0.0 ? "shared" : "each as fast as one alone: not shared");
    return 0;
}

#define CAL_FAN_IN_SENDERS 4
#define CAL_FAN_IN_BYTES 1048576

/*
 * Whether a rank's messages within its node queue on one path
 * (model.node_paths): up to CAL_FAN_IN_SENDERS ranks of rank 0's node each
 * send it a block at once (cs_cal_fan_in) against one alone. Queued, k
 * blocks take about k times one; each on a path of its own, about one: pair
 * where k of them take less than halfway, (1 + k) / 2 times one. node_of:
 * world entries; from: scratch, CAL_FAN_IN_SENDERS entries.
 */
static int fit_node_paths(const int *node_of, int *from, const cal_opts *o, cs_model *m)
{
    int k = 0;
    for (int r = 1; r < cal_world && k < CAL_FAN_IN_SENDERS; r++)
        if (node_of[r] == node_of[0])
            from[k++] = r;
    if (k < 2)
        return 0; /* fewer than three ranks on the node: nothing to tell */
    const double one = cs_cal_fan_in(MPI_COMM_WORLD, from, 1, CAL_FAN_IN_BYTES, o->reps, o->target),
                 all = cs_cal_fan_in(MPI_COMM_WORLD, from, k, CAL_FAN_IN_BYTES, o->reps, o->target);
    if (one < 0.0 || all < 0.0)
        return -1; /* no memory */
    m->node_pairs = all < 0.5 * (1 + k) * one;
    if (cal_rank == 0)
        printf("# node_paths %s: %d ranks of a node each sending rank 0 %d bytes at once take %.2f times one alone "
               "(%s)\n",
               m->node_pairs ? "pair" : "rank", k, CAL_FAN_IN_BYTES, all / one,
               m->node_pairs ? "each pair on a path of its own" : "one after another on the receiver's path");
    return 0;
}

#define CAL_DISTANCE_PAIRS 6

/*
 * Does latency depend on the peer (model.distance)? Rank 0's latency to
 * every rank (lat, world entries), and a few pairs of other ranks
 * (cs_cal_distance_pairs: ranks whose hops the XOR and the difference count
 * apart), one ping-pong at a time: the form they follow sets distance and
 * alpha_hop (cs_cal_distance_fit_of); none leaves the model as it is.
 * peer: scratch, world entries. 0 on success.
 */
static int fit_distance(const double *lat, int *peer, const cal_opts *o, cs_model *m)
{
    int pair[CAL_DISTANCE_PAIRS][2];
    const int extra = cs_cal_distance_pairs(cal_world, pair, CAL_DISTANCE_PAIRS), n = cal_world - 1 + extra;
    cs_cal_pair_latency *s = malloc(sizeof *s * (size_t)n);
    if (!s)
        return -1;
    for (int r = 1; r < cal_world; r++)
        s[r - 1] = (cs_cal_pair_latency){0, r, lat[r]};
    for (int i = 0; i < extra; i++) {
        const int a = pair[i][0], b = pair[i][1];
        for (int r = 0; r < cal_world; r++)
            peer[r] = r == a ? b : r == b ? a : -1;
        const double t = cs_cal_pingpong_pairs(MPI_COMM_WORLD, peer, a, 8, o->reps, o->target / 4);
        s[cal_world - 1 + i] = (cs_cal_pair_latency){a, b, t};
    }
    cs_cal_distance_fit fit;
    m->distance = cs_cal_distance_fit_of(s, n, &fit);
    m->alpha_hop = fit.alpha_hop;
    if (cal_rank == 0) {
        printf("# latency by peer, 8 bytes (rank 0's to every rank, and ");
        for (int i = 0; i < extra; i++)
            printf("%s%d-%d %.3e s", i ? ", " : "", pair[i][0], pair[i][1], s[cal_world - 1 + i].t);
        if (m->distance)
            printf("): it grows with the %s of the ranks, %.3e s at one link and alpha_hop %.3e s per link "
                   "beyond (residuals rms %.1f%%, one latency for all %.1f%%)\n",
                   m->distance == CS_DISTANCE_XOR ? "XOR (a hypercube)" : "difference", fit.alpha, fit.alpha_hop,
                   100 * fit.rms, 100 * fit.rms_flat);
        else
            printf("): no distance (one latency for all pairs: residuals rms %.1f%%)\n", 100 * fit.rms_flat);
    }
    free(s);
    return 0;
}

/*
 * The network's core (model.beta_core): the first ranks of the nodes in
 * pairs across the machine, node i with node i + n/2 (cs_cal_core_pairs),
 * all in a ping-pong at once; against one pair alone (its beta, one), each
 * pair's beta is slower where their messages share a part of the network
 * (a backbone, an oversubscribed level): that, over the pairs, per byte of
 * the aggregate (cs_cal_core_beta). One rank a node, so no node's link is
 * shared. node_of: world entries; scratch: 5 world + 1.
 */
static int fit_core(const int *node_of, int *scratch, const cal_opts *o, double one, cs_model *m)
{
    int *peer = scratch + 4 * cal_world + 1;
    const int pairs = cs_cal_core_pairs(node_of, cal_world, scratch, peer);
    cs_fit many = {.b = one};
    if (pairs > 1 && fit_pairs(peer, o, "ping-pong across the network, the nodes in pairs at once", &many) != 0)
        return -1;
    m->beta_core = cs_cal_core_beta(one, many.b, pairs);
    if (cal_rank == 0)
        printf("# beta_core %.3e s/B: the network's core, %d pairs of nodes at once %.2f times one pair's beta (%s)\n",
               m->beta_core, pairs, one > 0.0 ? many.b / one : 1.0,
               pairs < 2            ? "fewer than four nodes: not measured"
               : m->beta_core > 0.0 ? "shared"
                                    : "as fast as one pair alone: full bisection");
    return 0;
}

/*
 * Where every rank has a node of its own, the network may still group them
 * (the hosts of a fat tree's leaf switch): the latency from rank 0 to every
 * rank, and the least block of ranks nearer than all the others
 * (cs_cal_latency_block) becomes the model's node (model.ranks_per_node,
 * node_of: world entries, each block's first rank). 0 on success.
 */
static int network_blocks(int *node_of, int *scratch, const cal_opts *o, cs_model *m)
{
    for (int r = 0; r < cal_world; r++)
        if (node_of[r] != r)
            return 0; /* ranks share nodes: those are the model's */
    double *lat = malloc(sizeof(double) * (size_t)cal_world);
    if (!lat)
        return -1;
    cs_cal_latency_row(MPI_COMM_WORLD, 8, o->reps, lat);
    double near = 0.0, far = 0.0;
    const int g = cs_cal_latency_block(lat, cal_world, &near, &far);
    if (cal_rank == 0 && g > 0)
        printf("# one rank a node, and the network groups them: ranks 1..%d are %.3e s from rank 0 at most, "
               "the others %.3e at least: ranks_per_node %d\n",
               g - 1, near, far, g);
    else if (cal_rank == 0)
        printf("# one rank a node, and no block of ranks nearer to rank 0 than the others\n");
    const int rc = g == 0 ? fit_distance(lat, scratch, o, m) : 0; /* no blocks: a distance, maybe */
    free(lat);
    if (rc != 0)
        return -1;
    m->ranks_per_node = g;
    for (int r = 0; g > 0 && r < cal_world; r++)
        node_of[r] = r / g * g;
    return 0;
}

/*
 * The protocol (model.rendezvous_from): for sizes 1 B to 1 MiB, whether a
 * receive posted late (cs_cal_late_receive) found its block waiting for it
 * (cs_cal_late_waited, under the pair's fit f and the model's o and rho).
 * The least size from which every larger one waits, bisected against the
 * eager size below it to within a quarter, is rendezvous_from; 0 where none
 * waits.
 */
static int waited(double late, const cs_fit *f, const cs_model *m, size_t bytes)
{
    return cs_cal_late_waited(late, f->a, f->b, m->overhead, m->rho, bytes);
}

static size_t fit_rendezvous(const cal_opts *o, const cs_fit *f, const cs_model *m)
{
    static const size_t sizes[] = {1, 8, 64, 512, 4096, 32768, 262144, 1048576};
    int waits[NELEMS(sizes)], from = NELEMS(sizes);
    double late[NELEMS(sizes)];
    for (int i = 0; i < NELEMS(sizes); i++) {
        late[i] = cs_cal_late_receive(MPI_COMM_WORLD, sizes[i], o->reps, o->target > 0);
        waits[i] = waited(late[i], f, m, sizes[i]);
    }
    while (from > 0 && waits[from - 1])
        from--;
    size_t lo = from > 0 ? sizes[from - 1] : 0, hi = from < NELEMS(sizes) ? sizes[from] : 0;
    while (from > 0 && hi && hi - lo > lo / 4 + 1) { /* lo eager, hi waits */
        const size_t mid = lo + (hi - lo) / 2;
        if (waited(cs_cal_late_receive(MPI_COMM_WORLD, mid, o->reps, o->target > 0), f, m, mid))
            hi = mid;
        else
            lo = mid;
    }
    if (cal_rank == 0) {
        printf("# a receive posted late, seconds to its end (a block that waited for it takes about alpha + beta m):\n"
               "#   bytes:    ");
        for (int i = 0; i < NELEMS(sizes); i++)
            printf(" %9zu", sizes[i]);
        print_measured(late, NELEMS(sizes));
        printf("\n# rendezvous_from %zu: %s\n", hi,
               hi == 0 ? "every message is sent eagerly" : "messages this large wait for their receive");
    }
    return hi;
}

/* Fit the model; 0 on success (every rank gets it). */
int cal_fit_model(const cal_opts *o, cs_model *m)
{
    MPI_Comm node;
    int same_node = -1, other_node = -1, nrank, nodes_key, leader;
    cs_fit intra, inter;

    PMPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    PMPI_Comm_rank(node, &nrank);
    leader = cal_rank; /* the world rank of my node's first rank names the node */
    PMPI_Bcast(&leader, 1, MPI_INT, 0, node);
    PMPI_Comm_free(&node);
    int *node_of = malloc(sizeof(int) * ((size_t)cal_world * 6 + 1)), *scratch = node_of + cal_world;
    if (!node_of)
        return -1;
    PMPI_Allgather(&leader, 1, MPI_INT, node_of, 1, MPI_INT, MPI_COMM_WORLD);
    if (cal_world >= 4 && network_blocks(node_of, scratch, o, m) != 0) {
        free(node_of);
        return -1;
    }
    nodes_key = 0;
    for (int r = 1; r < cal_world; r++) {
        if (node_of[r] == node_of[0] && same_node < 0)
            same_node = r;
        if (node_of[r] != node_of[0] && other_node < 0)
            other_node = r;
        if (node_of[r] == r)
            nodes_key++;
    }
    if (cal_rank == 0)
        printf("# %d ranks on %d node(s)\n", cal_world, nodes_key + 1);
    if ((same_node >= 0 && fit_pair(same_node, scratch, o, "ping-pong within a node", &intra) != 0) ||
        (other_node >= 0 && fit_pair(other_node, scratch, o, "ping-pong between nodes", &inter) != 0)) {
        free(node_of);
        return -1;
    }
    const cs_fit *take = other_node >= 0 ? &inter : &intra;
    if (cal_rank == 0)
        printf("# the model takes the %s fit\n", other_node >= 0 ? "inter-node (the slower links)" : "intra-node");
    if (cal_rank == 0 && same_node >= 0 && intra.a > CAL_BUSY_ALPHA)
        printf("# warning: a message within a node starts in %.0f us: more ranks than free cores (time slices)?\n"
               "#          calibrate on an otherwise idle node, one rank per core\n",
               intra.a * 1e6);
    if (fit_overhead(o, take->a, &m->overhead) != 0) {
        free(node_of);
        return -1;
    }
    /* A blocking ping-pong's half round trip is alpha + o to the pricer (the sender posts, the
     * receiver's receive waits posted): the model's alpha is the rest. */
    m->alpha = fmax(0.0, take->a - m->overhead);
    m->beta = take->b;
    if (other_node >= 0 && same_node >= 0) { /* two levels: node pairs apart from the others */
        m->node_levels = 1;
        m->alpha_node = fmax(0.0, intra.a - m->overhead);
        m->beta_node = intra.b;
    }
    if (cal_rank == 0)
        printf("# model: alpha %.3e s, beta %.3e s/B, overhead %.3e s%s\n", m->alpha, m->beta, m->overhead,
               m->node_levels ? " (alpha_node, beta_node: the intra-node fit's)" : "");
    const int band_peer = other_node >= 0 ? other_node : same_node;
    if (!o->quick && band_peer > 0 && cal_fit_bands(band_peer, scratch, o, take, m) != 0) {
        free(node_of);
        return -1;
    }
    if (m->node_levels && !m->ranks_per_node && fit_node_paths(node_of, scratch, o, m) != 0) {
        free(node_of);
        return -1;
    }
    const int link = other_node >= 0 && same_node >= 0 ? fit_node_link(node_of, scratch, o, m) : 0;
    const int core = link == 0 && other_node >= 0 ? fit_core(node_of, scratch, o, inter.b, m) : link;
    const cs_fit pair01 = same_node == 1 ? intra : *take; /* ranks 0 and 1's, for the protocol */
    free(node_of);
    if (core != 0)
        return -1;

    m->rho = fit_per_byte(time_copy, NULL, o);
    if (m->rho >= 0)
        m->rendezvous_from = fit_rendezvous(o, &pair01, m);
    static const reduce_class classes[] = {
        {"MPI_DOUBLE MPI_SUM", MPI_DOUBLE, MPI_SUM}, {"MPI_FLOAT MPI_SUM", MPI_FLOAT, MPI_SUM},
        {"MPI_INT MPI_SUM", MPI_INT, MPI_SUM},       {"MPI_INT64_T MPI_SUM", MPI_INT64_T, MPI_SUM},
        {"MPI_INT MPI_MAX", MPI_INT, MPI_MAX},       {"MPI_DOUBLE MPI_MAX", MPI_DOUBLE, MPI_MAX},
    };
    if (cal_rank == 0)
        printf("# rho %.3e s/B (memcpy beyond the caches, every rank at once)\n", m->rho);
    for (int i = 0; i < (o->fit ? 1 : NELEMS(classes)); i++) { /* --fit: the model's class only */
        const double g = fit_per_byte(time_reduce, &classes[i], o);
        if (i == 0)
            m->gamma = g;
        if (cal_rank == 0)
            printf("# gamma %.3e s/B  %s%s\n", g, classes[i].name, i == 0 ? " (the model's)" : "");
    }
    return m->rho >= 0 && m->gamma >= 0 ? 0 : -1;
}
