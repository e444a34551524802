/*
 * ucx_yield.c: the test suite's UCX progress wrapper (docs/architecture.md, "Testing").
 *
 * MPICH 4 (ch4:ucx) busy-polls ucp_worker_progress() and never gives the CPU away, so runs with
 * more ranks than cores crawl. Preloaded (after collshim), this library interposes that function:
 * after a pass that made no progress it calls sched_yield(), and after CS_YIELD_SPIN consecutive
 * empty passes it also sleeps a microsecond. It changes timing only, never results. For tests;
 * never for timings compared with runs without it.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { CS_YIELD_SPIN = 200 };

typedef unsigned (*cs_progress_fn)(void *worker);

/* Declared as UCX declares it, with the handle as an opaque pointer (no UCX headers needed). */
unsigned ucp_worker_progress(void *worker);

static _Thread_local unsigned cs_empty_passes;

static cs_progress_fn cs_real_progress(void)
{
    /* Racing threads store the same value; a relaxed atomic keeps the access well-defined. */
    static cs_progress_fn real;
    cs_progress_fn fn = __atomic_load_n(&real, __ATOMIC_RELAXED);
    if (fn == NULL) {
        fn = (cs_progress_fn)dlsym(RTLD_NEXT, "ucp_worker_progress");
        if (fn == NULL) {
            fprintf(stderr, "libcs_yield: ucp_worker_progress not found: %s\n", dlerror());
            abort();
        }
        __atomic_store_n(&real, fn, __ATOMIC_RELAXED);
    }
    return fn;
}

unsigned ucp_worker_progress(void *worker)
{
    unsigned n = cs_real_progress()(worker);
    if (n != 0) {
        cs_empty_passes = 0;
        return n;
    }
    if (++cs_empty_passes < CS_YIELD_SPIN) {
        sched_yield();
    } else {
        const struct timespec us = {0, 1000};
        nanosleep(&us, NULL);
    }
    return n;
}
