/*
 * env_def.h - every environment variable symm reads, written once.
 *
 * One table per component (core, boot, net, coll, tools), each row
 * X(NAME, KIND, VIS, COMP, FIELD, DEFAULT, HELP): COMP names the table and
 * the member of symm_config_t that holds FIELD (cfg.net.ucx_tls). KIND is SIZE (bytes, K/M/G/T
 * suffixes), BOOL, INT, DOUBLE, STR, SECRET (a string SHMEM_INFO and
 * symm-info never print) or ENUM: one of the values its NAME_CHOICES below
 * lists, parsed once into the enumerator (an int field compared with
 * NAME_<VALUE>); any other value fails init on every PE, naming the
 * choices. VIS is USER, or HIDDEN for what oshrun hands its
 * PEs (SHMEM_INFO and symm-info list those only at SYMM_LOG_LEVEL=3). The
 * config struct, the parser, SHMEM_INFO and symm-info are generated from
 * this table.
 *
 * Every variable read anywhere in src/, tools/ (oshrun and oshcc included,
 * which read theirs themselves) and python/symm is a row here:
 * tests/scripts/env_table_check.sh fails the build's tests otherwise. Those
 * read elsewhere than the config struct are STR, so that the library's
 * parse never refuses a value their reader accepts.
 */
/* the core: heap, debugging, waiting, transports chosen, failure handling. */
#define SYMM_ENV_CORE(X)                                                                           \
    X(SHMEM_SYMMETRIC_SIZE, SIZE, USER, core, heap_size, "1G",                                     \
      "initial size of each PE's symmetric heap (K/M/G/T suffixes); it grows on demand")           \
    X(SYMM_MAX_SYMMETRIC_SIZE, SIZE, USER, core, heap_max, "64G",                                  \
      "largest the heap may grow to (address space reserved per PE, not memory); set below "       \
      "the initial size it fails init; left unset, it is at least the initial size")               \
    X(SHMEM_DEBUG, BOOL, USER, core, debug, "0",                                                   \
      "deep checks: every RMA, AMO, signal and collective range within its symmetric heap "        \
      "block (size asked for; the error names the block and where it was allocated), "             \
      "exported global and segment; AMO alignment; equal allocation sizes; matching "              \
      "collectives; blocks still allocated listed per PE at finalize; a 60 s hang timeout")        \
    X(SHMEM_INFO, BOOL, USER, core, info, "0",                                                     \
      "print every variable, its value and meaning at init")                                       \
    X(SHMEM_VERSION, BOOL, USER, core, version, "0", "print the library version at init")          \
    X(SYMM_PREFAULT, BOOL, USER, core, prefault, "0",                                              \
      "touch the whole initial heap at init, so no put pays for faulting in its pages")            \
    X(SYMM_PREFAULT_PEERS, SIZE, USER, core, prefault_peers, "4M",                          \
      "bytes of each new symmetric block (and of each static data segment, at init) that "   \
      "every PE maps in its node-local peers' views when it is allocated, so the first put " \
      "or get there pays no page faults; 0: none")                                          \
    X(SYMM_HANG_TIMEOUT, DOUBLE, USER, core, hang_timeout, "-1",                                   \
      "seconds one blocking call may wait before the job ends with a report of what every "        \
      "PE is doing; 0 never; -1: 60 under SHMEM_DEBUG, else never")                                \
    X(SYMM_LOG_LEVEL, INT, USER, core, log_level, "1", "0 errors, 1 warnings, 2 info, 3 debug")    \
    X(SYMM_SPIN, INT, USER, core, spin, "-1",                                                      \
      "polls before a waiting PE starts yielding the CPU; -1 chooses by oversubscription")         \
    X(SYMM_SCHED_SLICE_US, INT, USER, core, sched_slice_us, "-1",                                  \
      "the time slice each PE asks of the kernel's scheduler (Linux 6.12+, SCHED_OTHER; "    \
      "older kernels ignore it) for the thread that calls init and the threads it then "      \
      "starts, until finalize: a short slice lets a PE woken by a peer run at once instead of " \
      "after a busy task's whole slice; -1: 100, the kernel's shortest; 0: the kernel's own")  \
    X(SYMM_WAIT_IDLE_US, INT, USER, core, wait_idle_us, "1000",                                    \
      "microseconds a wait finds nothing to do (no network event for it, its condition "           \
      "unmet) before it sleeps between polls, each nap at most 1/16 of the wait so far and "       \
      "1 ms; under UCX in UCX's event wait, which a message for the PE ends at once; -1 "          \
      "never sleeps (spin, then yield)")                                                           \
    X(SYMM_TRANSPORT, ENUM, USER, core, transport, "auto",                                         \
      "auto: map node-local peers, UCX for the rest; shm: node-local only; ucx: every "            \
      "peer but myself through UCX")                                                               \
    X(SYMM_PLUGIN_DIR, STR, USER, core, plugin_dir, "",                                            \
      "the one directory where plugins (libsymm-ucx.so, libsymm-boot-pmix.so, "                    \
      "libsymm-boot-mpi-<abi>.so) are looked for; unset: symm/ beside libsymm, then the "          \
      "install's <libdir>/symm")                                                                   \
    X(SYMM_NODE_SIZE, INT, USER, core, node_size, "0",                                             \
      "testing aid (SYMM_TRANSPORT=auto): split each host's PEs, in node-local order, into "       \
      "emulated nodes of this many; only PEs of one such node are mapped, the rest go "            \
      "through UCX as if on other machines; 0 off")                                                \
    X(SYMM_NODE_CYCLIC, BOOL, USER, core, node_cyclic, "0",                                        \
      "with SYMM_NODE_SIZE: deal the host's PEs out in turn to the emulated nodes "                \
      "(0, 2 | 1, 3), not in consecutive runs (0, 1 | 2, 3)")                                      \
    X(SYMM_ATOMICS, ENUM, USER, core, atomics, "auto",                                             \
      "auto|cpu|network: who applies AMOs, signals and lock updates. cpu: the PE's CPU on "        \
      "mapped peers (not atomic against NIC atomics from other nodes); network: UCX for "          \
      "every PE, itself included, when UCX is in use; auto: network iff the job spans "            \
      "nodes and UCX uses device (NIC) atomics, cpu when UCX_ATOMIC_MODE=cpu")                     \
    X(SYMM_HUGEPAGES, ENUM, USER, core, hugepages, "auto",                                         \
      "auto|on|off: back the heap with 2 MiB huge pages (hugetlbfs); auto where the node has "     \
      "free ones for every local PE's initial heap, else normal pages; on: init fails without "    \
      "them; a huge-page heap grows only while free huge pages last")                              \
    X(SYMM_SAME_ADDRESS, BOOL, USER, core, same_address, "1",                                      \
      "every node-local PE's heap at one virtual address in every process of the node, so a "      \
      "pointer into any of them is valid in all; 0: each process places the heaps itself "         \
      "(offsets stay symmetric either way; across nodes only offsets are)")                        \
    X(SYMM_MAP_GLOBALS, BOOL, USER, core, map_globals, "1",                                        \
      "make the program's global and static data symmetric (remapped at init)")                    \
    X(SYMM_MAX_TEAMS, INT, USER, core, max_teams, "64",                                            \
      "teams that may exist at once, predefined ones included (at most 512)")                      \
    X(SYMM_MAX_GROUP_TEAMS, INT, USER, core, group_teams, "32",                                    \
      "teams made by their members alone (shmemx_team_create_group) that may exist at once in "    \
      "the job, on top of SYMM_MAX_TEAMS (the two at most 512)")                                   \
    X(SYMM_FAULT, STR, USER, core, fault, "",                                                      \
      "testing aid: SITE[@PE][#N],... makes step SITE (ftruncate, mmap, calloc, team, "            \
      "ucx_reg, ucx_worker, hugepages; same_address: the PE finds the node's proposed heap "      \
      "range taken) fail "                                                                         \
      "on PE "                                                                                     \
      "(default all) at its Nth call (default every call); stage_lag: a staged collective "       \
      "reads a peer's copy 0.2 ms late")                                                           \
    X(SYMM_BACKTRACE, BOOL, USER, core, backtrace, "1",                                            \
      "a PE killed by SIGSEGV, SIGBUS, SIGFPE, SIGILL or SIGABRT prints its backtrace first")

/* the bootstrap: how PEs find each other (boot/), with what oshrun hands them. */
#define SYMM_ENV_BOOT(X)                                                                    \
    X(SYMM_BOOT_TIMEOUT, DOUBLE, USER, boot, timeout, "120",                                \
      "seconds any bootstrap wait may take before the job fails naming missing PEs")        \
    X(SYMM_BOOTSTRAP, STR, USER, boot, bootstrap, "auto",                                   \
      "auto|tcp|pmix|mpi|singleton: how PEs find each other (auto: oshrun, else PMIx)")     \
    X(SYMM_BOOT_TLS, STR, USER, boot, tls, "1",                                             \
      "1: bootstrap traffic in TLS 1.3 with a key from the job secret; 0: plain")           \
    X(SYMM_BOOT_TREE_K, STR, USER, boot, tree_k, "16",                                      \
      "fan-out K of the bootstrap tree (2..1024); a job of up to K+1 PEs is a star")        \
    X(SYMM_JOB_KEY, SECRET, USER, boot, job_key, "",                                        \
      "aclshmem DEFAULT mode: the job secret is keyed by this (the same on every PE; "      \
      "else ~/.config/symm/job.key, mode 0600), not derived from the address alone")        \
    X(SHMEM_UID_SESSION_ID, STR, USER, boot, uid_session_id, "",                            \
      "aclshmem unique-id mode: ip:port PE 0 listens on (read by the unique-id bootstrap)") \
    X(SHMEM_UID_SOCK_IFNAME, STR, USER, boot, uid_sock_ifname, "",                          \
      "aclshmem unique-id mode: the network interface PE 0 listens on (e.g. eth0)")         \
    X(SHMEM_INSTANCE_PORT_RANGE, STR, USER, boot, instance_port_range, "",                  \
      "aclshmem: START:END; an ip_port with port 0 listens on START + instance id")         \
    X(SYMM_RANK, STR, HIDDEN, boot, launch_rank, "", "oshrun to PE: this PE's number")      \
    X(SYMM_SIZE, STR, HIDDEN, boot, launch_size, "", "oshrun to PE: the number of PEs")     \
    X(SYMM_BOOT_ADDR, STR, HIDDEN, boot, launch_boot_addr, "",                              \
      "oshrun to PE: ip:port of the bootstrap rendezvous")                                  \
    X(SYMM_BOOT_LISTEN_FD, STR, HIDDEN, boot, launch_listen_fd, "",                         \
      "oshrun to PE 0: the bound rendezvous socket it inherits")                            \
    X(SYMM_JOB_SECRET, SECRET, HIDDEN, boot, launch_job_secret, "",                         \
      "oshrun to PE: the job's random secret (bootstrap authentication and TLS key)")       \
    X(SYMM_CTRL_FD, STR, HIDDEN, boot, launch_ctrl_fd, "",                                  \
      "oshrun to PE: the control socket (job-wide abort, PE status)")                       \
    X(SYMM_LAUNCHER, STR, HIDDEN, boot, launch_launcher, "",                                \
      "oshrun to PE: \"oshrun\", for programs that ask what started them")

/* the network transport (transport/ucx/). */
#define SYMM_ENV_NET(X)                                                                       \
    X(SYMM_PROGRESS_THREAD, ENUM, USER, net, progress_thread, "auto",                          \
      "auto|1: with UCX, a thread runs UCX progress while the PE computes; 0: progress "      \
      "only inside symm calls (experimental: some polling patterns stall over tcp)")          \
    X(SYMM_PROGRESS_INTERVAL, INT, USER, net, progress_interval, "200",                       \
      "microseconds between the progress thread's looks at UCX (up to 2 ms while it "         \
      "finds nothing); it stays out of the way while the PE is inside a symm call")           \
    X(SYMM_UCX_BULK_EP, ENUM, USER, net, ucx_bulk_ep, "auto",                                  \
      "1: collective messages above SYMM_COLL_EAGER_MAX to a PE on another node go by "       \
      "rendezvous on a second endpoint without UCX peer-failure handling, where UCX 1.13 "    \
      "moves them over tcp in one zero-copy write instead of 64 KiB fragments (faster under " \
      "reno, slower under BBR's pacing); the first endpoint still detects a lost peer; "      \
      "auto: 1 where the network is tcp (no /sys/class/infiniband) and the kernel's TCP "     \
      "congestion control is not bbr; 0: never")

/* collectives: algorithm choices and their thresholds (coll/). */
#define SYMM_ENV_COLL(X)                                                                     \
    X(SYMM_REDUCE_SLICE_MIN, SIZE, USER, coll, reduce_slice_min, "16K",                      \
      "reductions of at least this many bytes split the work: each PE reduces 1/n, then "    \
      "all gather; smaller ones are reduced whole by every PE")                              \
    X(SYMM_COLL_LL_MAX, SIZE, USER, coll, ll_max, "304",                                    \
      "node-local teams of 2-8 PEs: broadcast, fcollect, alltoall and reductions of up to "  \
      "this many bytes per member go through sequence-stamped slots in the receivers' team " \
      "scratch, with no barrier (at most 304; 0: never)")                                   \
    X(SYMM_COLL_STAGE_MAX, STR, USER, coll, stage_max, "auto",                              \
      "node-local teams past the slot form: fcollect, collect and reductions of up to this " \
      "many bytes per member (alltoall: this many in all) are staged: each member copies its "\
      "source into its team scratch and stamps it, peers copy from there; one wait per "     \
      "member, no barrier (at most 8192; 0: never). auto: 8192 where the machine's PEs "     \
      "outnumber its cores, else 1024")                                                     \
    X(SYMM_BARRIER, ENUM, USER, coll, barrier, "auto",                                        \
      "node-local teams of 3 or more PEs: dissemination (log2 n rounds of flags, every "     \
      "member waits in each) or central (every member adds 1 to the team's first member's "  \
      "count and waits once for its release); auto: central where this machine's PEs "       \
      "outnumber its cores, dissemination elsewhere")                                       \
    X(SYMM_COLL_EAGER_MAX, SIZE, USER, coll, eager_max, "64K",                               \
      "collectives over the network send blocks up to this size eagerly (buffered at the "   \
      "receiver); larger ones by rendezvous straight into place")                            \
    X(SYMM_COLL_EXCHANGE_EAGER_MAX, SIZE, USER, coll, exchange_eager_max, "8M",              \
      "exchanges over the network (fcollect, collect, alltoall, reductions) send every "     \
      "block eagerly, whatever its size, while what one PE receives in one round totals at " \
      "most this (held at the receiver until it takes it): no rendezvous round trip where "  \
      "every member sends at once; beyond it, blocks above SYMM_COLL_EAGER_MAX by "          \
      "rendezvous (to a PE of the same host always: zero-copy there)")                      \
    X(SYMM_COLL_SEGMENT, SIZE, USER, coll, segment, "1M",                                   \
      "collectives over the network move large blocks in segments of this size (at most "    \
      "128 a block, 255 for broadcast): a reduction reduces each segment and sends it on "   \
      "while the next arrives, a broadcast chain forwards each as it comes, fcollect and "  \
      "alltoall take every peer's first segment first")                                     \
    X(SYMM_COLL_WINDOW, INT, USER, coll, window, "8",                                        \
      "receives a segmented collective over the network keeps in flight (1-64): a "         \
      "rendezvous transfer starts while the segment before it is still moving or being "    \
      "reduced")                                                                             \
    X(SYMM_COLL_NODE_AWARE, BOOL, USER, coll, node_aware, "1",                               \
      "teams spanning nodes with several PEs on one: broadcast, reduce, fcollect, collect, " \
      "alltoall share data on each node through memory and send between nodes from one PE "  \
      "per node; "                                                                           \
      "0: every PE exchanges messages with every other")                                     \
    X(SYMM_COLL_HEADS, ENUM, USER, coll, heads, "auto",                                       \
      "node-aware fcollect, collect and alltoall: how the nodes' heads exchange. direct: "   \
      "each sends to every other at once; ring: N-1 rounds (alltoall: pairwise); bruck: "    \
      "log2 N rounds; auto: direct up to SYMM_COLL_DIRECT_NODES nodes, then bruck below "    \
      "SYMM_COLL_RING_MIN bytes, ring from it")                                              \
    X(SYMM_COLL_DIRECT_NODES, INT, USER, coll, direct_nodes, "8",                            \
      "SYMM_COLL_HEADS=auto: up to this many nodes the heads exchange directly")             \
    X(SYMM_COLL_RING_MIN, SIZE, USER, coll, ring_min, "1M",                                  \
      "SYMM_COLL_HEADS=auto past SYMM_COLL_DIRECT_NODES nodes: a collective moving at "      \
      "least this many bytes per PE (the result of fcollect and collect; alltoall: its "     \
      "source times Bruck's rounds) runs the ring, a smaller one Bruck")                     \
    X(SYMM_COLL_SPLIT_MIN, SIZE, USER, coll, split_min, "256K",                              \
      "node-aware fcollect and alltoall: blocks of at least this many bytes go split (every "\
      "member sends its own blocks to the other nodes, its node's members copy through "     \
      "memory, no head), smaller ones through the heads (fewer messages)")                     \
    X(SYMM_BROADCAST_ALGORITHM, STR, USER, coll, broadcast_alg, "auto",                      \
      "run broadcasts by this form wherever it can run (ll, flag, nodes, msg, pull; "        \
      "symm-info --algorithms lists each collective's), the automatic choice elsewhere")     \
    X(SYMM_FCOLLECT_ALGORITHM, STR, USER, coll, fcollect_alg, "auto",                        \
      "as SYMM_BROADCAST_ALGORITHM for fcollect (ll, stage, split, nodes, msg, pull)")       \
    X(SYMM_COLLECT_ALGORITHM, STR, USER, coll, collect_alg, "auto",                          \
      "as SYMM_BROADCAST_ALGORITHM for collect (stage, nodes, msg, pull)")                   \
    X(SYMM_ALLTOALL_ALGORITHM, STR, USER, coll, alltoall_alg, "auto",                        \
      "as SYMM_BROADCAST_ALGORITHM for alltoall (ll, stage, split, nodes, msg, pull)")       \
    X(SYMM_ALLTOALLS_ALGORITHM, STR, USER, coll, alltoalls_alg, "auto",                      \
      "as SYMM_BROADCAST_ALGORITHM for alltoalls (pull)")                                    \
    X(SYMM_REDUCE_ALGORITHM, STR, USER, coll, reduce_alg, "auto",                            \
      "as SYMM_BROADCAST_ALGORITHM for reductions (ll, stage, nodes, msg_whole, msg_slice, " \
      "pull_whole, pull_slice)")                                                             \
    X(SYMM_SCAN_ALGORITHM, STR, USER, coll, scan_alg, "auto",                                \
      "as SYMM_BROADCAST_ALGORITHM for scans (msg, pull)")

/* read by the tools (oshrun, oshcc, oshfort) and the Python package, never by the library:
 * rows here so that SHMEM_INFO, symm-info and docs/environment.md list them. */
#define SYMM_ENV_TOOLS(X)                                                                     \
    X(SYMM_TIMEOUT, STR, USER, tools, oshrun_timeout, "",                                     \
      "oshrun: seconds after which the job is killed, exit 124 (as --timeout)")               \
    X(SYMM_KILL_GRACE, STR, USER, tools, oshrun_kill_grace, "1",                              \
      "oshrun: seconds between SIGTERM and SIGKILL when it ends a job")                       \
    X(SYMM_BOOT_IFADDR, STR, USER, tools, oshrun_boot_ifaddr, "127.0.0.1",                    \
      "oshrun: IPv4 address the bootstrap listens on (one reachable by every host)")          \
    X(SYMM_CC, STR, USER, tools, oshcc_cc, "",                                                \
      "oshcc: the C compiler it wraps (else CC, else the one symm was built with)")           \
    X(SYMM_CXX, STR, USER, tools, oshcc_cxx, "",                                              \
      "oshc++: the C++ compiler it wraps (else CXX, else c++)")                               \
    X(SYMM_FC, STR, USER, tools, oshfort_fc, "",                                              \
      "oshfort: the Fortran compiler it wraps (else FC, else the one symm was built with)")   \
    X(SYMM_LIBRARY, STR, USER, tools, py_library, "",                                         \
      "python symm: path of the libsymm.so to load (else the one it was built with)")         \
    X(SYMM_HYPER_PARALLEL, STR, USER, tools, py_hyper_parallel, "0",                          \
      "pip install ./python: 1 also installs the hyper_parallel shim (symm.rfc as "           \
      "hyper_parallel.core.symmetric_memory); CMake: -DSYMM_PYTHON_HYPER_PARALLEL=ON")        \
    X(SYMM_FUSED_LOG, STR, USER, tools, py_fused_log, "0",                                    \
      "python symm: 1 prints on PE 0, per fused call, the form the cost model ran and why")   \
    X(SYMMETRIC_MEMORY_HEAP_SIZE, STR, USER, tools, py_rfc_heap_size, "1G",                   \
      "python symm (symm.rfc's name, the HyperParallel RFC's): initial heap per PE in bytes " \
      "(or K/M/G/T); read when symm starts without oshrun, and overrides "                    \
      "SHMEM_SYMMETRIC_SIZE")                                                                 \
    X(RANK, STR, USER, tools, py_torch_rank, "",                                              \
      "python symm, torchrun's: this process's rank; with WORLD_SIZE, the ranks join one "    \
      "job through torch.distributed's store (not under oshrun)")                             \
    X(WORLD_SIZE, STR, USER, tools, py_torch_world_size, "",                                  \
      "python symm, torchrun's: the number of ranks (see RANK)")                              \
    X(MASTER_ADDR, STR, USER, tools, py_torch_master_addr, "",                                \
      "python symm, torchrun's: PE 0 listens here, at MASTER_PORT + 13 (the RFC's port)")     \
    X(MASTER_PORT, STR, USER, tools, py_torch_master_port, "",                                \
      "python symm, torchrun's: PE 0 listens at this + 13; without init_process_group the "   \
      "start-up store is at this + 14")                                                       \
    X(SYMM_OSHCC_NESTED, STR, HIDDEN, tools, oshcc_nested, "",                                \
      "oshcc to itself: set when it runs a wrapped compiler, so it never recurses")           \
    X(SYMM_OSHFORT_NESTED, STR, HIDDEN, tools, oshfort_nested, "",                            \
      "oshfort to itself: set when it runs a wrapped compiler, so it never recurses")

/* The values of each ENUM row, Y(ENUMERATOR, "value"); config.h makes the
 * enumerators, the parser and SHMEM_INFO use the strings. */
#define SYMM_TRANSPORT_CHOICES(Y) \
    Y(SYMM_TRANSPORT_AUTO, "auto") Y(SYMM_TRANSPORT_SHM, "shm") Y(SYMM_TRANSPORT_UCX, "ucx")
#define SYMM_ATOMICS_CHOICES(Y) \
    Y(SYMM_ATOMICS_AUTO, "auto") Y(SYMM_ATOMICS_CPU, "cpu") Y(SYMM_ATOMICS_NETWORK, "network")
#define SYMM_HUGEPAGES_CHOICES(Y) \
    Y(SYMM_HUGEPAGES_AUTO, "auto") Y(SYMM_HUGEPAGES_ON, "on") Y(SYMM_HUGEPAGES_OFF, "off")
#define SYMM_PROGRESS_THREAD_CHOICES(Y)                                     \
    Y(SYMM_PROGRESS_THREAD_AUTO, "auto") Y(SYMM_PROGRESS_THREAD_0, "0") \
    Y(SYMM_PROGRESS_THREAD_1, "1")
#define SYMM_UCX_BULK_EP_CHOICES(Y) \
    Y(SYMM_UCX_BULK_EP_AUTO, "auto") Y(SYMM_UCX_BULK_EP_0, "0") Y(SYMM_UCX_BULK_EP_1, "1")
#define SYMM_BARRIER_CHOICES(Y)                                                 \
    Y(SYMM_BARRIER_AUTO, "auto") Y(SYMM_BARRIER_DISSEMINATION, "dissemination") \
    Y(SYMM_BARRIER_CENTRAL, "central")
#define SYMM_COLL_HEADS_CHOICES(Y)                                      \
    Y(SYMM_COLL_HEADS_AUTO, "auto") Y(SYMM_COLL_HEADS_DIRECT, "direct") \
    Y(SYMM_COLL_HEADS_RING, "ring") Y(SYMM_COLL_HEADS_BRUCK, "bruck")
/* Every ENUM row, for config.h's enumerators. */
#define SYMM_ENV_ENUMS(E)                                                        \
    E(SYMM_TRANSPORT) E(SYMM_ATOMICS) E(SYMM_HUGEPAGES) E(SYMM_PROGRESS_THREAD) \
    E(SYMM_UCX_BULK_EP) E(SYMM_BARRIER) E(SYMM_COLL_HEADS)

/* Every row, component by component. */
#define SYMM_ENV_TABLE(X) \
    SYMM_ENV_CORE(X) SYMM_ENV_BOOT(X) SYMM_ENV_NET(X) SYMM_ENV_COLL(X) SYMM_ENV_TOOLS(X)

/* Legacy names (SGI SHMEM's SMA_ prefix, still read by SOS and Open MPI's
 * oshmem): X(ALIAS, NAME, KIND, COMP, FIELD). An alias alone sets NAME's field;
 * with NAME also set, NAME wins, and a warning says so when they disagree. */
#define SYMM_ENV_ALIASES(X)                                            \
    X(SMA_SYMMETRIC_SIZE, SHMEM_SYMMETRIC_SIZE, SIZE, core, heap_size) \
    X(SMA_DEBUG, SHMEM_DEBUG, BOOL, core, debug)                       \
    X(SMA_INFO, SHMEM_INFO, BOOL, core, info)                          \
    X(SMA_VERSION, SHMEM_VERSION, BOOL, core, version)
