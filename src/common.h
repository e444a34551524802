/*
 * Definitions shared by every module of collshim: the collectives, the cost
 * model's parameters and the per-call problem description that decisions are
 * made from.
 */
#ifndef CS_COMMON_H
#define CS_COMMON_H

#include <stddef.h>
#include <stdint.h>

/* Symbols that form the public interface: the MPI entry points and the
 * extension API. Everything else is hidden by -fvisibility=hidden. */
#define CS_EXPORT __attribute__((visibility("default")))

/* base + off, in integers: MPI buffers need not point into an object
 * (MPI_BOTTOM is NULL in MPICH, and MPI addresses data at buffer + true lower
 * bound), so pointer arithmetic on them could be undefined. */
static inline void *cs_addr(const void *base, ptrdiff_t off)
{
    return (void *)((uintptr_t)base + (uintptr_t)off);
}

/* The MPI library's collectives collshim intercepts (up to CS_COLL_LAST),
 * then the collectives of the extension API (include/collshim.h), which the
 * library does not have (up to CS_COLL_COUNT). */
typedef enum cs_coll {
    CS_COLL_ALLTOALL,
    CS_COLL_ALLREDUCE,
    CS_COLL_REDUCE,
    CS_COLL_LAST,
    CS_COLL_WINDOW = CS_COLL_LAST, /* collshim_window_reduce */
    CS_COLL_WINDOW_BLOCK,          /* collshim_window_reduce_block */
    CS_COLL_COUNT
} cs_coll;

/* "alltoall", "allreduce", "reduce", "window", "window_block" */
const char *cs_coll_name(cs_coll coll);

/* floor(log2 x) and ceil(log2 x) for x >= 1 (0 below); log2 x for a power
 * of two, else -1. */
static inline int cs_floor_log2(int x)
{
    int h = 0;
    while ((2u << h) <= (unsigned)x)
        h++;
    return h;
}

static inline int cs_ceil_log2(int x)
{
    int n = 0;
    while ((1u << n) < (unsigned)x)
        n++;
    return n;
}

static inline int cs_log2_exact(int x)
{
    return x > 0 && !(x & (x - 1)) ? cs_floor_log2(x) : -1;
}

/*
 * The MPI library whose default algorithms the library's price mirrors
 * (model.library; select/library.h): told from MPI_Get_library_version when
 * auto, MPICH where the version names neither.
 */
typedef enum cs_library {
    CS_LIBRARY_AUTO,       /* "auto" */
    CS_LIBRARY_MPICH,      /* "mpich": MPICH 4.0.2 */
    CS_LIBRARY_OPENMPI,    /* "openmpi": Open MPI 4.1, coll/tuned's fixed decisions */
    CS_LIBRARY_SMPI_MPICH, /* "smpi-mpich": SimGrid 3.32 SMPI's mpich selector */
    CS_LIBRARY_SMPI_OMPI,  /* "smpi-ompi": SimGrid 3.32 SMPI's ompi selector */
    CS_LIBRARY_COUNT
} cs_library;

/* The name of a cs_library value ("?" out of range), and the value of a name
 * (-1: none). */
const char *cs_library_name(int library);
int cs_library_parse(const char *name);

/* The library an MPI_Get_library_version string names: Open MPI, SimGrid's
 * SMPI (its mpich selector, the scale lab's library), else MPICH. */
cs_library cs_library_detect(const char *version);

/*
 * A band of message sizes (model.bands): a message of at least `from` bytes,
 * below the next band's from, costs alpha * alpha_factor + beta *
 * beta_factor * m (its node's alpha and beta too, where it stays on one): a
 * protocol's band, as a library's eager and rendezvous paths, or SimGrid
 * SMPI's latency and bandwidth factors. Messages below the first band's
 * from take the model's alpha and beta.
 */
typedef struct cs_band {
    size_t from;
    double alpha_factor, beta_factor;
} cs_band;

enum { CS_BANDS_MAX = 16 };

typedef struct cs_bands {
    int n; /* bands, in increasing from */
    cs_band band[CS_BANDS_MAX];
} cs_bands;

/*
 * The machine model (docs/architecture.md, "Cost model"): a message of m bytes costs
 * alpha + beta*m, a rank's concurrent messages overlap their alpha and queue
 * their bytes on its link (beta per byte, per direction); a rank pays
 * overhead (LogGP's o) of its own time for every message it posts; copying
 * m bytes locally costs rho*m; combining m bytes with an operator costs
 * gamma*m. Seconds, and seconds per byte. With overhead 0 and one message
 * per direction per round it is the papers' model. A schedule's price is
 * its critical path (sched/pricer.h).
 */
typedef struct cs_model {
    double alpha;
    double beta;
    double rho;
    double gamma;
    double overhead; /* o: seconds of the poster's time per message posted */
    /* Messages between ranks of one node (node_levels set): their own alpha
     * and beta, on a path of their own (shared memory, not the network). */
    double alpha_node, beta_node;
    int node_levels;
    /* model.node_paths: 0 (rank), a rank's messages on its node queue on
     * its own path, one after another (its core copies them); 1 (pair),
     * each pair of a node's ranks has a path of its own, and a rank's
     * messages on the node take theirs at once (SimGrid's loopback, a
     * FATPIPE). Only with node_levels (cs_model_pair_paths). */
    int node_pairs;
    /* Every message this model prices takes a path of its own, queueing
     * behind none of its rank's others: a node's model (cs_model_on_node)
     * where node_pairs is set, for a node's phase priced as one level. */
    int own_paths;
    /* Seconds per byte through a node's link to the network, which the
     * messages its ranks send (receive) off the node at once share; 0: each
     * rank's own link, beta, is all (cs_model_at_level). */
    double beta_link;
    /* Seconds per byte through the network's core, which every message
     * between nodes crosses (a backbone, an oversubscribed tree level),
     * shared by all the communicator's messages off their nodes at once;
     * without a node map every message between two ranks is between nodes
     * (a rank a host). 0: full bisection, no such term (cs_model_through_core). */
    double beta_core;
    /* Ranks a node holds as the network groups them: world ranks
     * ranks_per_node*j .. ranks_per_node*j + ranks_per_node - 1 form node j
     * (a leaf switch's hosts, where each rank has a host of its own); 0: the
     * ranks that share memory (MPI_COMM_TYPE_SHARED) form a node. */
    int ranks_per_node;
    /* With ranks_per_node N: 0, world ranks in blocks of N a node; 1
     * (model.placement cyclic), dealt round-robin to ceil(world size / N)
     * nodes, world rank i on node i mod that (sched/nodes.h). */
    int cyclic;
    /* model.link_share: 0 (world), a communicator that holds fewer of a
     * node's ranks than the world does shares the node's link with as many
     * like it, all sending at once (cs_problem.share: the rows or columns
     * of a process grid); 1 (communicator), with nothing else. */
    int link_own;
    /* Messages of at least this many bytes go by rendezvous: one leaves only
     * once its receiver has begun the round that receives it (SimGrid's
     * SMPI sends every message so; an MPI library, those past its eager
     * limit). 0: none, every message is sent eagerly, whenever it is posted. */
    size_t rendezvous_from;
    /* Distance (model.distance, cs_model_hop_latency): where a message's
     * latency grows with how far apart its ranks are, a message between
     * ranks a and b crosses cs_hops(distance, a, b) links and costs
     * alpha_hop per link beyond the first; CS_DISTANCE_NONE (0): every pair
     * alpha alone. */
    int distance;
    double alpha_hop;
    /* select keeps the MPI library's collective unless ours is predicted
     * cheaper by this fraction of the library's price (0 <= margin < 1). */
    double margin;
    /* The library priced (cs_library); CS_LIBRARY_AUTO prices MPICH until
     * the shim has asked the library what it is. */
    int library;
    /* Open MPI's coll/tuned algorithm the user forced per collective
     * (coll_tuned_use_dynamic_rules and coll_tuned_<coll>_algorithm, its
     * numbers), 0: its fixed decisions. Priced under library openmpi only;
     * the shim reads them through MPI_T at start (shim/init.c). */
    unsigned char library_forced[CS_COLL_LAST];
    /* The tuning file the library runs under (model.library_rules,
     * config/library_rules.h): MPICH's JSON or Open MPI's dynamic rules,
     * priced before library_forced and the defaults; NULL: none. */
    const struct cs_library_rules *library_rules;
    /* Bokhari's hulls under this model, built once with the configuration
     * (model/hull.h); NULL: computed when asked. */
    const struct cs_hull_table *hulls;
    /* Size bands (cs_bands, cs_model_sized); NULL or none: alpha and beta
     * for every size. */
    const cs_bands *bands;
} cs_model;

/*
 * The model as a schedule of pairwise rounds sees it: each round of such a
 * schedule posts one receive and one send per rank, so its overhead is two
 * posts added to alpha, and the papers' closed forms hold with that alpha
 * (direct, multiphase, standard, bruck, the butterfly allreduce).
 */
static inline cs_model cs_model_pairwise(const cs_model *model)
{
    cs_model pairwise = *model;
    pairwise.alpha += 2 * model->overhead;
    pairwise.overhead = 0.0;
    return pairwise;
}

/* Properties of one call that are equal on every rank (flags of cs_problem). */
enum {
    CS_PROB_INPLACE = 1u << 0,       /* MPI_IN_PLACE */
    CS_PROB_COMMUTATIVE = 1u << 1,   /* MPI_Op_commutative */
    CS_PROB_CONTIG = 1u << 2,        /* datatypes are contiguous: size == extent == true extent */
    CS_PROB_EXACT = 1u << 3,         /* results do not depend on operand order (integers, MIN/MAX...) */
    CS_PROB_INVERSE = 1u << 4,       /* the operator has an exact inverse on the type (sched/inverse.h) */
    CS_PROB_LIBRARY_WRONG = 1u << 5, /* the library computes the (op, type) wrongly: ours preferred */
    CS_PROB_USER_OP = 1u << 6,       /* the operator is not predefined (MPICH selects by it) */
    CS_PROB_NODE_RANGES = 1u << 7    /* each node's ranks are one consecutive range (cs_problem.node) */
};

/*
 * One call as the decision sees it. Only rank-invariant values live here: a
 * decision made from them is the same on every rank.
 */
typedef struct cs_problem {
    cs_coll coll;
    int p;        /* communicator size */
    int root;     /* reduce only; 0 otherwise */
    size_t count; /* elements: the vector (reductions) or one block (alltoall) */
    size_t elem;  /* bytes per element; 1 for alltoall, whose schedules move bytes */
    size_t bytes; /* m: count * elem */
    unsigned flags;
    int n, r; /* the window reductions: window length and result offset; 0 otherwise */
    /* Ranks per node, placed in blocks: ranks ppn*j .. ppn*j + ppn - 1 share
     * node j (the shim finds it once per communicator); 0 or 1: not known, or
     * one a node, and the model has one level. */
    int ppn;
    /* Which node each rank is on (sched/nodes.h): node[r] in 0 .. nodes - 1,
     * numbered in order of first appearance; NULL where the model sees no
     * nodes. Set whatever the placement: ppn is also set only where it is
     * blocks of one size. nodes: how many the communicator spans (0: not
     * known). */
    const int *node;
    int nodes;
    /* How many communicators like this one use each node's link (and the
     * network's core) at once (sched/nodes.h, cs_nodes.share: a column of a
     * process grid whose rows are nodes shares each node's link with the
     * node's other columns); 0 or 1: this one alone. cs_model_shared. */
    int share;
} cs_problem;

/* Do a node's messages within it take a path of their own (shared memory),
 * apart from its ranks' network links? Not where the nodes are the network's
 * blocks (model.ranks_per_node): a host's messages then all take its one link. */
static inline int cs_model_node_path(const cs_model *model)
{
    return model->node_levels && !model->ranks_per_node;
}

/* Does each pair of a node's ranks have a path of its own (model.node_paths
 * pair), so that a rank's messages on its node do not queue on one? */
static inline int cs_model_pair_paths(const cs_model *model)
{
    return model->node_pairs && cs_model_node_path(model);
}

/* Does a message (on its node: local) queue behind its rank's others, on
 * the rank's path each way? Not where it has a path of its own. */
static inline int cs_model_queues(const cs_model *model, int local)
{
    return !(model->own_paths || (local && cs_model_pair_paths(model)));
}

/* Does a message of `bytes` wait for its receiver (model.rendezvous_from)? */
static inline int cs_model_rendezvous(const cs_model *model, size_t bytes)
{
    return model->rendezvous_from > 0 && bytes >= model->rendezvous_from;
}

/* Does the model see nodes on this problem (ranks a node, and a node level
 * or a node's link)? */
static inline int cs_model_nodes(const cs_model *model, const cs_problem *prob)
{
    if (prob->ppn == 1 && prob->share > 1) /* one rank a node, its link shared with other communicators */
        return model->beta_link > 0.0 || model->beta_core > 0.0;
    return prob->ppn > 1 && (model->node_levels || model->beta_link > 0.0 || model->beta_core > 0.0);
}

/* The model a communicator sees where prob->share communicators like it
 * send through each node's link and the network's core at once (a column
 * of a process grid, beside the node's other columns): their bytes queue
 * with its own, so each byte takes share times as long there. The model
 * itself where it is alone. */
static inline cs_model cs_model_shared(const cs_model *model, const cs_problem *prob)
{
    cs_model at = *model;
    if (prob->share > 1) {
        at.beta_link *= prob->share;
        at.beta_core *= prob->share;
    }
    return at;
}

/* Does the model see nodes that are not blocks of one size (uneven nodes,
 * a last node part full, ranks placed round robin)? The closed forms that
 * assume blocks then see one level (ppn 0), and a row is priced on the map
 * (coll.h, cs_alg_cost_within). */
static inline int cs_model_map_uneven(const cs_model *model, const cs_problem *prob)
{
    return prob->node && prob->ppn < 1 && prob->nodes < prob->p &&
           (model->node_levels || model->beta_link > 0.0 || model->beta_core > 0.0);
}

/* The band of a message of `bytes` (model.bands): NULL below the first
 * band, or where the model has none. */
static inline const cs_band *cs_model_band(const cs_model *model, double bytes)
{
    const cs_band *in = NULL;
    if (model->bands)
        for (int i = 0; i < model->bands->n && (double)model->bands->band[i].from <= bytes; i++)
            in = &model->bands->band[i];
    return in;
}

/* The model a message of `bytes` sees: its band's factors on alpha and beta,
 * on the node and off it (alpha_hop too: a route's latency), the model
 * itself below every band. Sized once: the result has no bands, so that a
 * closed form handed a sized model prices what it was sized for. */
static inline cs_model cs_model_sized(const cs_model *model, double bytes)
{
    cs_model at = *model;
    const cs_band *band = cs_model_band(model, bytes);
    if (band) {
        at.alpha *= band->alpha_factor;
        at.alpha_node *= band->alpha_factor;
        at.alpha_hop *= band->alpha_factor;
        at.beta *= band->beta_factor;
        at.beta_node *= band->beta_factor;
    }
    at.bands = NULL;
    return at;
}

/* A message within a node: alpha_node and beta_node, where the model has them. */
static inline cs_model cs_model_on_node(const cs_model *model)
{
    cs_model at = *model;
    if (model->node_levels) {
        at.alpha = model->alpha_node;
        at.beta = model->beta_node;
        at.own_paths = cs_model_pair_paths(model);
    }
    return at;
}

/* A message off the node, `senders` of the node's ranks sending (receiving)
 * at once: alpha, and per byte the larger of a rank's beta and its share of
 * the node's link. */
static inline cs_model cs_model_off_node(const cs_model *model, long senders)
{
    cs_model at = *model;
    if ((double)senders * model->beta_link > at.beta)
        at.beta = (double)senders * model->beta_link;
    return at;
}

/* A message through the network's core while `total` ranks of the whole
 * communicator send off their nodes at once: per byte the larger of the
 * model's beta and their aggregate through the core, total * beta_core
 * (bit for bit the model where beta_core is 0). */
static inline cs_model cs_model_through_core(const cs_model *model, long total)
{
    cs_model at = *model;
    if ((double)total * model->beta_core > at.beta)
        at.beta = (double)total * model->beta_core;
    return at;
}

/* A message off the node, `senders` of the node's ranks and `total` of the
 * whole communicator's sending off their nodes at once: the node's link
 * (cs_model_off_node), then the core (cs_model_through_core). */
static inline cs_model cs_model_off_nodes(const cs_model *model, long senders, long total)
{
    const cs_model link = cs_model_off_node(model, senders);
    return cs_model_through_core(&link, total);
}

/* The one level a communicator of one rank a node sees where its nodes'
 * links are shared (cs_model_nodes at ppn 1, cs_problem.share): every
 * message off its node, the rank alone on it sending, all p through the
 * core (as cs_model_at_level there); else the model. For the rows whose
 * closed forms have one level (the windowed ones). */
static inline cs_model cs_model_one_level(const cs_model *model, const cs_problem *prob)
{
    if (prob->ppn == 1 && cs_model_nodes(model, prob))
        return cs_model_off_nodes(model, 1, prob->p);
    return *model;
}

/* Does an instance of f members stride ranks apart lie within a node (its
 * span divides ppn, the ranks in blocks)? */
static inline int cs_level_on_node(const cs_problem *prob, long stride, long f)
{
    return prob->ppn > 1 && stride * f <= prob->ppn && prob->ppn % (stride * f) == 0;
}

/* A message on a node or off it (`senders` of the node's ranks sending at
 * once), where the model sees nodes; else the model as it is. */
static inline cs_model cs_model_hop(const cs_model *model, const cs_problem *prob, int on_node, long senders)
{
    if (!cs_model_nodes(model, prob))
        return *model;
    return on_node ? cs_model_on_node(model) : cs_model_off_node(model, senders);
}

/* How the links between two ranks grow with their numbers (model.distance):
 * none, the XOR of the ranks (a hypercube: one link per differing bit), or
 * their difference (a line: |a - b| links). */
enum { CS_DISTANCE_NONE, CS_DISTANCE_XOR, CS_DISTANCE_DIFFERENCE };

/* The links a message between ranks a and b crosses under `distance`. */
static inline long cs_hops(int distance, long a, long b)
{
    if (distance == CS_DISTANCE_XOR)
        return __builtin_popcountl((unsigned long)(a ^ b));
    if (distance == CS_DISTANCE_DIFFERENCE)
        return a > b ? a - b : b - a;
    return 1;
}

/* A rank's links to the network: one (CS_LINK_NET) where it has one, and
 * on a hypercube (model.distance xor) one per dimension, each way: a
 * message from a to b leaves a by the link of the lowest bit in which they
 * differ and reaches b by the link of the highest (dimension-order
 * routing), so messages to peers across different dimensions do not queue
 * on one another (a k-nomial parent's children, the linear exchange's
 * blocks). CS_LINK_NODE: a node's own path (cs_model_node_path). The index
 * of a rank's link queue, 0 .. CS_LINKS - 1. */
enum { CS_LINK_NET = 0, CS_LINK_NODE = 1, CS_LINK_DIM = 2, CS_LINKS = CS_LINK_DIM + 32 };

static inline int cs_link_out(const cs_model *model, long a, long b)
{
    const unsigned long x = (unsigned long)(a ^ b);
    return model->distance == CS_DISTANCE_XOR && x ? CS_LINK_DIM + __builtin_ctzl(x) % 32 : CS_LINK_NET;
}

static inline int cs_link_in(const cs_model *model, long a, long b)
{
    const unsigned long x = (unsigned long)(a ^ b);
    return model->distance == CS_DISTANCE_XOR && x ? CS_LINK_DIM + (63 - __builtin_clzl(x)) % 32 : CS_LINK_NET;
}

/* The latency a message between ranks a and b adds to alpha: alpha_hop per
 * link beyond the first (0 where the model has no distance). */
static inline double cs_model_hop_latency(const cs_model *model, long a, long b)
{
    const long h = model->distance ? cs_hops(model->distance, a, b) : 1;
    return h > 1 ? model->alpha_hop * (double)(h - 1) : 0.0;
}

/* The most links between two members of one instance of a level of p ranks:
 * members base + j stride (j < f, below p) of every base whose digit
 * (base / stride) mod f is 0 (sched/distance.c). */
long cs_level_hops(int distance, long p, long stride, long f);

/* The latency a level's slowest message adds to alpha (cs_level_hops; 0
 * where the model has no distance): every rank of a level waits for its
 * partners, so its round takes the farthest pair's. */
static inline double cs_model_level_latency(const cs_model *model, long p, long stride, long f)
{
    const long h = model->distance ? cs_level_hops(model->distance, p, stride, f) : 1;
    return h > 1 ? model->alpha_hop * (double)(h - 1) : 0.0;
}

/* The most links from a parent of a k-nomial tree's round to its child
 * `child` (0: to any child): parents the multiples of r d below p, children
 * j d past them, 0 < j < r (sched/distance.c). */
long cs_tree_hops(int distance, long p, long d, long r, long child);

/* The latency a butterfly over p' = 2^floor(log2 p) ranks after a fold
 * (the first 2(p - p') ranks in pairs, the odd ones go on; MPICH's and
 * SMPI's recursive doubling and reduce-scatter) adds in `passes` passes
 * over its levels, beyond what the row priced on p' ranks sees: its ranks
 * are the unfolded ones, farther apart (sched/distance.c). */
double cs_model_folded_latency(const cs_model *model, int p, int passes);

/* The most links a shift of d ranks crosses, rank r sending to (r + d) mod p
 * (Bruck's rounds; sched/distance.c). */
long cs_shift_hops(int distance, long p, long d);

/*
 * The model that the messages of one level of a schedule see: ranks stride
 * apart, in instances of f members (a butterfly: 2, a ring or an
 * elimination: its size). With prob->ppn ranks a node, an instance that
 * lies within a node (stride * f divides ppn) is on the node; else off it,
 * with as many of the node's ranks sending at once as play the same role:
 * every one where stride is a multiple of ppn (they all have the same digit
 * at the level), else min(stride, ppn); through the network's core
 * (model.beta_core), that many of every node's ranks at once, the level's
 * senders over the whole communicator (where the model sees no nodes every
 * rank is a node of its own: all p). Where a level is in part on the node,
 * the part off it: the slower. cs_model_at_level_of: at most `sending`
 * ranks of the communicator through the core (a one-way round's senders;
 * 0: all that play the level's role).
 */
static inline cs_model cs_model_at_level_links(const cs_model *model, const cs_problem *prob, long stride, int f,
                                               long sending)
{
    const long ppn = prob->ppn, p = sending > 0 && sending < prob->p ? sending : prob->p;
    if (!cs_model_nodes(model, prob)) /* a rank a node: all p through the core */
        return cs_model_through_core(model, p);
    if (cs_level_on_node(prob, stride, f))
        return cs_model_on_node(model);
    const long senders = stride % ppn == 0 || stride > ppn ? ppn : stride;
    const long total = senders * ((prob->p + ppn - 1) / ppn);
    return cs_model_off_nodes(model, senders, total < p ? total : p);
}

/* ... and the latency of the level's farthest pair where the network has
 * distance (model.distance: cs_model_level_latency). */
static inline cs_model cs_model_at_level_of(const cs_model *model, const cs_problem *prob, long stride, int f,
                                            long sending)
{
    cs_model at = cs_model_at_level_links(model, prob, stride, f, sending);
    if (model->distance)
        at.alpha += cs_model_level_latency(model, prob->p, stride, f);
    return at;
}

static inline cs_model cs_model_at_level(const cs_model *model, const cs_problem *prob, long stride, int f)
{
    return cs_model_at_level_of(model, prob, stride, f, 0);
}

#endif
