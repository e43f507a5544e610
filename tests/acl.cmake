# The aclshmem host API (include/aclshmem.h, src/api/acl/aclshmem_*.c) and its
# examples (examples/acl_*.c).
#
# acl_host PART under oshrun at 1, 2, 4 PEs: every part starts its own
# aclshmem job in unique-id mode (the launcher only gives rank and size).
add_executable(acl_host pe/acl_host.c)
target_link_libraries(acl_host PRIVATE symm)
foreach(part basic rma allgather signal p2p team coll order instances)
  foreach(np ${SYMM_TEST_NPS})
    add_test(NAME acl_${part}.np${np}
      COMMAND ${SYMM_OSHRUN} --timeout 60 -np ${np} $<TARGET_FILE:acl_host> ${part})
    set_tests_properties(acl_${part}.np${np} PROPERTIES TIMEOUT 70)
  endforeach()
endforeach()
# The collectives and the ordering routines over UCX too.
if(SYMM_HAVE_UCX AND SYMM_TEST_UCX)
  foreach(part coll order)
    foreach(np 2 4)
      add_test(NAME acl_${part}.ucx.np${np}
        COMMAND ${SYMM_OSHRUN} --timeout 120 -np ${np} $<TARGET_FILE:acl_host> ${part})
      set_tests_properties(acl_${part}.ucx.np${np} PROPERTIES TIMEOUT 130 LABELS ucx
        ENVIRONMENT "SYMM_TRANSPORT=ucx")
    endforeach()
  endforeach()
endif()

# A forged id (another secret for the same address) is refused; an id whose
# PE 0 never comes times out naming PE 0.
add_test(NAME acl_uid_tamper
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/scripts/expect_status.sh 0
          --match "bad job secret|wrong job secret"
          ${SYMM_OSHRUN} --timeout 30 -np 2 $<TARGET_FILE:acl_host> tamper)
add_test(NAME acl_uid_stale
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/scripts/expect_status.sh 0
          --match "timed out after .* waiting for PE 0"
          $<TARGET_FILE:acl_host> stale)
set_tests_properties(acl_uid_tamper acl_uid_stale PROPERTIES TIMEOUT 40)

# DEFAULT mode with no launcher: a plain bash loop starts N copies of
# examples/acl_hello.c with '&' and waits; every one must exit 0.
add_executable(acl_hello ${PROJECT_SOURCE_DIR}/examples/acl_hello.c)
target_link_libraries(acl_hello PRIVATE symm)
add_executable(acl_port pe/acl_port.c)
set(SYMM_ACL_LAUNCH ${CMAKE_CURRENT_BINARY_DIR}/acl_launch.sh)
file(WRITE ${SYMM_ACL_LAUNCH} [=[#!/bin/bash
# acl_launch.sh PROGRAM PORT_FINDER NP tcp|tcp6|range: start NP copies of PROGRAM
# (arguments: MY_PE N_PES URL) with a plain loop, no launcher, as CANN's run
# scripts do; pass when every copy exits 0. 77: no IPv6 loopback here.
set -u
prog=$1 finder=$2 np=$3 scheme=$4
if [ "$scheme" = tcp6 ]; then
  grep -q '^0\{31\}1 ' /proc/net/if_inet6 2>/dev/null || { echo "no IPv6 loopback"; exit 77; }
  port=$("$finder" 6) || exit 1
  url="tcp6://[::1]:$port"
elif [ "$scheme" = range ]; then
  # Port 0: the port is start + instance id (0) of SHMEM_INSTANCE_PORT_RANGE.
  port=$("$finder") || exit 1
  export SHMEM_INSTANCE_PORT_RANGE="$port:$((port + 7))"
  url="tcp://127.0.0.1:0"
else
  port=$("$finder") || exit 1
  url="tcp://127.0.0.1:$port"
fi
pids=()
for ((i = 0; i < np; i++)); do
  "$prog" "$i" "$np" "$url" &
  pids+=($!)
done
rc=0
for p in "${pids[@]}"; do
  wait "$p" || rc=1
done
exit $rc
]=])
foreach(np ${SYMM_TEST_NPS})
  add_test(NAME acl_default_loop.np${np}
    COMMAND bash ${SYMM_ACL_LAUNCH} $<TARGET_FILE:acl_hello> $<TARGET_FILE:acl_port> ${np} tcp)
  set_tests_properties(acl_default_loop.np${np} PROPERTIES TIMEOUT 60)
endforeach()
add_test(NAME acl_default_loop_tcp6.np2
  COMMAND bash ${SYMM_ACL_LAUNCH} $<TARGET_FILE:acl_hello> $<TARGET_FILE:acl_port> 2 tcp6)
set_tests_properties(acl_default_loop_tcp6.np2 PROPERTIES TIMEOUT 60 SKIP_RETURN_CODE 77)
# The tree bootstrap over IPv6: each PE with children listens on the
# address it reaches PE 0 from ([::1]), its children find it through PE 0's
# directory and connect there.
add_test(NAME acl_default_loop_tcp6_tree.np5
  COMMAND bash ${SYMM_ACL_LAUNCH} $<TARGET_FILE:acl_hello> $<TARGET_FILE:acl_port> 5 tcp6)
set_tests_properties(acl_default_loop_tcp6_tree.np5 PROPERTIES TIMEOUT 60 SKIP_RETURN_CODE 77
  ENVIRONMENT "SYMM_BOOT_TREE_K=2")
add_test(NAME acl_default_loop_range.np2
  COMMAND bash ${SYMM_ACL_LAUNCH} $<TARGET_FILE:acl_hello> $<TARGET_FILE:acl_port> 2 range)
set_tests_properties(acl_default_loop_range.np2 PROPERTIES TIMEOUT 60)

# DEFAULT mode's job key (src/boot/secret.c), the same loop with each PE's
# output kept (scripts/acl_key.sh): SYMM_JOB_KEY or the key file on every PE
# works, no key warns once on PE 0 only, a PE with another key is refused in
# seconds, a key file others may read is refused.
foreach(np ${SYMM_TEST_NPS})
  foreach(case var file none)
    add_test(NAME acl_default_key_${case}.np${np}
      COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/scripts/acl_key.sh ${case}
              $<TARGET_FILE:acl_hello> $<TARGET_FILE:acl_port> ${np})
    set_tests_properties(acl_default_key_${case}.np${np} PROPERTIES TIMEOUT 60)
  endforeach()
  if(np GREATER 1)
    add_test(NAME acl_default_key_odd.np${np}
      COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/scripts/acl_key.sh odd
              $<TARGET_FILE:acl_hello> $<TARGET_FILE:acl_port> ${np})
    set_tests_properties(acl_default_key_odd.np${np} PROPERTIES TIMEOUT 30)
  endif()
endforeach()
add_test(NAME acl_default_key_mode.np2
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/scripts/acl_key.sh mode
          $<TARGET_FILE:acl_hello> $<TARGET_FILE:acl_port> 2)
set_tests_properties(acl_default_key_mode.np2 PROPERTIES TIMEOUT 30)

# UNIQUEID mode, the id through a file (examples/acl_uniqueid.c).
add_executable(acl_uniqueid ${PROJECT_SOURCE_DIR}/examples/acl_uniqueid.c)
target_link_libraries(acl_uniqueid PRIVATE symm)
foreach(np ${SYMM_TEST_NPS})
  set(uid_file ${CMAKE_CURRENT_BINARY_DIR}/acl_uniqueid.np${np}.uid)
  add_test(NAME acl_uniqueid.np${np}
    COMMAND bash -c "rm -f '${uid_file}' && exec \"$0\" --timeout 60 -np ${np} \"$1\" '${uid_file}'"
            ${SYMM_OSHRUN} $<TARGET_FILE:acl_uniqueid>)
  set_tests_properties(acl_uniqueid.np${np} PROPERTIES TIMEOUT 70)
endforeach()
# PE 0's address chosen by SHMEM_UID_SESSION_ID (port 0: a free one) and by
# SHMEM_UID_SOCK_IFNAME.
foreach(how session ifname)
  set(uid_file ${CMAKE_CURRENT_BINARY_DIR}/acl_uniqueid_${how}.uid)
  add_test(NAME acl_uniqueid_${how}.np2
    COMMAND bash -c "rm -f '${uid_file}' && exec \"$0\" --timeout 60 -np 2 \"$1\" '${uid_file}'"
            ${SYMM_OSHRUN} $<TARGET_FILE:acl_uniqueid>)
endforeach()
set_tests_properties(acl_uniqueid_session.np2 PROPERTIES TIMEOUT 70
  ENVIRONMENT "SHMEM_UID_SESSION_ID=127.0.0.1:0")
set_tests_properties(acl_uniqueid_ifname.np2 PROPERTIES TIMEOUT 70
  ENVIRONMENT "SHMEM_UID_SOCK_IFNAME=lo")

# aclshmem.h and shmem.h in one file, both APIs on one instance: as C
# (aclshmem.h first) and as C++ (shmem.h first, CANN's C++ defaults).
set(acl_both_targets acl_both)
add_executable(acl_both pe/acl_both.c)
target_link_libraries(acl_both PRIVATE symm)
symm_cxx_program(acl_both_cxx SOURCES pe/acl_both.c FLAGS -std=c++14 -DACL_SHMEM_FIRST)
set(acl_cxx_bin ${acl_both_cxx_bin})
set(acl_both_bins $<TARGET_FILE:acl_both>)
if(CMAKE_CXX_COMPILER)
  list(APPEND acl_both_targets acl_both_cxx)
  list(APPEND acl_both_bins ${acl_cxx_bin})
endif()
foreach(t ${acl_both_targets})
  list(POP_FRONT acl_both_bins bin)
  foreach(np ${SYMM_TEST_NPS})
    set(uid_file ${CMAKE_CURRENT_BINARY_DIR}/${t}.np${np}.uid)
    add_test(NAME ${t}.np${np}
      COMMAND bash -c "rm -f '${uid_file}' && exec \"$0\" --timeout 60 -np ${np} \"$1\" '${uid_file}'"
              ${SYMM_OSHRUN} ${bin})
    set_tests_properties(${t}.np${np} PROPERTIES TIMEOUT 70)
  endforeach()
endforeach()

# MPI mode (pe/acl_mpi.c), where symm has its MPI bootstrap: registered once
# boot_pmix.cmake has defined symm_mpirun_test (after this file).
function(_symm_acl_mpi_tests)
  if(SYMM_HAVE_MPI AND TARGET MPI::MPI_C AND COMMAND symm_mpirun_test AND SYMM_MPIRUN)
    add_executable(acl_mpi pe/acl_mpi.c)
    target_link_libraries(acl_mpi PRIVATE symm MPI::MPI_C)
    foreach(np ${SYMM_TEST_NPS})
      symm_mpirun_test(acl_mpi.np${np} ${np} 60 "ASAN_OPTIONS=detect_leaks=0"
        $<TARGET_FILE:acl_mpi>)
    endforeach()
  endif()
endfunction()
cmake_language(DEFER CALL _symm_acl_mpi_tests)
symm_pe_test(acl_logger NPS 1 2)
