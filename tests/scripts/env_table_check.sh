#!/bin/bash
# env_table_check.sh TABLE DIR... - every environment variable the sources
# read is a row of TABLE (src/runtime/env_def.h), so SHMEM_INFO, symm-info
# and docs/environment.md can list them all.
#
# Read means, in C (*.c, *.h): getenv/secure_getenv (or any helper whose name
# contains getenv) called with a literal name, and any string literal that is
# exactly a SYMM_ name (arrays of names read in a loop, setenv for the PEs);
# in shell scripts (*.in, *.sh): ${SYMM_...} / ${SHMEM_...}; in Python:
# os.environ.get/setdefault/[...] and os.getenv with a literal name.
# Names outside our namespaces (SYMM_, SHMEM_) must be in FOREIGN below
# instead: other programs' variables we read on purpose.
set -u
table=$1
shift
FOREIGN='^(HOME|PATH|PYTHONPATH|XDG_CONFIG_HOME|PMIX_RANK|PMIX_NAMESPACE|PMI_SIZE|UCX_[A-Z0-9_]+)$'

known=$(grep -oE '^[[:space:]]*X\([A-Z][A-Z0-9_]*,' "$table" | sed -E 's/^[[:space:]]*X\(//; s/,$//')
if [ -z "$known" ]; then
    echo "env_table_check: no X(NAME, ...) rows in $table" >&2
    exit 2
fi

# "file:line:NAME" for every name read.
reads() {
    local f
    for f in $(find "$@" -type f \( -name '*.c' -o -name '*.h' -o -name '*.in' -o -name '*.sh' \
                  -o -name '*.py' \) | sort); do
        [ "$f" -ef "$table" ] && continue
        case $f in
        *.c | *.h)
            grep -noE '[A-Za-z_]*getenv[A-Za-z_]*\([[:space:]]*"[A-Za-z_][A-Za-z0-9_]*"' "$f" |
                sed -E 's/^([0-9]+):.*"([^"]*)"$/\1:\2/'
            grep -noE '"SYMM_[A-Z0-9_]+"' "$f" | sed -E 's/^([0-9]+):"(.*)"$/\1:\2/'
            ;;
        *.in | *.sh)
            grep -noE '\$\{(SYMM|SHMEM)_[A-Z0-9_]+' "$f" | sed -E 's/^([0-9]+):\$\{/\1:/'
            ;;
        *.py)
            grep -noE '(os\.environ(\.get|\.setdefault)?[[(]|os\.getenv\()[[:space:]]*"[A-Za-z_][A-Za-z0-9_]*"' "$f" |
                sed -E 's/^([0-9]+):.*"([^"]*)"$/\1:\2/'
            ;;
        esac | sed "s|^|$f:|"
    done
}

bad=0 n=0
while IFS= read -r hit; do
    [ -n "$hit" ] || continue
    n=$((n + 1))
    name=${hit##*:}
    if grep -qxF "$name" <<<"$known"; then
        continue
    fi
    case $name in
    SYMM_* | SHMEM_*) ;;
    *) [[ $name =~ $FOREIGN ]] && continue ;;
    esac
    echo "env_table_check: ${hit%:*}: $name is read but is not a row of $table" >&2
    bad=1
done < <(reads "$@")
if [ "$n" -eq 0 ]; then
    echo "env_table_check: found no variable read in $* (is the pattern broken?)" >&2
    exit 2
fi
[ $bad -eq 0 ] && echo "env_table_check: $n reads, all in the table"
exit $bad
