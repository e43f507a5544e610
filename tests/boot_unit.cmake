# Unit tests of the bootstrap component, one program each.

# The table of run-time symbols (src/runtime/dl_table.c) that the PMIx and
# MPI bootstraps and the UCX transport fill: resolved from libm and libc,
# the first missing symbol named, no library, the global scope first.
add_executable(test_boot_dl unit/test_boot_dl.c ${PROJECT_SOURCE_DIR}/src/runtime/dl_table.c)
target_include_directories(test_boot_dl PRIVATE ${PROJECT_SOURCE_DIR}/src)
target_link_libraries(test_boot_dl PRIVATE ${CMAKE_DL_LIBS})
add_test(NAME unit_boot_dl COMMAND test_boot_dl)
set_tests_properties(unit_boot_dl PROPERTIES TIMEOUT 30)

# The TCP bootstrap's accepting side (src/boot/tcp/tcp_accept.c) over
# loopback: PEs and strays written by hand against a rank 0 in the test,
# each refusal and failure with its message; the wire format.
add_executable(test_boot_accept unit/test_boot_accept.c)
target_link_libraries(test_boot_accept PRIVATE symm_static)
target_include_directories(test_boot_accept PRIVATE ${PROJECT_SOURCE_DIR}/src)
add_test(NAME unit_boot_accept COMMAND test_boot_accept)
set_tests_properties(unit_boot_accept PROPERTIES TIMEOUT 120)
