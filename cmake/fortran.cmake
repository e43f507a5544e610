# The deprecated Fortran API (OpenSHMEM 1.5's Fortran annex, what SOS's
# --enable-fortran provides): the bindings (src/api/fortran/) in libsymm
# itself, so -lsymm suffices; shmem.fh and mpp/shmem.fh, made here from
# include/shmem.fh.in with the values of include/shmem.h; the wrapper
# oshfort (tools/oshfort.in). Only where a Fortran compiler is found
# (SYMM_FORTRAN=OFF: never): without one, none of it is built or installed,
# and libsymm has no Fortran symbols. The compiler is only looked for and
# run by the tests' own commands (tests/fortran.cmake); the project never
# enables Fortran, whose flags would get the C options of this project.
option(SYMM_FORTRAN "Build the Fortran API (shmem.fh, oshfort) when a Fortran compiler is found" ON)
option(SYMM_FORTRAN_LONG_HEADER
  "shmem.fh declares the types of its functions (SOS's --enable-long-fortran-header)" OFF)

set(SYMM_HAVE_FORTRAN OFF)
if(SYMM_FORTRAN)
  include(CheckLanguage)
  check_language(Fortran)
  if(CMAKE_Fortran_COMPILER)
    set(SYMM_HAVE_FORTRAN ON)
  endif()
endif()
if(NOT SYMM_HAVE_FORTRAN)
  message(STATUS "symm: Fortran API: no (no Fortran compiler found, or SYMM_FORTRAN=OFF)")
  return()
endif()
message(STATUS "symm: Fortran API: yes (${CMAKE_Fortran_COMPILER})")

target_sources(symm_obj PRIVATE ${PROJECT_SOURCE_DIR}/src/api/fortran/fortran_api.c)

# ---- shmem.fh -----------------------------------------------------------
# Each constant is shmem.h's value, read from its "#define NAME value"
# (an integer, an L suffix allowed, or a string); one that is missing or
# not a literal stops the configuration. The pSync sizes count default
# INTEGERs (4 bytes), the C ones longs. tests/fortran.cmake checks every
# value against a C program's.
include(CheckTypeSize)
check_type_size(long SYMM_SIZEOF_LONG LANGUAGE C)
set(SYMM_SIZEOF_POINTER ${CMAKE_SIZEOF_VOID_P})
file(STRINGS ${PROJECT_SOURCE_DIR}/include/shmem.h _symm_defines REGEX "^#define SHMEM_[A-Z_]+ ")
set(_symm_fh_same SHMEM_MAJOR_VERSION SHMEM_MINOR_VERSION SHMEM_MAX_NAME_LEN
  SHMEM_THREAD_SINGLE SHMEM_THREAD_FUNNELED SHMEM_THREAD_SERIALIZED SHMEM_THREAD_MULTIPLE
  SHMEM_CMP_EQ SHMEM_CMP_NE SHMEM_CMP_GT SHMEM_CMP_LE SHMEM_CMP_LT SHMEM_CMP_GE
  SHMEM_SYNC_VALUE SHMEM_REDUCE_MIN_WRKDATA_SIZE)
set(_symm_fh_psync SHMEM_BARRIER_SYNC_SIZE SHMEM_BCAST_SYNC_SIZE SHMEM_REDUCE_SYNC_SIZE
  SHMEM_COLLECT_SYNC_SIZE SHMEM_ALLTOALL_SYNC_SIZE SHMEM_ALLTOALLS_SYNC_SIZE SHMEM_SYNC_SIZE)
foreach(name ${_symm_fh_same} ${_symm_fh_psync} SHMEM_VENDOR_STRING)
  set(value "")
  foreach(line ${_symm_defines})
    if(line MATCHES "^#define ${name} +(-?[0-9]+)L?$")
      set(value ${CMAKE_MATCH_1})
    elseif(line MATCHES "^#define ${name} +\"([^\"]*)\"$")
      string(REPLACE "'" "''" value "${CMAKE_MATCH_1}")
    endif()
  endforeach()
  if(value STREQUAL "")
    message(FATAL_ERROR "symm: include/shmem.h has no #define ${name} with a literal value "
                        "(shmem.fh takes its value from there)")
  endif()
  if(name IN_LIST _symm_fh_psync)
    math(EXPR value "(${value} * ${SYMM_SIZEOF_LONG} + 3) / 4")
  endif()
  set(${name} "${value}")
endforeach()

# symm_fortran_header(DIR LONG): DIR/shmem.fh and DIR/mpp/shmem.fh (the
# same file: an include of shmem.fh from mpp/ would find itself); LONG ON
# makes the function declarations lines rather than comments. Every line
# must fit fixed form's 72 columns.
function(symm_fortran_header dir long)
  if(long)
    set(SYMM_FH_DECL " ")
    set(SYMM_FH_KIND "declarations on")
  else()
    set(SYMM_FH_DECL "!")
    set(SYMM_FH_KIND "declarations off")
  endif()
  configure_file(${PROJECT_SOURCE_DIR}/include/shmem.fh.in ${dir}/shmem.fh @ONLY)
  configure_file(${PROJECT_SOURCE_DIR}/include/shmem.fh.in ${dir}/mpp/shmem.fh @ONLY)
  file(STRINGS ${dir}/shmem.fh lines)
  foreach(line ${lines})
    string(LENGTH "${line}" n)
    if(n GREATER 72)
      message(FATAL_ERROR "symm: ${dir}/shmem.fh: a line of ${n} columns (fixed form "
                          "reads 72): ${line}")
    endif()
  endforeach()
endfunction()
# The header that installs, and both forms for the tests: programs that
# declare the functions they call use the short one, f_long the long one.
set(SYMM_FORTRAN_INCLUDE ${PROJECT_BINARY_DIR}/fortran/include)
symm_fortran_header(${SYMM_FORTRAN_INCLUDE} ${SYMM_FORTRAN_LONG_HEADER})
set(SYMM_FORTRAN_INCLUDE_SHORT ${PROJECT_BINARY_DIR}/fortran/include-short)
symm_fortran_header(${SYMM_FORTRAN_INCLUDE_SHORT} OFF)
set(SYMM_FORTRAN_INCLUDE_LONG ${PROJECT_BINARY_DIR}/fortran/include-long)
symm_fortran_header(${SYMM_FORTRAN_INCLUDE_LONG} ON)

# ---- oshfort -------------------------------------------------------------
# Its name as found (f95, gfortran, ifx, ...), except that a link to
# gfortran-N is named gfortran where that is the same compiler.
get_filename_component(SYMM_WRAPPED_FC "${CMAKE_Fortran_COMPILER}" NAME)
get_filename_component(_symm_fc_real "${CMAKE_Fortran_COMPILER}" REALPATH)
get_filename_component(_symm_fc_dir "${CMAKE_Fortran_COMPILER}" DIRECTORY)
get_filename_component(_symm_gf_real "${_symm_fc_dir}/gfortran" REALPATH)
if(EXISTS "${_symm_fc_dir}/gfortran" AND _symm_gf_real STREQUAL _symm_fc_real)
  set(SYMM_WRAPPED_FC gfortran)
endif()
configure_file(${PROJECT_SOURCE_DIR}/tools/oshfort.in ${PROJECT_BINARY_DIR}/oshfort @ONLY)

install(FILES ${SYMM_FORTRAN_INCLUDE}/shmem.fh DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${SYMM_FORTRAN_INCLUDE}/mpp/shmem.fh DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/mpp)
install(PROGRAMS ${PROJECT_BINARY_DIR}/oshfort DESTINATION ${CMAKE_INSTALL_BINDIR})
