#!/bin/sh
# pshmem_complete.sh CC INCLUDE_DIR LIBSYMM: every pshmem_ symbol libsymm
# exports must be declared by pshmem.h (a file naming each one compiles).
set -eu
cc=$1 inc=$2 lib=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
nm -D --defined-only "$lib" | awk '$3 ~ /^pshmem_/ {print $3}' | sort -u > "$tmp/names"
test -s "$tmp/names" || { echo "no pshmem_ symbols in $lib"; exit 1; }
{
    echo '#include <pshmem.h>'
    echo 'void *symm_all_pshmem[] = {'
    sed 's/.*/    (void *)&,/' "$tmp/names"
    echo '};'
} > "$tmp/all.c"
"$cc" -std=c11 -Wall -Wextra -Werror -I"$inc" -c "$tmp/all.c" -o "$tmp/all.o"
echo "pshmem.h declares all $(wc -l < "$tmp/names") pshmem_ symbols"
