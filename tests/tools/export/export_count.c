/*
 * export_count.so, preloaded with tests/tools/export/export_calls: what the
 * MPI library does inside a collective, seen from outside it (no debug
 * build). MPICH (ch4:ucx) sends every point-to-point message of its
 * algorithms with ucp_tag_send_nbx or ucp_tag_send_sync_nbx, which libmpich
 * calls through its PLT: counted in cs_export_sends. Open MPI's coll/tuned
 * (mca_coll_tuned.so) calls coll/base's algorithms, which libmpi exports, the
 * same way: the first one called since export_calls cleared it is named
 * in cs_export_alg (the outer one: basic linear allreduce calls a reduce). Each forwards to
 * the library's own (dlsym RTLD_NEXT).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>

__attribute__((visibility("default"))) long cs_export_sends;
__attribute__((visibility("default"))) const char *cs_export_alg;

#define CS_UCP_SEND(name)                                                                                              \
    void *name(void *ep, const void *buf, size_t count, uint64_t tag, const void *param)                               \
    {                                                                                                                  \
        static void *(*real)(void *, const void *, size_t, uint64_t, const void *);                                    \
        if (!real)                                                                                                     \
            *(void **)&real = dlsym(RTLD_NEXT, #name);                                                                 \
        __atomic_add_fetch(&cs_export_sends, 1, __ATOMIC_RELAXED);                                                     \
        return real(ep, buf, count, tag, param);                                                                       \
    }
CS_UCP_SEND(ucp_tag_send_nbx)
CS_UCP_SEND(ucp_tag_send_sync_nbx)

/* coll/base's algorithms (coll_base_functions.h, Open MPI 4.1), by their argument lists */
#define CS_OMPI_ALLREDUCE(name)                                                                                        \
    int name(const void *s, void *r, int n, void *t, void *op, void *comm, void *module)                               \
    {                                                                                                                  \
        static int (*real)(const void *, void *, int, void *, void *, void *, void *);                                 \
        if (!real)                                                                                                     \
            *(void **)&real = dlsym(RTLD_NEXT, #name);                                                                 \
        if (!cs_export_alg)                                                                                            \
            cs_export_alg = #name;                                                                                     \
        return real(s, r, n, t, op, comm, module);                                                                     \
    }
#define CS_OMPI_ALLTOALL(name)                                                                                         \
    int name(const void *s, int sn, void *st, void *r, int rn, void *rt, void *comm, void *module)                     \
    {                                                                                                                  \
        static int (*real)(const void *, int, void *, void *, int, void *, void *, void *);                            \
        if (!real)                                                                                                     \
            *(void **)&real = dlsym(RTLD_NEXT, #name);                                                                 \
        if (!cs_export_alg)                                                                                            \
            cs_export_alg = #name;                                                                                     \
        return real(s, sn, st, r, rn, rt, comm, module);                                                               \
    }
#define CS_OMPI_REDUCE(name)                                                                                           \
    int name(const void *s, void *r, int n, void *t, void *op, int root, void *comm, void *module, uint32_t seg,       \
             int reqs)                                                                                                 \
    {                                                                                                                  \
        static int (*real)(const void *, void *, int, void *, void *, int, void *, void *, uint32_t, int);             \
        if (!real)                                                                                                     \
            *(void **)&real = dlsym(RTLD_NEXT, #name);                                                                 \
        if (!cs_export_alg)                                                                                            \
            cs_export_alg = #name;                                                                                     \
        return real(s, r, n, t, op, root, comm, module, seg, reqs);                                                    \
    }
CS_OMPI_ALLREDUCE(ompi_coll_base_allreduce_intra_recursivedoubling)
CS_OMPI_ALLREDUCE(ompi_coll_base_allreduce_intra_ring)
CS_OMPI_ALLREDUCE(ompi_coll_base_allreduce_intra_redscat_allgather)
CS_OMPI_ALLREDUCE(ompi_coll_base_allreduce_intra_basic_linear)
CS_OMPI_ALLREDUCE(ompi_coll_base_allreduce_intra_nonoverlapping)
CS_OMPI_ALLTOALL(ompi_coll_base_alltoall_intra_pairwise)
CS_OMPI_ALLTOALL(ompi_coll_base_alltoall_intra_bruck)
CS_OMPI_ALLTOALL(ompi_coll_base_alltoall_intra_basic_linear)
CS_OMPI_REDUCE(ompi_coll_base_reduce_intra_binomial)
CS_OMPI_REDUCE(ompi_coll_base_reduce_intra_binary)
CS_OMPI_REDUCE(ompi_coll_base_reduce_intra_pipeline)
CS_OMPI_REDUCE(ompi_coll_base_reduce_intra_in_order_binary)
#define CS_OMPI_REDUCE_PLAIN(name)                                                                                     \
    int name(const void *s, void *r, int n, void *t, void *op, int root, void *comm, void *module)                     \
    {                                                                                                                  \
        static int (*real)(const void *, void *, int, void *, void *, int, void *, void *);                            \
        if (!real)                                                                                                     \
            *(void **)&real = dlsym(RTLD_NEXT, #name);                                                                 \
        if (!cs_export_alg)                                                                                            \
            cs_export_alg = #name;                                                                                     \
        return real(s, r, n, t, op, root, comm, module);                                                               \
    }
CS_OMPI_REDUCE_PLAIN(ompi_coll_base_reduce_intra_redscat_gather)
CS_OMPI_REDUCE_PLAIN(ompi_coll_base_reduce_intra_basic_linear)

int ompi_coll_base_reduce_intra_chain(const void *s, void *r, int n, void *t, void *op, int root, void *comm,
                                      void *module, uint32_t seg, int fanout, int reqs)
{
    static int (*real)(const void *, void *, int, void *, void *, int, void *, void *, uint32_t, int, int);
    if (!real)
        *(void **)&real = dlsym(RTLD_NEXT, "ompi_coll_base_reduce_intra_chain");
    if (!cs_export_alg)
        cs_export_alg = "ompi_coll_base_reduce_intra_chain";
    return real(s, r, n, t, op, root, comm, module, seg, fanout, reqs);
}
