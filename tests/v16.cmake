# OpenSHMEM 1.6 additions: blocked strided RMA, pe_quiet, scans, sessions,
# the pshmem.h profiling header, and shmem.h from C++.
symm_pe_test(rma_block)
symm_pe_test(pe_quiet)
symm_pe_test(scan)
symm_expect_fail(rma_block_bad_stride 2 "symm: shmem_int_ibput: dst stride 0 is below 1 \\(target PE 0\\) \\(PE 1\\)"
  $<TARGET_FILE:rma_block> bad_stride)
symm_expect_fail(rma_block_null_source 2 "symm: shmem_long_ibput: source is NULL with 3 blocks of 2 elements \\(target PE 0\\) \\(PE 1\\)"
  $<TARGET_FILE:rma_block> null_source)
symm_expect_fail(rma_block_bad_pe 2 "symm: shmem_ibget64: target PE 2 outside \\[0,2\\) \\(PE 1\\)"
  $<TARGET_FILE:rma_block> bad_pe)
symm_expect_fail(pe_quiet_bad_pe 4 "symm: shmem_pe_quiet: target_pes\\[1\\] = 6 is outside \\[0,4\\) \\(PE 3\\)"
  $<TARGET_FILE:pe_quiet> bad_pe)

# pshmem.h and shmem.h through the 1.6 routines, as C and as C++ (a custom
# command: symm_cxx_program, tests/CMakeLists.txt).
symm_pe_test(v16_api NPS 1 2 4)
symm_cxx_program(v16_api_cxx SOURCES pe/v16_api.c)
set(v16_cxx_bin ${v16_api_cxx_bin})
if(v16_cxx_bin)
  foreach(np 1 2)
    add_test(NAME v16_api_cxx.np${np}
      COMMAND ${SYMM_OSHRUN} --timeout 60 -np ${np} ${v16_cxx_bin})
    set_tests_properties(v16_api_cxx.np${np} PROPERTIES TIMEOUT 60)
  endforeach()
endif()
add_test(NAME pshmem_complete
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/scripts/pshmem_complete.sh ${CMAKE_C_COMPILER}
          ${PROJECT_SOURCE_DIR}/include $<TARGET_FILE:symm>)
set_tests_properties(pshmem_complete PROPERTIES TIMEOUT 60)
