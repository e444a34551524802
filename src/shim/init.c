/*
 * MPI_Init, MPI_Init_thread, MPI_Finalize: the configuration is read once,
 * after the MPI library is up (so that only rank 0 reports a bad one), and
 * the contexts are freed before the library goes down.
 */
#include <stdio.h>
#include <stdlib.h>

#include "common.h"
#include "log/log.h"
#include "shim/shim.h"

cs_state cs_shim;

static void cs_shim_start(void)
{
    cs_config_error err;
    char text[PATH_MAX + 320];

    PMPI_Comm_rank(MPI_COMM_WORLD, &cs_shim.world_rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &cs_shim.world_size);
    if (cs_config_init(&cs_shim.cfg, &err) != 0) {
        cs_config_error_format(&err, text, sizeof(text));
        if (cs_shim.world_rank == 0)
            fprintf(stderr, "collshim: %s; %s\n", text,
                    cs_shim.cfg.strict ? "aborting (strict)" : "running on the MPI library's collectives");
        if (cs_shim.cfg.strict) {
            fflush(stderr);
            PMPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    if (cs_context_keyval_create() != MPI_SUCCESS)
        return;
    cs_log_open(&cs_shim.cfg, cs_shim.world_rank, cs_shim.world_size);
    cs_shim.on = 1;
}

CS_EXPORT int MPI_Init(int *argc, char ***argv)
{
    int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS)
        cs_shim_start();
    return rc;
}

CS_EXPORT int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS)
        cs_shim_start();
    return rc;
}

CS_EXPORT int MPI_Finalize(void)
{
    if (cs_shim.on) {
        cs_shim.on = 0;
        cs_context_free_all();
        cs_log_finalize();
    }
    return PMPI_Finalize();
}
