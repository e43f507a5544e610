#!/bin/bash
# check_layers.sh SRC_DIR [OBJ_DIR] - check that the directories of src/ only
# depend downwards in the layer order below.
#
# SRC_DIR  the source tree (src/); every top directory of it must be a layer.
# OBJ_DIR  the CMake object directory of the library, mirroring SRC_DIR
#          (build/CMakeFiles/symm_obj.dir/src); optional: without it only the
#          includes are checked.
#
# A directory may use its own layer and the ones below it, never one above:
#  1. an #include "dir/..." in SRC_DIR/**/*.c|h naming a higher directory
#     (includes without a directory, "shmem.h", <...>, are public or system
#     headers; a quoted include found next to the including file is of the
#     file's own directory);
#  2. a symbol an object of OBJ_DIR leaves undefined (nm -u) that an object
#     of a higher directory defines (nm --defined-only, global symbols).
#     The public API (shmem_*, aclshmem*, ...) is no exception: lower layers
#     call the internal symm_ routines, never the API;
#  3. a cycle among directories, over the include and symbol edges together.
# Each violation is one line naming file:line, the include or symbol and the
# two directories; the exit status is then 1 (2 for a usage error). On
# success one summary line.
#
# A subdirectory (src/transport/ucx/) belongs to its top directory.

# The layers, top to bottom. The only place the order is written.
LAYERS="api core stream coll team ops transport mem boot runtime"

set -eu
export LC_ALL=C

usage() { echo "usage: $0 SRC_DIR [OBJ_DIR]" >&2; exit 2; }
[ $# -ge 1 ] && [ $# -le 2 ] || usage
[ -d "$1" ] || { echo "check_layers: $1: no such directory" >&2; exit 2; }
src=$(cd "$1" && pwd -P)
obj=""
if [ $# -eq 2 ]; then
  [ -d "$2" ] || { echo "check_layers: $2: no such directory (build the library first)" >&2; exit 2; }
  obj=$(cd "$2" && pwd -P)
fi
# Paths are printed as src/ops/rma.c: relative to SRC_DIR's parent.
shown=$(basename "$src")

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# ---- the sources: files, and their quoted includes --------------------------
(cd "$src" && find . -type f \( -name '*.c' -o -name '*.h' \) | sed 's|^\./||' | sort) > "$tmp/files"
nfiles=$(wc -l < "$tmp/files")

# includes: FILE LINE INCLUDE (one per quoted #include)
(cd "$src" && tr '\n' '\0' < "$tmp/files" | xargs -0 -r awk '
  /^[ \t]*#[ \t]*include[ \t]*"/ {
    s = $0; sub(/^[ \t]*#[ \t]*include[ \t]*"/, "", s); sub(/".*/, "", s)
    print FILENAME "\t" FNR "\t" s
  }') > "$tmp/includes"

# ---- the objects: which directory defines what, and who references it ------
: > "$tmp/defs"
: > "$tmp/refs"
nobjs=0
if [ -n "$obj" ]; then
  # Only objects of sources that exist: a build tree keeps the objects of
  # files since moved or deleted, which would define symbols twice.
  (cd "$obj" && find . -type f -name '*.o' | sed 's|^\./||' | sort) |
    while read -r o; do [ -f "$src/${o%.o}" ] && echo "$o"; done > "$tmp/objs"
  nobjs=$(wc -l < "$tmp/objs")
  [ "$nobjs" -gt 0 ] || { echo "check_layers: $obj: no object files (build the library first)" >&2; exit 2; }
  # nm -A: every line starts "ops/rma.c.o:"; the source is ops/rma.c.
  # defs: SYMBOL SOURCE (global symbols only: upper case types, u unique)
  (cd "$obj" && tr '\n' '\0' < "$tmp/objs" | xargs -0 -r nm -A --defined-only) | awk '{
      i = index($0, ".o:"); s = substr($0, 1, i - 1); n = split(substr($0, i + 3), w, " ")
      if (n >= 3 && w[2] ~ /^[A-Zu]$/) print w[3] "\t" s }' > "$tmp/defs"
  # refs: SYMBOL SOURCE LOCATION (nm -l: the file:line of the first
  # reference, when the object has debug information; "-" when not)
  (cd "$obj" && tr '\n' '\0' < "$tmp/objs" | xargs -0 -r nm -A -l -u) | awk '{
      i = index($0, ".o:"); s = substr($0, 1, i - 1); r = substr($0, i + 3)
      split(r, p, "\t"); n = split(p[1], w, " ")
      print w[n] "\t" s "\t" (p[2] == "" ? "-" : p[2]) }' > "$tmp/refs"
fi

# ---- the checks --------------------------------------------------------------
# Output: "V <sortkey> <line>" per violation, "E from to kind" per directory
# edge, "C includes symbols" counts.
awk -v layers="$LAYERS" -v src="$src" -v shown="$shown" -F '\t' '
  function top(path,   i) { i = index(path, "/"); return i ? substr(path, 1, i - 1) : "." }
  function dirname(path,   i) { i = match(path, /\/[^\/]*$/); return i ? substr(path, 1, i - 1) : "" }
  function norm(path,   n, i, k, p, out, o) {       # a/b/../c -> a/c
    n = split(path, p, "/"); k = 0
    for (i = 1; i <= n; i++) {
      if (p[i] == "" || p[i] == ".") continue
      if (p[i] == "..") { if (k > 0) k--; else return "" ; continue }
      o[++k] = p[i]
    }
    out = ""
    for (i = 1; i <= k; i++) out = out (i > 1 ? "/" : "") o[i]
    return out
  }
  function lineof(loc,   i) { i = match(loc, /:[0-9]+/); return i ? substr(loc, i + 1, RLENGTH - 1) : 0 }
  function show(path) { return shown "/" path }
  function where(loc,   s) {                          # nm -l location, shortened
    s = loc
    if (index(s, src "/") == 1) s = shown "/" substr(s, length(src) + 2)
    return s
  }
  function layer_ok(d, what) {
    if (d in rank) return 1
    if (!(d in badlayer)) {
      badlayer[d] = 1
      print "V\t0\t" what "\t0\t" what ": directory " d " is not in the layer order (" layers ")"
    }
    return 0
  }
  function edge(a, b, kind) {
    if (a == b) return
    if (!((a, b) in seen)) { seen[a, b] = 1; print "E\t" a "\t" b "\t" kind }
  }
  BEGIN {
    n = split(layers, L, " ")
    for (i = 1; i <= n; i++) rank[L[i]] = i          # 1 = top (api)
  }
  FILENAME ~ /\/files$/ { have[$1] = 1; layer_ok(top($1), show($1)); next }
  FILENAME ~ /\/includes$/ {
    f = $1; line = $2; inc = $3; from = top(f)
    if (!layer_ok(from, show(f))) next
    # A quoted include is looked up next to the including file first, then
    # in SRC_DIR (-I src); what is in neither is a public or system header.
    t = norm((dirname(f) == "" ? "" : dirname(f) "/") inc)
    if (!(t in have)) { t = norm(inc); if (!(t in have)) next }
    to = top(t); nincl++
    if (!layer_ok(to, show(f) ":" line ": #include \"" inc "\"")) next
    edge(from, to, "include")
    if (rank[to] < rank[from])
      print "V\t1\t" f "\t" line "\t" show(f) ":" line ": #include \"" inc "\": " from " -> " to " (" to " is above " from ")"
    next
  }
  FILENAME ~ /\/defs$/ {
    d = top($2)
    if (!(($1, d) in defdir)) { defdir[$1, d] = 1; defs[$1] = defs[$1] " " d }
    if (!($1 in defsrc)) defsrc[$1] = $2
    next
  }
  FILENAME ~ /\/refs$/ {
    sym = $1; s = $2; loc = $3
    if (!(sym in defs)) next                       # libc, UCX, ...: not ours
    from = top(s)
    if (!layer_ok(from, show(s) ".o")) next
    nsym++
    if ((sym, from) in defdir) next                # defined in its own layer
    at = (loc == "-") ? show(s) : where(loc)
    if (loc != "-" && index(loc, src "/" s ":") != 1 && index(loc, s ":") != 1)
      at = at " (in " show(s) ")"
    m = split(substr(defs[sym], 2), D, " ")
    for (i = 1; i <= m; i++) {
      to = D[i]
      if (!layer_ok(to, show(defsrc[sym]) ".o")) continue
      edge(from, to, "symbol")
      if (rank[to] < rank[from])
        print "V\t2\t" s "\t" lineof(loc) "\t" at ": symbol " sym " (defined in " show(defsrc[sym]) "): " from " -> " to " (" to " is above " from ")"
    }
    next
  }
  END { print "C\t" nincl + 0 "\t" nsym + 0 }
' "$tmp/files" "$tmp/includes" "$tmp/defs" "$tmp/refs" > "$tmp/out"

# Violations by kind (layer order, include, symbol), then file and line.
awk -F '\t' '$1 == "V" { printf "%s\t%s\t%08d\t%s\n", $2, $3, $4, $5 }' "$tmp/out" \
  | sort -t "$(printf '\t')" -k1,1n -k2,2 -k3,3n -k4,4 | cut -f4 | awk '!seen[$0]++' > "$tmp/violations"
awk -F '\t' '$1 == "E" { print $2, $3 }' "$tmp/out" > "$tmp/edges"
nincl=$(awk -F '\t' '$1 == "C" { print $2 }' "$tmp/out")
nsym=$(awk -F '\t' '$1 == "C" { print $3 }' "$tmp/out")

# ---- cycles ------------------------------------------------------------------
# tsort finds the loops; each is printed as a path along existing edges (the
# shortest cycle through the first directory tsort names), starting from its
# highest directory.
if ! tsort "$tmp/edges" > /dev/null 2> "$tmp/tsort"; then
  awk -v layers="$LAYERS" '
    BEGIN { n = split(layers, L, " "); for (i = 1; i <= n; i++) rank[L[i]] = i }
    FNR == NR { adj[$1] = adj[$1] " " $2; next }
    /input contains a loop/ { first = ""; next }
    first == "" && $1 == "tsort:" { first = $2; cycle(first) }
    function cycle(x,   q, head, tail, u, v, n, i, nb, prev, visited, c, k, best, path) {
      head = 1; tail = 0                             # breadth first, x back to x
      n = split(substr(adj[x], 2), nb, " ")
      for (i = 1; i <= n; i++) if (!(nb[i] in visited)) { visited[nb[i]] = 1; prev[nb[i]] = x; q[++tail] = nb[i] }
      while (head <= tail && !(x in visited)) {
        u = q[head++]
        n = split(substr(adj[u], 2), nb, " ")
        for (i = 1; i <= n; i++) {
          v = nb[i]
          if (!(v in visited)) { visited[v] = 1; prev[v] = u; q[++tail] = v }
        }
      }
      if (!(x in prev)) return
      k = 0; u = x                                   # c[1..k]: the cycle, backwards
      do { c[++k] = u; u = prev[u] } while (u != x)
      best = 1
      for (i = 2; i <= k; i++) if (rank[c[i]] < rank[c[best]]) best = i
      path = c[best]
      for (i = 1; i <= k; i++) path = path " -> " c[(best - i + k - 1) % k + 1]
      if (!(path in printed)) { printed[path] = 1; print "cycle: " path }
    }
  ' "$tmp/edges" "$tmp/tsort" >> "$tmp/violations"
fi

order=$(echo $LAYERS | sed 's/ / > /g')
if [ -s "$tmp/violations" ]; then
  cat "$tmp/violations"
  echo "layers: $(wc -l < "$tmp/violations") violation(s) of the order $order" >&2
  exit 1
fi
echo "layers: $nfiles files, $nobjs objects, $nincl include edges, $nsym symbol edges, order $order ok"
