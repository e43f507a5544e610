# Unit tests of the bootstrap component, one program each.

# The plugin loader (src/runtime/plugin.c) over fake plugins
# (unit/fake_plugin.c) in a directory of their own: found and loaded once,
# logging through the host; absent, of another build, not a plugin: each
# refused with its reason.
set(_fake_dir ${CMAKE_CURRENT_BINARY_DIR}/fake_plugins)
set(_fake_kind 0)
foreach(v fake fake-other not-plugin)
  string(REPLACE "-" "_" t "plugin_${v}")
  add_library(${t} MODULE unit/fake_plugin.c ${PROJECT_SOURCE_DIR}/src/runtime/plugin_glue.c)
  set_target_properties(${t} PROPERTIES PREFIX "" OUTPUT_NAME "libsymm-${v}"
    LIBRARY_OUTPUT_DIRECTORY ${_fake_dir} C_VISIBILITY_PRESET hidden)
  target_include_directories(${t} PRIVATE ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/include)
  target_compile_definitions(${t} PRIVATE FAKE_KIND=${_fake_kind})
  math(EXPR _fake_kind "${_fake_kind} + 1")
endforeach()
add_executable(test_plugin unit/test_plugin.c)
target_link_libraries(test_plugin PRIVATE symm_static)
target_include_directories(test_plugin PRIVATE ${PROJECT_SOURCE_DIR}/src)
add_dependencies(test_plugin plugin_fake plugin_fake_other plugin_not_plugin)
add_test(NAME unit_plugin COMMAND test_plugin ${_fake_dir})
set_tests_properties(unit_plugin PROPERTIES TIMEOUT 30)

# The TCP bootstrap's accepting side (src/boot/tcp/tcp_accept.c) over
# loopback: PEs and strays written by hand against a rank 0 in the test,
# each refusal and failure with its message; the wire format.
add_executable(test_boot_accept unit/test_boot_accept.c)
target_link_libraries(test_boot_accept PRIVATE symm_static)
target_include_directories(test_boot_accept PRIVATE ${PROJECT_SOURCE_DIR}/src)
add_test(NAME unit_boot_accept COMMAND test_boot_accept)
set_tests_properties(unit_boot_accept PROPERTIES TIMEOUT 120)
