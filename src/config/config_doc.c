/*
 * The configuration reference's words (config_doc.h): what each key and
 * variable takes and means. Markdown, one line each; the generated page puts
 * them in a table under the names the schema gives.
 */
#include "config/config_doc.h"

const cs_config_doc cs_config_key_docs[] = {
    {"model", "a mapping", "the cost model the algorithms are priced under (docs/architecture.md, Cost model)"},
    {"model.alpha", "seconds, 0 to 1e9",
     "start-up of one message: from posting it to its first byte arriving (Bokhari λ+δ, Rabenseifner α)"},
    {"model.beta", "seconds per byte, 0 to 1e9", "transfer through a rank's link (Bokhari τ, Rabenseifner β)"},
    {"model.rho", "seconds per byte, 0 to 1e9", "copying or permuting in local memory (Bokhari ρ)"},
    {"model.gamma", "seconds per byte, 0 to 1e9", "combining by the reduction operator (Rabenseifner γ)"},
    {"model.overhead", "seconds, 0 to 1e9",
     "o: a rank's own time per message it posts, send or receive, one after another (LogGP's o); a rank's "
     "concurrent messages overlap their α but not their o"},
    {"model.alpha_node", "seconds, 0 to 1e9",
     "α of a message between ranks of one node (one `MPI_COMM_TYPE_SHARED` communicator); setting it or "
     "`beta_node` makes the model two-level, `alpha` and `beta` then price messages between nodes"},
    {"model.beta_node", "seconds per byte, 0 to 1e9", "β of a message between ranks of one node, on a path of its own"},
    {"model.node_paths", "`rank`, `pair`",
     "how a rank's messages within its node share its path: `rank` (the default), one after another (its core "
     "copies them in turn: a rank receiving from k ranks of its node at once takes k `beta_node` m); `pair`, each "
     "pair of the node's ranks has a path of its own, and they go at once (a switch inside the node; SimGrid's "
     "loopback). Only with `alpha_node` or `beta_node`. `collshim-calibrate --fit` measures it, several ranks of "
     "a node sending to one at once against one alone"},
    {"model.beta_link", "seconds per byte, 0 to 1e9",
     "a node's link to the network, which the messages its ranks send off it at once share (each rank then "
     "sees the larger of `beta` and its share); 0 (the default): not shared. Applies to a node's ranks "
     "whatever their numbers (model.placement); `collshim-calibrate --fit` measures it over nodes"},
    {"model.beta_core", "seconds per byte, 0 to 1e9",
     "the network's core, which every message between nodes crosses (a backbone, an oversubscribed level of a "
     "tree): k ranks of a communicator sending off their nodes at once see the larger of `beta` and k "
     "`beta_core` per byte; without nodes every rank is a node of its own. 0 (the default): full bisection. "
     "`collshim-calibrate --fit` measures it, many pairs of nodes at once against one"},
    {"model.ranks_per_node", "a count of ranks, 0 to 1073741824",
     "what the model's node is: 0 (the default), the ranks that share memory (`MPI_COMM_TYPE_SHARED`); N, the "
     "blocks of N consecutive `MPI_COMM_WORLD` ranks, for a network that groups hosts (the hosts of one leaf "
     "switch of a fat tree, one rank each), whose messages within a block take `alpha_node` and `beta_node` "
     "through the hosts' one link and whose messages off it share `beta_link`. `collshim-calibrate --fit` "
     "sets it where each rank has a node of its own and the latency from rank 0 steps up past a block"},
    {"model.placement", "`block`, `cyclic`",
     "how `MPI_COMM_WORLD`'s ranks lie on the nodes of `ranks_per_node` N: `block` (the default), N consecutive "
     "ranks a node, the last node part full where N does not divide the world's size; `cyclic`, dealt round robin "
     "to ceil(size / N) nodes, rank i on node i mod that (`mpirun.openmpi --map-by node`, Slurm's cyclic "
     "distribution). No effect where `ranks_per_node` is 0"},
    {"model.link_share", "`world`, `communicator`",
     "what else a communicator's nodes' links carry: `world` (the default), a communicator that holds fewer of a "
     "node's ranks than `MPI_COMM_WORLD` does (a row or column of a process grid, one rank a node) shares the "
     "node's link, and the network's core, with as many communicators like it, all sending at once: the most, over "
     "its nodes, of the node's world ranks over its own there (`beta_link` and `beta_core` taken that many times); "
     "`communicator`, its ranks have them to themselves (a sub-communicator that calls alone)"},
    {"model.rendezvous_from", "bytes, 0 or more (`64K`)",
     "messages of at least this size go by rendezvous: one leaves only once its receiver has begun the round "
     "that receives it, so a receiver that comes late delays it (an MPI library's protocol past its eager "
     "limit; SimGrid's SMPI sends every message so); 0 (the default): every message is sent eagerly, when "
     "posted. `collshim-calibrate --fit` measures it"},
    {"model.distance", "`none`, `xor`, `difference`",
     "how a message's latency grows with how far apart its two ranks are: `none` (the default), `alpha` for every "
     "pair; `xor`, one link per bit in which the ranks differ (a hypercube, whose ranks have a link per "
     "dimension each way: a message leaves by its lowest differing bit's and arrives by its highest's, so messages "
     "across different dimensions do not queue on one link); `difference`, |a - b| links (a line). "
     "A message then costs `alpha_hop` per link beyond the first on top of `alpha`, in the event pricer and in the "
     "closed forms (a level's farthest pair). `collshim-calibrate --fit` sets it where rank 0's latency to every "
     "rank and a few other pairs follow one of the two"},
    {"model.alpha_hop", "seconds, 0 to 1e9",
     "seconds a message's latency grows per link it crosses beyond the first, under `distance` (0 by default)"},
    {"model.bands", "a list of `[from, alpha_factor, beta_factor]`, from increasing, factors 0 to 1e9",
     "size bands, at most 16: a message of at least `from` bytes (below the next band's `from`) costs `alpha` "
     "times `alpha_factor` plus `beta` times `beta_factor` per byte (`alpha_node`, `beta_node` and `alpha_hop` "
     "the same), where its protocol changes how it goes: a library's eager and rendezvous paths, SimGrid SMPI's "
     "latency and bandwidth factors. Smaller messages, and every message without bands (the default, `[]`), take "
     "`alpha` and `beta`. The event pricer prices each message in its band, the closed forms each round in its "
     "largest message's. `collshim-calibrate --fit` sets them where one line does not fit its ping-pongs"},
    {"model.margin", "a fraction, 0 to below 1",
     "the MPI library keeps a call unless ours is predicted cheaper than the library's default algorithm by this "
     "fraction of its price (default 0.1)"},
    {"model.library", "`auto`, `mpich`, `openmpi`, `smpi-mpich`, `smpi-ompi`",
     "whose default algorithms the library's price mirrors: MPICH 4.0.2, Open MPI 4.1 (coll/tuned's fixed "
     "decisions), or SimGrid 3.32 SMPI's mpich or ompi selector (the scale lab); `auto` (the default): the "
     "library `MPI_Get_library_version` names, MPICH where it names neither. A file that names `mpich` loaded "
     "under Open MPI, or `openmpi` under MPICH, says so on stderr (one line, from rank 0) and the library that "
     "runs is priced; `COLLSHIM_LIBRARY` stands as given"},
    {"model.library_rules", "a file",
     "the tuning file the library runs under: MPICH's JSON selection "
     "(`MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE`) or Open MPI's dynamic rules "
     "(`coll_tuned_dynamic_rules_filename`), as `collshim-model --export` writes them; the library's algorithm "
     "is priced as the file names it (docs/exporting.md). A file that cannot be read, or that the library would "
     "not take, is said on stderr with its line and column, and the library's own decisions are priced"},
    {"alltoall", "a mapping", "how `MPI_Alltoall` is decided"},
    {"allreduce", "a mapping", "how `MPI_Allreduce` is decided"},
    {"reduce", "a mapping", "how `MPI_Reduce` is decided"},
    {"*.algorithm", "`auto`, `native`, `NAME` or `NAME:ARGS`",
     "`auto` (the default): the model decides per call; `native`: always the MPI library; a name forces one of "
     "the collective's algorithms (docs/algorithms.md) wherever its restrictions hold, e.g. `multiphase:4x4x6`, "
     "`bruck:r=4`, `butterfly:b=4096`, `ring:rmax=5`. Where it cannot run a call, or a parameter is out of "
     "range for it (`ring:k=9` at p = 6), rank 0 says so once on stderr, with the log off: why, and what runs "
     "instead"},
    {"*.native", "a list of `[lo, hi]` byte ranges",
     "sizes where the MPI library is kept under `auto`: closed ranges, `K`, `M`, `G`, `T` suffixes (powers of "
     "1024), `inf` as an upper bound, at most 16; alltoall's size is the block for one destination"},
    {"*.rules", "a list of `{p: [lo, hi], bytes: [lo, hi], algorithm: NAME}`",
     "decisions per communicator size and message size, as `collshim-calibrate` writes them: the first that "
     "holds decides (`native`, `auto` or an algorithm); `bytes` every size if left out; where a collective has "
     "rules and none holds, the MPI library runs the call; at most 48"},
    {"alltoall.hull", "`{P: [[FIRST_BYTES, \"D1,D2,...\"], ...]}`",
     "for some p = 2^d (at most 8), the multiphase partition per block size instead of the hull the model "
     "computes; the first face starts at 0, sizes increase, each partition sums to log2 p (`collshim-hull -d` "
     "prints it in this form)"},
    {"log", "a mapping", "what is logged, where, by which ranks (docs/log.md)"},
    {"log.level", "`off`, `summary`, `calls`",
     "`off` (the default): nothing; `summary`: rank 0 writes a table at `MPI_Finalize`; `calls`: also one JSON "
     "line per call"},
    {"log.file", "`stderr` or a path pattern",
     "`%r` the rank, `%p` the process id, `%%` a percent sign. The log is JSON Lines; rank 0's summary table "
     "goes beside it, to `FILE.summary` (to stderr with `stderr`). A name without `%r` or `%p` that several "
     "ranks write becomes one file per rank, the rank before the extension (`run.jsonl`: `run.3.jsonl`), said "
     "once on stderr"},
    {"log.ranks", "`all`, a rank, or a list of ranks", "which ranks of `MPI_COMM_WORLD` log their calls"},
    {"window", "a mapping", "the extension API's windowed reduction (docs/extension.md)"},
    {"window.method", "`auto`, `recursive`, `prefix-suffix`, `prefix-suffix-inverse`",
     "how `collshim_window_reduce` runs; `auto`: the cheapest under the model"},
    {"strict", "`true` or `false` (also yes/no, on/off, 1/0)",
     "`true`: a configuration error aborts the program instead of leaving every call to the MPI library; the "
     "reason is on stderr first (rank 0's, or, where rank 0 found none, the rank's own, naming it)"},
    {"reproducible", "`true` or `false`",
     "`true` (the default): only algorithms whose result is bitwise the same on every rank; `false` also lets "
     "`windowed` combine floating-point values in a rank-dependent order"},
};
const size_t cs_config_nkey_docs = sizeof cs_config_key_docs / sizeof cs_config_key_docs[0];

const cs_config_doc cs_config_env_docs[] = {
    {"COLLSHIM_CONFIG", "a path", "the YAML file to read; without it the built-in defaults serve"},
    {"COLLSHIM_STRICT", "as `strict`", "abort on a configuration error"},
    {"COLLSHIM_LOG", "as `log.file`", "where the log goes; turns an `off` log level to `calls`"},
    {"COLLSHIM_LOG_LEVEL", "as `log.level`", "the log level (wins over `COLLSHIM_LOG`'s implied `calls`)"},
    {"COLLSHIM_ALLTOALL", "as `alltoall.algorithm`", "force a choice for `MPI_Alltoall`"},
    {"COLLSHIM_ALLREDUCE", "as `allreduce.algorithm`", "force a choice for `MPI_Allreduce`"},
    {"COLLSHIM_REDUCE", "as `reduce.algorithm`", "force a choice for `MPI_Reduce`"},
    {"COLLSHIM_WINDOW_METHOD", "as `window.method`", "the windowed reduction's method"},
    {"COLLSHIM_LIBRARY", "as `model.library`", "the library whose defaults are priced"},
};
const size_t cs_config_nenv_docs = sizeof cs_config_env_docs / sizeof cs_config_env_docs[0];
