# The Python package (python/symm, cmake/python.cmake): pytest files under
# the build tree's oshrun at 1, 2 and 4 PEs, each a separate ctest test
# (core, coll, fused, register, torch) so each stays well under a minute at 4 PEs on
# 2 cores; a unique-id job of N processes started without a launcher; the
# examples. Not in sanitizer builds (python3 is not instrumented), and only
# where SYMM_PYTHON has numpy (and pytest; torch for the torch part).

if(NOT SYMM_HAVE_PYTHON)
  return()
endif()
if(SYMM_SANITIZE OR SYMM_TSAN)
  message(STATUS "symm: Python tests: not in a sanitizer build")
  return()
endif()

function(_symm_py_has module out)
  execute_process(COMMAND "${SYMM_PYTHON}" -c
    "import importlib.util, sys; sys.exit(importlib.util.find_spec('${module}') is None)"
    RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
  if(rc EQUAL 0)
    set(${out} ON PARENT_SCOPE)
  else()
    set(${out} OFF PARENT_SCOPE)
  endif()
endfunction()
_symm_py_has(pytest SYMM_HAVE_PYTEST)
_symm_py_has(torch SYMM_HAVE_TORCH)

# Run against the build tree's copy of the package and library; never
# write bytecode or pytest caches into the source tree; one BLAS/OpenMP
# thread per PE (the PEs already oversubscribe the cores).
set(SYMM_PY_TEST_ENV
  "PYTHONPATH=${PROJECT_BINARY_DIR}/python"
  "SYMM_LIBRARY=$<TARGET_FILE:symm>"
  "PYTHONDONTWRITEBYTECODE=1"
  "OPENBLAS_NUM_THREADS=1"
  "OMP_NUM_THREADS=1")

# symm_py_test(NAME NP TIMEOUT COMMAND...): under oshrun with NP PEs.
function(symm_py_test name np timeout)
  add_test(NAME ${name}.np${np}
    COMMAND ${SYMM_OSHRUN} --timeout ${timeout} -np ${np} ${ARGN})
  math(EXPR ctest_timeout "${timeout} + 10")
  set_tests_properties(${name}.np${np} PROPERTIES TIMEOUT ${ctest_timeout}
    ENVIRONMENT "${SYMM_PY_TEST_ENV}" LABELS python)
endfunction()

if(SYMM_HAVE_PYTEST)
  set(_parts core coll fused register)
  if(SYMM_HAVE_TORCH)
    list(APPEND _parts torch)
  else()
    message(STATUS "symm: Python tests: torch not found, python_torch not registered")
  endif()
  foreach(part ${_parts})
    foreach(np ${SYMM_TEST_NPS})
      symm_py_test(python_${part} ${np} 120
        ${SYMM_PYTHON} -m pytest -q -p no:cacheprovider
        ${CMAKE_CURRENT_SOURCE_DIR}/python/test_${part}.py)
    endforeach()
  endforeach()
  # The package over the network path: every peer through UCX.
  if(SYMM_HAVE_UCX AND SYMM_TEST_UCX)
    foreach(np 2 4)
      add_test(NAME python_ucx.np${np}
        COMMAND ${SYMM_OSHRUN} --timeout 120 -np ${np} ${SYMM_PYTHON} -m pytest -q
                -p no:cacheprovider ${CMAKE_CURRENT_SOURCE_DIR}/python/test_core.py
                ${CMAKE_CURRENT_SOURCE_DIR}/python/test_coll.py
                ${CMAKE_CURRENT_SOURCE_DIR}/python/test_fused.py
                ${CMAKE_CURRENT_SOURCE_DIR}/python/test_register.py)
      set_tests_properties(python_ucx.np${np} PROPERTIES TIMEOUT 130
        ENVIRONMENT "${SYMM_PY_TEST_ENV};SYMM_TRANSPORT=ucx" LABELS "python;ucx")
    endforeach()
  endif()
else()
  message(STATUS "symm: Python tests: pytest not found for ${SYMM_PYTHON}; not registered")
endif()

# Unique-id initialisation: N python processes, no launcher, the id passed
# through a temporary file.
foreach(np ${SYMM_TEST_NPS})
  add_test(NAME python_uid.np${np}
    COMMAND ${SYMM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/python/uid_driver.py ${np})
  set_tests_properties(python_uid.np${np} PROPERTIES TIMEOUT 120
    ENVIRONMENT "${SYMM_PY_TEST_ENV}" LABELS python)
endforeach()

# The examples a newcomer runs, and the benchmark's quick mode.
foreach(ex hello producer_consumer fused_matmul)
  foreach(np ${SYMM_TEST_NPS})
    symm_py_test(python_example_${ex} ${np} 60
      ${SYMM_PYTHON} ${PROJECT_SOURCE_DIR}/examples/python/${ex}.py)
  endforeach()
endforeach()
symm_py_test(python_bench 2 120 ${SYMM_PYTHON} -m symm.bench --quick)

# Symmetric arrays used after symm.finalize(): symm's routines raise, plain
# numpy reads zeros instead of crashing (python/symm/_arrays.py, retire).
foreach(np 1 2)
  symm_py_test(python_after_finalize ${np} 60
    ${SYMM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/python/after_finalize.py)
  set_tests_properties(python_after_finalize.np${np} PROPERTIES
    PASS_REGULAR_EXPRESSION "after_finalize: PE 0 ok" FAIL_REGULAR_EXPRESSION "FAIL")
endforeach()

# The package's shape: import loads nothing and edits no environment, no
# import circle, py.typed (python/package_check.py).
add_test(NAME python_package
  COMMAND ${SYMM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/python/package_check.py
          ${PROJECT_BINARY_DIR}/python)
set_tests_properties(python_package PROPERTIES TIMEOUT 60 LABELS python
  ENVIRONMENT "PYTHONDONTWRITEBYTECODE=1")

# The README's route with another python3 first on PATH: oshrun runs
# SYMM_PYTHON with the package (tools/oshrun.c, use_symm_python).
add_test(NAME python_path
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/scripts/python_path.sh ${SYMM_OSHRUN}
          ${PROJECT_SOURCE_DIR}/examples/python)
set_tests_properties(python_path PROPERTIES TIMEOUT 150 LABELS python)

# symm.rfc (hyper_parallel.core.symmetric_memory, the HyperParallel RFC's
# API): every routine under oshrun and as torch.distributed (gloo) ranks
# started the way torchrun starts them (python/torchrun_driver.py: Debian
# 12's torchrun does not run on its Python 3.11); the RFC's two quick
# starts, as written but for device='cpu', both ways; the start-up from
# torch.distributed (with and without a process group, and with the
# program's own unique id); TLS really on in it (a rank with it off is
# refused); a rank killed mid-job ends the others with a report naming it.
if(SYMM_HAVE_TORCH)
  set(_rfc_driver ${SYMM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/python/torchrun_driver.py)
  # symm_rfc_torchrun_test(NAME NP TIMEOUT ARGS...): the driver with NP ranks.
  function(symm_rfc_torchrun_test name np timeout)
    add_test(NAME ${name}.np${np} COMMAND ${_rfc_driver} ${ARGN})
    set_tests_properties(${name}.np${np} PROPERTIES TIMEOUT ${timeout}
      ENVIRONMENT "${SYMM_PY_TEST_ENV}" LABELS python)
  endfunction()
  if(SYMM_HAVE_PYTEST)
    foreach(np ${SYMM_TEST_NPS})
      symm_py_test(python_rfc ${np} 120
        ${SYMM_PYTHON} -m pytest -q -p no:cacheprovider ${CMAKE_CURRENT_SOURCE_DIR}/python/test_rfc.py)
    endforeach()
    foreach(np 2 4)
      symm_rfc_torchrun_test(python_rfc_torchrun ${np} 120 --timeout 110 ${np}
        ${SYMM_PYTHON} -m pytest -q -p no:cacheprovider ${CMAKE_CURRENT_SOURCE_DIR}/python/test_rfc.py)
      # Every peer through UCX: the RFC's puts, signals and alltoall on the
      # network path.
      if(SYMM_HAVE_UCX AND SYMM_TEST_UCX)
        add_test(NAME python_rfc_ucx.np${np}
          COMMAND ${SYMM_OSHRUN} --timeout 120 -np ${np} ${SYMM_PYTHON} -m pytest -q
                  -p no:cacheprovider ${CMAKE_CURRENT_SOURCE_DIR}/python/test_rfc.py)
        set_tests_properties(python_rfc_ucx.np${np} PROPERTIES TIMEOUT 130
          ENVIRONMENT "${SYMM_PY_TEST_ENV};SYMM_TRANSPORT=ucx" LABELS "python;ucx")
      endif()
    endforeach()
  endif()
  foreach(ex producer_consumer fused_matmul)
    set(_ex ${PROJECT_SOURCE_DIR}/examples/python/rfc_${ex}.py)
    foreach(np 2 4)
      symm_rfc_torchrun_test(python_rfc_example_${ex}_torchrun ${np} 60 --timeout 50 --ok-line
        ${np} ${SYMM_PYTHON} ${_ex})
    endforeach()
    foreach(np ${SYMM_TEST_NPS})
      symm_py_test(python_rfc_example_${ex} ${np} 60
        ${SYMM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/python/as_torchrun.py ${_ex})
    endforeach()
  endforeach()
  # symm.torch: the torch.distributed backend "symm" and the DDP hooks
  # (tests/python/test_torch_dist.py), as torchrun starts ranks and under oshrun,
  # and with every peer through UCX.
  if(SYMM_HAVE_PYTEST)
    foreach(np ${SYMM_TEST_NPS})
      symm_rfc_torchrun_test(python_torch_dist_torchrun ${np} 180 --timeout 170 ${np}
        ${SYMM_PYTHON} -m pytest -q -p no:cacheprovider ${CMAKE_CURRENT_SOURCE_DIR}/python/test_torch_dist.py)
      symm_py_test(python_torch_dist ${np} 180
        ${SYMM_PYTHON} -m pytest -q -p no:cacheprovider ${CMAKE_CURRENT_SOURCE_DIR}/python/test_torch_dist.py)
    endforeach()
    if(SYMM_HAVE_UCX AND SYMM_TEST_UCX)
      add_test(NAME python_torch_dist_ucx.np2
        COMMAND ${SYMM_OSHRUN} --timeout 170 -np 2 ${SYMM_PYTHON} -m pytest -q
                -p no:cacheprovider ${CMAKE_CURRENT_SOURCE_DIR}/python/test_torch_dist.py)
      set_tests_properties(python_torch_dist_ucx.np2 PROPERTIES TIMEOUT 180
        ENVIRONMENT "${SYMM_PY_TEST_ENV};SYMM_TRANSPORT=ucx" LABELS "python;ucx")
    endif()
  endif()
  # PyTorch's own distributed suite against the symm backend
  # (python/torch_suite.py): a slice of it at 2 and 4 ranks (collectives,
  # all_gather_coalesced, sparse all_reduce, send/recv from any source,
  # barriers, groups); the whole suite runs by hand (docs/user-guide/python.md).
  foreach(np 2 4)
    add_test(NAME python_torch_suite.np${np}
      COMMAND ${SYMM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/python/torch_suite.py
              -k test_all_reduce_sum -k test_all_gather_coalesced -k test_sparse_all_reduce
              -k test_send_recv_any_source -k test_barrier_group -k test_new_subgroups
              -k test_all_reduce_group)
    set_tests_properties(python_torch_suite.np${np} PROPERTIES TIMEOUT 900 LABELS python
      ENVIRONMENT "${SYMM_PY_TEST_ENV};WORLD_SIZE=${np}")
  endforeach()
  foreach(mode pg env uid)
    foreach(np 2 4)
      symm_rfc_torchrun_test(python_rfc_start_${mode} ${np} 60 --timeout 50 --ok-line ${np}
        ${SYMM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/python/rfc_start_worker.py ${mode})
    endforeach()
  endforeach()
  if(SYMM_HAVE_TLS)
    symm_rfc_torchrun_test(python_rfc_tls 2 60 --timeout 50 --rank-env 1:SYMM_BOOT_TLS=0
      --expect-fail "TLS is on at one PE and off at the other" 2
      ${SYMM_PYTHON} ${PROJECT_SOURCE_DIR}/examples/python/rfc_producer_consumer.py)
  endif()
  foreach(t "2;0" "4;2")
    list(GET t 0 np)
    list(GET t 1 victim)
    symm_rfc_torchrun_test(python_rfc_kill ${np} 60 --timeout 40 --kill ${victim} --within 20
      ${np} ${SYMM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/python/rfc_kill_worker.py)
  endforeach()
endif()
