#include <string.h>

#include "common.h"

const char *cs_coll_name(cs_coll coll)
{
    static const char *const names[CS_COLL_COUNT] = {"alltoall", "allreduce", "reduce", "window", "window_block"};
    return (unsigned)coll < CS_COLL_COUNT ? names[coll] : "?";
}

static const char *const cs_library_names[CS_LIBRARY_COUNT] = {"auto", "mpich", "openmpi", "smpi-mpich", "smpi-ompi"};

const char *cs_library_name(int library)
{
    return (unsigned)library < CS_LIBRARY_COUNT ? cs_library_names[library] : "?";
}

int cs_library_parse(const char *name)
{
    for (int i = 0; i < CS_LIBRARY_COUNT; i++)
        if (strcmp(name, cs_library_names[i]) == 0)
            return i;
    return -1;
}

cs_library cs_library_detect(const char *version)
{
    if (strstr(version, "Open MPI"))
        return CS_LIBRARY_OPENMPI;
    if (strstr(version, "SMPI") || strstr(version, "SimGrid"))
        return CS_LIBRARY_SMPI_MPICH;
    return CS_LIBRARY_MPICH;
}
