# TLS of the bootstrap (src/boot/tcp/tcp_tls.c), only when built with OpenSSL
# (cmake/tls.cmake sets SYMM_HAVE_TLS).
if(SYMM_HAVE_TLS)
  # Jobs of 1-4 PEs over TLS, impostors refused, no plaintext on the wire (a
  # recording relay), certificate mode (needs the openssl command, else
  # skipped), mismatched settings failing fast, and the init cost, printed.
  add_executable(test_tls unit/test_tls.c)
  target_link_libraries(test_tls PRIVATE symm_static)
  target_include_directories(test_tls PRIVATE ${PROJECT_SOURCE_DIR}/src)
  add_test(NAME test_tls COMMAND test_tls)
  set_tests_properties(test_tls PROPERTIES TIMEOUT 120)

  # TLS is on by default, so test_boot runs over TLS; this keeps the plain
  # protocol (SYMM_BOOT_TLS=0) covered as well.
  add_test(NAME test_boot_tls_off COMMAND test_boot)
  set_tests_properties(test_boot_tls_off PROPERTIES TIMEOUT 120 ENVIRONMENT SYMM_BOOT_TLS=0)

  # A whole (empty) program under oshrun with TLS off, next to empty.np* with
  # it on (the default).
  foreach(np 2 4)
    add_test(NAME empty_tls_off.np${np}
      COMMAND ${SYMM_OSHRUN} --timeout 60 -np ${np} $<TARGET_FILE:empty>)
    set_tests_properties(empty_tls_off.np${np} PROPERTIES TIMEOUT 60 ENVIRONMENT SYMM_BOOT_TLS=0)
  endforeach()
endif()

