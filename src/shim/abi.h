/*
 * Which MPI library this build is for, which one the process uses, and the
 * way out when they differ (src/shim/abi.c).
 *
 * A build is compiled against one library's mpi.h: its handles (MPICH's
 * ints, Open MPI's pointers) and constants mean nothing to the other. Loaded
 * into a program of the other library, every entry point steps aside before
 * it reads a handle: it passes the call, bit for bit, to the program's own
 * library. This header includes no mpi.h, so that the C entry points
 * (src/shim/entry.c) can take handles as machine words of either ABI.
 */
#ifndef CS_SHIM_ABI_H
#define CS_SHIM_ABI_H

#include <stdint.h>

/* A handle as the caller passed it: an MPICH int or an Open MPI pointer, in
 * one argument register or stack slot on the ABIs Linux runs MPI on. */
typedef uintptr_t cs_hword;

/* What cs_abi_aside found: 0 not yet asked, 1 this build fits, 2 it does not. */
extern int cs_abi_state;

/* Decide (the first call), thread-safe; cs_abi_aside's answer. */
int cs_abi_decide(void);

/* Nonzero when this build does not fit the process's MPI library: decided
 * once (thread-safe), without calling MPI, and said once on stderr (by the
 * job's rank 0 where the launcher tells the rank). Once decided, a load and
 * a compare: every intercepted call asks. */
static inline int cs_abi_aside(void)
{
    const int state = __atomic_load_n(&cs_abi_state, __ATOMIC_ACQUIRE);
    return state ? state == 2 : cs_abi_decide();
}

/* This build fits the process's library, as decided already: the entry
 * points' fast path, which then keeps no argument across a call. */
static inline int cs_abi_fits(void)
{
    return __atomic_load_n(&cs_abi_state, __ATOMIC_ACQUIRE) == 1;
}

/* The way in for a call that may step aside, out of the entry points' fast
 * path (no registers kept for it there). */
#define CS_COLD __attribute__((noinline, cold))

/* The program's own definition of the function `name` (an MPI_* or a
 * Fortran symbol), for a call that steps aside; NULL if it has none. Looked
 * up once per *slot (a static of the caller's; a race stores the same). */
void *cs_abi_next(const char *name, void **slot);

/* What a call that steps aside returns when the program's library lacks the
 * function: MPI_ERR_OTHER in both numberings would need both mpi.h files;
 * any nonzero code is an error to the caller. */
#define CS_ABI_NO_NEXT 15

#endif
