/*
 * The reference price of a collective call: its critical path
 * (docs/architecture.md, "Cost model"), found by running the schedules of all p ranks against
 * per-rank clocks, every rank starting at time 0.
 *
 * A rank starts a round by posting its messages, receives first, then sends,
 * in schedule order (as the executor does), each costing it o (overhead) of
 * its own time. A send leaves when it is posted and the sender's link is
 * free, holds that link for beta*m, and reaches the receiver alpha after it
 * left; there it waits for the receiver's link, which it holds for beta*m:
 * the message is delivered when that ends. Concurrent messages therefore
 * overlap their alpha but queue their bytes, per direction, on each rank's
 * link. Messages are delivered whether or not the receiver has posted yet
 * (eager), but for those of at least model->rendezvous_from bytes
 * (rendezvous): such a send leaves only once its receiver has begun the
 * round that receives it (a rank begins a round when its previous one is
 * done), so a receiver that comes late delays it, and its sender's round
 * is not done until it has left. The round's messages are done when the last post, the last send
 * leaving the link and the last delivery are; its local steps then add gamma
 * per byte reduced and rho per byte copied, and the next round starts.
 *
 * Two levels (model->node_levels, a node map): ranks r and s with node[r]
 * == node[s] share a node, whatever their numbers; their messages cost
 * alpha_node and beta_node and go over a path of their own (shared memory),
 * not the ranks' network links.
 *
 * A node's link (model->beta_link > 0, a node map): a message between nodes
 * also passes the sender's node's link out and the receiver's node's link
 * in, beta_link per byte on each, behind the messages that reached them
 * before it (in the order they arrive, alpha after they left), alongside
 * its ranks' links: it is delivered when all are through. A node whose
 * ranks send at once shares its link among them; the sender does not wait
 * for it.
 *
 * With overhead 0 and one message per direction per round, a message costs
 * alpha + beta*m: the papers' model, in which every rank of a symmetric
 * schedule finishes at its sum over rounds and the closed forms hold.
 *
 * The pricer is exact for the schedules it is given, O(S log S) for S steps
 * in all; it allocates, so it runs at a communicator's first use, in tests and
 * in the tools, never per call.
 */
#ifndef CS_PRICER_H
#define CS_PRICER_H

#include "sched/sched.h"

/*
 * The time at which the last of scheds[0..p-1] finishes under model, rank r
 * on node node[r] of `nodes` (node NULL: one level; a node of one rank still
 * has its link); finish
 * (optional, p entries) gets each rank's. Returns -1 when the schedules do
 * not match (a receive no send feeds, so a rank would wait forever) or
 * memory runs out.
 */
double cs_price_critical_path_map(const cs_model *model, const cs_sched *scheds, int p, const int *node, int nodes,
                                  double *finish);

/* ... on nodes of ppn ranks in blocks (node[r] = r / ppn, the last node
 * part full where ppn does not divide p); ppn <= 1: one level. */
double cs_price_critical_path(const cs_model *model, const cs_sched *scheds, int p, int ppn, double *finish);

#endif
