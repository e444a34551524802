/*
 * Starting and stopping the shim. The configuration is read once, after the
 * MPI library is up (so that only rank 0 reports a bad one): in MPI_Init or
 * MPI_Init_thread, or on the first intercepted call when the program's
 * MPI_Init did not come through here (MPICH's mpi_f08 bindings call
 * PMPI_Init directly). The contexts are freed and the summary written when
 * MPI_COMM_SELF's attributes are deleted, which MPI_Finalize does first,
 * however it was called.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "log/log.h"
#include "shim/abi.h"
#include "shim/args.h"
#include "shim/mca.h"
#include "shim/shim.h"
#include "shim/uncaught.h"

cs_state cs_shim;

static pthread_once_t cs_shim_once = PTHREAD_ONCE_INIT;

/* MPICH before 4.1.2 crashes in MPI_Reduce with MPI_IN_PLACE at a root
 * other than 0 (pmodels/mpich#6540). */
static int cs_shim_reduce_inplace_bug(const char *version)
{
    int major, minor, patch = 0;
    const char *v = strstr(version, "MPICH Version:");
    if (!v || sscanf(v + strlen("MPICH Version:"), " %d.%d.%d", &major, &minor, &patch) < 2)
        return 0;
    return major == 4 && (minor == 0 || (minor == 1 && patch < 2));
}

#ifdef OPEN_MPI /* the Open MPI build: only there are Open MPI's parameters read (SMPI has no MPI_T) */
/* An integer or boolean control variable of the library (MPI_T), by name:
 * 0 and *value, or -1 where it has none by that name. */
static int cs_shim_cvar(const char *name, int *value)
{
    int index, count, verbosity, bind, scope, namelen = 0, desclen = 0;
    MPI_Datatype type;
    MPI_T_enum enumtype;
    MPI_T_cvar_handle handle;
    union {
        int i;
        unsigned char bytes[64]; /* a bool, or whatever else fits a scalar */
    } buf = {0};
    if (MPI_T_cvar_get_index(name, &index) != MPI_SUCCESS ||
        MPI_T_cvar_get_info(index, NULL, &namelen, &verbosity, &type, &enumtype, NULL, &desclen, &bind, &scope) !=
            MPI_SUCCESS ||
        bind != MPI_T_BIND_NO_OBJECT || MPI_T_cvar_handle_alloc(index, NULL, &handle, &count) != MPI_SUCCESS)
        return -1;
    const int ok = count == 1 && MPI_T_cvar_read(handle, &buf) == MPI_SUCCESS;
    MPI_T_cvar_handle_free(&handle);
    if (!ok)
        return -1;
    *value = type == MPI_INT ? buf.i : buf.bytes[0] != 0;
    return 0;
}

/* Open MPI's algorithms the user forced (its dynamic decision takes them
 * before any table), as Open MPI itself reads its MCA parameters: from the
 * environment, mpirun --mca and parameter files alike. Open MPI 4.1's first
 * MPI_T_init_thread sets the library's thread level to the one it is asked
 * for, even after MPI_Init_thread: asked for MPI_THREAD_SINGLE, a program
 * given MPI_THREAD_MULTIPLE lost the library's locks and crashed or hung in
 * its own collectives. So it is asked for the level the program has. */
static void cs_shim_library_forced(cs_model *model, int level)
{
    int provided, dynamic = 0, alg;
    if (MPI_T_init_thread(level, &provided) != MPI_SUCCESS)
        return;
    if (cs_shim_cvar("coll_tuned_use_dynamic_rules", &dynamic) == 0 && dynamic)
        for (int c = 0; c < CS_COLL_LAST; c++) {
            char name[64];
            snprintf(name, sizeof name, "coll_tuned_%s_algorithm", cs_coll_name((cs_coll)c));
            if (cs_shim_cvar(name, &alg) == 0 && alg > 0 && alg < 256)
                model->library_forced[c] = (unsigned char)alg;
        }
    MPI_T_finalize();
}
#endif

static void cs_shim_stop(void)
{
    if (!cs_shim.on)
        return;
    cs_shim.on = 0;
    cs_context_free_all();
    cs_uncaught_report(); /* the collectives that passed by: said once, in the summary and the log */
    cs_log_finalize();
}

static int cs_shim_finalize_hook(MPI_Comm comm, int keyval, void *value, void *extra)
{
    cs_shim_stop();
    return MPI_SUCCESS;
}

/* The world's ranks on this rank's node, where a communicator's share of
 * its nodes' links is priced (cs_nodes.share) and memory decides what a
 * node is: collective over MPI_COMM_WORLD, so here, once. */
static void cs_shim_world_on_node(const cs_model *mo)
{
    MPI_Comm node;
    cs_shim.world_on_node = 0;
    if (mo->link_own || mo->ranks_per_node > 0 || !(mo->beta_link > 0.0 || mo->beta_core > 0.0))
        return;
    if (PMPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) != MPI_SUCCESS)
        return;
    if (PMPI_Comm_size(node, &cs_shim.world_on_node) != MPI_SUCCESS)
        cs_shim.world_on_node = 0;
    PMPI_Comm_free(&node);
}

/* COLLSHIM_* variables that nothing reads (a misspelt COLLSHIM_ALLREDUC):
 * one line each on stderr from rank 0, the nearest known name suggested,
 * and ignored. Under strict, the first is a configuration error: said as
 * one (cs_config_report) and the job aborts. */
static void cs_shim_unknown_env(void)
{
    if (!cs_shim.cfg.strict) {
        if (cs_shim.world_rank == 0)
            cs_config_env_warn_unknown((const char *const *)environ, stderr);
        return;
    }
    cs_config_error err;
    if (cs_config_env_check_unknown((const char *const *)environ, &err) != 0 &&
        cs_config_report(&cs_shim.cfg, &err, cs_shim.world_rank))
        PMPI_Abort(MPI_COMM_WORLD, 1);
}

static void cs_shim_start(void)
{
    cs_config_error err;
    int hook;

    PMPI_Comm_rank(MPI_COMM_WORLD, &cs_shim.world_rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &cs_shim.world_size);
    char version[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int len;
    if (PMPI_Get_library_version(version, &len) != MPI_SUCCESS)
        version[0] = '\0';
    cs_shim.reduce_inplace_bug = cs_shim_reduce_inplace_bug(version);
    int level = MPI_THREAD_SINGLE;
    cs_shim.thread_multiple = PMPI_Query_thread(&level) != MPI_SUCCESS || level == MPI_THREAD_MULTIPLE;
    cs_args_probe_ops();
    if (cs_config_init(&cs_shim.cfg, &err) != 0 && cs_config_report(&cs_shim.cfg, &err, cs_shim.world_rank))
        PMPI_Abort(MPI_COMM_WORLD, 1);
    cs_shim_unknown_env();
    cs_shim.cfg.says = cs_shim.world_rank == 0; /* one line for the job, not one per rank */
    /* the library priced: the one we run on (a file written for the other says so, once) */
    cs_config_library_running(&cs_shim.cfg, cs_library_detect(version), cs_shim.world_rank == 0);
#ifdef OPEN_MPI
    /* MPI_T costs Open MPI 4.1 some 0.2 s a process: asked only where the user may have forced one */
    if (cs_shim.cfg.model.library == CS_LIBRARY_OPENMPI && cs_mca_tuned_may_be_set())
        cs_shim_library_forced(&cs_shim.cfg.model, level);
#endif
    cs_shim_world_on_node(&cs_shim.cfg.model);
    /* Bokhari's hulls for every d, once, on the model: read only from here on. */
    static cs_hull_table hulls;
    cs_hull_table_init(&hulls, &cs_shim.cfg.model, cs_shim.cfg.coll[CS_COLL_ALLTOALL].hull,
                       cs_shim.cfg.coll[CS_COLL_ALLTOALL].nhulls);
    cs_shim.cfg.model.hulls = &hulls;
    if (cs_context_keyval_create() != MPI_SUCCESS)
        return;
    if (PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, cs_shim_finalize_hook, &hook, NULL) != MPI_SUCCESS ||
        PMPI_Comm_set_attr(MPI_COMM_SELF, hook, NULL) != MPI_SUCCESS)
        return;
    cs_log_open(&cs_shim.cfg, cs_shim.world_rank, cs_shim.world_size);
    cs_shim.log_configured = cs_shim.cfg.log_level != CS_LOG_OFF;
    cs_shim.on = 1;
}

void cs_shim_ensure(void)
{
    int up = 0, down = 0;
    if (cs_abi_aside()) /* the wrong build: not one handle of ours may reach the program's library */
        return;
    if (PMPI_Initialized(&up) != MPI_SUCCESS || !up || PMPI_Finalized(&down) != MPI_SUCCESS || down)
        return;
    pthread_once(&cs_shim_once, cs_shim_start);
}

/* In a program of another MPI library (src/shim/abi.c), the program's own. */
typedef int cs_init_fn(int *, char ***);
typedef int cs_init_thread_fn(int *, char ***, int, int *);
typedef int cs_finalize_fn(void);

CS_EXPORT int MPI_Init(int *argc, char ***argv)
{
    if (cs_abi_aside()) {
        static void *slot;
        cs_init_fn *next = (cs_init_fn *)cs_abi_next("MPI_Init", &slot);
        return next ? next(argc, argv) : CS_ABI_NO_NEXT;
    }
    int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS) {
        cs_shim_ensure();
        cs_args_probe_agree(MPI_COMM_WORLD); /* every rank is here */
    }
    return rc;
}

CS_EXPORT int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    if (cs_abi_aside()) {
        static void *slot;
        cs_init_thread_fn *next = (cs_init_thread_fn *)cs_abi_next("MPI_Init_thread", &slot);
        return next ? next(argc, argv, required, provided) : CS_ABI_NO_NEXT;
    }
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS) {
        cs_shim_ensure();
        cs_args_probe_agree(MPI_COMM_WORLD);
    }
    return rc;
}

CS_EXPORT int MPI_Finalize(void)
{
    if (cs_abi_aside()) {
        static void *slot;
        cs_finalize_fn *next = (cs_finalize_fn *)cs_abi_next("MPI_Finalize", &slot);
        return next ? next() : CS_ABI_NO_NEXT;
    }
    cs_shim_stop(); /* also done by the MPI_COMM_SELF hook; either is enough */
    return PMPI_Finalize();
}
