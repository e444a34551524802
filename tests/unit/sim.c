/*
 * The schedule simulator (see sim.h).
 *
 * Buffers, as the caller of the collective provides them (m: block bytes for
 * alltoall, v = count * 4 bytes for the reductions):
 *
 *   alltoall   SEND p*m (0 in place)   RECV p*m   block j of SEND on rank i
 *              goes to block i of RECV on rank j; in place the data start in RECV
 *   allreduce  SEND v (0 in place)     RECV v     result in RECV everywhere
 *   reduce     SEND v (0 at an in-place root)     RECV v at the root, 0 elsewhere
 *   TMP0, TMP1 as the schedule declares (s->tmp_bytes)
 *
 * A buffer of 0 bytes stands for one the executor must never touch (the send
 * buffer is MPI_IN_PLACE, the receive buffer of a non-root is not
 * significant): any access to it is a violation, even of 0 bytes.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

/* ---------------------------------------------------------------- report */

const char *sim_kind_name(sim_kind kind)
{
    static const char *const names[SIM_V_LAST] = {
        "setup",      "build", "step",           "peer",           "bounds", "write-send", "overlap", "alias",
        "reduce-len", "no-op", "unmatched-send", "unmatched-recv", "length", "data",       "order",   "shape",
    };
    return (unsigned)kind < SIM_V_LAST ? names[kind] : "?";
}

static void sim_note(sim_report *rep, sim_kind kind, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void sim_note(sim_report *rep, sim_kind kind, const char *fmt, ...)
{
    rep->total++;
    rep->count[kind]++;
    if (rep->nmsg == SIM_MAX_MSGS)
        return;
    char *m = rep->msg[rep->nmsg++];
    int n = snprintf(m, SIM_MSG_LEN, "%s: ", sim_kind_name(kind));
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m + n, SIM_MSG_LEN - (size_t)n, fmt, ap);
    va_end(ap);
}

const char *sim_report_str(const sim_report *rep, char *buf, size_t size)
{
    size_t n = (size_t)snprintf(buf, size, "%d violation(s)", rep->total);
    for (int k = 0; k < SIM_V_LAST && n < size; k++)
        if (rep->count[k])
            n += (size_t)snprintf(buf + n, size - n, " %s=%d", sim_kind_name((sim_kind)k), rep->count[k]);
    for (int i = 0; i < rep->nmsg && n < size; i++)
        n += (size_t)snprintf(buf + n, size - n, "\n  %s", rep->msg[i]);
    return buf;
}

/* ----------------------------------------------------- interning tables */

static uint64_t sim_mix(uint64_t x)
{
    /* splitmix64's finalizer: every input bit reaches every output bit */
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* Open-addressing map from a pair of uint32 to a uint32. */
typedef struct sim_map {
    uint64_t *keys;
    uint32_t *vals;
    size_t cap, n; /* cap: a power of two, or 0 */
} sim_map;

#define SIM_EMPTY UINT64_MAX /* no pair of ids below 2^32 - 1 makes it */

static void sim_map_free(sim_map *m)
{
    free(m->keys);
    free(m->vals);
    *m = (sim_map){0};
}

static void sim_map_grow(sim_map *m)
{
    sim_map g = {.cap = m->cap ? m->cap * 2 : 1024};
    g.keys = malloc(g.cap * sizeof(*g.keys));
    g.vals = malloc(g.cap * sizeof(*g.vals));
    if (!g.keys || !g.vals) {
        fprintf(stderr, "sim: out of memory\n");
        abort();
    }
    memset(g.keys, 0xff, g.cap * sizeof(*g.keys));
    for (size_t i = 0; i < m->cap; i++) {
        if (m->keys[i] == SIM_EMPTY)
            continue;
        size_t h = sim_mix(m->keys[i]) & (g.cap - 1);
        while (g.keys[h] != SIM_EMPTY)
            h = (h + 1) & (g.cap - 1);
        g.keys[h] = m->keys[i];
        g.vals[h] = m->vals[i];
    }
    g.n = m->n;
    sim_map_free(m);
    *m = g;
}

/* The value of (a, b); if absent, insert make(ctx) and return it. */
static uint32_t sim_map_intern(sim_map *m, uint32_t a, uint32_t b, uint32_t (*make)(void *), void *ctx)
{
    if (2 * (m->n + 1) > m->cap)
        sim_map_grow(m);
    const uint64_t key = (uint64_t)a << 32 | b;
    size_t h = sim_mix(key) & (m->cap - 1);
    while (m->keys[h] != SIM_EMPTY) {
        if (m->keys[h] == key)
            return m->vals[h];
        h = (h + 1) & (m->cap - 1);
    }
    m->keys[h] = key;
    m->vals[h] = make(ctx);
    m->n++;
    return m->vals[h];
}

/* ------------------------------------------- the bracketing-recording op */

/*
 * A node of the expression trees the reductions build. Node 0 is poison: the
 * content of a buffer nobody wrote. Nodes 1..p*count are the leaves
 * leaf(rank, e) = 1 + rank*count + e. A combined node is valid when both
 * operands are valid, of the same element, and adjacent in rank order with the
 * left one first; its shape is interned from its operands' shapes, so two
 * nodes have the same shape iff they have the same bracketing.
 */
typedef struct sim_node {
    uint32_t left, right; /* operands; 0 for leaves and poison */
    int min_rank, max_rank;
    uint32_t elem;
    uint32_t shape; /* 0: leaf */
    bool valid;
} sim_node;

typedef struct sim_tree {
    sim_node *nodes;
    size_t n, cap;
    sim_map pairs;  /* (left, right) -> node */
    sim_map shapes; /* (shape, shape) -> shape */
    uint32_t nshapes;
    size_t count;
    bool commutative;
    sim_node pending; /* the node sim_tree_make appends */
} sim_tree;

static uint32_t sim_tree_make(void *ctx)
{
    sim_tree *t = ctx;
    if (t->n == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 1024;
        t->nodes = realloc(t->nodes, t->cap * sizeof(*t->nodes));
        if (!t->nodes) {
            fprintf(stderr, "sim: out of memory\n");
            abort();
        }
    }
    t->nodes[t->n] = t->pending;
    return (uint32_t)t->n++;
}

static uint32_t sim_shape_make(void *ctx)
{
    sim_tree *t = ctx;
    return ++t->nshapes;
}

static void sim_tree_init(sim_tree *t, int p, size_t count, bool commutative)
{
    *t = (sim_tree){.count = count, .commutative = commutative};
    t->pending = (sim_node){.min_rank = -1, .max_rank = -1, .elem = UINT32_MAX};
    sim_tree_make(t); /* poison */
    for (int r = 0; r < p; r++)
        for (size_t e = 0; e < count; e++) {
            t->pending = (sim_node){.min_rank = r, .max_rank = r, .elem = (uint32_t)e, .valid = true};
            sim_tree_make(t);
        }
}

static void sim_tree_free(sim_tree *t)
{
    free(t->nodes);
    sim_map_free(&t->pairs);
    sim_map_free(&t->shapes);
}

static uint32_t sim_leaf(const sim_tree *t, int rank, size_t e)
{
    return (uint32_t)(1 + (size_t)rank * t->count + e);
}

/* Garbage (a partly copied id, say) is poison. */
static const sim_node *sim_node_at(const sim_tree *t, uint32_t id)
{
    return &t->nodes[id < t->n ? id : 0];
}

static uint32_t sim_combine(sim_tree *t, uint32_t a, uint32_t b)
{
    a = a < t->n ? a : 0;
    b = b < t->n ? b : 0;
    /* A commutative operator gives a (+) b == b (+) a bitwise: one node for
     * both orders, operands kept in rank order. */
    if (t->commutative && t->nodes[b].min_rank < t->nodes[a].min_rank) {
        uint32_t x = a;
        a = b;
        b = x;
    }
    const sim_node *x = &t->nodes[a], *y = &t->nodes[b];
    t->pending = (sim_node){
        .left = a,
        .right = b,
        .min_rank = x->min_rank < y->min_rank ? x->min_rank : y->min_rank,
        .max_rank = x->max_rank > y->max_rank ? x->max_rank : y->max_rank,
        .elem = x->elem == y->elem ? x->elem : UINT32_MAX,
        .shape = sim_map_intern(&t->shapes, x->shape, y->shape, sim_shape_make, t),
        .valid = x->valid && y->valid && x->elem == y->elem && x->max_rank + 1 == y->min_rank,
    };
    return sim_map_intern(&t->pairs, a, b, sim_tree_make, t);
}

/* The expression of a node, "((0+1)+2)", cut to the buffer; "?" is poison,
 * "3@e7" a leaf of another element than the result's. */
static size_t sim_render(const sim_tree *t, uint32_t id, size_t elem, char *buf, size_t size)
{
    const sim_node *x = sim_node_at(t, id);
    size_t n;
    if (size < 2)
        return 0;
    if (x == &t->nodes[0])
        n = (size_t)snprintf(buf, size, "?");
    else if (!x->left)
        n = x->elem == elem ? (size_t)snprintf(buf, size, "%d", x->min_rank)
                            : (size_t)snprintf(buf, size, "%d@e%u", x->min_rank, x->elem);
    else {
        n = (size_t)snprintf(buf, size, "(");
        n += sim_render(t, x->left, elem, buf + n, size - n);
        n += n < size ? (size_t)snprintf(buf + n, size - n, "+") : 0;
        n += n < size ? sim_render(t, x->right, elem, buf + n, size - n) : 0;
        n += n < size ? (size_t)snprintf(buf + n, size - n, ")") : 0;
    }
    return n < size ? n : size - 1;
}

/* ------------------------------------------------------------ the state */

typedef struct sim_rank {
    uint8_t *buf[CS_BUF_LAST];
    size_t size[CS_BUF_LAST];
} sim_rank;

/* A send or receive of the round being run. */
typedef struct sim_msg {
    int src, dst; /* sender and receiver */
    size_t step;  /* index in the poster's schedule: the posting order */
    const cs_step *st;
    bool ok;   /* its bytes can be read (send) or written (receive) */
    size_t at; /* send: where its bytes wait in the round's arena */
} sim_msg;

typedef struct sim {
    const cs_problem *prob;
    const cs_sched *scheds;
    sim_report *rep;
    sim_rank *ranks;
    sim_tree tree;                /* reductions only */
    const int *span_lo, *span_hi; /* sim_run_spans: the leaves each rank's result reduces */
    /* the round's messages and the bytes of its sends */
    sim_msg *sends, *recvs;
    size_t nsends, nrecvs, msg_cap;
    uint8_t *arena;
    size_t arena_len, arena_cap;
} sim;

static const char *const sim_buf_names[CS_BUF_LAST] = {"SEND", "RECV", "TMP0", "TMP1"};

static const char *sim_buf_name(unsigned b)
{
    return b < CS_BUF_LAST ? sim_buf_names[b] : "BUF?";
}

/* "send to 3 RECV[16..24)", for messages. */
static const char *sim_step_str(const cs_step *st, char *buf, size_t size)
{
    switch (st->kind) {
    case CS_STEP_SEND:
    case CS_STEP_RECV:
        snprintf(buf, size, "%s %s %d %s[%zu..+%zu)", st->kind == CS_STEP_SEND ? "send" : "recv",
                 st->kind == CS_STEP_SEND ? "to" : "from", st->peer, sim_buf_name(st->buf), st->off, st->len);
        break;
    case CS_STEP_COPY:
    case CS_STEP_REDUCE:
        snprintf(buf, size, "%s %s[%zu..+%zu) -> %s[%zu..]", st->kind == CS_STEP_COPY ? "copy" : "reduce",
                 sim_buf_name(st->buf), st->off, st->len, sim_buf_name(st->dst), st->dst_off);
        break;
    default: snprintf(buf, size, "step of kind %u", st->kind);
    }
    return buf;
}

/* A violation of one step: "rank 2 round 1 step 5 (send to 3 RECV[0..+8)): why". */
static void sim_step_note(sim *S, sim_kind kind, int rank, int round, size_t i, const char *why)
{
    char d[96];
    sim_note(S->rep, kind, "rank %d round %d step %zu (%s): %s", rank, round, i,
             sim_step_str(&S->scheds[rank].steps[i], d, sizeof d), why);
}

/* Can rank access [off, off+len) of buffer b? Reports why not. */
static bool sim_access(sim *S, int rank, int round, size_t i, unsigned b, size_t off, size_t len, bool write)
{
    char why[96];
    if (b >= CS_BUF_LAST) {
        sim_step_note(S, SIM_V_STEP, rank, round, i, "no such buffer");
        return false;
    }
    if (write && b == CS_BUF_SEND) {
        sim_step_note(S, SIM_V_WRITE_SEND, rank, round, i, "writes the send buffer");
        return false;
    }
    const size_t size = S->ranks[rank].size[b];
    if (size == 0 || off > size || len > size - off) {
        snprintf(why, sizeof why, "%s %s has %zu bytes", write ? "writes" : "reads", sim_buf_name(b), size);
        sim_step_note(S, SIM_V_BOUNDS, rank, round, i, why);
        return false;
    }
    return true;
}

static bool sim_is_reduction(const cs_problem *prob)
{
    return prob->coll == CS_COLL_ALLREDUCE || prob->coll == CS_COLL_REDUCE;
}

/* ------------------------------------------------------------- the data */

/* Byte k of the block that src sends to dst. Bit 0 is (src < dst), so the two
 * blocks of a pair always differ: an in-place block left where it was shows. */
static uint8_t sim_a2a_byte(int src, int dst, size_t k)
{
    uint64_t h = sim_mix(sim_mix((uint64_t)src << 32 | (uint32_t)dst) ^ k);
    return (uint8_t)((h & 0xfe) | (src < dst));
}

static void sim_put_id(uint8_t *at, uint32_t id)
{
    memcpy(at, &id, sizeof id);
}

static uint32_t sim_get_id(const uint8_t *at)
{
    uint32_t id;
    memcpy(&id, at, sizeof id);
    return id;
}

static void sim_fill_alltoall(sim *S, int rank, sim_rank *R)
{
    const int p = S->prob->p;
    const size_t m = S->prob->bytes;
    const bool inplace = S->prob->flags & CS_PROB_INPLACE;
    for (int j = 0; j < p; j++)
        for (size_t k = 0; k < m; k++) {
            const uint8_t out = sim_a2a_byte(rank, j, k);
            if (!inplace)
                R->buf[CS_BUF_SEND][j * m + k] = out;
            /* not in place: the complement of what must arrive, so nothing
             * passes by being left alone */
            R->buf[CS_BUF_RECV][j * m + k] = inplace ? out : (uint8_t)~sim_a2a_byte(j, rank, k);
        }
    for (int b = CS_BUF_TMP0; b <= CS_BUF_TMP1; b++)
        for (size_t k = 0; k < R->size[b]; k++)
            R->buf[b][k] = (uint8_t)sim_mix((uint64_t)rank << 40 | (uint64_t)b << 32 | k);
}

/* The rank's operand starts in SEND, or in RECV when that is all it has. */
static void sim_fill_reduction(sim *S, int rank, sim_rank *R)
{
    const cs_buf data = R->size[CS_BUF_SEND] ? CS_BUF_SEND : CS_BUF_RECV;
    for (size_t e = 0; e < S->prob->count; e++)
        sim_put_id(R->buf[data] + e * 4, sim_leaf(&S->tree, rank, e));
    /* every other byte is 0: poison */
}

static bool sim_alloc_rank(sim *S, int rank)
{
    const cs_problem *prob = S->prob;
    const bool inplace = prob->flags & CS_PROB_INPLACE;
    sim_rank *R = &S->ranks[rank];
    size_t n = prob->coll == CS_COLL_ALLTOALL ? (size_t)prob->p * prob->bytes : prob->count * 4;

    R->size[CS_BUF_SEND] = inplace && (prob->coll != CS_COLL_REDUCE || rank == prob->root) ? 0 : n;
    R->size[CS_BUF_RECV] = prob->coll == CS_COLL_REDUCE && rank != prob->root ? 0 : n;
    R->size[CS_BUF_TMP0] = S->scheds[rank].tmp_bytes[0];
    R->size[CS_BUF_TMP1] = S->scheds[rank].tmp_bytes[1];
    for (int b = 0; b < CS_BUF_LAST; b++) {
        R->buf[b] = R->size[b] ? calloc(R->size[b], 1) : NULL;
        if (R->size[b] && !R->buf[b]) {
            sim_note(S->rep, SIM_V_SETUP, "rank %d: cannot allocate %zu bytes of %s", rank, R->size[b],
                     sim_buf_name((unsigned)b));
            return false;
        }
    }
    if (sim_is_reduction(prob))
        sim_fill_reduction(S, rank, R);
    else
        sim_fill_alltoall(S, rank, R);
    return true;
}

/* --------------------------------------------------------- the messages */

static void sim_msgs_reserve(sim *S, size_t n)
{
    n = n ? n : 1; /* qsort takes no null array, even empty */
    if (n <= S->msg_cap)
        return;
    S->msg_cap = n;
    S->sends = realloc(S->sends, n * sizeof(*S->sends));
    S->recvs = realloc(S->recvs, n * sizeof(*S->recvs));
    if (!S->sends || !S->recvs) {
        fprintf(stderr, "sim: out of memory\n");
        abort();
    }
}

/* Snapshot the bytes of a send: sends read their buffers at the start of the round. */
static size_t sim_arena_put(sim *S, const uint8_t *bytes, size_t len)
{
    if (len == 0)
        return S->arena_len;
    if (S->arena_len + len > S->arena_cap) {
        S->arena_cap = 2 * (S->arena_len + len);
        S->arena = realloc(S->arena, S->arena_cap);
        if (!S->arena) {
            fprintf(stderr, "sim: out of memory\n");
            abort();
        }
    }
    memcpy(S->arena + S->arena_len, bytes, len);
    S->arena_len += len;
    return S->arena_len - len;
}

static bool sim_peer_ok(sim *S, int rank, int round, size_t i)
{
    const int peer = S->scheds[rank].steps[i].peer;
    if (peer == rank || peer < 0 || peer >= S->prob->p) {
        sim_step_note(S, SIM_V_PEER, rank, round, i, peer == rank ? "to itself" : "no such rank");
        return false;
    }
    return true;
}

/* Post the round's sends and receives of one rank. */
static void sim_post(sim *S, int rank, int round, size_t first, size_t end)
{
    const cs_sched *s = &S->scheds[rank];
    for (size_t i = first; i < end; i++) {
        const cs_step *st = &s->steps[i];
        if (st->kind != CS_STEP_SEND && st->kind != CS_STEP_RECV)
            continue;
        if (!sim_peer_ok(S, rank, round, i))
            continue;
        const bool send = st->kind == CS_STEP_SEND;
        sim_msg m = {.src = send ? rank : st->peer, .dst = send ? st->peer : rank, .step = i, .st = st};
        m.ok = sim_access(S, rank, round, i, st->buf, st->off, st->len, !send);
        if (send && m.ok)
            m.at = sim_arena_put(S, S->ranks[rank].buf[st->buf] + st->off, st->len);
        if (send)
            S->sends[S->nsends++] = m;
        else
            S->recvs[S->nrecvs++] = m;
    }
}

/* A message's byte range, for the overlap check. */
typedef struct sim_range {
    unsigned buf;
    size_t off, end, step;
    bool recv;
} sim_range;

static int sim_range_cmp(const void *a, const void *b)
{
    const sim_range *x = a, *y = b;
    if (x->buf != y->buf)
        return x->buf < y->buf ? -1 : 1;
    return x->off < y->off ? -1 : x->off > y->off;
}

/*
 * MPI forbids a receive buffer that overlaps another pending receive or a
 * pending send. Sorted by start, a range overlaps an earlier one iff it starts
 * before the largest end seen so far (of receives, for a send).
 */
static void sim_check_overlap(sim *S, int rank, int round, size_t first, size_t end)
{
    const cs_sched *s = &S->scheds[rank];
    sim_range *v = malloc((end - first + 1) * sizeof(*v));
    size_t n = 0;
    for (size_t i = first; i < end; i++) {
        const cs_step *st = &s->steps[i];
        if ((st->kind == CS_STEP_SEND || st->kind == CS_STEP_RECV) && st->len > 0 && st->buf < CS_BUF_LAST)
            v[n++] = (sim_range){st->buf, st->off, st->off + st->len, i, st->kind == CS_STEP_RECV};
    }
    qsort(v, n, sizeof(*v), sim_range_cmp);
    size_t any_end = 0, recv_end = 0, any_step = 0, recv_step = 0;
    for (size_t j = 0; j < n; j++) {
        if (j > 0 && v[j].buf != v[j - 1].buf)
            any_end = recv_end = 0;
        const bool hit = v[j].recv ? any_end > v[j].off : recv_end > v[j].off;
        if (hit) {
            char why[64];
            snprintf(why, sizeof why, "overlaps step %zu of the round", v[j].recv ? any_step : recv_step);
            sim_step_note(S, SIM_V_OVERLAP, rank, round, v[j].step, why);
        }
        if (v[j].end > any_end) {
            any_end = v[j].end;
            any_step = v[j].step;
        }
        if (v[j].recv && v[j].end > recv_end) {
            recv_end = v[j].end;
            recv_step = v[j].step;
        }
    }
    free(v);
}

/* Messages of one (sender, receiver) pair, in posting order. */
static int sim_msg_cmp(const void *a, const void *b)
{
    const sim_msg *x = a, *y = b;
    if (x->src != y->src)
        return x->src < y->src ? -1 : 1;
    if (x->dst != y->dst)
        return x->dst < y->dst ? -1 : 1;
    return x->step < y->step ? -1 : x->step > y->step;
}

static void sim_deliver(sim *S, int round, const sim_msg *snd, const sim_msg *rcv)
{
    if (snd->st->len != rcv->st->len) {
        char why[96];
        snprintf(why, sizeof why, "rank %d sends %zu bytes (its step %zu)", snd->src, snd->st->len, snd->step);
        sim_step_note(S, SIM_V_LENGTH, rcv->dst, round, rcv->step, why);
        return;
    }
    if (snd->ok && rcv->ok && snd->st->len)
        memcpy(S->ranks[rcv->dst].buf[rcv->st->buf] + rcv->st->off, S->arena + snd->at, snd->st->len);
}

/* Pair sends and receives in order (MPI's non-overtaking rule), deliver. */
static void sim_match(sim *S, int round)
{
    qsort(S->sends, S->nsends, sizeof(sim_msg), sim_msg_cmp);
    qsort(S->recvs, S->nrecvs, sizeof(sim_msg), sim_msg_cmp);
    size_t i = 0, j = 0;
    while (i < S->nsends || j < S->nrecvs) {
        int c = i == S->nsends ? 1 : j == S->nrecvs ? -1 : 0;
        if (c == 0) {
            const sim_msg *x = &S->sends[i], *y = &S->recvs[j];
            c = x->src != y->src ? (x->src < y->src ? -1 : 1) : x->dst != y->dst ? (x->dst < y->dst ? -1 : 1) : 0;
        }
        if (c < 0) {
            sim_step_note(S, SIM_V_UNMATCHED_SEND, S->sends[i].src, round, S->sends[i].step,
                          "no receive posted by the peer in this round");
            i++;
        } else if (c > 0) {
            sim_step_note(S, SIM_V_UNMATCHED_RECV, S->recvs[j].dst, round, S->recvs[j].step,
                          "no send posted by the peer in this round");
            j++;
        } else {
            sim_deliver(S, round, &S->sends[i++], &S->recvs[j++]);
        }
    }
}

/* ---------------------------------------------------------- local steps */

static bool sim_local_ok(sim *S, int rank, int round, size_t i)
{
    const cs_step *st = &S->scheds[rank].steps[i];
    bool ok = true;
    if (st->kind == CS_STEP_REDUCE) {
        if (!sim_is_reduction(S->prob)) {
            sim_step_note(S, SIM_V_NO_OP, rank, round, i, "alltoall has no operator");
            return false;
        }
        if (st->len % S->prob->elem) {
            sim_step_note(S, SIM_V_REDUCE_LEN, rank, round, i, "length not a multiple of the element");
            ok = false;
        }
    }
    ok = sim_access(S, rank, round, i, st->buf, st->off, st->len, false) && ok;
    ok = sim_access(S, rank, round, i, st->dst, st->dst_off, st->len, true) && ok;
    /* memcpy and MPI_Reduce_local take distinct buffers */
    if (ok && st->buf == st->dst && st->off < st->dst_off + st->len && st->dst_off < st->off + st->len) {
        sim_step_note(S, SIM_V_ALIAS, rank, round, i, "source and destination overlap");
        ok = false;
    }
    return ok;
}

/* dst = src (+) dst, element by element, the left operand first. */
static void sim_reduce(sim *S, const uint8_t *left, uint8_t *inout, size_t len)
{
    for (size_t k = 0; k + 4 <= len; k += 4)
        sim_put_id(inout + k, sim_combine(&S->tree, sim_get_id(left + k), sim_get_id(inout + k)));
}

static void sim_local(sim *S, int rank, int round, size_t first, size_t end)
{
    sim_rank *R = &S->ranks[rank];
    for (size_t i = first; i < end; i++) {
        const cs_step *st = &S->scheds[rank].steps[i];
        if (st->kind == CS_STEP_SEND || st->kind == CS_STEP_RECV)
            continue;
        if (st->kind != CS_STEP_COPY && st->kind != CS_STEP_REDUCE) {
            sim_step_note(S, SIM_V_STEP, rank, round, i, "unknown step kind");
            continue;
        }
        if (!sim_local_ok(S, rank, round, i))
            continue;
        const uint8_t *src = R->buf[st->buf] + st->off;
        uint8_t *dst = R->buf[st->dst] + st->dst_off;
        if (st->kind == CS_STEP_COPY && st->len)
            memcpy(dst, src, st->len);
        else if (st->kind == CS_STEP_REDUCE)
            sim_reduce(S, src, dst, st->len);
    }
}

/* ---------------------------------------------------------------- rounds */

static void sim_round(sim *S, int round)
{
    const int p = S->prob->p;
    size_t nmsg = 0;
    for (int r = 0; r < p; r++)
        if (round < S->scheds[r].nrounds)
            nmsg += cs_sched_round_end(&S->scheds[r], round) - S->scheds[r].round_start[round];
    sim_msgs_reserve(S, nmsg);
    S->nsends = S->nrecvs = S->arena_len = 0;

    for (int r = 0; r < p; r++)
        if (round < S->scheds[r].nrounds) {
            const size_t first = S->scheds[r].round_start[round], end = cs_sched_round_end(&S->scheds[r], round);
            sim_check_overlap(S, r, round, first, end);
            sim_post(S, r, round, first, end);
        }
    sim_match(S, round);
    for (int r = 0; r < p; r++)
        if (round < S->scheds[r].nrounds)
            sim_local(S, r, round, S->scheds[r].round_start[round], cs_sched_round_end(&S->scheds[r], round));
}

/* Steps before the first round cannot be run (the builders open one). */
static bool sim_check_structure(sim *S)
{
    bool ok = true;
    for (int r = 0; r < S->prob->p; r++) {
        const cs_sched *s = &S->scheds[r];
        if (s->nsteps > 0 && (s->nrounds == 0 || s->round_start[0] != 0)) {
            sim_note(S->rep, SIM_V_STEP, "rank %d: %zu steps before the first round", r,
                     s->nrounds ? s->round_start[0] : s->nsteps);
            ok = false;
        }
        for (int k = 1; k < s->nrounds; k++)
            if (s->round_start[k] < s->round_start[k - 1] || s->round_start[k] > s->nsteps) {
                sim_note(S->rep, SIM_V_STEP, "rank %d: round %d starts at step %zu", r, k, s->round_start[k]);
                ok = false;
            }
    }
    return ok;
}

/* ---------------------------------------------------------------- results */

static void sim_check_alltoall(sim *S)
{
    const int p = S->prob->p;
    const size_t m = S->prob->bytes;
    for (int j = 0; j < p; j++)
        for (int i = 0; i < p; i++) {
            const uint8_t *block = S->ranks[j].buf[CS_BUF_RECV] + (size_t)i * m;
            size_t bad = 0, first = 0;
            for (size_t k = 0; k < m; k++)
                if (block[k] != sim_a2a_byte(i, j, k) && !bad++)
                    first = k;
            if (bad)
                sim_note(S->rep, SIM_V_DATA, "rank %d: block from rank %d has %zu wrong bytes of %zu, first %zu", j, i,
                         bad, m, first);
        }
}

static void sim_check_element(sim *S, int rank, size_t e, bool relax, uint32_t *shape)
{
    const uint32_t id = sim_get_id(S->ranks[rank].buf[CS_BUF_RECV] + e * 4);
    const sim_node *x = sim_node_at(&S->tree, id);
    const int lo = S->span_lo ? S->span_lo[rank] : 0, hi = S->span_hi ? S->span_hi[rank] : S->prob->p - 1;
    char expr[120];
    if (!x->valid || x->min_rank != lo || x->max_rank != hi || x->elem != e) {
        sim_render(&S->tree, id, e, expr, sizeof expr);
        sim_note(S->rep, SIM_V_ORDER, "rank %d element %zu: %s", rank, e, expr);
        return;
    }
    if (*shape == UINT32_MAX)
        *shape = x->shape;
    else if (x->shape != *shape && !relax) {
        sim_render(&S->tree, id, e, expr, sizeof expr);
        sim_note(S->rep, SIM_V_SHAPE, "rank %d element %zu: %s is bracketed unlike the first result", rank, e, expr);
    }
}

static void sim_check_reduction(sim *S, bool relax)
{
    uint32_t shape = UINT32_MAX; /* of the first correct result */
    for (int r = 0; r < S->prob->p; r++) {
        if (S->prob->coll == CS_COLL_REDUCE && r != S->prob->root)
            continue;
        if (S->span_lo) /* windows differ from rank to rank, and so do their bracketings */
            shape = UINT32_MAX;
        for (size_t e = 0; e < S->prob->count; e++)
            sim_check_element(S, r, e, relax, &shape);
    }
}

/* ------------------------------------------------------------------- run */

static bool sim_problem_ok(const cs_problem *prob, sim_report *rep)
{
    const char *why = NULL;
    if (prob->p < 1)
        why = "p < 1";
    else if (prob->coll == CS_COLL_ALLTOALL && (prob->elem != 1 || prob->bytes != prob->count))
        why = "alltoall needs elem 1 and bytes == count";
    else if (sim_is_reduction(prob) && (prob->elem != 4 || prob->bytes != 4 * prob->count))
        why = "reductions need elem 4 (uint32 node ids) and bytes == 4 count";
    else if (!sim_is_reduction(prob) && prob->coll != CS_COLL_ALLTOALL)
        why = "unknown collective";
    else if (prob->coll == CS_COLL_REDUCE && (prob->root < 0 || prob->root >= prob->p))
        why = "root outside 0..p-1";
    if (why)
        sim_note(rep, SIM_V_SETUP, "%s", why);
    return !why;
}

static void sim_free(sim *S)
{
    for (int r = 0; S->ranks && r < S->prob->p; r++)
        for (int b = 0; b < CS_BUF_LAST; b++)
            free(S->ranks[r].buf[b]);
    free(S->ranks);
    free(S->sends);
    free(S->recvs);
    free(S->arena);
    sim_tree_free(&S->tree);
}

int sim_run(const cs_problem *prob, const cs_sched *scheds, unsigned opts, sim_report *rep)
{
    return sim_run_spans(prob, scheds, opts, NULL, NULL, rep);
}

int sim_run_spans(const cs_problem *prob, const cs_sched *scheds, unsigned opts, const int *lo, const int *hi,
                  sim_report *rep)
{
    *rep = (sim_report){0};
    if (!sim_problem_ok(prob, rep))
        return rep->total;
    sim S = {.prob = prob, .scheds = scheds, .rep = rep, .span_lo = lo, .span_hi = hi};
    S.ranks = calloc((size_t)prob->p, sizeof(*S.ranks));
    if (sim_is_reduction(prob))
        sim_tree_init(&S.tree, prob->p, prob->count, prob->flags & CS_PROB_COMMUTATIVE);
    bool ok = S.ranks && sim_check_structure(&S);
    for (int r = 0; ok && r < prob->p; r++)
        ok = sim_alloc_rank(&S, r);
    if (ok) {
        int rounds = sim_rounds_max(scheds, prob->p);
        for (int k = 0; k < rounds; k++)
            sim_round(&S, k);
        if (sim_is_reduction(prob))
            sim_check_reduction(&S, opts & SIM_RELAX_SHAPE);
        else
            sim_check_alltoall(&S);
    }
    sim_free(&S);
    return rep->total;
}

int sim_run_alg(const cs_alg *alg, const cs_problem *prob, const cs_params *params, cs_sched *scheds, sim_report *rep)
{
    *rep = (sim_report){0};
    for (int r = 0; r < prob->p; r++) {
        cs_sched_reset(&scheds[r]);
        int rc = alg->build(prob, params, r, &scheds[r]);
        if (rc || scheds[r].error)
            sim_note(rep, SIM_V_BUILD, "rank %d: build returned %d, schedule error %d", r, rc, scheds[r].error);
    }
    if (rep->total)
        return rep->total;
    const unsigned opts = alg->requires & (CS_REQ_EXACT | CS_REQ_COMMUTATIVE) ? SIM_RELAX_SHAPE : 0;
    return sim_run(prob, scheds, opts, rep);
}

cs_sched *sim_scheds_new(int p)
{
    cs_sched *s = calloc((size_t)p, sizeof(*s));
    for (int r = 0; s && r < p; r++)
        cs_sched_init(&s[r]);
    return s;
}

void sim_scheds_free(cs_sched *scheds, int p)
{
    for (int r = 0; scheds && r < p; r++)
        cs_sched_free(&scheds[r]);
    free(scheds);
}

double sim_cost_max(const cs_sched *scheds, int p, const cs_model *model)
{
    double worst = 0.0;
    for (int r = 0; r < p; r++) {
        cs_sched_stats st;
        cs_sched_stats_get(&scheds[r], model, &st);
        worst = st.cost > worst ? st.cost : worst;
    }
    return worst;
}

int sim_rounds_max(const cs_sched *scheds, int p)
{
    int most = 0;
    for (int r = 0; r < p; r++)
        most = scheds[r].nrounds > most ? scheds[r].nrounds : most;
    return most;
}
