/*
 * Open MPI 4.1's dynamic rules file (coll/tuned's coll_tuned_dynamic_file.c)
 * from an export plan: the number of collectives; per collective its number
 * (allreduce 2, alltoall 3, reduce 11) and its communicator sizes; per size
 * its lower bound and its message sizes; per message size its lower bound
 * (bytes: the vector's; alltoall's p blocks, as Open MPI measures it), the
 * algorithm (0: Open MPI's own decision, where the model finds nothing
 * cheaper), fan-in/out and segment size (0: unsegmented, as priced).
 * Past the plan's largest p a last size rule names algorithm 0 for every
 * message: Open MPI's own decision. '#' starts a comment Open MPI skips.
 */
#include "model/export.h"
#include "config/library_rules.h"

static int cs_export_ompi_id(cs_coll coll)
{
    return coll == CS_COLL_ALLREDUCE  ? CS_OMPI_ID_ALLREDUCE
           : coll == CS_COLL_ALLTOALL ? CS_OMPI_ID_ALLTOALL
                                      : CS_OMPI_ID_REDUCE;
}

int cs_export_write_openmpi(const cs_export_plan *plan, FILE *out)
{
    fprintf(out, "# Open MPI 4.1 coll/tuned dynamic rules, written by collshim-model --export openmpi\n"
                 "# mpirun --mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_dynamic_rules_filename FILE\n"
                 "3 # collectives\n");
    for (int i = 0; i < 3; i++) {
        const cs_coll coll = cs_export_colls[i];
        const int a2a = coll == CS_COLL_ALLTOALL;
        fprintf(out, "%d # %s\n%d # communicator sizes\n", cs_export_ompi_id(coll), cs_coll_name(coll),
                plan->ncom[coll] + 1);
        for (int c = 0; c < plan->ncom[coll]; c++) {
            const cs_export_com *com = &plan->com[coll][c];
            const int from_p = c ? com->p_lo : 1;
            fprintf(out, "%d # from p = %d (the model's choices up to p = %d)\n%d # message sizes\n", from_p, from_p,
                    com->p_hi, com->n);
            for (int b = 0; b < com->n; b++) {
                const cs_export_msg *m = &com->msg[b];
                const cs_export_alg *alg = &plan->algs[coll][m->alg];
                /* grid point s stands for [s, 2s); alltoall's in p blocks (a band per p) */
                const size_t from = b ? 2 * com->msg[b - 1].upto * (a2a ? (size_t)com->p_lo : 1) : 0;
                fprintf(out, "%zu %d %d 0 # %s%s\n", from, alg->alg,
                        alg->alg == 2 && coll == CS_COLL_REDUCE ? alg->fanout : 0, m->alg < 0 ? "Open MPI's own: " : "",
                        m->words);
            }
        }
        fprintf(out, "%d # from p = %d: Open MPI's own decisions\n1\n0 0 0 0\n", plan->pmax + 1, plan->pmax + 1);
    }
    return ferror(out) ? -1 : 0;
}
