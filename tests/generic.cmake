# The C11 generics against the spec's type tables (pe/generic/): for each
# generic a translation unit calling it with every type of its table, plain
# and ctx, written here from the table below; a profiling interceptor per
# typed routine records which one each call reached. One unit per generic,
# so the compiler reports every pair that does not compile, each on its own.
#
# Each row: NAME|SPEC_TABLE|CTX (1: also the ctx form)|ARGUMENTS after the
# ctx, T the element type (D/S/F: symmetric dest, source, fetch buffers of T,
# V: a T value; see pe/generic/gen.h). cswap to set are the deprecated
# generic AMO names: 1.5 lists int, long and long long for them (float and
# double too for swap, fetch and set), SOS's tests use every type of Tables 6
# and 7; each may reach the deprecated routine (shmem_int_fadd) or the
# current one (shmem_uint_atomic_fetch_add) (pe/generic/main.c).
set(symm_generics
  "atomic_fetch|SPEC_AMO_EXT|1|D(T), 0"
  "atomic_set|SPEC_AMO_EXT|1|D(T), V(T), 0"
  "atomic_swap|SPEC_AMO_EXT|1|D(T), V(T), 0"
  "atomic_fetch_nbi|SPEC_AMO_EXT|1|F(T), D(T), 0"
  "atomic_swap_nbi|SPEC_AMO_EXT|1|F(T), D(T), V(T), 0"
  "atomic_compare_swap|SPEC_AMO_STD|1|D(T), V(T), V(T), 0"
  "atomic_compare_swap_nbi|SPEC_AMO_STD|1|F(T), D(T), V(T), V(T), 0"
  "atomic_fetch_inc|SPEC_AMO_STD|1|D(T), 0"
  "atomic_inc|SPEC_AMO_STD|1|D(T), 0"
  "atomic_fetch_inc_nbi|SPEC_AMO_STD|1|F(T), D(T), 0"
  "atomic_fetch_add|SPEC_AMO_STD|1|D(T), V(T), 0"
  "atomic_add|SPEC_AMO_STD|1|D(T), V(T), 0"
  "atomic_fetch_add_nbi|SPEC_AMO_STD|1|F(T), D(T), V(T), 0"
  "atomic_fetch_and|SPEC_AMO_BIT|1|D(T), V(T), 0"
  "atomic_and|SPEC_AMO_BIT|1|D(T), V(T), 0"
  "atomic_fetch_and_nbi|SPEC_AMO_BIT|1|F(T), D(T), V(T), 0"
  "atomic_fetch_or|SPEC_AMO_BIT|1|D(T), V(T), 0"
  "atomic_or|SPEC_AMO_BIT|1|D(T), V(T), 0"
  "atomic_fetch_or_nbi|SPEC_AMO_BIT|1|F(T), D(T), V(T), 0"
  "atomic_fetch_xor|SPEC_AMO_BIT|1|D(T), V(T), 0"
  "atomic_xor|SPEC_AMO_BIT|1|D(T), V(T), 0"
  "atomic_fetch_xor_nbi|SPEC_AMO_BIT|1|F(T), D(T), V(T), 0"
  "cswap|SPEC_AMO_STD|0|D(T), V(T), V(T), 0"
  "finc|SPEC_AMO_STD|0|D(T), 0"
  "inc|SPEC_AMO_STD|0|D(T), 0"
  "fadd|SPEC_AMO_STD|0|D(T), V(T), 0"
  "add|SPEC_AMO_STD|0|D(T), V(T), 0"
  "swap|SPEC_AMO_EXT|0|D(T), V(T), 0"
  "fetch|SPEC_AMO_EXT|0|S(T), 0"
  "set|SPEC_AMO_EXT|0|D(T), V(T), 0"
  "put|SPEC_RMA|1|D(T), S(T), 1, 0"
  "get|SPEC_RMA|1|D(T), S(T), 1, 0"
  "put_nbi|SPEC_RMA|1|D(T), S(T), 1, 0"
  "get_nbi|SPEC_RMA|1|D(T), S(T), 1, 0"
  "p|SPEC_RMA|1|D(T), V(T), 0"
  "g|SPEC_RMA|1|S(T), 0"
  "iput|SPEC_RMA|1|D(T), S(T), 1, 1, 1, 0"
  "iget|SPEC_RMA|1|D(T), S(T), 1, 1, 1, 0"
  "ibput|SPEC_RMA|1|D(T), S(T), 1, 1, 1, 1, 0"
  "ibget|SPEC_RMA|1|D(T), S(T), 1, 1, 1, 1, 0"
  "put_signal|SPEC_RMA|1|D(T), S(T), 1, &gen_sig, 1, SHMEM_SIGNAL_SET, 0"
  "put_signal_nbi|SPEC_RMA|1|D(T), S(T), 1, &gen_sig, 1, SHMEM_SIGNAL_ADD, 0"
  "wait_until|SPEC_P2P|0|D(T), SHMEM_CMP_EQ, V(T)"
  "wait_until_all|SPEC_P2P|0|D(T), 2, NULL, SHMEM_CMP_EQ, V(T)"
  "wait_until_any|SPEC_P2P|0|D(T), 2, NULL, SHMEM_CMP_EQ, V(T)"
  "wait_until_some|SPEC_P2P|0|D(T), 2, gen_indices, NULL, SHMEM_CMP_EQ, V(T)"
  "wait_until_all_vector|SPEC_P2P|0|D(T), 2, NULL, SHMEM_CMP_EQ, S(T)"
  "wait_until_any_vector|SPEC_P2P|0|D(T), 2, NULL, SHMEM_CMP_EQ, S(T)"
  "wait_until_some_vector|SPEC_P2P|0|D(T), 2, gen_indices, NULL, SHMEM_CMP_EQ, S(T)"
  "test|SPEC_P2P|0|D(T), SHMEM_CMP_EQ, V(T)"
  "test_all|SPEC_P2P|0|D(T), 2, NULL, SHMEM_CMP_EQ, V(T)"
  "test_any|SPEC_P2P|0|D(T), 2, NULL, SHMEM_CMP_EQ, V(T)"
  "test_some|SPEC_P2P|0|D(T), 2, gen_indices, NULL, SHMEM_CMP_EQ, V(T)"
  "test_all_vector|SPEC_P2P|0|D(T), 2, NULL, SHMEM_CMP_EQ, S(T)"
  "test_any_vector|SPEC_P2P|0|D(T), 2, NULL, SHMEM_CMP_EQ, S(T)"
  "test_some_vector|SPEC_P2P|0|D(T), 2, gen_indices, NULL, SHMEM_CMP_EQ, S(T)"
  "broadcast|SPEC_RMA|0|SHMEM_TEAM_WORLD, D(T), S(T), 1, 0"
  "collect|SPEC_RMA|0|SHMEM_TEAM_WORLD, D(T), S(T), 1"
  "fcollect|SPEC_RMA|0|SHMEM_TEAM_WORLD, D(T), S(T), 1"
  "alltoall|SPEC_RMA|0|SHMEM_TEAM_WORLD, D(T), S(T), 1"
  "alltoalls|SPEC_RMA|0|SHMEM_TEAM_WORLD, D(T), S(T), 1, 1, 1"
  "and_reduce|SPEC_RED_BIT|0|SHMEM_TEAM_WORLD, D(T), S(T), 1"
  "or_reduce|SPEC_RED_BIT|0|SHMEM_TEAM_WORLD, D(T), S(T), 1"
  "xor_reduce|SPEC_RED_BIT|0|SHMEM_TEAM_WORLD, D(T), S(T), 1"
  "max_reduce|SPEC_RED_MINMAX|0|SHMEM_TEAM_WORLD, D(T), S(T), 1"
  "min_reduce|SPEC_RED_MINMAX|0|SHMEM_TEAM_WORLD, D(T), S(T), 1"
  "sum_reduce|SPEC_RED_ARITH|0|SHMEM_TEAM_WORLD, D(T), S(T), 1"
  "prod_reduce|SPEC_RED_ARITH|0|SHMEM_TEAM_WORLD, D(T), S(T), 1"
  "sum_inscan|SPEC_RED_ARITH|0|SHMEM_TEAM_WORLD, D(T), S(T), 1"
  "sum_exscan|SPEC_RED_ARITH|0|SHMEM_TEAM_WORLD, D(T), S(T), 1")

set(gen_dir ${CMAKE_CURRENT_BINARY_DIR}/generic)
set(gen_srcs pe/generic/main.c pe/generic/icpt.c)
set(gen_list "")
foreach(row ${symm_generics})
  string(REPLACE "|" ";" f "${row}")
  list(GET f 0 op)
  list(GET f 1 table)
  list(GET f 2 ctx)
  list(GET f 3 args)
  set(body "/* Written by tests/generic.cmake: shmem_${op} over ${table}. */\n")
  if(op MATCHES "^(cswap|finc|inc|fadd|add|swap|fetch|set)$")
    # The deprecated names are called on purpose.
    string(APPEND body "#pragma GCC diagnostic ignored \"-Wdeprecated-declarations\"\n")
  endif()
  string(APPEND body "#define GEN_NAME \"shmem_${op}\"\n#define GEN_FN gen_fn_${op}\n")
  string(APPEND body "#define GEN_LIST ${table}\n#define GEN_CALL(T) shmem_${op}(${args})\n")
  if(ctx)
    string(APPEND body "#define GEN_CALL_CTX(T) shmem_${op}(SHMEM_CTX_DEFAULT, ${args})\n")
  endif()
  string(APPEND body "#include \"generic/calls.c\"\n")
  # Rewritten only when it changes, so a reconfigure does not rebuild it.
  file(CONFIGURE OUTPUT ${gen_dir}/gen_${op}.c CONTENT "${body}" @ONLY)
  list(APPEND gen_srcs ${gen_dir}/gen_${op}.c)
  list(APPEND gen_cxx_units ${gen_dir}/gen_${op}.c)
  string(APPEND gen_list "X(${op})\n")
endforeach()
file(CONFIGURE OUTPUT ${gen_dir}/gen_list.h CONTENT "${gen_list}" @ONLY)

symm_pe_test(generic_dispatch NPS 1 NOUCX SOURCES ${gen_srcs})
target_include_directories(generic_dispatch PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/pe ${gen_dir})
set_source_files_properties(${gen_dir}/gen_list.h PROPERTIES GENERATED TRUE)

# The same units as C++ (shmem.h's overloads), linked with the C driver and
# interceptors (symm_cxx_program).
if(CMAKE_CXX_COMPILER)
  add_library(generic_common STATIC pe/generic/main.c pe/generic/icpt.c)
  target_link_libraries(generic_common PRIVATE symm)
  target_include_directories(generic_common PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}
    ${CMAKE_CURRENT_SOURCE_DIR}/pe ${gen_dir})
  symm_cxx_program(generic_dispatch_cxx SOURCES ${gen_cxx_units} LINK generic_common
    DEPENDS pe/generic/calls.c pe/generic/gen.h)
  set(gen_cxx_bin ${generic_dispatch_cxx_bin})
  add_test(NAME generic_dispatch_cxx.np1
    COMMAND ${SYMM_OSHRUN} --timeout 60 -np 1 ${gen_cxx_bin})
  set_tests_properties(generic_dispatch_cxx.np1 PROPERTIES TIMEOUT 60)
endif()

# C++ programs written for other OpenSHMEM libraries: the complex reductions
# with GNU complex types (__complex__ double) and std::complex, typed,
# generic and to_all.
symm_cxx_program(cxx_complex SOURCES pe/cxx_complex.cpp)
if(CMAKE_CXX_COMPILER)
  foreach(np ${SYMM_TEST_NPS})
    add_test(NAME cxx_complex.np${np} COMMAND ${SYMM_OSHRUN} --timeout 60 -np ${np} ${cxx_complex_bin})
    set_tests_properties(cxx_complex.np${np} PROPERTIES TIMEOUT 70)
  endforeach()
endif()
