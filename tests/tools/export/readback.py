"""readback.py KIND FILE P BYTES,... COLL: per size, the words collshim-model --library gives for the algorithm
the tuning file names at p and size (KIND mpich: the JSON as MPICH searches the trees
collshim-model --export writes; openmpi: the dynamic rules as coll/tuned reads them), for a
vector of doubles (alltoall: a block of bytes) whose count is at least p."""
import json
import sys

MPICH = {"MPIR_Allreduce_intra_recursive_doubling": "recursive doubling",
         "MPIR_Allreduce_intra_reduce_scatter_allgather": "reduce-scatter and allgather",
         "MPIR_Reduce_intra_binomial": "binomial",
         "MPIR_Reduce_intra_reduce_scatter_gather": "reduce-scatter and gather",
         "MPIR_Alltoall_intra_brucks": "Bruck", "MPIR_Alltoall_intra_scattered": "scattered",
         "MPIR_Alltoall_intra_pairwise": "pairwise"}
OMPI = {"allreduce": {1: "linear reduce and broadcast", 2: "reduce and broadcast", 3: "recursive doubling",
                      4: "ring", 6: "reduce-scatter and allgather"},
        "reduce": {1: "linear", 2: "chain", 3: "pipeline", 4: "binary tree", 5: "binomial",
                   6: "in-order binary tree", 7: "reduce-scatter and gather"},
        "alltoall": {1: "linear", 2: "pairwise", 3: "modified Bruck"}}
IDS = {2: "allreduce", 3: "alltoall", 11: "reduce"}


def mpich(path, p, m, coll):
    node = json.load(open(path))["collective=" + coll]["comm_type=intra"]
    while True:
        for key, sub in node.items():
            if key.startswith("algorithm="):
                return MPICH[key[len("algorithm="):]]
            if key in ("is_op_built_in=no", "count<pow2", "is_sendbuf_inplace=yes"):
                continue  # a predefined operator, count >= p', not in place
            if key.startswith("comm_size<="):
                if p > int(key.split("=")[1]):
                    continue
            elif key.startswith("avg_msg_size<="):
                if m > int(key.split("=")[1]):
                    continue
            elif not key.endswith("=any"):
                raise SystemExit("unexpected key " + key)
            node = sub
            break


def openmpi(path, p, m, coll):
    nums = []
    for line in open(path):
        nums += [int(x) for x in line.split("#")[0].split()]
    it = iter(nums)
    for _ in range(next(it)):
        cid, ncom = next(it), next(it)
        coms = []
        for _ in range(ncom):
            cs, nmsg = next(it), next(it)
            coms.append((cs, [tuple(next(it) for _ in range(4)) for _ in range(nmsg)]))
        if IDS.get(cid) != coll:
            continue
        msgs = coms[0][1]
        for cs, rules in coms:
            if cs <= p:
                msgs = rules
        size = m * p if coll == "alltoall" else m
        alg = msgs[0][1]
        for rule in msgs:
            if rule[0] <= size:
                alg = rule[1]
        return OMPI[coll].get(alg, "its own")


kind, path, p, sizes, coll = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
for m in sizes.split(","):
    print(m, (mpich if kind == "mpich" else openmpi)(path, p, int(m), coll))
