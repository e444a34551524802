/*
 * collshim: a PMPI shim for MPI_Alltoall, MPI_Allreduce and MPI_Reduce.
 *
 * Programs need nothing from this header to be accelerated: preload
 * libcollshim.so. The header carries the version and, as they land, the
 * extension API (windowed reduction across ranks).
 */
#ifndef COLLSHIM_H
#define COLLSHIM_H

#define COLLSHIM_VERSION_MAJOR 0
#define COLLSHIM_VERSION_MINOR 1

#endif
