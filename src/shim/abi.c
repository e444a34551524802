/*
 * The wrong build steps aside (docs/mpi-libraries.md, "The wrong build"):
 * a build is for one library's ABI. Preloaded into a program of another MPI library, this build's
 * library comes into the process as its dependency, beside the program's.
 * Neither knows the other's handles: MPICH's MPI_COMM_WORLD is an int that
 * Open MPI's MPI_Comm_rank takes for a pointer (a crash in MPI_Init). So
 * before any entry point reads a handle it asks cs_abi_aside(), which looks
 * (once, with dlsym only) for the other library's marker symbol: present,
 * the program uses that library, since this build did not bring it. Every
 * call then goes to the program's own definition, found in the library that
 * defines the marker (its C functions) or next in the search order (its
 * Fortran ones, which live in a library of their own). The line it says
 * names the way to the build that fits: the file to preload where
 * LD_PRELOAD brought this one, else (a program linked with it) the
 * pkg-config package to link with.
 */
#include <dlfcn.h>
#include <libgen.h>
#include <limits.h>
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shim/abi.h"

typedef struct cs_abi_lib {
    const char *name;   /* as the message says it */
    const char *marker; /* a symbol its library defines and the other's does not */
    const char *dir;    /* where make puts its build: build/<dir>/libcollshim.so */
} cs_abi_lib;

__attribute__((unused)) static const cs_abi_lib cs_abi_mpich = {"MPICH", "MPIR_Err_create_code", "mpich"};
__attribute__((unused)) static const cs_abi_lib cs_abi_openmpi = {"Open MPI", "ompi_mpi_comm_world", "openmpi"};

/* This build's library and the one it cannot serve; NULL for a build for
 * neither (SimGrid's SMPI), which never steps aside. */
#if defined(OPEN_MPI)
static const cs_abi_lib *const cs_abi_built = &cs_abi_openmpi, *const cs_abi_other = &cs_abi_mpich;
#elif defined(MPICH_VERSION)
static const cs_abi_lib *const cs_abi_built = &cs_abi_mpich, *const cs_abi_other = &cs_abi_openmpi;
#else
static const cs_abi_lib *const cs_abi_built = NULL, *const cs_abi_other = NULL;
#endif

static pthread_once_t cs_abi_once = PTHREAD_ONCE_INIT;
static int cs_abi_mismatch;
int cs_abi_state;
static void *cs_abi_program_lib; /* dlopen handle of the program's MPI library */

/* The build that fits, beside this file: build/mpich/ and build/openmpi/
 * in the tree; lib/ (MPICH) and lib/openmpi/ when installed. */
static void cs_abi_fitting_build(const char *self, const cs_abi_lib *want, char *out, size_t n)
{
    char tmp[PATH_MAX], dir[PATH_MAX], parent[PATH_MAX], cand[2][PATH_MAX + 32];
    snprintf(tmp, sizeof(tmp), "%s", self); /* dirname writes into its argument */
    snprintf(dir, sizeof(dir), "%s", dirname(tmp));
    snprintf(tmp, sizeof(tmp), "%s", dir);
    snprintf(parent, sizeof(parent), "%s", dirname(tmp));
    const char *base = strrchr(dir, '/') ? strrchr(dir, '/') + 1 : dir;
    const int in_tree = strcmp(base, cs_abi_built->dir) == 0;
    snprintf(cand[0], sizeof(cand[0]), "%s/%s/libcollshim.so", in_tree ? parent : dir, want->dir);
    /* installed: the MPICH build in lib/, the Open MPI build in lib/openmpi/ */
    if (want == &cs_abi_mpich)
        snprintf(cand[1], sizeof(cand[1]), "%s/libcollshim.so", in_tree ? parent : dir);
    else
        snprintf(cand[1], sizeof(cand[1]), "%s/openmpi/libcollshim.so", dir);
    snprintf(out, n, "%s", access(cand[0], R_OK) == 0 || access(cand[1], R_OK) != 0 ? cand[0] : cand[1]);
}

/* Rank 0 of the job says it, or a process that no launcher numbered. */
static int cs_abi_speaks(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"};
    for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
        const char *v = getenv(vars[i]);
        if (v)
            return strcmp(v, "0") == 0;
    }
    return 1;
}

/* This build's references to its library's data (the Makefile makes them
 * weak) bound at load time: an Open MPI build's MPI_COMM_WORLD is the address
 * of ompi_mpi_comm_world, NULL if libmpi.so.40 came later (dlopen). MPICH's
 * handles are constants. Read through a volatile: the compiler takes the
 * address of an object for non-null. */
static int cs_abi_own_bound(void)
{
#if defined(OPEN_MPI)
    void *volatile world = (void *)MPI_COMM_WORLD;
    return world != NULL && world == dlsym(RTLD_DEFAULT, cs_abi_built->marker);
#else
    return 1;
#endif
}

/* Does preload (LD_PRELOAD: names separated by spaces or colons) name self,
 * the path this library was loaded from? An entry with a slash names a file,
 * the same file as self's; one without is a name the loader looked up, the
 * same as self's last component. Not preloaded, the program links it. */
static int cs_abi_preloaded(const char *self, const char *preload)
{
    char real_self[PATH_MAX], real[PATH_MAX], entry[PATH_MAX];
    if (!preload || !*preload)
        return 0;
    const int have_self = realpath(self, real_self) != NULL;
    const char *base = strrchr(self, '/') ? strrchr(self, '/') + 1 : self;
    for (const char *s = preload; *s;) {
        const size_t n = strcspn(s, " :\t");
        if (n > 0 && n < sizeof entry) {
            memcpy(entry, s, n);
            entry[n] = '\0';
            if (strchr(entry, '/') ? have_self && realpath(entry, real) && !strcmp(real, real_self)
                                   : !strcmp(entry, base))
                return 1;
        }
        s += n;
        s += strspn(s, " :\t");
    }
    return 0;
}

static void cs_abi_detect(void)
{
    Dl_info info;
    char fits[PATH_MAX + 64];
    void *marker = cs_abi_other ? dlsym(RTLD_DEFAULT, cs_abi_other->marker) : NULL;
    if (!marker) {
        if (cs_abi_built && !cs_abi_own_bound()) {
            cs_abi_mismatch = 1; /* the calls go to whatever defines them next */
            if (cs_abi_speaks())
                fprintf(stderr, "collshim: %s was not loaded with the program: stepping aside\n", cs_abi_built->name);
        }
        return;
    }
    cs_abi_mismatch = 1;
    if (dladdr(marker, &info) && info.dli_fname)
        cs_abi_program_lib = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
    if (!cs_abi_speaks())
        return;
    const char *self = dladdr((void *)cs_abi_decide, &info) && info.dli_fname ? info.dli_fname : "libcollshim.so";
    if (!cs_abi_preloaded(self, getenv("LD_PRELOAD"))) { /* linked (pkg-config): the other build's link line */
        fprintf(stderr,
                "collshim: %s is built for %s, but this program uses %s: stepping aside (%s's own collectives run); "
                "link with `pkg-config --libs collshim-%s` instead\n",
                self, cs_abi_built->name, cs_abi_other->name, cs_abi_other->name, cs_abi_other->dir);
        return;
    }
    cs_abi_fitting_build(self, cs_abi_other, fits, sizeof(fits));
    fprintf(stderr,
            "collshim: %s is built for %s, but this program uses %s: stepping aside (%s's own collectives run); "
            "preload %s instead\n",
            self, cs_abi_built->name, cs_abi_other->name, cs_abi_other->name, fits);
}

/* The marker already there at load time (the program links its MPI library):
 * say so now, so that a program whose calls never reach an entry point of
 * ours (Open MPI's Fortran bindings call PMPI_* directly) hears it too. A
 * library loaded later (dlopen) is found at the first entry point instead,
 * which is why nothing is decided here when the marker is absent. */
__attribute__((constructor)) static void cs_abi_at_load(void)
{
    if (cs_abi_other && dlsym(RTLD_DEFAULT, cs_abi_other->marker))
        cs_abi_aside();
}

int cs_abi_decide(void)
{
    pthread_once(&cs_abi_once, cs_abi_detect);
    __atomic_store_n(&cs_abi_state, cs_abi_mismatch ? 2 : 1, __ATOMIC_RELEASE);
    return cs_abi_mismatch;
}

void *cs_abi_next(const char *name, void **slot)
{
    void *f = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    if (f)
        return f;
    f = cs_abi_program_lib ? dlsym(cs_abi_program_lib, name) : NULL;
    if (!f)
        f = dlsym(RTLD_NEXT, name);
    __atomic_store_n(slot, f, __ATOMIC_RELEASE);
    return f;
}
