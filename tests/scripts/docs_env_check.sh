#!/bin/bash
# docs_env_check.sh GENERATOR ENV_DEF_H DOC OUTDIR - docs/environment.md is
# what scripts/gen_env_doc.sh makes of src/runtime/env_def.h today: it
# regenerates the page into OUTDIR and fails with the diff when the
# committed one differs (a row added, a help string changed).
set -u
gen=$1 table=$2 doc=$3 out=$4
mkdir -p "$out" || exit 2
if ! "$gen" "$table" >"$out/environment.md"; then
    echo "docs_env_check: $gen $table failed" >&2
    exit 1
fi
if ! diff -u "$doc" "$out/environment.md"; then
    echo "docs_env_check: $doc is out of date; regenerate it:" >&2
    echo "  scripts/gen_env_doc.sh src/runtime/env_def.h > docs/environment.md" >&2
    exit 1
fi
echo "docs_env_check: $doc matches $table"
