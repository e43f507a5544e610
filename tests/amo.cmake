# Atomic memory operations: every type of every AMO class (from the type
# tables), heap and globals, plain names and ctx_ names (SHMEM_CTX_DEFAULT,
# a created context, a context of the world team reversed), blocking and
# _nbi, the deprecated names and the C11 generic selections.
symm_pe_test(amo)
# The deprecated names are called on purpose.
target_compile_options(amo PRIVATE -Wno-deprecated-declarations)
# Distributed locks: mutual exclusion (heap and global lock words),
# shmem_test_lock; and FIFO order of acquisition (mode fifo, which reads
# the queue tail of symm's MCS lock to know when a PE is in line).
symm_pe_test(lock)
symm_pe_test(lock_fifo SOURCES pe/lock.c ARGS fifo TIMEOUT 30)
# Communication contexts: options, RMA/AMO on created contexts, quiet,
# fence, destroy, get_team, invalid options, SHMEM_CTX_INVALID, and team
# contexts (PE numbers within the team).
symm_pe_test(ctx)
