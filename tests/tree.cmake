# The shape of src/ (scripts/check_tree.sh): file names unique across layers,
# no function over 120 lines, libsymm.a defining no global name outside
# the public API and symm_, each plugin exporting only its entry; and the
# checker on made-up trees.
set(_plugin_files "")
foreach(t ${SYMM_PLUGIN_TARGETS})
  list(APPEND _plugin_files $<TARGET_FILE:${t}>)
endforeach()
add_test(NAME tree_shape
  COMMAND ${PROJECT_SOURCE_DIR}/scripts/check_tree.sh ${PROJECT_SOURCE_DIR}/src
          $<TARGET_FILE:symm_static> ${_plugin_files})
add_test(NAME tree_shape_selftest
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/scripts/check_tree_selftest.sh
          ${PROJECT_SOURCE_DIR}/scripts/check_tree.sh ${CMAKE_C_COMPILER})
set_tests_properties(tree_shape tree_shape_selftest PROPERTIES TIMEOUT 60)
