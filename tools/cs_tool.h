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

#endif
