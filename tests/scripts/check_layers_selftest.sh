#!/bin/bash
# check_layers_selftest.sh CHECKER [CC] - scripts/check_layers.sh on a tiny
# made-up src/ tree: clean, it passes; with an upward include, an upward call
# (to the public API, and from a subdirectory), a cycle and a directory
# outside the order, it fails and names each.
set -eu
checker=$1
cc=${2:-cc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
s=$tmp/src
o=$tmp/obj
fail() { echo "check_layers_selftest: $*" >&2; exit 1; }

mkdir -p "$tmp/include"
: > "$tmp/include/shmem.h"   # a public header, outside src/
# unpack: stdin holds files, each "=== PATH" then its lines, written in src/.
unpack() {
  awk -v s="$s" '
    /^=== / { if (f != "") close(f); f = s "/" $2; d = f; sub(/\/[^\/]*$/, "", d)
              system("mkdir -p \"" d "\""); printf "" > f; next }
    { print >> f }'
}
build() {   # the objects, as CMake lays them out: obj/DIR/FILE.c.o
  rm -rf "$o"
  (cd "$s" && find . -name '*.c' | sed 's|^\./||') | while read -r f; do
    mkdir -p "$(dirname "$o/$f")"
    "$cc" -g -c -I "$s" -I "$tmp/include" -o "$o/$f.o" "$s/$f" || fail "cannot compile $f"
  done
}

# ---- a clean tree: api > core > ops > transport > mem > runtime -------------
unpack <<'EOF'
=== api/a.h
void shmem_foo(void);
=== api/a.c
#include "api/a.h"
#include "core/x.h"
#include <stdio.h>
#include "shmem.h"
void shmem_foo(void) { symm_core_x(); }
=== core/x.h
void symm_core_x(void);
=== core/x.c
#include "core/x.h"
#include "ops/o.h"
void symm_core_x(void) { symm_ops_o(); }
=== ops/o.h
void symm_ops_o(void);
=== ops/local.h
#define LOCAL 1
=== ops/o.c
#include "local.h"
#include "ops/o.h"
#include "mem/m.h"
void symm_ops_o(void) { symm_mem_m(); }
=== mem/m.h
void symm_mem_m(void);
=== mem/m.c
#include "mem/m.h"
#include "runtime/r.h"
void symm_mem_m(void) { symm_runtime_r(); }
=== runtime/r.h
void symm_runtime_r(void);
=== runtime/r.c
#include "runtime/r.h"
void symm_runtime_r(void) {}
=== transport/ucx/u.c
#include "../../mem/m.h"
void symm_transport_u(void) { symm_mem_m(); }
EOF
build

out=$("$checker" "$s" "$o" 2>&1) || fail "a clean tree fails: $out"
echo "$out" | grep -q "^layers: 12 files, 6 objects, 11 include edges, 5 symbol edges, order api > .* > runtime ok$" \
  || fail "unexpected summary: $out"
echo "clean: $out"

# ---- upward include, upward calls, a cycle, a directory outside the order ----
unpack <<'EOF'
=== ops/o.c
#include "local.h"
#include "ops/o.h"
#include "mem/m.h"
#include "api/a.h"
void symm_ops_o(void) { symm_mem_m(); }
=== core/x.c
#include "core/x.h"
#include "ops/o.h"
void shmem_foo(void);
void symm_core_x(void) { symm_ops_o(); }
void symm_core_y(void) { shmem_foo(); }
=== team/t.c
void symm_team_t(void) {}
=== transport/ucx/u.c
#include "../../mem/m.h"
void symm_team_t(void);
void symm_transport_u(void) { symm_mem_m(); symm_team_t(); }
=== runtime/r.h
void symm_runtime_r(void);
void symm_mem_m2(void);
=== runtime/r.c
#include "runtime/r.h"
void symm_runtime_r(void) {}
#include "mem/m.h"
void symm_runtime_s(void) { symm_mem_m2(); }
=== mem/m2.c
void symm_mem_m2(void) {}
=== extra/e.c
void symm_extra_e(void) {}
EOF
build

rc=0
out=$("$checker" "$s" "$o" 2>/dev/null) || rc=$?
[ "$rc" -eq 1 ] || fail "a bad tree exits $rc, not 1: $out"
echo "$out" | sed 's/^/bad: /'
expect() { echo "$out" | grep -qxF "$1" || fail "missing: $1"; }
expect "src/extra/e.c: directory extra is not in the layer order (api core stream coll team ops transport mem boot runtime)"
expect 'src/ops/o.c:4: #include "api/a.h": ops -> api (api is above ops)'
expect 'src/runtime/r.c:3: #include "mem/m.h": runtime -> mem (mem is above runtime)'
expect "src/core/x.c:5: symbol shmem_foo (defined in src/api/a.c): core -> api (api is above core)"
expect "src/transport/ucx/u.c:3: symbol symm_team_t (defined in src/team/t.c): transport -> team (team is above transport)"
expect "src/runtime/r.c:4: symbol symm_mem_m2 (defined in src/mem/m2.c): runtime -> mem (mem is above runtime)"
expect "cycle: api -> core -> api"
expect "cycle: mem -> runtime -> mem"
[ "$(echo "$out" | wc -l)" -eq 8 ] || fail "expected 8 lines"
# Without objects, only the includes (and their cycles) are checked.
out=$("$checker" "$s" 2>/dev/null) || rc=$?
echo "$out" | grep -q symbol && fail "symbols checked without objects"
# Usage errors exit 2.
rc=0; "$checker" 2>/dev/null || rc=$?
[ "$rc" -eq 2 ] || fail "no arguments exit $rc, not 2"
rc=0; "$checker" "$s" "$tmp/nothing" 2>/dev/null || rc=$?
[ "$rc" -eq 2 ] || fail "a missing object directory exits $rc, not 2"
echo "check_layers_selftest: ok"
