/*
 * Per-communicator contexts, cached as an attribute. The private duplicate
 * is made on the first collective call on a communicator (every rank makes
 * that call, so the collective dup matches up) and freed by the attribute's
 * delete callback when the user frees the communicator, or at MPI_Finalize.
 */
#include <pthread.h>
#include <stdlib.h>

#include "sched/nodes.h"
#include "shim/shim.h"

/* The context of the last communicator looked up, unless threads may call
 * at once (MPI_THREAD_MULTIPLE): a loop of calls on one communicator skips
 * the attribute lookup. Forgotten when that context is deleted. */
static MPI_Comm cs_last_comm = MPI_COMM_NULL;
static cs_context *cs_last_ctx;

/* All live contexts, for MPI_Finalize; touched only on create and free. */
static cs_context *cs_contexts;
static pthread_mutex_t cs_contexts_lock = PTHREAD_MUTEX_INITIALIZER;

static void cs_context_link(cs_context *ctx)
{
    pthread_mutex_lock(&cs_contexts_lock);
    ctx->next = cs_contexts;
    if (cs_contexts)
        cs_contexts->prev = ctx;
    cs_contexts = ctx;
    pthread_mutex_unlock(&cs_contexts_lock);
}

static void cs_context_unlink(cs_context *ctx)
{
    pthread_mutex_lock(&cs_contexts_lock);
    if (ctx->prev)
        ctx->prev->next = ctx->next;
    else
        cs_contexts = ctx->next;
    if (ctx->next)
        ctx->next->prev = ctx->prev;
    pthread_mutex_unlock(&cs_contexts_lock);
}

static int cs_context_delete(MPI_Comm comm, int keyval, void *value, void *extra)
{
    cs_context *ctx = value;
    int rc = MPI_SUCCESS;
    cs_native_memo_forget(ctx->parent);
    if (cs_last_ctx == ctx) {
        cs_last_comm = MPI_COMM_NULL;
        cs_last_ctx = NULL;
    }
    cs_context_unlink(ctx);
    if (ctx->node_comm != MPI_COMM_NULL)
        rc = PMPI_Comm_free(&ctx->node_comm);
    if (ctx->comm != MPI_COMM_NULL) {
        const int freed = PMPI_Comm_free(&ctx->comm);
        rc = rc == MPI_SUCCESS ? freed : rc;
    }
    cs_sched_free(&ctx->sched);
    cs_scratch_free(&ctx->scratch);
    cs_nodes_free(&ctx->map);
    free(ctx);
    return rc;
}

int cs_context_keyval_create(void)
{
    /* MPI_COMM_NULL_COPY_FN: a duplicate of the user's communicator gets a
     * context of its own on its first use. */
    return PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, cs_context_delete, &cs_shim.keyval, NULL);
}

/* The node map (sched/nodes.h), gathered where the model sees nodes or the
 * log is on (what every rank's configuration says alike); the model then
 * gets it only where it sees nodes. */
static int cs_context_nodes(cs_context *ctx)
{
    const cs_model *mo = &cs_shim.cfg.model;
    const int sees = mo->node_levels || mo->beta_link > 0.0;
    int rc = MPI_SUCCESS;
    if (sees || cs_shim.log_configured)
        rc = cs_comm_nodes(ctx->comm, ctx->rank, ctx->p, mo->ranks_per_node, mo->cyclic, cs_shim.world_on_node,
                           &ctx->map);
    if (mo->link_own) /* model.link_share communicator: its links to itself */
        ctx->map.share = 1;
    if (!sees) { /* the count alone, for the log */
        free(ctx->map.node);
        ctx->map.node = NULL;
        ctx->map.ppn = 0;
    }
    return rc;
}

int cs_context_node_comm(cs_context *ctx)
{
    int rc = MPI_SUCCESS;
    if (ctx->node_comm == MPI_COMM_NULL && ctx->map.node) {
        rc = PMPI_Comm_split(ctx->comm, ctx->map.node[ctx->rank], ctx->rank, &ctx->node_comm);
        if (rc == MPI_SUCCESS)
            rc = PMPI_Comm_set_errhandler(ctx->node_comm, MPI_ERRORS_RETURN);
    }
    return rc == MPI_SUCCESS && ctx->node_comm == MPI_COMM_NULL ? MPI_ERR_INTERN : rc;
}

static int cs_context_create(MPI_Comm comm, cs_context **out)
{
    cs_context *ctx = calloc(1, sizeof(*ctx));
    int rc;
    if (!ctx)
        return MPI_ERR_NO_MEM;
    ctx->parent = comm;
    ctx->comm = ctx->node_comm = MPI_COMM_NULL;
    cs_sched_init(&ctx->sched);
    rc = PMPI_Comm_test_inter(comm, &ctx->inter);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Comm_size(comm, &ctx->p);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Comm_rank(comm, &ctx->rank);
    if (rc == MPI_SUCCESS && !ctx->inter) {
        rc = PMPI_Comm_dup(comm, &ctx->comm);
        /* Our errors come back as codes; the user's handler is called on
         * the user's communicator. */
        if (rc == MPI_SUCCESS)
            rc = PMPI_Comm_set_errhandler(ctx->comm, MPI_ERRORS_RETURN);
        if (rc == MPI_SUCCESS)
            rc = cs_context_nodes(ctx);
    }
    if (rc == MPI_SUCCESS)
        rc = PMPI_Comm_set_attr(comm, cs_shim.keyval, ctx);
    if (rc != MPI_SUCCESS) {
        if (ctx->node_comm != MPI_COMM_NULL)
            PMPI_Comm_free(&ctx->node_comm);
        if (ctx->comm != MPI_COMM_NULL)
            PMPI_Comm_free(&ctx->comm);
        cs_nodes_free(&ctx->map);
        free(ctx);
        return rc;
    }
    cs_context_link(ctx);
    *out = ctx;
    return MPI_SUCCESS;
}

int cs_context_get(MPI_Comm comm, cs_context **ctx)
{
    int found = 0;
    if (comm == cs_last_comm && comm != MPI_COMM_NULL) {
        *ctx = cs_last_ctx;
        return MPI_SUCCESS;
    }
    int rc = PMPI_Comm_get_attr(comm, cs_shim.keyval, ctx, &found);
    if (rc == MPI_SUCCESS && !found)
        rc = cs_context_create(comm, ctx);
    if (rc == MPI_SUCCESS && !cs_shim.thread_multiple) {
        cs_last_comm = comm;
        cs_last_ctx = *ctx;
    }
    return rc;
}

void cs_context_free_all(void)
{
    /* Deleting the attribute runs cs_context_delete, which unlinks. */
    while (cs_contexts) {
        cs_context *ctx = cs_contexts;
        if (PMPI_Comm_delete_attr(ctx->parent, cs_shim.keyval) != MPI_SUCCESS)
            cs_context_delete(ctx->parent, cs_shim.keyval, ctx, NULL);
    }
    PMPI_Comm_free_keyval(&cs_shim.keyval);
}
