# The plugins (runtime/plugin.h) from the outside: a job that needs one the
# install lacks fails at init naming it and where it was looked for, on
# every PE, and the same job runs once the plugin is where libsymm looks
# (SYMM_PLUGIN_DIR, when set, is the only such place). The loader itself:
# unit_plugin (boot_unit.cmake); the exported symbols: tree_shape.
if(NOT SYMM_HAVE_UCX)
  return()
endif()
symm_expect_fail(plugin_ucx_absent 2
  "PE 1 is not on this node .*UCX transport plugin cannot be loaded: libsymm-ucx.so is not in /nonexistent"
  ${CMAKE_COMMAND} -E env SYMM_TRANSPORT=ucx SYMM_PLUGIN_DIR=/nonexistent $<TARGET_FILE:symm-demo>)
add_test(NAME plugin_ucx_from_dir
  COMMAND ${CMAKE_COMMAND} -E env SYMM_TRANSPORT=ucx SYMM_PLUGIN_DIR=${SYMM_PLUGIN_DIR_BUILD}
    ${SYMM_OSHRUN} --timeout 60 -np 2 $<TARGET_FILE:symm-demo>)
set_tests_properties(plugin_ucx_from_dir PROPERTIES TIMEOUT 60 LABELS ucx)
