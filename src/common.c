#include "common.h"

const char *cs_coll_name(cs_coll coll)
{
    static const char *const names[CS_COLL_COUNT] = {"alltoall", "allreduce", "reduce", "window", "window_block"};
    return (unsigned)coll < CS_COLL_COUNT ? names[coll] : "?";
}
