#!/bin/bash
# MPICH 4.0.2's allreduce and reduce on one node under its CVARs, beside our butterfly (forced)
# run from the copy's root on the node, after bench/run-node pack (copy this script to .devmpi/cs/probe.sh)
H=$PWD/.devmpi; C=$H/cs
export LD_LIBRARY_PATH=$H/lib UCX_MODULE_DIR=$H/lib/ucx PATH=$H/bin:$PATH HYDRA_LAUNCHER=fork UCX_WARN_UNUSED_ENV_VARS=n
for c in allreduce reduce; do
  for v in "" MPIR_CVAR_ALLREDUCE_DEVICE_COLLECTIVE=0 MPIR_CVAR_ALLREDUCE_POSIX_INTRA_ALGORITHM=mpir MPIR_CVAR_POSIX_NUM_COLLS_THRESHOLD=1000000000 MPIR_CVAR_REDUCE_DEVICE_COLLECTIVE=0 MPIR_CVAR_REDUCE_POSIX_INTRA_ALGORITHM=mpir MPIR_CVAR_DEVICE_COLLECTIVES=none; do
    case "$c:$v" in allreduce:*REDUCE_DEVICE*|allreduce:*REDUCE_POSIX*) [[ $v == *ALLREDUCE* ]] || continue;; reduce:*ALLREDUCE*) continue;; esac
    echo "== $c ${v:-default}"
    env $v COLLSHIM_ALLREDUCE=butterfly COLLSHIM_REDUCE=binomial timeout 60 mpiexec.hydra -n 16 -genv LD_PRELOAD $C/libcollshim.so $C/bench_pair $c 11 0 4096 2 | grep -v "^coll"
  done
done
