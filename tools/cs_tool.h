/*
 * How the tools speak, one way for all four (collshim-calibrate, -report,
 * -hull, -model): --help prints the usage lines, the options one per line
 * and the exit statuses to standard output; every error is one line
 * "TOOL: what is wrong" on standard error (a configuration's error in its
 * FILE:LINE:COLUMN form); a usage error adds where the options are listed.
 * The exit statuses, listed in each --help and manual page:
 *   0  done
 *   1  the work failed: a file could not be read or written, a wrong result,
 *      nothing to report
 *   2  a usage error: an unknown option, a missing or malformed value, a
 *      configuration file that cannot be used
 *   3  collshim-calibrate --verify only: a cell slower than the library
 */
#ifndef CS_TOOL_H
#define CS_TOOL_H

#include <stdarg.h>
#include <stdio.h>

#define CS_TOOL_EXIT_FAILED 1
#define CS_TOOL_EXIT_USAGE 2

#define CS_TOOL_EXIT_STATUS                                                                                            \
    "Exit status: 0 done; 1 the work failed (a file unreadable or unwritable, a wrong result);\n"                      \
    "2 a usage error (an unknown option, a bad value, a configuration that cannot be used).\n"

/* "TOOL: message" and the pointer to --help on stderr; returns CS_TOOL_EXIT_USAGE. */
static inline int cs_tool_usage_error(const char *tool, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline int cs_tool_usage_error(const char *tool, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s: ", tool);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n%s --help lists the options.\n", tool);
    return CS_TOOL_EXIT_USAGE;
}

#if defined(MPI_VERSION) /* a tool that includes mpi.h first: one that runs MPI */
#include <stdlib.h>

/*
 * Started by the other MPI library's launcher, every process of a tool is
 * a singleton of its own library: MPI_COMM_WORLD of size 1, while the
 * launcher's environment says how many it started (Open MPI's mpirun
 * OMPI_COMM_WORLD_SIZE, MPICH's hydra PMI_SIZE). Then the launcher's rank 0
 * says which launcher or build to use, in one line, and exits with
 * CS_TOOL_EXIT_USAGE; the others exit 0 after it, so that the launcher
 * (which ends the job at the first failed process) lets it speak and still
 * fails. Call right after MPI_Init. A build for neither library (SimGrid's
 * SMPI) never asks.
 */
static inline void cs_tool_check_launcher(const char *tool)
{
#if defined(OPEN_MPI) || defined(MPICH_VERSION)
    /* the other launcher's variables, the libraries, and whom to start how */
    typedef struct {
        const char *size_var, *rank_var, *launcher_of, *built, *own_launcher, *other_suffix, *other_dir,
            *other_launcher;
    } cs_tool_launchers;
#if defined(OPEN_MPI)
    static const cs_tool_launchers w = {"PMI_SIZE",       "PMI_RANK", "MPICH", "Open MPI",
                                        "mpirun.openmpi", "",         "",      "mpiexec.mpich"};
#else
    static const cs_tool_launchers w = {
        "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK", "Open MPI", "MPICH", "mpiexec.mpich", ".openmpi", "openmpi/",
        "mpirun.openmpi"};
#endif
    const char *size = getenv(w.size_var), *rank = getenv(w.rank_var);
    int p = 0;
    if (!size || atoi(size) < 2 || MPI_Comm_size(MPI_COMM_WORLD, &p) != MPI_SUCCESS || p != 1)
        return;
    const int speaks = !rank || atoi(rank) == 0;
    if (speaks)
        fprintf(stderr,
                "%s: started by %s's launcher, which this %s build cannot join (%s processes of 1 rank each): "
                "start it with %s, or start %s%s (in the source tree build/%s%s) with %s\n",
                tool, w.launcher_of, w.built, size, w.own_launcher, tool, w.other_suffix, w.other_dir, tool,
                w.other_launcher);
    MPI_Finalize();
    exit(speaks ? CS_TOOL_EXIT_USAGE : 0);
#else
    (void)tool;
#endif
}
#endif

#endif
