/*
 * Where Open MPI 4.1 reads its MCA parameters (opal/mca/base/mca_base_var.c),
 * looked through for coll/tuned's, as text: a file line "coll_tuned_x = v"
 * or a variable OMPI_MCA_coll_tuned_x. Reading is all it takes to know that
 * none is set; what one is set to, MPI_T then says (src/shim/init.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shim/mca.h"

/* Open MPI's configured directories; Debian's unless the build says
 * otherwise (ompi_info --path sysconfdir, --path pkgdatadir).
 * OPAL_PREFIX relocates an installation, OPAL_SYSCONFDIR its etc/. */
#ifndef CS_OMPI_SYSCONFDIR
#define CS_OMPI_SYSCONFDIR "/etc/openmpi"
#endif
#ifndef CS_OMPI_PKGDATADIR
#define CS_OMPI_PKGDATADIR "/usr/share/openmpi"
#endif

#define CS_MCA_PREFIX "coll_tuned_"

extern char **environ;

static const char *cs_mca_env(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

static void cs_mca_sysconfdir(char *dir, size_t size)
{
    const char *prefix = cs_mca_env("OPAL_PREFIX"), *etc = cs_mca_env("OPAL_SYSCONFDIR");
    if (etc)
        snprintf(dir, size, "%s", etc);
    else if (prefix)
        snprintf(dir, size, "%s/etc", prefix);
    else
        snprintf(dir, size, "%s", CS_OMPI_SYSCONFDIR);
}

/* Does the parameter file set a coll_tuned_* parameter? 1 yes, 0 no, -1
 * it cannot be read. */
static int cs_mca_file(const char *path)
{
    char line[1024];
    FILE *f = fopen(path, "r");
    int found = 0;
    if (!f)
        return -1;
    while (!found && fgets(line, sizeof line, f)) {
        const char *s = line + strspn(line, " \t");
        found = strncmp(s, CS_MCA_PREFIX, strlen(CS_MCA_PREFIX)) == 0;
    }
    fclose(f);
    return found;
}

/* The files of a list (Open MPI separates them with ',' or ':'): 1 if one
 * sets a coll_tuned_* parameter; missing ones, as in Open MPI, set none. */
static int cs_mca_files(const char *list)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", list);
    for (char *save = NULL, *f = strtok_r(buf, ",:", &save); f; f = strtok_r(NULL, ",:", &save))
        if (cs_mca_file(f) == 1)
            return 1;
    return 0;
}

/* An aggregate parameter set (mpirun -am NAME, tune files): a path, or a
 * name found in Open MPI's amca-param-sets or the working directory. 1
 * where one sets coll_tuned_* or cannot be found (it may). */
static int cs_mca_sets(const char *names)
{
    char buf[4096], path[4096 + 64];
    snprintf(buf, sizeof buf, "%s", names);
    for (char *save = NULL, *n = strtok_r(buf, ",:", &save); n; n = strtok_r(NULL, ",:", &save)) {
        int r = cs_mca_file(n);
        if (r < 0 && n[0] != '/') {
            snprintf(path, sizeof path, "%s/amca-param-sets/%s", CS_OMPI_PKGDATADIR, n);
            r = cs_mca_file(path);
        }
        if (r != 0)
            return 1;
    }
    return 0;
}

int cs_mca_tuned_may_be_set(void)
{
    static const char env[] = "OMPI_MCA_" CS_MCA_PREFIX;
    char etc[2048], path[2048 + 64];
    for (char **e = environ; e && *e; e++)
        if (strncmp(*e, env, sizeof env - 1) == 0)
            return 1;
    /* mpirun --tune's files hold command lines, not parameter lines: taken as setting one. */
    const char *sets = cs_mca_env("OMPI_MCA_mca_base_param_file_prefix");
    if (cs_mca_env("OMPI_MCA_mca_base_envar_file_prefix") || (sets && cs_mca_sets(sets)))
        return 1;
    cs_mca_sysconfdir(etc, sizeof etc);
    snprintf(path, sizeof path, "%s/openmpi-mca-params-override.conf", etc);
    if (cs_mca_file(path) == 1)
        return 1;
    const char *files = cs_mca_env("OMPI_MCA_mca_base_param_files");
    if (!files)
        files = cs_mca_env("OMPI_MCA_mca_param_files");
    if (files)
        return cs_mca_files(files);
    const char *home = cs_mca_env("HOME");
    if (home) {
        snprintf(path, sizeof path, "%s/.openmpi/mca-params.conf", home);
        if (cs_mca_file(path) == 1)
            return 1;
    }
    snprintf(path, sizeof path, "%s/openmpi-mca-params.conf", etc);
    return cs_mca_file(path) == 1;
}
