# The Python package symm (python/symm): pure Python over libsymm with
# ctypes. At build time it is copied to ${CMAKE_BINARY_DIR}/python/symm with
# a _config.py naming the build tree's library, so the tests (and a user
# trying the build: PYTHONPATH=build/python) run against the build tree; it
# installs to SYMM_PYTHON_INSTALL_DIR with a _config.py naming the installed
# library. The hyper_parallel shim package (python/hyper_parallel) goes
# beside it in the build tree (its tests use it), and is installed only with
# -DSYMM_PYTHON_HYPER_PARALLEL=ON (a top-level package of another project's
# name is the user's choice). Only where SYMM_PYTHON (Debian's
# /usr/bin/python3) has numpy; otherwise this part is skipped with a message.

set(SYMM_PYTHON "/usr/bin/python3" CACHE FILEPATH
  "Python interpreter of the symm Python package and its tests (needs numpy)")
set(SYMM_PYTHON_INSTALL_DIR "${CMAKE_INSTALL_LIBDIR}/python3/dist-packages" CACHE PATH
  "Where the symm Python package installs (relative: under the install prefix)")
option(SYMM_PYTHON_HYPER_PARALLEL
  "Install the hyper_parallel shim (hyper_parallel.core.symmetric_memory = symm.rfc)" OFF)

set(SYMM_HAVE_PYTHON OFF)
if(EXISTS "${SYMM_PYTHON}")
  execute_process(COMMAND "${SYMM_PYTHON}" -c "import numpy"
    RESULT_VARIABLE _symm_py_rc OUTPUT_QUIET ERROR_QUIET)
  if(_symm_py_rc EQUAL 0)
    set(SYMM_HAVE_PYTHON ON)
  endif()
endif()
if(NOT SYMM_HAVE_PYTHON)
  message(STATUS "symm: Python package: no (${SYMM_PYTHON} with numpy not found)")
  return()
endif()
message(STATUS "symm: Python package: yes (${SYMM_PYTHON})")

# ---- the build tree's copy ---------------------------------------------------
file(GLOB_RECURSE SYMM_PY_SOURCES CONFIGURE_DEPENDS
  RELATIVE ${PROJECT_SOURCE_DIR}/python/symm ${PROJECT_SOURCE_DIR}/python/symm/*.py)
list(FILTER SYMM_PY_SOURCES EXCLUDE REGEX "^_config\\.py$")
set(SYMM_PY_BUILD_DIR ${PROJECT_BINARY_DIR}/python/symm)
set(_symm_py_outputs)
foreach(rel ${SYMM_PY_SOURCES})
  add_custom_command(OUTPUT ${SYMM_PY_BUILD_DIR}/${rel}
    COMMAND ${CMAKE_COMMAND} -E copy_if_different ${PROJECT_SOURCE_DIR}/python/symm/${rel}
            ${SYMM_PY_BUILD_DIR}/${rel}
    DEPENDS ${PROJECT_SOURCE_DIR}/python/symm/${rel}
    COMMENT "Copying python/symm/${rel}"
    VERBATIM)
  list(APPEND _symm_py_outputs ${SYMM_PY_BUILD_DIR}/${rel})
endforeach()
file(GENERATE OUTPUT ${SYMM_PY_BUILD_DIR}/_config.py CONTENT
"# Written by CMake (cmake/python.cmake): the library this copy of symm loads.
LIBRARIES = [\"$<TARGET_FILE:symm>\"]
")
# The hyper_parallel shim (hyper_parallel.core.symmetric_memory: symm.rfc
# under the HyperParallel RFC's module name) beside symm.
file(GLOB_RECURSE SYMM_PY_SHIM_SOURCES CONFIGURE_DEPENDS
  RELATIVE ${PROJECT_SOURCE_DIR}/python ${PROJECT_SOURCE_DIR}/python/hyper_parallel/*.py)
foreach(rel ${SYMM_PY_SHIM_SOURCES})
  add_custom_command(OUTPUT ${PROJECT_BINARY_DIR}/python/${rel}
    COMMAND ${CMAKE_COMMAND} -E copy_if_different ${PROJECT_SOURCE_DIR}/python/${rel}
            ${PROJECT_BINARY_DIR}/python/${rel}
    DEPENDS ${PROJECT_SOURCE_DIR}/python/${rel}
    COMMENT "Copying python/${rel}"
    VERBATIM)
  list(APPEND _symm_py_outputs ${PROJECT_BINARY_DIR}/python/${rel})
endforeach()
# PEP 561: the package's type hints are for type checkers too.
add_custom_command(OUTPUT ${SYMM_PY_BUILD_DIR}/py.typed
  COMMAND ${CMAKE_COMMAND} -E copy_if_different ${PROJECT_SOURCE_DIR}/python/symm/py.typed
          ${SYMM_PY_BUILD_DIR}/py.typed
  DEPENDS ${PROJECT_SOURCE_DIR}/python/symm/py.typed
  VERBATIM)
list(APPEND _symm_py_outputs ${SYMM_PY_BUILD_DIR}/py.typed)
add_custom_target(symm_python ALL DEPENDS ${_symm_py_outputs})
add_dependencies(symm_python symm)

# ---- the installed copy --------------------------------------------------------
# _config.py finds the library relative to itself where both install
# directories are relative (so `cmake --install --prefix X` works), and also
# names the configured absolute path.
if(IS_ABSOLUTE "${SYMM_PYTHON_INSTALL_DIR}")
  set(_symm_py_rel "")
else()
  file(RELATIVE_PATH _symm_py_rel "/prefix/${SYMM_PYTHON_INSTALL_DIR}/symm"
    "/prefix/${CMAKE_INSTALL_LIBDIR}")
endif()
file(GENERATE OUTPUT ${PROJECT_BINARY_DIR}/python-install/_config.py CONTENT
"# Written by CMake (cmake/python.cmake): the installed library.
import os as _os

_here = _os.path.dirname(_os.path.abspath(__file__))
LIBRARIES = [p for p in (
    _os.path.normpath(_os.path.join(_here, \"${_symm_py_rel}\", \"$<TARGET_FILE_NAME:symm>\"))
    if \"${_symm_py_rel}\" else None,
    \"${CMAKE_INSTALL_FULL_LIBDIR}/$<TARGET_FILE_NAME:symm>\",
) if p]
")
install(FILES ${PROJECT_BINARY_DIR}/python-install/_config.py
  DESTINATION ${SYMM_PYTHON_INSTALL_DIR}/symm)
foreach(rel ${SYMM_PY_SOURCES})
  get_filename_component(dir ${rel} DIRECTORY)
  install(FILES ${PROJECT_SOURCE_DIR}/python/symm/${rel} DESTINATION ${SYMM_PYTHON_INSTALL_DIR}/symm/${dir})
endforeach()
install(FILES ${PROJECT_SOURCE_DIR}/python/symm/py.typed DESTINATION ${SYMM_PYTHON_INSTALL_DIR}/symm)
if(SYMM_PYTHON_HYPER_PARALLEL)
  foreach(rel ${SYMM_PY_SHIM_SOURCES})
    get_filename_component(dir ${rel} DIRECTORY)
    install(FILES ${PROJECT_SOURCE_DIR}/python/${rel} DESTINATION ${SYMM_PYTHON_INSTALL_DIR}/${dir})
  endforeach()
endif()
file(GLOB SYMM_PY_EXAMPLES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/examples/python/*.py)
install(FILES ${SYMM_PY_EXAMPLES} DESTINATION ${CMAKE_INSTALL_DATADIR}/symm/examples/python)
