# The documentation: docs/environment.md is generated from the variable
# table (scripts/gen_env_doc.sh) and must match what the generator makes of
# src/runtime/env_def.h today; every relative link in README.md and docs/
# names an existing file.
add_test(NAME docs_env_reference
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/scripts/docs_env_check.sh
          ${PROJECT_SOURCE_DIR}/scripts/gen_env_doc.sh
          ${PROJECT_SOURCE_DIR}/src/runtime/env_def.h
          ${PROJECT_SOURCE_DIR}/docs/environment.md
          ${CMAKE_CURRENT_BINARY_DIR}/docs)
add_test(NAME docs_links
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/scripts/docs_links.sh ${PROJECT_SOURCE_DIR})
set_tests_properties(docs_env_reference docs_links PROPERTIES TIMEOUT 60 LABELS docs)
# docs/ARCHITECTURE.md shows the collectives' tables of forms: the block
# between its algorithms markers is exactly what symm-info --algorithms
# prints from the tables in coll/coll_dispatch.c.
add_test(NAME coll_table_doc
  COMMAND sh -c "sed -n '/^<!-- algorithms:/,/^<!-- end algorithms -->/p' \"$1\" | sed '1,2d;$d' | sed '$d' > \"$3\" && \"$2\" --algorithms | diff -u \"$3\" - >&2 || { echo 'coll_table_doc: docs/ARCHITECTURE.md differs from symm-info --algorithms (regenerate the block)' >&2; exit 1; }"
          sh ${PROJECT_SOURCE_DIR}/docs/ARCHITECTURE.md $<TARGET_FILE:symm-info>
          ${CMAKE_CURRENT_BINARY_DIR}/arch_algorithms.txt)
set_tests_properties(coll_table_doc PROPERTIES TIMEOUT 60 LABELS docs)
