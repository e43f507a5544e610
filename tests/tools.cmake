# The tools' command lines (--version, --help, unknown options), SHMEM_INFO's
# contents, and the rule that every variable read anywhere is a row of the
# one table (with the checker tried on a made-up tree).
set(_symm_sbench "")
if(TARGET symm-stream-bench)
  set(_symm_sbench $<TARGET_FILE:symm-stream-bench>)
endif()
add_test(NAME tools_cli
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/scripts/tool_cli.sh $<TARGET_FILE:symm-info>
          $<TARGET_FILE:symm-bench> ${_symm_sbench})
add_test(NAME shmem_info
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/scripts/shmem_info.sh ${SYMM_OSHRUN} $<TARGET_FILE:symm-demo>)
add_test(NAME env_table
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/scripts/env_table_check.sh
          ${PROJECT_SOURCE_DIR}/src/runtime/env_def.h ${PROJECT_SOURCE_DIR}/src
          ${PROJECT_SOURCE_DIR}/tools ${PROJECT_SOURCE_DIR}/python/symm)
add_test(NAME env_table_selftest
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/scripts/env_table_selftest.sh
          ${CMAKE_CURRENT_SOURCE_DIR}/scripts/env_table_check.sh
          ${PROJECT_SOURCE_DIR}/src/runtime/env_def.h)
set_tests_properties(tools_cli shmem_info env_table env_table_selftest PROPERTIES TIMEOUT 60)

# symm-bench-plot over a real symm-bench --csv run and an OSU-format file
# (skipped, not failed, where SYMM_PYTHON has no matplotlib).
add_test(NAME bench_plot
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/scripts/bench_plot.sh ${SYMM_OSHRUN} $<TARGET_FILE:symm-bench>
          ${PROJECT_BINARY_DIR}/symm-bench-plot ${SYMM_PYTHON})
set_tests_properties(bench_plot PROPERTIES TIMEOUT 120 SKIP_RETURN_CODE 77)

# symm-bench --osu (the OSU micro-benchmarks' method) at 2 PEs: barrier and
# bcast tables with their rows and "osu method" headers, and CSV rows.
add_test(NAME bench_osu
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/scripts/bench_osu.sh ${SYMM_OSHRUN} $<TARGET_FILE:symm-bench>)
set_tests_properties(bench_osu PROPERTIES TIMEOUT 90)
