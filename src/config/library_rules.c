/*
 * A tuning file the MPI library runs under (library_rules.h), read as the
 * library reads it:
 *
 * MPICH 4.0.2 (src/mpi/coll/src/csel.c): one JSON object; each key is a
 * test ("comm_size<=8", "avg_msg_size<=2048", "is_op_built_in=yes"), and a
 * key that passes leads into its value, one that fails to the next key; a
 * key "algorithm=..." names what runs. Keys are read without their spaces.
 * A key MPICH does not know aborts the program there; here it is an error
 * at its line and column, and the file is not used.
 *
 * Open MPI 4.1 (coll/tuned's coll_tuned_dynamic_file.c): numbers, anything
 * else skipped a character at a time, '#' to the end of its line: the count
 * of collectives; per collective its number, the count of communicator
 * sizes; per size its lower bound and the count of message sizes; per
 * message size its lower bound (the first 0), the algorithm (0: coll/tuned's
 * own decision), fan-in/out and segment size. The rule for a call is the
 * last communicator size at or below its own (else the first) and within it
 * the last message size at or below the call's bytes (the vector's;
 * alltoall's p blocks).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/library_rules.h"

static const char *const cs_mpich_allreduce[] = {"MPIR_Allreduce_intra_recursive_doubling",
                                                 "MPIR_Allreduce_intra_reduce_scatter_allgather", NULL};
static const char *const cs_mpich_reduce[] = {"MPIR_Reduce_intra_binomial", "MPIR_Reduce_intra_reduce_scatter_gather",
                                              NULL};
static const char *const cs_mpich_alltoall[] = {"MPIR_Alltoall_intra_brucks", "MPIR_Alltoall_intra_scattered",
                                                "MPIR_Alltoall_intra_pairwise",
                                                "MPIR_Alltoall_intra_pairwise_sendrecv_replace", NULL};
const char *const *const cs_mpich_algorithms[CS_COLL_LAST] = {[CS_COLL_ALLREDUCE] = cs_mpich_allreduce,
                                                              [CS_COLL_REDUCE] = cs_mpich_reduce,
                                                              [CS_COLL_ALLTOALL] = cs_mpich_alltoall};

/* ---- MPICH's JSON --------------------------------------------------------- */

/* member i's key without spaces, as MPICH reads it */
static void cs_rules_key(const cs_json_tree *t, int i, char *out, size_t size)
{
    size_t o = 0;
    for (size_t k = 0; k < t->members[i].key_len && o + 1 < size; k++)
        if (!isspace((unsigned char)t->text[t->members[i].key + k]))
            out[o++] = t->text[t->members[i].key + k];
    out[o] = '\0';
}

/* "prefix<number>": the number into *v */
static int cs_rules_number(const char *key, const char *prefix, long *v)
{
    const size_t n = strlen(prefix);
    if (strncmp(key, prefix, n))
        return 0;
    *v = atol(key + n); /* MPICH reads it with atoi */
    return 1;
}

static const char *const cs_mpich_flags[] = {"comm_type=intra",
                                             "comm_type=inter",
                                             "is_multi_threaded=yes",
                                             "is_multi_threaded=no",
                                             "comm_size=pow2",
                                             "comm_size=node_comm_size",
                                             "comm_size=any",
                                             "count<pow2",
                                             "count=any",
                                             "avg_msg_size=any",
                                             "total_msg_size=any",
                                             "is_commutative=yes",
                                             "is_commutative=no",
                                             "is_sendbuf_inplace=yes",
                                             "is_sendbuf_inplace=no",
                                             "is_op_built_in=yes",
                                             "is_op_built_in=no",
                                             "is_block_regular=yes",
                                             "is_block_regular=no",
                                             "is_node_consecutive=yes",
                                             "is_node_consecutive=no",
                                             "comm_hierarchy=parent",
                                             "comm_hierarchy=node_roots",
                                             "comm_hierarchy=node",
                                             "comm_hierarchy=flat",
                                             "comm_hierarchy=any"};
static const char *const cs_mpich_bounds[] = {
    "comm_size<=",      "comm_size<",      "count<=",        "avg_msg_size<=", "avg_msg_size<",
    "total_msg_size<=", "total_msg_size<", "comm_avg_ppn<=", "collective="};

/* Is key a test of the communicator alone, which MPICH decides once per
 * communicator (csel.c's prune_tree) until the first test of the call? */
static int cs_mpich_comm_test(const char *key)
{
    return !strncmp(key, "comm_type=", 10) || !strncmp(key, "comm_size", 9) || !strncmp(key, "comm_hierarchy=", 15) ||
           !strncmp(key, "is_node_consecutive=", 20) || !strncmp(key, "comm_avg_ppn<=", 14);
}

/* Does prob pass the test key? pruned: MPICH decides it for the
 * communicator; else for the call, where csel.c's search tests
 * "comm_size<N" as p <= N (MPICH 4.0.2). */
static int cs_mpich_test(const char *key, const cs_problem *prob, int pruned)
{
    const int p = prob->p, pow2 = !(p & (p - 1));
    const int builtin = (prob->flags & CS_PROB_COMMUTATIVE) && !(prob->flags & CS_PROB_USER_OP);
    const size_t total = prob->bytes * (prob->coll == CS_COLL_ALLTOALL ? (size_t)p : 1);
    long v;
    if (cs_rules_number(key, "comm_size<=", &v))
        return p <= v;
    if (cs_rules_number(key, "comm_size<", &v))
        return pruned ? p < v : p <= v;
    if (cs_rules_number(key, "count<=", &v))
        return (long)prob->count <= v;
    if (cs_rules_number(key, "avg_msg_size<=", &v))
        return (long)prob->bytes <= v;
    if (cs_rules_number(key, "avg_msg_size<", &v))
        return (long)prob->bytes < v;
    if (cs_rules_number(key, "total_msg_size<=", &v))
        return (long)total <= v;
    if (cs_rules_number(key, "total_msg_size<", &v))
        return (long)total < v;
    if (cs_rules_number(key, "comm_avg_ppn<=", &v))
        return (prob->ppn > 0 ? prob->ppn : p) <= v;
    if (!strcmp(key, "comm_size=pow2"))
        return pow2;
    if (!strcmp(key, "comm_size=node_comm_size"))
        return prob->nodes <= 1;
    if (!strcmp(key, "count<pow2"))
        return prob->count < (size_t)(1 << cs_floor_log2(p));
    if (!strcmp(key, "is_commutative=yes") || !strcmp(key, "is_commutative=no"))
        return !(prob->flags & CS_PROB_COMMUTATIVE) == !strcmp(key, "is_commutative=no");
    if (!strcmp(key, "is_sendbuf_inplace=yes") || !strcmp(key, "is_sendbuf_inplace=no"))
        return !(prob->flags & CS_PROB_INPLACE) == !strcmp(key, "is_sendbuf_inplace=no");
    if (!strcmp(key, "is_op_built_in=yes") || !strcmp(key, "is_op_built_in=no"))
        return builtin == !strcmp(key, "is_op_built_in=yes");
    /* one process, one communicator that is not the nodes' leaders' or a node's own */
    return !strcmp(key, "comm_type=intra") || !strcmp(key, "is_multi_threaded=no") || strstr(key, "=any") ||
           !strcmp(key, "is_block_regular=yes") || !strcmp(key, "is_node_consecutive=yes") ||
           !strcmp(key, "comm_hierarchy=parent");
}

static int cs_mpich_known(const char *key)
{
    for (size_t k = 0; k < sizeof cs_mpich_flags / sizeof *cs_mpich_flags; k++)
        if (!strcmp(key, cs_mpich_flags[k]))
            return 1;
    for (size_t k = 0; k < sizeof cs_mpich_bounds / sizeof *cs_mpich_bounds; k++)
        if (!strncmp(key, cs_mpich_bounds[k], strlen(cs_mpich_bounds[k])))
            return 1;
    return !strncmp(key, "algorithm=", 10) || !strncmp(key, "composition=", 12);
}

/* Every key one MPICH knows, from member first on; else the first other. */
static int cs_mpich_check(const cs_json_tree *t, int first)
{
    for (int i = first; i >= 0; i = t->members[i].next) {
        char key[256];
        cs_rules_key(t, i, key, sizeof key);
        if (!cs_mpich_known(key))
            return i;
        const int bad = cs_mpich_check(t, t->members[i].first_child);
        if (bad >= 0)
            return bad;
    }
    return -1;
}

const char *cs_library_rules_mpich(const cs_library_rules *rules, const cs_problem *prob)
{
    const cs_json_tree *t = &rules->json;
    if (rules->library != CS_LIBRARY_MPICH || rules->mpich[prob->coll] < 0)
        return NULL;
    int pruned = 1;
    for (int i = t->members[rules->mpich[prob->coll]].first_child; i >= 0;) {
        char key[256];
        cs_rules_key(t, i, key, sizeof key);
        pruned &= cs_mpich_comm_test(key);
        if (!strncmp(key, "algorithm=", 10) || !strncmp(key, "composition=", 12)) {
            for (const char *const *name = cs_mpich_algorithms[prob->coll]; *name; name++)
                if (!strcmp(key + 10, *name))
                    return *name;
            return NULL;
        }
        i = cs_mpich_test(key, prob, pruned) ? t->members[i].first_child : t->members[i].next;
    }
    return NULL;
}

static int cs_rules_load_mpich(cs_library_rules *r, size_t len, char *why, size_t n)
{
    int line, col;
    char what[160];
    if (cs_json_parse(r->text, len, &r->json, &line, &col, what, sizeof what) != 0) {
        snprintf(why, n, "%s:%d:%d: %s", r->path, line, col, what);
        return -1;
    }
    const int bad = cs_mpich_check(&r->json, r->json.first);
    if (bad >= 0) {
        const cs_json_member *m = &r->json.members[bad];
        snprintf(why, n, "%s:%d:%d: unknown key \"%.*s\" (MPICH aborts on it)", r->path, m->line, m->col,
                 (int)(m->key_len > 80 ? 80 : m->key_len), r->text + m->key);
        return -1;
    }
    for (int c = 0; c < CS_COLL_LAST; c++) {
        char key[64];
        snprintf(key, sizeof key, "collective=%s", cs_coll_name((cs_coll)c));
        r->mpich[c] = cs_json_find(&r->json, r->json.first, key);
    }
    return 0;
}

/* ---- Open MPI's rules ----------------------------------------------------- */

typedef struct cs_rules_reader {
    const char *s;
    size_t at;
    int line;
    size_t line_start;
} cs_rules_reader;

/* The next number as Open MPI's fscanf("%li") loop finds it: 0, or -1 at the end. */
static int cs_rules_next(cs_rules_reader *r, long *v, int *line, int *col)
{
    for (;;) {
        while (r->s[r->at] && isspace((unsigned char)r->s[r->at])) {
            if (r->s[r->at] == '\n') {
                r->line++;
                r->line_start = r->at + 1;
            }
            r->at++;
        }
        if (!r->s[r->at])
            return -1;
        char *end;
        errno = 0;
        *v = strtol(r->s + r->at, &end, 0);
        *line = r->line;
        *col = (int)(r->at - r->line_start) + 1;
        if (end != r->s + r->at) {
            r->at = (size_t)(end - r->s);
            return errno ? -1 : 0;
        }
        if (r->s[r->at++] == '#')
            while (r->s[r->at] && r->s[r->at] != '\n')
                r->at++;
    }
}

/* The next number, >= 0; else the message for what was expected. */
static int cs_rules_want(cs_library_rules *rules, cs_rules_reader *r, long *v, const char *what, char *why, size_t n)
{
    int line = r->line, col = (int)(r->at - r->line_start) + 1;
    if (cs_rules_next(r, v, &line, &col) != 0 || *v < 0 || *v > INT32_MAX) {
        snprintf(why, n, "%s:%d:%d: expected %s (a number >= 0)%s", rules->path, line, col, what,
                 rules->text[r->at] ? "" : ", the file ends");
        return -1;
    }
    return 0;
}

#define CS_WANT(v, what)                                                                                               \
    do {                                                                                                               \
        if (cs_rules_want(rules, &r, &(v), what, why, n) != 0)                                                         \
            return -1;                                                                                                 \
    } while (0)

static int cs_rules_load_openmpi(cs_library_rules *rules, char *why, size_t n)
{
    cs_rules_reader r = {.s = rules->text, .line = 1};
    long colls, id, ncom, from_p, nmsg, from, alg, fanout, segsize;
    int seen[CS_OMPI_IDS] = {0};
    CS_WANT(colls, "the number of collectives");
    if (colls > CS_OMPI_IDS) {
        snprintf(why, n, "%s:%d: %ld collectives, Open MPI 4.1 has %d", rules->path, r.line, colls, CS_OMPI_IDS);
        return -1;
    }
    for (long c = 0; c < colls; c++) {
        CS_WANT(id, "a collective's number");
        if (id >= CS_OMPI_IDS || seen[id]) {
            snprintf(why, n, "%s:%d: collective %ld %s", rules->path, r.line, id,
                     id >= CS_OMPI_IDS ? "is not one of Open MPI 4.1's (0 to 21)" : "twice");
            return -1;
        }
        seen[id] = 1;
        const int coll = id == CS_OMPI_ID_ALLREDUCE  ? CS_COLL_ALLREDUCE
                         : id == CS_OMPI_ID_ALLTOALL ? CS_COLL_ALLTOALL
                         : id == CS_OMPI_ID_REDUCE   ? CS_COLL_REDUCE
                                                     : -1;
        CS_WANT(ncom, "the number of communicator sizes");
        cs_ompi_com_rule *com = calloc((size_t)ncom + 1, sizeof *com);
        if (!com) {
            snprintf(why, n, "%s: out of memory", rules->path);
            return -1;
        }
        if (coll >= 0) {
            rules->com[coll] = com;
            rules->ncom[coll] = (int)ncom;
        }
        for (long k = 0; k < ncom; k++) {
            CS_WANT(from_p, "a communicator size");
            CS_WANT(nmsg, "the number of message sizes");
            com[k].from_p = (int)from_p;
            com[k].msg = calloc((size_t)nmsg + 1, sizeof *com[k].msg);
            if (!com[k].msg) {
                snprintf(why, n, "%s: out of memory", rules->path);
                return -1;
            }
            com[k].n = (int)nmsg;
            for (long m = 0; m < nmsg; m++) {
                CS_WANT(from, "a message size");
                if (m == 0 && from) {
                    snprintf(why, n, "%s:%d: the first message size of a communicator size must be 0, got %ld",
                             rules->path, r.line, from);
                    return -1;
                }
                CS_WANT(alg, "an algorithm number");
                CS_WANT(fanout, "a fan-in/out");
                CS_WANT(segsize, "a segment size");
                com[k].msg[m] = (cs_ompi_msg_rule){(size_t)from, (int)alg, (int)fanout, (int)segsize};
            }
        }
        if (coll < 0) {
            for (long k = 0; k < ncom; k++)
                free(com[k].msg);
            free(com);
        }
    }
    return 0;
}

int cs_library_rules_openmpi(const cs_library_rules *rules, const cs_problem *prob, int *fanout, int *segsize)
{
    if (rules->library != CS_LIBRARY_OPENMPI || !rules->ncom[prob->coll])
        return 0;
    const cs_ompi_com_rule *com = rules->com[prob->coll], *c = com;
    for (int k = 0; k < rules->ncom[prob->coll] && com[k].from_p <= prob->p; k++)
        c = &com[k];
    if (!c->n)
        return 0;
    const size_t bytes = prob->bytes * (prob->coll == CS_COLL_ALLTOALL ? (size_t)prob->p : 1);
    const cs_ompi_msg_rule *m = c->msg;
    for (int k = 0; k < c->n && c->msg[k].from <= bytes; k++)
        m = &c->msg[k];
    *fanout = m->fanout;
    *segsize = m->segsize;
    return m->alg;
}

/* ---- the file ------------------------------------------------------------- */

void cs_library_rules_free(cs_library_rules *rules)
{
    if (!rules)
        return;
    for (int c = 0; c < CS_COLL_LAST; c++) {
        for (int k = 0; rules->com[c] && k < rules->ncom[c]; k++)
            free(rules->com[c][k].msg);
        free(rules->com[c]);
    }
    cs_json_free(&rules->json);
    free(rules->text);
    free(rules);
}

int cs_library_rules_load(const char *path, cs_library_rules **out, char *why, size_t n)
{
    enum { CS_RULES_MAX = 16 << 20 };
    cs_library_rules *r = calloc(1, sizeof *r);
    FILE *f = fopen(path, "rb");
    *out = NULL;
    if (!r || !f) {
        snprintf(why, n, "%s: %s", path, r ? strerror(errno) : "out of memory");
        goto fail;
    }
    snprintf(r->path, sizeof r->path, "%s", path);
    r->text = malloc(CS_RULES_MAX + 1);
    const size_t len = r->text ? fread(r->text, 1, CS_RULES_MAX + 1, f) : 0;
    if (!r->text || ferror(f) || len > CS_RULES_MAX) {
        snprintf(why, n, "%s: %s", path, !r->text ? "out of memory" : ferror(f) ? "cannot read it" : "over 16 MiB");
        goto fail;
    }
    r->text[len] = '\0';
    size_t at = 0;
    while (at < len && isspace((unsigned char)r->text[at]))
        at++;
    r->library = r->text[at] == '{' ? CS_LIBRARY_MPICH : CS_LIBRARY_OPENMPI;
    for (int c = 0; c < CS_COLL_LAST; c++)
        r->mpich[c] = -1;
    if ((r->library == CS_LIBRARY_MPICH ? cs_rules_load_mpich(r, len, why, n) : cs_rules_load_openmpi(r, why, n)) != 0)
        goto fail;
    fclose(f);
    *out = r;
    return 0;
fail:
    if (f)
        fclose(f);
    cs_library_rules_free(r);
    return -1;
}
