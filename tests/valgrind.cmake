# valgrind: shmem_init + shmem_finalize leak nothing, at 1 and 2 PEs.
symm_pe_test(empty NPS 1 2 4)
find_program(SYMM_VALGRIND valgrind)
if(SYMM_VALGRIND AND NOT SYMM_SANITIZE)
  foreach(np 1 2)
    add_test(NAME valgrind_init_finalize.np${np}
      COMMAND ${SYMM_OSHRUN} --timeout 60 -np ${np} ${SYMM_VALGRIND} -q --leak-check=full
              --show-leak-kinds=definite,indirect,possible --errors-for-leak-kinds=definite,indirect,possible
              --error-exitcode=9 $<TARGET_FILE:empty>)
    set_tests_properties(valgrind_init_finalize.np${np} PROPERTIES TIMEOUT 90)
  endforeach()
endif()
