/*
 * The native memo: a call that repeats the last call the MPI library took by
 * decision goes there again before it is described. The decision is a
 * function of the described problem (p, the root, the count and the element's
 * size, the operator's class, contiguity, in place), and the problem of a call
 * whose datatypes and operator are predefined is a function of its handles and
 * counts alone: predefined handles cannot be freed, so a handle never comes
 * back meaning something else. Every rank then takes the decision it would
 * have taken after describing the call, and its ranks agree as before.
 *
 * On a communicator, the same key holds its last call that was checked and
 * described (cs_described), whatever was decided for it: a call that
 * repeats its handles and counts takes its problem and layouts, only its
 * buffers are checked again (cs_args_check_buffers), and the context's last
 * decision answers. This saves the datatype queries of every repeated call,
 * ours or the library's.
 *
 * A derived datatype or a user operator is never remembered: it may be freed
 * and its handle given to another with another size or class. (The memo only
 * ever says "the library": a stale one would cost an algorithm's speed, but
 * it could also make one rank call the library while the others run ours.)
 *
 * The process remembers the last call of each collective the library took,
 * with its communicator, so that a loop of the same call goes there before
 * it is even described or its context looked up (src/shim/calls.c): by
 * decision, or for what its handles and counts alone say (an
 * intercommunicator, p = 1, a pair the library defines and MPI does not, an
 * erroneous call; never one refused for its buffers, which may change). A call
 * in a configured native range (a size alone, before any context) is
 * remembered so too: no communicator's size enters that decision. A
 * communicator's handle may come back as another's once it is freed: freeing
 * deletes our context (its attribute), which forgets the handle here. Under
 * MPI_THREAD_MULTIPLE threads may call on several communicators at once, and
 * the process-wide memo is not used.
 */
#include "shim/args.h"
#include "shim/shim.h"

cs_native_last cs_last_native[CS_COLL_COUNT];

/* The memo of c, valid if its handles are predefined. */
static cs_native_memo cs_native_memo_of(const cs_call *c)
{
    const int ignored = cs_native_memo_send_ignored(c);
    if (!cs_args_predefined(c->rtype, c->op) || (!ignored && !cs_args_predefined(c->stype, c->op)))
        return (cs_native_memo){.valid = 0};
    return (cs_native_memo){.valid = 1,
                            .inplace = c->sendbuf == MPI_IN_PLACE,
                            .rcount = c->rcount,
                            .rtype = c->rtype,
                            .op = c->op,
                            .root = c->root,
                            .scount = ignored ? 0 : c->scount,
                            .stype = ignored ? MPI_DATATYPE_NULL : c->stype};
}

void cs_native_memo_set_quick(const cs_call *c)
{
    const cs_native_memo m = cs_native_memo_of(c);
    if (m.valid && !cs_shim.thread_multiple)
        cs_last_native[c->coll] = (cs_native_last){.comm = c->comm, .memo = m};
}

void cs_native_memo_set(cs_context *ctx, const cs_call *c)
{
    const cs_native_memo *key = &ctx->described[c->coll].key;
    if (cs_native_memo_matches(key, c) && !cs_shim.thread_multiple)
        cs_last_native[c->coll] = (cs_native_last){.comm = ctx->parent, .memo = *key};
}

void cs_described_set(cs_context *ctx, const cs_call *c, const cs_problem *prob, const cs_local *l)
{
    cs_described *d = &ctx->described[c->coll];
    d->key = cs_native_memo_of(c);
    d->prob = *prob;
    d->l = *l;
}

void cs_native_memo_forget(MPI_Comm comm)
{
    for (int coll = 0; coll < CS_COLL_COUNT; coll++)
        if (cs_last_native[coll].comm == comm)
            cs_last_native[coll].memo.valid = 0;
}
