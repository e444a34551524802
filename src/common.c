#include "common.h"

const char *cs_coll_name(cs_coll coll)
{
    static const char *const names[CS_COLL_LAST] = {"alltoall", "allreduce", "reduce"};
    return (unsigned)coll < CS_COLL_LAST ? names[coll] : "?";
}
