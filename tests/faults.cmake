# A PE killed or exiting in the middle of blocking calls ends the job, in
# every launch mode (src/core/watch.c; docs/failures.md).
#  - fault_loop.npN: the loop itself (tests/pe/fault_loop.c) runs 200
#    iterations correctly and finalizes.
#  - kill_MODE.npN / exit_MODE.np4: tests/scripts/kill_loop.sh, a few kills
#    (kill -9 of a random PE at a random point) or early exits (exit(3)) per
#    mode: every job must end within 2 s, naming the PE, with a failing
#    status (3 for the exit). The full run (20 kills per mode) is the
#    table in docs/failures.md: tests/scripts/kill_loop.sh MODE 4 20.
# Modes: oshrun; aclshmem DEFAULT and UNIQUEID modes started by a bash loop;
# and, where tests/boot_pmix.cmake registers its mpirun tests, mpirun with
# the PMIx bootstrap and an MPI program with the MPI bootstrap.

add_executable(fault_loop pe/fault_loop.c)
target_link_libraries(fault_loop PRIVATE symm)
foreach(np ${SYMM_TEST_NPS})
  add_test(NAME fault_loop.np${np}
    COMMAND ${SYMM_OSHRUN} --timeout 60 -np ${np} $<TARGET_FILE:fault_loop> shmem iters=200)
  set_tests_properties(fault_loop.np${np} PROPERTIES TIMEOUT 60 LABELS faults)
endforeach()

set(SYMM_KILL_LOOP ${CMAKE_CURRENT_SOURCE_DIR}/scripts/kill_loop.sh)
set(SYMM_KILL_ENV FAULT_LOOP=$<TARGET_FILE:fault_loop> OSHRUN=${SYMM_OSHRUN}
  ACL_PORT=$<TARGET_FILE:acl_port>)
if(SYMM_SANITIZE OR SYMM_TSAN)
  list(APPEND SYMM_KILL_ENV SYMM_KILL_MAX_S=5) # start-up and exit handlers are slower
endif()
if(SYMM_SANITIZE)
  # A PE that exits before finalize leaves the library's state (and MPI's)
  # allocated: LeakSanitizer would turn its status 3 into its own.
  list(APPEND SYMM_KILL_ENV ASAN_OPTIONS=detect_leaks=0)
endif()

# symm_kill_tests(MODE ENV...): 3 kills at 4 PEs, 2 at 2 PEs, 2 exits at 4 PEs.
function(symm_kill_tests mode)
  foreach(t "kill;4;3" "kill;2;2" "exit;4;2")
    list(GET t 0 variant)
    list(GET t 1 np)
    list(GET t 2 n)
    add_test(NAME ${variant}_${mode}.np${np}
      COMMAND bash ${SYMM_KILL_LOOP} ${mode} ${np} ${n} ${variant})
    set_tests_properties(${variant}_${mode}.np${np} PROPERTIES TIMEOUT 60 LABELS faults
      ENVIRONMENT "${SYMM_KILL_ENV};${ARGN}")
  endforeach()
endfunction()

symm_kill_tests(oshrun)
symm_kill_tests(default)
symm_kill_tests(uid)
# Every peer through UCX: node-local peers unmapped, still watched by pid.
if(SYMM_HAVE_UCX)
  add_test(NAME kill_default_ucx.np4 COMMAND bash ${SYMM_KILL_LOOP} default 4 3 kill)
  set_tests_properties(kill_default_ucx.np4 PROPERTIES TIMEOUT 60 LABELS "faults;ucx"
    ENVIRONMENT "${SYMM_KILL_ENV};SYMM_TRANSPORT=ucx;UCX_TLS=tcp,self")
endif()

# mpirun: where boot_pmix.cmake found Open MPI's mpirun (after this file).
function(_symm_kill_mpirun_tests)
  if(NOT COMMAND symm_mpirun_env OR NOT SYMM_MPIRUN)
    return()
  endif()
  # mpirun itself lingers odls_base_sigkill_timeout (1 s) per round of
  # killing PEs it still thinks alive, so its job ends up to ~2.1 s after
  # the failure although every PE is gone in < 0.2 s (docs/failures.md). That timeout at 0 makes mpirun exit before forwarding symm's
  # line now and then, so the PEs keep the 2 s limit and mpirun gets 1.5 s more.
  set(grace SYMM_KILL_LAUNCHER_SLACK=1.5)
  if(SYMM_HAVE_PMIX)
    symm_mpirun_env(kill_pmix "${grace}" e)
    symm_kill_tests(pmix ${e} MPIRUN=${SYMM_MPIRUN})
  endif()
  if(SYMM_HAVE_MPI AND TARGET MPI::MPI_C)
    add_executable(fault_loop_mpi pe/fault_loop.c)
    target_compile_definitions(fault_loop_mpi PRIVATE FAULT_MPI)
    target_link_libraries(fault_loop_mpi PRIVATE symm MPI::MPI_C)
    symm_mpirun_env(kill_mpi "${grace}" e)
    symm_kill_tests(mpi ${e} MPIRUN=${SYMM_MPIRUN} FAULT_LOOP_MPI=$<TARGET_FILE:fault_loop_mpi>)
  endif()
endfunction()
cmake_language(DEFER CALL _symm_kill_mpirun_tests)

# The same kills and exits with the tree bootstrap forced (boot/tcp/tcp_tree.c): the
# bash-loop modes, where no launcher ends the job, and oshrun.
foreach(mode uid default oshrun)
  add_test(NAME kill_${mode}_tree.np4 COMMAND bash ${SYMM_KILL_LOOP} ${mode} 4 3 kill)
  add_test(NAME exit_${mode}_tree.np4 COMMAND bash ${SYMM_KILL_LOOP} ${mode} 4 2 exit)
  set_tests_properties(kill_${mode}_tree.np4 exit_${mode}_tree.np4 PROPERTIES TIMEOUT 60
    LABELS faults ENVIRONMENT "${SYMM_KILL_ENV};SYMM_BOOT_TREE_K=2")
endforeach()

# A local failure inside UCX's init, before its first exchange (no worker
# on PE 1: SYMM_FAULT=ucx_worker, transport/ucx/ucx_progress.c): agreed in
# the exchange's first round, so every PE fails init at once naming PE 1,
# not after SYMM_BOOT_TIMEOUT (20 s here, the test allows 10) and not as a
# mismatched bootstrap call. Every peer through UCX (2 and 3 PEs), and two
# emulated nodes of 2.
if(SYMM_HAVE_UCX)
  foreach(t "ucx;2;SYMM_TRANSPORT=ucx" "ucx;3;SYMM_TRANSPORT=ucx" "nodes;4;SYMM_NODE_SIZE=2")
    list(GET t 0 kind)
    list(GET t 1 np)
    list(GET t 2 env)
    add_test(NAME agree_init_ucx_worker_${kind}.np${np}
      COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/scripts/expect_fail.sh
              "symm: shmem_init: PE 1 failed: creating a UCX worker: Out of memory \\(PE [023]\\)"
              ${SYMM_OSHRUN} --timeout 30 -np ${np} $<TARGET_FILE:empty>)
    set_tests_properties(agree_init_ucx_worker_${kind}.np${np} PROPERTIES TIMEOUT 10
      LABELS "faults;ucx" ENVIRONMENT "SYMM_FAULT=ucx_worker@1;SYMM_BOOT_TIMEOUT=20;${env}")
  endforeach()
endif()
