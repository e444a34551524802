#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "log/log.h"

/* Size bins of the summary: [0, 64), [64, 1K), ... [4M, inf). */
#define CS_LOG_BINS 6
#define CS_LOG_ALGS 16

/* Why a call ran where it did, one summary row per greppable word (the "why" column), from the decision's
 * reason (select.c, args.c, call.c) or the restriction that turned ours down: for the library's calls why it
 * ran them, for ours the step that chose them (model, rule, forced: the classes collshim-report gives the same
 * reasons). The words are part of the summary's format. */
typedef struct cs_log_why_rule {
    int ours;                  /* 1: a rule for the calls our algorithms ran; 0: for the library's */
    const char *reason_prefix; /* NULL: matched on the restriction instead */
    const char *declined_part;
    const char *word;
} cs_log_why_rule;

static const cs_log_why_rule cs_log_whys[] = {
    {0, "p = 1", NULL, "p=1"},
    {0, "empty message", NULL, "empty"},
    {0, "intercommunicator", NULL, "intercommunicator"},
    {0, "erroneous", NULL, "erroneous"},
    {0, "a message would exceed INT_MAX", NULL, "int-max"},
    {0, "native by the", NULL, "configured"},
    {0, "in a native size range", NULL, "configured"},
    {0, "rule", NULL, "rule"},
    {0, "no rule covers", NULL, "rule"},
    {0, "operator query failed", NULL, "erroneous"},
    {0, NULL, "contiguous", "non-contiguous"},
    {0, NULL, "", "restriction"}, /* any other restriction (a power of two p, a commutative operator, ...) */
    {1, "breakpoint", NULL, "model"},
    {1, "model", NULL, "model"},
    {1, "forced", NULL, "forced"},
    {1, "in place of the forced", NULL, "forced"},
    {1, "rule", NULL, "rule"},
    {1, "the library computes", NULL, "library-wrong"},
};
#define CS_LOG_WHYS (1 + (int)(sizeof(cs_log_whys) / sizeof(cs_log_whys[0])) + 1)
/* Index 0: ours ran for a reason no rule names ("-"); the last: the model priced the library cheapest. */

static const size_t cs_log_bin_lo[CS_LOG_BINS] = {0, 64, 1024, 16384, 262144, 4194304};
static const char *const cs_log_bin_name[CS_LOG_BINS] = {"0-63", "64-1K", "1K-16K", "16K-256K", "256K-4M", "4M+"};

typedef struct cs_log_tally {
    unsigned long long calls, bytes;
    double seconds;
} cs_log_tally;

/* The collectives not intercepted (cs_log_uncaught): how many one process
 * names at most, and what the log and the summary say of them. */
#define CS_LOG_UNCAUGHT 32
#define CS_LOG_UNCAUGHT_NOTE "ran by the MPI library, not priced or logged"
typedef struct cs_log_count {
    const char *name;
    unsigned long long calls;
} cs_log_count;

/* A call record at most: its strings are bounded (alg 128, plan 160, how
 * 320, versus 128 bytes; reasons and restrictions are short static text). */
#define CS_LOG_RECORD 4096

static struct {
    cs_log_level level;
    int fd;        /* the call records, one write(2) each (level calls); -1: none */
    FILE *summary; /* rank 0's table: stderr, or <log>.summary beside a log file; NULL: none */
    int rank;
    const char *source;                 /* the configuration file, for the summary header */
    char source_json[208];              /* its first 200 bytes or so as a JSON string's contents (escapes never cut) */
    int library;                        /* the library priced (model.library), for the summary header */
    unsigned char forced[CS_COLL_LAST]; /* the library's algorithms the user forced (model.library_forced) */
    pthread_mutex_t lock;               /* the tallies, under MPI_THREAD_MULTIPLE */
    cs_log_tally tally[CS_COLL_COUNT][CS_LOG_ALGS][CS_LOG_BINS][CS_LOG_WHYS];
    cs_log_count uncaught[CS_LOG_UNCAUGHT]; /* the collectives the shim did not intercept */
    int nuncaught;
} cs_log = {.level = CS_LOG_OFF, .fd = -1, .lock = PTHREAD_MUTEX_INITIALIZER};

static int cs_log_rank_listed(const cs_config *cfg, int rank)
{
    if (cfg->log_all_ranks)
        return 1;
    for (int i = 0; i < cfg->nlog_ranks; i++)
        if (cfg->log_ranks[i] == rank)
            return 1;
    return 0;
}

/* Expand %r (rank), %p (pid) and %% of a file pattern. */
static void cs_log_expand(const char *pattern, int rank, char *buf, size_t size)
{
    size_t n = 0;
    for (const char *c = pattern; *c && n + 1 < size; c++) {
        if (c[0] == '%' && c[1] == 'r') {
            n += (size_t)snprintf(buf + n, size - n, "%d", rank);
            c++;
        } else if (c[0] == '%' && c[1] == 'p') {
            n += (size_t)snprintf(buf + n, size - n, "%ld", (long)getpid());
            c++;
        } else {
            if (c[0] == '%' && c[1] == '%')
                c++;
            buf[n++] = *c;
        }
    }
    buf[n < size ? n : size - 1] = '\0';
}

static int cs_log_first_rank(const cs_config *cfg, int world_size)
{
    if (cfg->log_level != CS_LOG_CALLS) /* rank 0 alone writes at level summary */
        return 0;
    for (int r = 0; r < world_size; r++)
        if (cs_log_rank_listed(cfg, r))
            return r;
    return -1;
}

/* Does an unescaped %<c> occur in a file pattern? */
static int cs_log_pattern_has(const char *pattern, char c)
{
    for (const char *s = pattern; *s; s++)
        if (s[0] == '%' && s[1]) {
            if (s[1] == c)
                return 1;
            s++;
        }
    return 0;
}

/*
 * Do several ranks write one file? Two writers of one file lose and tear
 * each other's lines (each truncates it, and their writes overwrite at
 * their own offsets; O_APPEND alone is not atomic on NFS, where a cluster's
 * logs live). So a pattern without %r or %p that more than one rank writes
 * is made one file per rank (cs_log_rank_path), and the first rank says so.
 */
static int cs_log_shared(const cs_config *cfg, int world_size)
{
    if (cfg->log_level != CS_LOG_CALLS || cs_log_pattern_has(cfg->log_file, 'r') ||
        cs_log_pattern_has(cfg->log_file, 'p'))
        return 0;
    int writers = 0;
    for (int r = 0; r < world_size && writers < 2; r++)
        writers += cs_log_rank_listed(cfg, r);
    return writers > 1;
}

/* The rank's own file of a shared name: ".RANK" before the file name's
 * extension ("run.jsonl" -> "run.3.jsonl"), or after a name without one. */
static void cs_log_rank_path(char *path, size_t size, const char *rank)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    char *dot = strrchr(base, '.');
    char ext[PATH_MAX] = "";
    if (dot && dot != base) {
        snprintf(ext, sizeof ext, "%s", dot);
        *dot = '\0';
    }
    const size_t n = strlen(path);
    snprintf(path + n, size - n, ".%s%s", rank, ext);
}

/* s as the contents of a JSON string: quotes, backslashes and control
 * characters escaped (a file name may hold any of them). */
static void cs_log_json_escape(const char *s, char *out, size_t size)
{
    size_t n = 0;
    for (; *s && n + 7 < size; s++) {
        const unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            n += (size_t)snprintf(out + n, size - n, "\\%c", c);
        else if (c < 0x20)
            n += (size_t)snprintf(out + n, size - n, "\\u%04x", c);
        else
            out[n++] = (char)c;
    }
    out[n] = '\0';
}

/* Rank 0's table beside the log: <log>.summary, never in the log itself,
 * which stays JSON Lines. */
static FILE *cs_log_summary_open(const char *log_path)
{
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s.summary", log_path);
    FILE *f = fopen(path, "w");
    if (!f)
        fprintf(stderr, "collshim: cannot write the summary %s: %s; no summary\n", path, strerror(errno));
    return f;
}

void cs_log_open(const cs_config *cfg, int world_rank, int world_size)
{
    char path[PATH_MAX];
    cs_log.rank = world_rank;
    cs_log.source = cfg->source;
    cs_log_json_escape(cfg->source, cs_log.source_json, sizeof cs_log.source_json);
    cs_log.library = cfg->model.library;
    memcpy(cs_log.forced, cfg->model.library_forced, sizeof cs_log.forced);
    cs_log.level = CS_LOG_OFF;
    if (cfg->log_level == CS_LOG_OFF)
        return;
    /* Rank 0 writes the summary even when it does not log its calls. At
     * level summary the others have nothing to write: no file, no tallies. */
    const int listed = cs_log_rank_listed(cfg, world_rank) && cfg->log_level == CS_LOG_CALLS;
    if (!listed && world_rank != 0)
        return;
    if (!cfg->log_file[0] || !strcmp(cfg->log_file, "stderr")) {
        cs_log.fd = listed ? STDERR_FILENO : -1;
        cs_log.summary = world_rank == 0 ? stderr : NULL;
    } else {
        const int first = world_rank == cs_log_first_rank(cfg, world_size);
        cs_log_expand(cfg->log_file, world_rank, path, sizeof(path));
        if (cs_log_shared(cfg, world_size)) {
            if (first) {
                char each[PATH_MAX];
                cs_log_expand(cfg->log_file, world_rank, each, sizeof each);
                cs_log_rank_path(each, sizeof each, "<rank>");
                fprintf(stderr, "collshim: the log %s has no %%r and several ranks write it: each writes its own, %s\n",
                        path, each);
            }
            char rank[16];
            snprintf(rank, sizeof rank, "%d", world_rank);
            cs_log_rank_path(path, sizeof path, rank);
        }
        if (listed) {
            cs_log.fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0666);
            if (cs_log.fd < 0) {
                if (first)
                    fprintf(stderr, "collshim: cannot write the log %s: %s; logging is off\n", path, strerror(errno));
                return;
            }
        }
        cs_log.summary = world_rank == 0 ? cs_log_summary_open(path) : NULL;
        if (!listed && !cs_log.summary)
            return;
    }
    cs_log.level = listed ? cfg->log_level : CS_LOG_SUMMARY;
}

int cs_log_active(void)
{
    return cs_log.level != CS_LOG_OFF;
}

const char *cs_log_op_name(MPI_Op op)
{
    static const struct {
        MPI_Op op;
        const char *name;
    } ops[] = {
        {MPI_SUM, "MPI_SUM"},         {MPI_PROD, "MPI_PROD"},   {MPI_MIN, "MPI_MIN"},       {MPI_MAX, "MPI_MAX"},
        {MPI_LAND, "MPI_LAND"},       {MPI_LOR, "MPI_LOR"},     {MPI_LXOR, "MPI_LXOR"},     {MPI_BAND, "MPI_BAND"},
        {MPI_BOR, "MPI_BOR"},         {MPI_BXOR, "MPI_BXOR"},   {MPI_MINLOC, "MPI_MINLOC"}, {MPI_MAXLOC, "MPI_MAXLOC"},
        {MPI_REPLACE, "MPI_REPLACE"}, {MPI_NO_OP, "MPI_NO_OP"},
    };
    if (op == MPI_OP_NULL)
        return "none";
    for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
        if (ops[i].op == op)
            return ops[i].name;
    return "user";
}

void cs_log_alg_spec(const cs_decision *d, char *buf, size_t size)
{
    cs_alg_spec(d->alg, &d->params, buf, size);
}

static int cs_log_bin(size_t bytes)
{
    int b = CS_LOG_BINS - 1;
    while (b > 0 && bytes < cs_log_bin_lo[b])
        b--;
    return b;
}

static int cs_log_alg_index(const cs_decision *d, cs_coll coll)
{
    int n;
    const cs_alg *const *table = cs_alg_table(coll, &n);
    for (int i = 0; i < n && i < CS_LOG_ALGS; i++)
        if (table[i] == d->alg)
            return i;
    return 0;
}

static int cs_log_why(const cs_decision *d)
{
    const int ours = d->alg->build != NULL;
    for (int i = 0; i < CS_LOG_WHYS - 2; i++) {
        const cs_log_why_rule *w = &cs_log_whys[i];
        if (w->ours != ours)
            continue;
        if (!(w->reason_prefix ? d->reason && !strncmp(d->reason, w->reason_prefix, strlen(w->reason_prefix))
                               : d->declined && strstr(d->declined, w->declined_part)))
            continue;
        for (int j = 0; j < i; j++) /* one row per word: the first rule's that says it */
            if (cs_log_whys[j].ours == ours && !strcmp(cs_log_whys[j].word, w->word))
                return j + 1;
        return i + 1;
    }
    return ours ? 0 : CS_LOG_WHYS - 1;
}

static const char *cs_log_why_word(int why)
{
    return why == 0 ? "-" : why == CS_LOG_WHYS - 1 ? "model" : cs_log_whys[why - 1].word;
}

static void cs_log_tally_add(const cs_record *r)
{
    cs_log_tally *t =
        &cs_log
             .tally[r->prob->coll][cs_log_alg_index(r->d, r->prob->coll)][cs_log_bin(r->prob->bytes)][cs_log_why(r->d)];
    pthread_mutex_lock(&cs_log.lock);
    t->calls++;
    t->bytes += r->prob->bytes;
    t->seconds += r->elapsed;
    pthread_mutex_unlock(&cs_log.lock);
}

/* Where the call sits: the root for the library's collectives, the window
 * (n, r) for the extension API's. */
static void cs_log_shape(const cs_problem *prob, char *buf, size_t size)
{
    if (prob->coll < CS_COLL_LAST)
        snprintf(buf, size, "\"root\":%d", prob->root);
    else
        snprintf(buf, size, "\"n\":%d,\"r\":%d", prob->n, prob->r);
}

/* The numbers a line may lack: "null" where there is no prediction or no schedule. */
typedef struct cs_log_numbers {
    char predicted[32], rounds[24], sent[24];
} cs_log_numbers;

static void cs_log_numbers_get(double predicted, const cs_sched_stats *stats, cs_log_numbers *out)
{
    strcpy(out->predicted, "null");
    strcpy(out->rounds, "null");
    strcpy(out->sent, "null");
    if (predicted >= 0)
        snprintf(out->predicted, sizeof(out->predicted), "%.3e", predicted);
    if (stats) {
        snprintf(out->rounds, sizeof(out->rounds), "%d", stats->rounds);
        snprintf(out->sent, sizeof(out->sent), "%zu", stats->sent_bytes);
    }
}

/* A whole record in one write(2); what a signal or a full pipe cut short
 * is finished by further writes. */
static void cs_log_put(const char *line, size_t n)
{
    while (n > 0) {
        const ssize_t w = write(cs_log.fd, line, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;
        line += w;
        n -= (size_t)w;
    }
}

static void cs_log_write_call(const cs_record *r)
{
    const cs_problem *prob = r->prob;
    const cs_decision *d = r->d;
    char alg[128], how[320] = "", plan[160] = "", shape[48], versus[128] = "", share[24] = "";
    cs_log_numbers num;

    if (d->library_alg) /* "; ours 12.1 us, library's recursive doubling 14.6 us" */
        snprintf(versus, sizeof versus, "; ours %.3g us, library's %s %.3g us", d->ours_predicted * 1e6, d->library_alg,
                 d->library_predicted * 1e6);

    if (prob->share > 1) /* its nodes' links shared with as many communicators like it (model.link_share) */
        snprintf(share, sizeof share, ",\"share\":%d", prob->share);
    cs_log_alg_spec(d, alg, sizeof(alg));
    cs_log_shape(prob, shape, sizeof(shape));
    if (d->rule) /* "rule allreduce.rules[2] (machine.yaml:14)" */
        snprintf(how, sizeof(how), " (%s.rules[%d], %s:%d)", cs_coll_name(prob->coll), d->rule - 1,
                 cs_log.source_json[0] ? cs_log.source_json : "?", d->rule_line);
    else if (d->alg->explain)
        d->alg->explain(&d->params, how, sizeof(how));
    if (d->alg->describe) {
        plan[0] = ',';
        memcpy(plan + 1, "\"plan\":\"", 8);
        int n = d->alg->describe(prob, &d->params, plan + 9, sizeof(plan) - 11);
        if (n > 0 && (size_t)n < sizeof(plan) - 11)
            memcpy(plan + 9 + n, "\"", 2);
        else
            plan[0] = '\0';
    }
    cs_log_numbers_get(d->predicted, r->stats, &num);
    /* One write(2) per record, no stdio buffer: a record is whole in the
     * file whatever the threads and however the process ends. */
    char line[CS_LOG_RECORD];
    const int n = snprintf(
        line, sizeof line,
        "{\"coll\":\"%s\",\"rank\":%d,\"p\":%d,\"nodes\":%d%s,\"bytes\":%zu,\"op\":\"%s\",\"commutative\":%s,"
        "\"inplace\":%s,%s,\"alg\":\"%s\"%s,\"reason\":\"%s%s%s%s%s%s%s%s\",\"predicted_s\":%s,"
        "\"elapsed_s\":%.3e,\"rounds\":%s,\"sent_bytes\":%s}\n",
        cs_coll_name(prob->coll), r->rank, prob->p, prob->nodes, share, prob->bytes, cs_log_op_name(r->op),
        (prob->flags & CS_PROB_COMMUTATIVE) ? "true" : "false", r->inplace ? "true" : "false", shape, alg, plan,
        d->reason, how, versus, d->passed ? " (" : "", d->passed ? d->passed->name : "", d->passed ? " " : "",
        d->passed ? d->declined : "", d->passed ? ")" : "", num.predicted, r->elapsed, num.rounds, num.sent);
    if (n > 0 && (size_t)n < sizeof line)
        cs_log_put(line, (size_t)n);
}

void cs_log_call(const cs_record *r)
{
    if (cs_log.level == CS_LOG_OFF)
        return;
    cs_log_tally_add(r);
    if (cs_log.level == CS_LOG_CALLS)
        cs_log_write_call(r);
}

static void cs_log_summary(void)
{
    fprintf(cs_log.summary, "@ collshim summary : rank 0\n@ config : %s\n@ library priced : %s\n",
            cs_log.source[0] ? cs_log.source : "built-in defaults", cs_library_name(cs_log.library));
    for (int c = 0; c < CS_COLL_LAST; c++) /* "@ library forced : alltoall 2 (coll_tuned_alltoall_algorithm)" */
        if (cs_log.forced[c])
            fprintf(cs_log.summary, "@ library forced : %s %d (coll_tuned_%s_algorithm)\n", cs_coll_name((cs_coll)c),
                    cs_log.forced[c], cs_coll_name((cs_coll)c));
    fprintf(cs_log.summary, "@--- %-10s %-12s %-9s %10s %14s %12s %12s %s\n", "collective", "algorithm", "bytes",
            "calls", "total bytes", "total s", "mean s", "why");
    for (int c = 0; c < CS_COLL_COUNT; c++) {
        int n;
        const cs_alg *const *table = cs_alg_table((cs_coll)c, &n);
        for (int a = 0; a < n && a < CS_LOG_ALGS; a++)
            for (int b = 0; b < CS_LOG_BINS; b++)
                for (int w = 0; w < CS_LOG_WHYS; w++) {
                    const cs_log_tally *t = &cs_log.tally[c][a][b][w];
                    if (!t->calls)
                        continue;
                    fprintf(cs_log.summary, "     %-10s %-12s %-9s %10llu %14llu %12.3e %12.3e %s\n",
                            cs_coll_name((cs_coll)c), table[a]->name, cs_log_bin_name[b], t->calls, t->bytes,
                            t->seconds, t->seconds / (double)t->calls, cs_log_why_word(w));
                }
    }
}

void cs_log_uncaught(const char *name, unsigned long long calls)
{
    if (cs_log.level == CS_LOG_OFF || !name || !calls || cs_log.nuncaught >= CS_LOG_UNCAUGHT)
        return;
    cs_log.uncaught[cs_log.nuncaught++] = (cs_log_count){name, calls};
}

/* Level calls: {"record":"not_intercepted","rank":0,"calls":{"MPI_Iallreduce":200},"note":"..."}, no "coll". */
static void cs_log_write_uncaught(void)
{
    char line[CS_LOG_RECORD];
    size_t n =
        (size_t)snprintf(line, sizeof line, "{\"record\":\"not_intercepted\",\"rank\":%d,\"calls\":{", cs_log.rank);
    for (int i = 0; i < cs_log.nuncaught && n < sizeof line; i++)
        n += (size_t)snprintf(line + n, sizeof line - n, "%s\"%s\":%llu", i ? "," : "", cs_log.uncaught[i].name,
                              cs_log.uncaught[i].calls);
    if (n < sizeof line &&
        (n += (size_t)snprintf(line + n, sizeof line - n, "},\"note\":\"%s\"}\n", CS_LOG_UNCAUGHT_NOTE)) < sizeof line)
        cs_log_put(line, n);
}

void cs_log_finalize(void)
{
    if (cs_log.level == CS_LOG_OFF)
        return;
    if (cs_log.summary) {
        cs_log_summary();
        if (cs_log.nuncaught) /* "@--- not intercepted ---", then "     MPI_Iallreduce 200 calls: ..." */
            fprintf(cs_log.summary, "@--- not intercepted ---\n");
        for (int i = 0; i < cs_log.nuncaught; i++)
            fprintf(cs_log.summary, "     %s %llu call%s: %s\n", cs_log.uncaught[i].name, cs_log.uncaught[i].calls,
                    cs_log.uncaught[i].calls == 1 ? "" : "s", CS_LOG_UNCAUGHT_NOTE);
        if (cs_log.summary != stderr)
            fclose(cs_log.summary);
        else
            fflush(stderr);
    }
    if (cs_log.level == CS_LOG_CALLS && cs_log.fd >= 0 && cs_log.nuncaught)
        cs_log_write_uncaught();
    if (cs_log.fd > STDERR_FILENO)
        close(cs_log.fd);
    cs_log.summary = NULL;
    cs_log.fd = -1;
    cs_log.level = CS_LOG_OFF;
    cs_log.nuncaught = 0;
}
