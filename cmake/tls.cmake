# TLS of the bootstrap (src/boot/tcp/tcp_tls.c, tcp_tls_conf.c): OpenSSL 3
# (Debian: libssl-dev).
# Found: SYMM_HAVE_TLS is defined for the library, which links OpenSSL, and
# the TLS tests (tests/tls.cmake) are built. Absent (or SYMM_TLS=OFF): the
# bootstrap is plain and aclshmemx_set_conf_store_tls(true, ...) fails.
option(SYMM_TLS "Protect the bootstrap with TLS when OpenSSL 3 is found" ON)
set(SYMM_HAVE_TLS OFF)
if(SYMM_TLS)
  find_package(OpenSSL 3.0 COMPONENTS SSL Crypto)
  if(OpenSSL_FOUND OR OPENSSL_FOUND)
    set(SYMM_HAVE_TLS ON)
  else()
    message(STATUS "symm: OpenSSL 3 not found, the bootstrap is built without TLS")
  endif()
endif()
if(SYMM_HAVE_TLS)
  target_compile_definitions(symm_obj PRIVATE SYMM_HAVE_TLS)
  # Headers for the objects; the shared library links OpenSSL privately.
  target_link_libraries(symm_obj PRIVATE OpenSSL::SSL OpenSSL::Crypto)
  target_link_libraries(symm PRIVATE OpenSSL::SSL OpenSSL::Crypto)
  # The static library names OpenSSL plainly (-lssl -lcrypto), so that a
  # -static program gets libssl.a and an installed consumer's
  # find_package(symm) needs no OpenSSL targets.
  get_filename_component(SYMM_OPENSSL_LIBDIR "${OPENSSL_SSL_LIBRARY}" DIRECTORY)
  if(NOT SYMM_OPENSSL_LIBDIR IN_LIST CMAKE_C_IMPLICIT_LINK_DIRECTORIES)
    target_link_directories(symm_static INTERFACE $<BUILD_INTERFACE:${SYMM_OPENSSL_LIBDIR}>)
  endif()
  target_link_libraries(symm_static INTERFACE ssl crypto)
endif()
install(FILES ${PROJECT_SOURCE_DIR}/include/symm_tls.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
