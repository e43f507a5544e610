/*
 * env_def.h - every environment variable symm reads, written once.
 *
 * X(NAME, KIND, FIELD, DEFAULT, HELP): KIND is SIZE (bytes, K/M/G/T
 * suffixes), BOOL, INT, DOUBLE, STR or SECRET (a string SHMEM_INFO and
 * symm-info never print). The config struct, the parser, SHMEM_INFO and
 * symm-info are generated from this table.
 */
#define SYMM_ENV_TABLE(X)                                                                    \
    X(SHMEM_SYMMETRIC_SIZE, SIZE, heap_size, "1G",                                         \
      "initial size of each PE's symmetric heap (K/M/G/T suffixes); it grows on demand")    \
    X(SYMM_MAX_SYMMETRIC_SIZE, SIZE, heap_max, "64G",                                      \
      "largest the heap may grow to; address space reserved per PE, not memory")           \
    X(SHMEM_DEBUG, BOOL, debug, "0",                                                         \
      "deep argument checks: symmetric addresses, bounds, matching collective sizes")       \
    X(SHMEM_INFO, BOOL, info, "0", "print every variable, its value and meaning at init")  \
    X(SHMEM_VERSION, BOOL, version, "0", "print the library version at init")              \
    X(SYMM_PREFAULT, BOOL, prefault, "0",                                                    \
      "touch the whole initial heap at init (cold pages cost ~1 GB/s on first put)")        \
    X(SYMM_BOOT_TIMEOUT, DOUBLE, boot_timeout, "120",                                        \
      "seconds any bootstrap wait may take before the job fails naming missing PEs")       \
    X(SYMM_HANG_TIMEOUT, DOUBLE, hang_timeout, "-1",                                         \
      "seconds one blocking call may wait before the job ends with a report of what every "  \
      "PE is doing; 0 never; -1: 60 under SHMEM_DEBUG, else never")                          \
    X(SYMM_LOG_LEVEL, INT, log_level, "1", "0 errors, 1 warnings, 2 info, 3 debug")        \
    X(SYMM_SPIN, INT, spin, "-1",                                                            \
      "polls before a waiting PE starts yielding the CPU; -1 chooses by oversubscription") \
    X(SYMM_BOOTSTRAP, STR, bootstrap, "auto",                                                \
      "auto|tcp|pmix|mpi|singleton: how PEs find each other (auto: oshrun, else PMIx)")    \
    X(SYMM_BOOT_TLS, STR, boot_tls, "1",                                                     \
      "1: bootstrap traffic in TLS 1.3 with a key from the job secret; 0: plain")          \
    X(SYMM_JOB_KEY, SECRET, job_key, "",                                                     \
      "aclshmem DEFAULT mode: the job secret is keyed by this (the same on every PE; "      \
      "else ~/.config/symm/job.key, mode 0600), not derived from the address alone")       \
    X(SYMM_TRANSPORT, STR, transport, "auto",                                                \
      "auto: map node-local peers, UCX for the rest; shm: node-local only; ucx: every "     \
      "peer but myself through UCX")                                                       \
    X(SYMM_ATOMICS, STR, atomics, "auto",                                                    \
      "auto|cpu|network: who applies AMOs, signals and lock updates. cpu: the PE's CPU on "  \
      "mapped peers (not atomic against NIC atomics from other nodes); network: UCX for "    \
      "every PE, itself included, when UCX is in use; auto: network iff the job spans "     \
      "nodes and UCX uses device (NIC) atomics, cpu when UCX_ATOMIC_MODE=cpu")             \
    X(SYMM_PROGRESS_THREAD, STR, progress_thread, "auto",                                    \
      "auto|1: with UCX, a thread runs UCX progress while the PE computes; 0: progress "    \
      "only inside symm calls (experimental: some polling patterns stall over tcp)")       \
    X(SYMM_PROGRESS_INTERVAL, INT, progress_interval, "200",                                 \
      "microseconds between the progress thread's looks at UCX (up to 2 ms while it "      \
      "finds nothing); it stays out of the way while the PE is inside a symm call")        \
    X(SYMM_MAP_GLOBALS, BOOL, map_globals, "1",                                              \
      "make the program's global and static data symmetric (remapped at init)")            \
    X(SYMM_MAX_TEAMS, INT, max_teams, "64",                                                  \
      "teams that may exist at once, predefined ones included (at most 512)")               \
    X(SYMM_REDUCE_SLICE_MIN, SIZE, reduce_slice_min, "16K",                                  \
      "reductions of at least this many bytes split the work: each PE reduces 1/n, then "   \
      "all gather; smaller ones are reduced whole by every PE")                            \
    X(SYMM_COLL_EAGER_MAX, SIZE, coll_eager_max, "64K",                                      \
      "collectives over the network send blocks up to this size eagerly (buffered at the "  \
      "receiver); larger ones by rendezvous straight into place")                          \
    X(SYMM_COLL_NODE_AWARE, BOOL, coll_node_aware, "1",                                       \
      "teams spanning nodes with several PEs on one: broadcast, reduce and fcollect share " \
      "data on each node through memory and send between nodes from one PE per node; 0: "   \
      "every PE exchanges messages with every other")                                      \
    X(SYMM_FAULT, STR, fault, "",                                                            \
      "testing aid: SITE[@PE][#N],... makes step SITE (ftruncate, mmap, calloc, team, "     \
      "ucx_reg) fail on PE (default all) at its Nth call (default every call)")

/* Legacy names (SGI SHMEM's SMA_ prefix, still read by SOS and Open MPI's
 * oshmem): X(ALIAS, NAME, KIND, FIELD). An alias alone sets NAME's field;
 * with NAME also set, NAME wins, and a warning says so when they disagree. */
#define SYMM_ENV_ALIASES(X)                                                                  \
    X(SMA_SYMMETRIC_SIZE, SHMEM_SYMMETRIC_SIZE, SIZE, heap_size)                             \
    X(SMA_DEBUG, SHMEM_DEBUG, BOOL, debug)                                                   \
    X(SMA_INFO, SHMEM_INFO, BOOL, info)                                                      \
    X(SMA_VERSION, SHMEM_VERSION, BOOL, version)
