# The deprecated Fortran API (src/api/fortran/, shmem.fh, oshfort): only
# where cmake/fortran.cmake found a Fortran compiler. The programs
# (tests/fortran/f_*.f90, f_fixed.f) are built the way oshfort builds a
# user's, by a custom command: the compiler, -I the generated shmem.fh,
# the sources, -L and -lsymm; the project never enables Fortran
# (cmake/fortran.cmake). Each multi-PE program runs under oshrun at
# SYMM_TEST_NPS PEs (symm_pe_test) and checks its results against what the
# PEs' contributions make.
if(NOT SYMM_HAVE_FORTRAN)
  return()
endif()
# A sanitized libsymm needs the sanitizer's runtime from the same
# compiler family as the Fortran compiler's.
if((SYMM_SANITIZE OR SYMM_TSAN) AND NOT CMAKE_C_COMPILER_ID STREQUAL "GNU")
  message(STATUS "symm: Fortran tests: skipped (sanitized build with ${CMAKE_C_COMPILER_ID})")
  return()
endif()

# symm_fortran_program(NAME SOURCES src... [C_SOURCES c...] [FLAGS f...]
#                      [INCLUDE dir]): NAME built from tests/fortran/ sources
# with -Wall -Werror and FLAGS against the shmem.fh in INCLUDE (default: the
# one without function declarations, as these programs declare what they
# call), C_SOURCES compiled by the C compiler against shmem.h;
# an imported executable NAME_prog, so symm_pe_test(... PROGRAM NAME_prog)
# runs it.
function(symm_fortran_program name)
  cmake_parse_arguments(P "" "INCLUDE" "SOURCES;C_SOURCES;FLAGS" ${ARGN})
  if(NOT P_INCLUDE)
    set(P_INCLUDE ${SYMM_FORTRAN_INCLUDE_SHORT})
  endif()
  set(bin ${CMAKE_CURRENT_BINARY_DIR}/fortran/${name})
  set(flags -g -O1 -Wall -Werror ${P_FLAGS})
  if(SYMM_SANITIZE)
    list(APPEND flags -fsanitize=address,undefined)
  endif()
  if(SYMM_TSAN)
    list(APPEND flags -fsanitize=thread)
  endif()
  set(srcs "")
  foreach(src ${P_SOURCES})
    list(APPEND srcs ${CMAKE_CURRENT_SOURCE_DIR}/fortran/${src})
  endforeach()
  set(objs "")
  foreach(src ${P_C_SOURCES})
    set(obj ${CMAKE_CURRENT_BINARY_DIR}/fortran/${name}_${src}.o)
    add_custom_command(OUTPUT ${obj}
      COMMAND ${CMAKE_C_COMPILER} -std=c11 -Wall -Wextra -Werror -I${PROJECT_SOURCE_DIR}/include
              -c ${CMAKE_CURRENT_SOURCE_DIR}/fortran/${src} -o ${obj}
      DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/fortran/${src} ${PROJECT_SOURCE_DIR}/include/shmem.h
      COMMENT "Building C object ${name}_${src}.o"
      VERBATIM)
    list(APPEND objs ${obj})
  endforeach()
  add_custom_command(OUTPUT ${bin}
    COMMAND ${CMAKE_Fortran_COMPILER} ${flags} -I${P_INCLUDE} -J${CMAKE_CURRENT_BINARY_DIR}/fortran
            ${srcs} ${objs} -o ${bin} -L$<TARGET_FILE_DIR:symm> -Wl,-rpath,$<TARGET_FILE_DIR:symm>
            -lsymm -lpthread -lm
    DEPENDS ${srcs} ${objs} symm ${P_INCLUDE}/shmem.fh
    COMMENT "Building Fortran executable ${name}"
    VERBATIM)
  add_custom_target(${name}_build ALL DEPENDS ${bin})
  # (Not named like the file: make would then find no rule for it.)
  add_executable(${name}_prog IMPORTED GLOBAL)
  set_target_properties(${name}_prog PROPERTIES IMPORTED_LOCATION ${bin})
endfunction()
file(MAKE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/fortran)

# Every routine family with results checked (f_rma: typed, sized, mem,
# nbi, strided; f_amo; f_coll: broadcast, (f)collect, alltoall(s) and every
# _to_all over all PEs and over a strided set; f_sync: wait, wait_until,
# fence, quiet, locks; f_heap: shpalloc/shpclmove/shpdeallc with Cray
# pointers, shmem_ptr, queries). Each over UCX as well (shmem_ptr of a
# peer is 0 there: no peer is mapped).
symm_fortran_program(fortran_rma SOURCES f_rma.f90)
symm_pe_test(fortran_rma PROGRAM fortran_rma_prog)
symm_fortran_program(fortran_amo SOURCES f_amo.f90)
symm_pe_test(fortran_amo PROGRAM fortran_amo_prog)
symm_fortran_program(fortran_coll SOURCES f_coll.f90)
symm_pe_test(fortran_coll PROGRAM fortran_coll_prog)
symm_fortran_program(fortran_sync SOURCES f_sync.f90)
symm_pe_test(fortran_sync PROGRAM fortran_sync_prog)
symm_fortran_program(fortran_heap SOURCES f_heap.f90 FLAGS -fcray-pointer)
symm_pe_test(fortran_heap PROGRAM fortran_heap_prog)
# Fixed form, include 'mpp/shmem.fh', the program declaring MY_PE and
# NUM_PES itself (the NAS Parallel Benchmarks' style).
symm_fortran_program(fortran_fixed SOURCES f_fixed.f)
symm_pe_test(fortran_fixed PROGRAM fortran_fixed_prog)
# The header with its function declarations on (SYMM_FORTRAN_LONG_HEADER):
# a program that declares none of them.
symm_fortran_program(fortran_long SOURCES f_long.f90 INCLUDE ${SYMM_FORTRAN_INCLUDE_LONG})
symm_pe_test(fortran_long PROGRAM fortran_long_prog NPS 1 2)

# shmem.fh's constants against shmem.h's, compiled by both compilers.
symm_fortran_program(fortran_consts SOURCES f_consts.f90 C_SOURCES f_consts_c.c)
add_test(NAME fortran_consts_equal COMMAND $<TARGET_FILE:fortran_consts_prog>)
set_tests_properties(fortran_consts_equal PROPERTIES TIMEOUT 30)

# Misuse: symm's message, naming the C routine and the Fortran one.
symm_fortran_program(fortran_errors SOURCES f_errors.f90)
set(_symm_ferr $<TARGET_FILE:fortran_errors_prog>)
symm_expect_fail(fortran_err_nonsym 2
  "symm: shmem_int_put \\(Fortran shmem_integer_put\\): dest 0x[0-9a-f]+ is not a symmetric address"
  ${_symm_ferr} nonsym)
symm_expect_fail(fortran_err_neglen 1
  "symm: shmem_put64 \\(Fortran shmem_put8\\): len -1 is negative \\(PE 0\\)" ${_symm_ferr} neglen)
symm_expect_fail(fortran_err_set 2
  "symm: shmem_barrier \\(Fortran shmem_barrier\\): active set \\(PE_start 0, logPE_stride 0, PE_size 3\\) reaches PE 2"
  ${_symm_ferr} set)
symm_expect_fail(fortran_err_align 1
  "symm: shmem_barrier \\(Fortran shmem_barrier\\): pSync 0x[0-9a-f]+ is not aligned to 8 bytes"
  ${_symm_ferr} align)
# shmem_global_exit(3) on PE 0 ends the job with status 3.
add_test(NAME fortran_global_exit
  COMMAND sh -c "\"$0\" --timeout 30 -np 2 \"$1\" exit; rc=$?; echo \"exit status $rc\"; [ $rc = 3 ]"
          ${SYMM_OSHRUN} ${_symm_ferr})
set_tests_properties(fortran_global_exit PROPERTIES TIMEOUT 40)

# oshfort, installed to a scratch prefix: --showme:*, programs in both
# forms built and run, FC=oshfort, make FC=oshfort, cmake with
# CMAKE_Fortran_COMPILER=oshfort. (Not in sanitized builds: a program
# oshfort builds cannot load a sanitized libsymm.)
if(NOT SYMM_SANITIZE AND NOT SYMM_TSAN)
  add_test(NAME fortran_oshfort
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/scripts/oshfort_test.sh ${PROJECT_BINARY_DIR}
            ${CMAKE_CURRENT_SOURCE_DIR}/fortran)
  set_tests_properties(fortran_oshfort PROPERTIES TIMEOUT 300)
endif()
