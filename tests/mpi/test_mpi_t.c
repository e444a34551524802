/*
 * test_mpi_t: the shim starts Open MPI's MPI_T (which costs Open MPI 4.1 some 0.2 s a process)
 * to read what the user forced coll/tuned to run, and only where a coll_tuned parameter may be
 * set: in the environment or a parameter file (src/shim/mca.c). MPI_T_init_thread is defined
 * here, ahead of the library, and counts the shim's calls. With CS_TEST_MPI_T_EXPECT=0 or 1 the
 * program fails unless MPI_T was started that many times; the driver also reads the summary of
 * the shim's log for what the library was forced to. One allreduce is checked, so that the log
 * has a call.
 */
#include "cs_test.h"

typedef int (*cs_t_init_fn)(int, int *);

static int t_inits; /* MPI_T_init_thread calls before main's first check */

int MPI_T_init_thread(int required, int *provided)
{
    static cs_t_init_fn next;
    if (!next)
        next = (cs_t_init_fn)dlsym(RTLD_NEXT, "MPI_T_init_thread");
    t_inits++;
    return next(required, provided);
}

int main(int argc, char **argv)
{
    cs_test_init(&argc, &argv);
    const int started = t_inits;
    const char *expect = getenv("CS_TEST_MPI_T_EXPECT");
    int x = cs_wrank + 1, sum = 0;
    cs_set_case("MPI_T at MPI_Init");
    MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(sum == cs_wsize * (cs_wsize + 1) / 2, "allreduce gave %d", sum);
    if (expect && *expect)
        CHECK(started == atoi(expect), "MPI_T started %d time(s) at MPI_Init, expected %s", started, expect);
    return cs_test_finish("test_mpi_t");
}
