/*
 * A tuning file the MPI library runs under (model.library_rules): MPICH's
 * JSON selection (MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE) or Open MPI's
 * dynamic rules (coll_tuned_dynamic_rules_filename), read as the library
 * reads it, so that the mirrors price what the library will run.
 */
#ifndef CS_LIBRARY_RULES_H
#define CS_LIBRARY_RULES_H

#include <limits.h>

#include "common.h"
#include "config/json_tree.h"

/* Open MPI's collective numbers in a rules file (coll_base_functions.h: ALLREDUCE 2, ALLTOALL 3, REDUCE 11) */
enum { CS_OMPI_ID_ALLREDUCE = 2, CS_OMPI_ID_ALLTOALL = 3, CS_OMPI_ID_REDUCE = 11, CS_OMPI_IDS = 22 };

typedef struct cs_ompi_msg_rule {
    size_t from; /* message sizes from here (the vector's bytes; alltoall: p blocks') */
    int alg, fanout, segsize;
} cs_ompi_msg_rule;

typedef struct cs_ompi_com_rule {
    int from_p; /* communicator sizes from here */
    int n;
    cs_ompi_msg_rule *msg;
} cs_ompi_com_rule;

typedef struct cs_library_rules {
    int library; /* CS_LIBRARY_MPICH (a JSON file) or CS_LIBRARY_OPENMPI */
    char path[PATH_MAX];
    char *text;
    cs_json_tree json;
    int mpich[CS_COLL_LAST]; /* the member "collective=<coll>", -1: none */
    int ncom[CS_COLL_LAST];
    cs_ompi_com_rule *com[CS_COLL_LAST];
} cs_library_rules;

/*
 * Read path: *rules (free with cs_library_rules_free), or NULL with a
 * message into why ("FILE:LINE:COL: what") and -1.
 */
int cs_library_rules_load(const char *path, cs_library_rules **rules, char *why, size_t n);
void cs_library_rules_free(cs_library_rules *rules);

/* The MPIR algorithm ("MPIR_Allreduce_intra_recursive_doubling") the JSON
 * names for prob, NULL: none there (the library's own tree decides). The
 * name points into a table of names we price, or is NULL for others. */
const char *cs_library_rules_mpich(const cs_library_rules *rules, const cs_problem *prob);

/* Open MPI's algorithm number the rules give prob (0: none, the forced or
 * the fixed decision), with the rule's fan-in/out and segment size. */
int cs_library_rules_openmpi(const cs_library_rules *rules, const cs_problem *prob, int *fanout, int *segsize);

/* MPICH's MPIR algorithms of coll that the mirror prices, NULL-terminated. */
extern const char *const *const cs_mpich_algorithms[CS_COLL_LAST];

#endif
