/*
 * collshim-gen-docs: the parts of docs/ that the code's own tables say, so
 * that the pages cannot drift from them. Not installed; `make docs` runs it,
 * `make check-docs` (a part of `make check`) fails when a committed page
 * differs from what it writes.
 *
 * usage: collshim-gen-docs configuration|algorithms PAGE
 *
 * Reads PAGE (Markdown) and writes it to standard output with the text
 * between the two marker lines replaced:
 *
 *   configuration  the keys of the schema (src/config/config_schema.c),
 *                  walked as the loader walks them, each with its row of
 *                  src/config/config_doc.c; the COLLSHIM_* variables
 *                  (src/config/config_env.c); the defaults as
 *                  cs_config_write writes them.
 *   algorithms     every row of every collective's table
 *                  (src/coll/registry.c): name, restrictions in select's
 *                  words, the parameters' syntax, the description.
 *
 * Exit status: 0; 1 when a key or variable has no description (or a
 * description names none), or PAGE cannot be read or lacks the markers;
 * 2 on a usage error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll/coll.h"
#include "config/config.h"
#include "config/config_doc.h"
#include "config/config_yaml.h"
#include "select/select.h"

#define CS_GEN_BEGIN "<!-- generated: begin (make docs writes this part; edit the tables it reads, not this) -->"
#define CS_GEN_END "<!-- generated: end -->"

static const char *cs_prog = "collshim-gen-docs";
static int cs_failed;

static void cs_usage(FILE *f)
{
    fprintf(f,
            "usage: %s configuration|algorithms PAGE\n"
            "  Writes PAGE to standard output with the part between its markers generated\n"
            "  from the configuration schema or the algorithm tables.\n"
            "Exit status: 0; 1 on a missing description or an unreadable page; 2 on a usage error.\n",
            cs_prog);
}

/* ---- the configuration ---------------------------------------------------- */

static unsigned char cs_key_used[256], cs_env_used[64];

static const cs_config_doc *cs_key_doc(const char *path)
{
    const char *dot = strrchr(path, '.');
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < cs_config_nkey_docs; i++) {
            const char *name = cs_config_key_docs[i].name;
            int hit = pass == 0 ? !strcmp(name, path) : (dot && name[0] == '*' && !strcmp(name + 1, dot));
            if (hit) {
                cs_key_used[i] = 1;
                return &cs_config_key_docs[i];
            }
        }
    }
    return NULL;
}

static void cs_gen_section(const cs_section *sec, const char *prefix)
{
    for (size_t i = 0; i < sec->nkeys; i++) {
        const cs_key *key = &sec->keys[i];
        char path[128];
        snprintf(path, sizeof path, "%s%s%s", prefix, *prefix ? "." : "", key->name);
        const cs_config_doc *doc = cs_key_doc(path);
        if (!doc) {
            fprintf(stderr, "%s: the key %s has no description in src/config/config_doc.c\n", cs_prog, path);
            cs_failed = 1;
        }
        printf("| `%s` | %s | %s |\n", path, doc ? doc->values : "", doc ? doc->meaning : "");
        if (key->sub)
            cs_gen_section(key->sub, path);
    }
}

static const cs_config_doc *cs_env_doc(const char *name)
{
    for (size_t i = 0; i < cs_config_nenv_docs; i++)
        if (!strcmp(cs_config_env_docs[i].name, name)) {
            cs_env_used[i] = 1;
            return &cs_config_env_docs[i];
        }
    fprintf(stderr, "%s: the variable %s has no description in src/config/config_doc.c\n", cs_prog, name);
    cs_failed = 1;
    return NULL;
}

static void cs_gen_env_row(const char *name)
{
    const cs_config_doc *doc = cs_env_doc(name);
    printf("| `%s` | %s | %s |\n", name, doc ? doc->values : "", doc ? doc->meaning : "");
}

static void cs_gen_configuration(void)
{
    cs_config cfg;

    printf("| key | values | meaning |\n|---|---|---|\n");
    cs_gen_section(&cs_config_schema, "");
    printf("\nThe environment, applied over the file in this order (an empty variable counts as unset):\n\n");
    printf("| variable | values | meaning |\n|---|---|---|\n");
    /* Read by cs_config_init before the file, not by the table of variables. */
    cs_gen_env_row("COLLSHIM_CONFIG");
    for (size_t i = 0; cs_config_env_name(i); i++)
        cs_gen_env_row(cs_config_env_name(i));
    printf("\nThe built-in defaults, as `collshim-calibrate` would write them (`cs_config_write`):\n\n```yaml\n");
    fflush(stdout);
    cs_config_defaults(&cfg);
    cs_config_write(stdout, &cfg);
    printf("```\n");
    for (size_t i = 0; i < cs_config_nkey_docs; i++)
        if (!cs_key_used[i]) {
            fprintf(stderr, "%s: src/config/config_doc.c describes %s, which the schema does not have\n", cs_prog,
                    cs_config_key_docs[i].name);
            cs_failed = 1;
        }
    for (size_t i = 0; i < cs_config_nenv_docs; i++)
        if (!cs_env_used[i]) {
            fprintf(stderr, "%s: src/config/config_doc.c describes %s, which no code reads\n", cs_prog,
                    cs_config_env_docs[i].name);
            cs_failed = 1;
        }
}

/* ---- the algorithms --------------------------------------------------------- */

/* A table cell: '|' would end it, '<' start an HTML tag ("r=<radix>"). */
static void cs_cell(const char *s)
{
    for (; *s; s++) {
        if (*s == '|')
            fputs("\\|", stdout);
        else if (*s == '<')
            fputs("&lt;", stdout);
        else
            putchar(*s);
    }
}

static void cs_gen_algorithms(void)
{
    static const char *const what[CS_COLL_COUNT] = {
        [CS_COLL_ALLTOALL] = "`MPI_Alltoall`",
        [CS_COLL_ALLREDUCE] = "`MPI_Allreduce`",
        [CS_COLL_REDUCE] = "`MPI_Reduce`",
        [CS_COLL_WINDOW] = "`collshim_window_reduce` (the extension API; `window.method`)",
        [CS_COLL_WINDOW_BLOCK] = "`collshim_window_reduce_block` (the extension API; no key: "
                                 "`prefix-differences` where the operator has an exact inverse)",
    };
    for (int c = 0; c < CS_COLL_COUNT; c++) {
        int n;
        const cs_alg *const *table = cs_alg_table((cs_coll)c, &n);

        printf("%s### %s\n\n%s; the rows in the table's order.\n\n", c ? "\n" : "", cs_coll_name((cs_coll)c), what[c]);
        printf("| algorithm | restrictions | parameters | what |\n|---|---|---|---|\n");
        for (int i = 0; i < n; i++) {
            const cs_alg *alg = table[i];
            int any = 0;

            printf("| `%s` | ", alg->name);
            for (unsigned bit = 1; bit; bit <<= 1) {
                if (!(alg->requires & bit))
                    continue;
                const char *words = cs_alg_restriction_words(bit);
                if (!words) {
                    fprintf(stderr, "%s: %s %s: restriction 0x%x has no words in src/select/select.c\n", cs_prog,
                            cs_coll_name((cs_coll)c), alg->name, bit);
                    cs_failed = 1;
                    continue;
                }
                printf("%s%s", any++ ? "; " : "", words);
            }
            fputs(any ? " | " : "none | ", stdout);
            if (!alg->parse)
                fputs("none", stdout);
            else if (alg->syntax)
                cs_cell(strncmp(alg->syntax, "expected ", 9) ? alg->syntax : alg->syntax + 9);
            else {
                fprintf(stderr, "%s: %s %s takes parameters but its row has no syntax\n", cs_prog,
                        cs_coll_name((cs_coll)c), alg->name);
                cs_failed = 1;
            }
            fputs(" | ", stdout);
            cs_cell(alg->description ? alg->description : "");
            fputs(" |\n", stdout);
        }
    }
}

/* ---- the page ------------------------------------------------------------- */

int main(int argc, char **argv)
{
    char line[4096];
    int state = 0; /* 0 before the markers, 1 inside, 2 after */

    if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
        cs_usage(stdout);
        return 0;
    }
    if (argc != 3 || (strcmp(argv[1], "configuration") && strcmp(argv[1], "algorithms"))) {
        cs_usage(stderr);
        return 2;
    }
    FILE *page = fopen(argv[2], "r");
    if (!page) {
        fprintf(stderr, "%s: %s: cannot read it\n", cs_prog, argv[2]);
        return 1;
    }
    while (fgets(line, sizeof line, page)) {
        if (state == 1) {
            if (strncmp(line, CS_GEN_END, strlen(CS_GEN_END)))
                continue;
            state = 2;
        }
        fputs(line, stdout);
        if (state == 0 && !strncmp(line, CS_GEN_BEGIN, strlen(CS_GEN_BEGIN))) {
            state = 1;
            putchar('\n');
            if (!strcmp(argv[1], "configuration"))
                cs_gen_configuration();
            else
                cs_gen_algorithms();
            putchar('\n');
            fflush(stdout);
        }
    }
    fclose(page);
    if (state != 2) {
        fprintf(stderr, "%s: %s: expected the lines\n  %s\nand\n  %s\n", cs_prog, argv[2], CS_GEN_BEGIN, CS_GEN_END);
        return 1;
    }
    return cs_failed;
}
