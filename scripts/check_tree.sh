#!/bin/bash
# check_tree.sh SRC_DIR [ARCHIVE [PLUGIN...]] - the rules of src/'s shape that a compiler
# does not check (docs/ARCHITECTURE.md, "Conventions"):
#  1. file names are unique across SRC_DIR: a name says its layer and object
#     (ops/region_ops.c, mem/region_table.c), so a name alone finds the file;
#  2. no function body is longer than MAX_LINES (120) lines: a longer one is
#     split into named steps;
#  3. with ARCHIVE (libsymm.a): every global symbol it defines is public API
#     (shmem_, pshmem_, shmemx_, pshmemx_, aclshmem, the spec's legacy names,
#     the Fortran annex's: start_pes_, my_pe_, num_pes_, shpalloc_, ...)
#     or prefixed symm_: a program that links libsymm.a may define any other
#     name itself (an unprefixed `arrived` once clashed with a user's);
#  4. with PLUGIN files (runtime/plugin.h): each exports symm_plugin_entry
#     and nothing else, and needs no symm_ name from outside itself (the
#     host's services reach a plugin through its table: a plugin that
#     called libsymm by name would bind to whatever defines the name).
# Each violation is one line; the exit status is then 1 (2 for a usage
# error). On success one summary line.
#
# Function bodies are found as clang-format lays them out (.clang-format:
# Linux braces): a line "{" at column 0 opens a function, "}" at column 0
# closes it, the signature is the last line before it that starts a name.
set -eu
export LC_ALL=C
MAX_LINES=${MAX_LINES:-120}

usage() { echo "usage: $0 SRC_DIR [ARCHIVE [PLUGIN...]]" >&2; exit 2; }
[ $# -ge 1 ] || usage
[ -d "$1" ] || { echo "check_tree: $1: no such directory" >&2; exit 2; }
src=$1
lib=${2:-}
shift $(($# >= 2 ? 2 : 1))
plugins=("$@")
[ -z "$lib" ] || [ -f "$lib" ] || { echo "check_tree: $lib: no such file (build the library first)" >&2; exit 2; }

tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
nfiles=$(find "$src" -type f \( -name '*.c' -o -name '*.h' \) | wc -l)

# 1. unique file names
find "$src" -type f \( -name '*.c' -o -name '*.h' \) | sort | awk -F/ '
  { n = $NF; where[n] = where[n] " " $0; count[n]++ }
  END { for (n in count) if (count[n] > 1) print "name: " n " is used " count[n] " times:" where[n] }
' | sort >> "$tmp"

# 2. function length
find "$src" -type f \( -name '*.c' -o -name '*.h' \) | sort | xargs awk -v max="$MAX_LINES" '
  FNR == 1 { infn = 0; sig = "" }
  !infn && /^[A-Za-z_].*\(/ { sig = $0; sigline = FNR }
  !infn && /^\{/ {
    infn = 1; start = FNR; name = sig; sub(/\(.*/, "", name)
    n = split(name, w, /[ *]+/); name = w[n]; next
  }
  infn && /^\}/ {
    infn = 0; len = FNR - start - 1
    if (len > max) print "length: " FILENAME ":" sigline ": " name "() is " len " lines (at most " max ")"
  }
' >> "$tmp"

# 3. global symbols of the archive
nsyms=0
if [ -n "$lib" ]; then
  nm -A -g --defined-only "$lib" 2>/dev/null | awk 'NF == 3 { print $1 " " $3 }' > "$tmp.syms"
  nsyms=$(wc -l < "$tmp.syms")
  # The spec's legacy routines (start_pes, shmalloc, _my_pe, ...) and their
  # profiling aliases are public names too; the sanitizers' own symbols
  # (__odr_asan.NAME, __asan_..., __tsan_...) are the compiler's, not ours.
  grep -v -E ' (__odr_asan[.]|__asan_|__tsan_|__ubsan_|__sanitizer_)' "$tmp.syms" > "$tmp.own" || true
  mv "$tmp.own" "$tmp.syms"
  nsyms=$(wc -l < "$tmp.syms")
  grep -v -E ' p?(shmem_|shmemx_|aclshmem|symm_|SHMEM_|start_pes_?$|_my_pe$|_num_pes$|shmalloc$|shfree$|shrealloc$|shmemalign$|my_pe_$|num_pes_$|shp(alloc|clmove|deallc)_$)' \
    "$tmp.syms" | awk '{ n = split($1, p, ":"); print "symbol: " $2 " (defined in " p[n - 1] ") is global and not prefixed symm_" }' \
    | sort -u >> "$tmp" || true
  rm -f "$tmp.syms"
fi

# 4. plugins
for p in ${plugins[@]+"${plugins[@]}"}; do
  [ -f "$p" ] || { echo "check_tree: $p: no such file (build the plugins first)" >&2; exit 2; }
  nm -D --defined-only "$p" | awk -v p="$(basename "$p")" '
    NF == 3 && $2 ~ /^[TDBRVW]$/ && $3 != "symm_plugin_entry" && $3 !~ /^_/ {
      print "plugin: " p " exports " $3 " (only symm_plugin_entry)" }' >> "$tmp"
  nm -D -u "$p" | awk -v p="$(basename "$p")" '
    $2 ~ /^symm_/ { print "plugin: " p " needs " $2 " from outside (host services go through its table)" }' >> "$tmp"
done

if [ -s "$tmp" ]; then
  cat "$tmp"
  echo "check_tree: $(wc -l < "$tmp") violation(s)" >&2
  exit 1
fi
echo "check_tree: $nfiles files, unique names, no function over $MAX_LINES lines${lib:+, $nsyms global symbols all prefixed}${plugins[0]:+, ${#plugins[@]} plugins export only their entry}"
