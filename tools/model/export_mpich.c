/*
 * MPICH 4.0's JSON selection file (MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE,
 * read by src/mpi/coll/src/csel.c) from an export plan. The file replaces
 * MPIR's whole tree, and MPICH aborts on a collective it does not find, so
 * it holds every other collective of a base tree unchanged: by default the
 * one built into the libmpich this tool runs with (MPII_coll_generic_json,
 * the text of maint/tuning/coll/mpir/generic.json). Ours, per collective:
 *
 *   "comm_type=intra":
 *     the guards MPICH's own tree keeps (the reduce-scatter algorithms
 *     assert a predefined operator and count >= p'): a user's operator or a
 *     count below p' -> recursive doubling / binomial; alltoall in place ->
 *     pairwise sendrecv-replace
 *     "comm_size<=P": "avg_msg_size<=M": the plan's choice ... "avg_msg_size=any"
 *     "comm_size=any": the base tree's own (past the plan's largest p)
 *   the base's other members (comm_type=inter) unchanged.
 */
#include <dlfcn.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "model/export.h"
#include "config/json_tree.h"

/* The JSON text built into libmpich: of the NUL-terminated texts around a
 * "collective=allreduce" key, the one that is a JSON object and names MPIR's
 * allreduce algorithms (not ch4's tree, whose are MPIDI's). NULL with why. */
static char *cs_export_builtin(char *why, size_t n)
{
    static const char key[] = "\"collective=allreduce\"", mpir[] = "algorithm=MPIR_Allreduce_intra_";
    Dl_info info;
    if (!dladdr((void *)&MPI_Init, &info) || !info.dli_fname) {
        snprintf(why, n, "cannot find the MPI library this tool runs with (give --base FILE)");
        return NULL;
    }
    FILE *f = fopen(info.dli_fname, "rb");
    char *lib = NULL, *text = NULL;
    long size = -1;
    if (f && !fseek(f, 0, SEEK_END) && (size = ftell(f)) > 0 && !fseek(f, 0, SEEK_SET) &&
        (lib = malloc((size_t)size)) && fread(lib, 1, (size_t)size, f) == (size_t)size) {
        const char *end = lib + size;
        for (const char *hit = lib; !text && (hit = memmem(hit, (size_t)(end - hit), key, sizeof key - 1));
             hit += sizeof key - 1) {
            const char *start = hit, *stop = hit;
            while (start > lib && start[-1])
                start--;
            while (stop < end && *stop)
                stop++;
            if (*start == '{' && memmem(start, (size_t)(stop - start), mpir, sizeof mpir - 1))
                text = strndup(start, (size_t)(stop - start));
        }
    }
    if (!text)
        snprintf(why, n, "%s: no built-in selection tree found in it (give --base FILE)", info.dli_fname);
    free(lib);
    if (f)
        fclose(f);
    return text;
}

static char *cs_export_read(const char *path, char *why, size_t n)
{
    FILE *f = fopen(path, "rb");
    char *text = NULL;
    long size = -1;
    if (f && !fseek(f, 0, SEEK_END) && (size = ftell(f)) >= 0 && !fseek(f, 0, SEEK_SET) &&
        (text = calloc((size_t)size + 1, 1)) && fread(text, 1, (size_t)size, f) == (size_t)size) {
        fclose(f);
        return text;
    }
    snprintf(why, n, "%s: cannot read it", path);
    free(text);
    if (f)
        fclose(f);
    return NULL;
}

static void cs_export_leaf(FILE *out, const char *alg)
{
    fprintf(out, "{\"algorithm=%s\": {}}", alg);
}

/* The member's text verbatim. */
static void cs_export_copy(FILE *out, const cs_json_tree *t, int i)
{
    fwrite(t->text + t->members[i].start, 1, t->members[i].end - t->members[i].start, out);
}

static void cs_export_coll(FILE *out, const cs_export_plan *plan, cs_coll coll, const cs_json_tree *base, int member)
{
    static const char *const guard[CS_COLL_LAST] = {[CS_COLL_ALLREDUCE] = "MPIR_Allreduce_intra_recursive_doubling",
                                                    [CS_COLL_REDUCE] = "MPIR_Reduce_intra_binomial"};
    const int intra = member >= 0 ? cs_json_find(base, base->members[member].first_child, "comm_type=intra") : -1;
    fprintf(out, "    \"collective=%s\": {\n        \"comm_type=intra\": {\n", cs_coll_name(coll));
    if (coll == CS_COLL_ALLTOALL) {
        fprintf(out, "            \"is_sendbuf_inplace=yes\": ");
        cs_export_leaf(out, "MPIR_Alltoall_intra_pairwise_sendrecv_replace");
        fprintf(out, ",\n");
    } else {
        fprintf(out, "            \"is_op_built_in=no\": ");
        cs_export_leaf(out, guard[coll]);
        fprintf(out, ",\n            \"count<pow2\": ");
        cs_export_leaf(out, guard[coll]);
        fprintf(out, ",\n");
    }
    for (int c = 0; c < plan->ncom[coll]; c++) {
        const cs_export_com *com = &plan->com[coll][c];
        fprintf(out, "            \"comm_size<=%d\": {\n", com->p_hi);
        for (int b = 0; b < com->n; b++) {
            if (b + 1 < com->n)
                fprintf(out, "                \"avg_msg_size<=%zu\": ", com->msg[b].upto);
            else
                fprintf(out, "                \"avg_msg_size=any\": ");
            cs_export_leaf(out, plan->algs[coll][com->msg[b].alg].mpir);
            fprintf(out, "%s\n", b + 1 < com->n ? "," : "");
        }
        fprintf(out, "            }%s\n", c + 1 < plan->ncom[coll] || intra >= 0 ? "," : "");
    }
    if (intra >= 0) { /* past the plan's p: MPICH's own */
        const cs_json_member *m = &base->members[intra];
        fprintf(out, "            \"comm_size=any\": ");
        fwrite(base->text + m->value, 1, m->end - m->value, out);
        fprintf(out, "\n");
    }
    fprintf(out, "        }");
    for (int i = member >= 0 ? base->members[member].first_child : -1; i >= 0; i = base->members[i].next)
        if (i != intra) {
            fprintf(out, ",\n        ");
            cs_export_copy(out, base, i);
        }
    fprintf(out, "\n    }");
}

int cs_export_write_mpich(const cs_export_plan *plan, const char *base_path, FILE *out, char *why, size_t n)
{
    char *text = base_path ? cs_export_read(base_path, why, n) : cs_export_builtin(why, n);
    cs_json_tree base;
    int line, col;
    char what[160];
    if (!text)
        return -1;
    if (cs_json_parse(text, strlen(text), &base, &line, &col, what, sizeof what) != 0) {
        snprintf(why, n, "%s:%d:%d: %s", base_path ? base_path : "libmpich's built-in tree", line, col, what);
        cs_json_free(&base);
        free(text);
        return -1;
    }
    fprintf(out, "{\n");
    int first = 1;
    for (int i = base.first; i >= 0; i = base.members[i].next) {
        int ours = 0;
        for (int c = 0; c < 3; c++) {
            char key[64];
            snprintf(key, sizeof key, "collective=%s", cs_coll_name(cs_export_colls[c]));
            ours |= cs_json_key_is(&base, i, key);
        }
        if (ours)
            continue;
        fprintf(out, "%s    ", first ? "" : ",\n");
        cs_export_copy(out, &base, i);
        first = 0;
    }
    for (int c = 0; c < 3; c++) {
        char key[64];
        snprintf(key, sizeof key, "collective=%s", cs_coll_name(cs_export_colls[c]));
        fprintf(out, "%s", first ? "" : ",\n");
        cs_export_coll(out, plan, cs_export_colls[c], &base, cs_json_find(&base, base.first, key));
        first = 0;
    }
    fprintf(out, "\n}\n");
    cs_json_free(&base);
    free(text);
    return ferror(out) ? -1 : 0;
}
