#!/bin/bash
# env_table_selftest.sh CHECKER TABLE - the checker on a made-up tree: each
# way of reading a variable missing from the table is reported by name, a
# variable in the table and a listed foreign one are not, and a clean tree passes.
set -u
checker=$1 table=$2
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
mkdir -p "$d/bad" "$d/good"
cat >"$d/bad/a.c" <<'C'
const char *a(void) { return getenv("SYMM_NOT_A_ROW"); }
const char *b(void) { return secure_getenv("SHMEM_NOR_THIS"); }
const char *c(void) { return env_getenv_or("SYMM_VIA_HELPER", "x"); }
static const char *const names[] = {"SYMM_IN_AN_ARRAY"};
const char *d(void) { return getenv("NOT_OURS_NOT_LISTED"); }
C
echo 'cc=${SYMM_SHELL_VAR:-cc}' >"$d/bad/w.in"
echo 'import os; x = os.environ.get("SYMM_PY_VAR")' >"$d/bad/m.py"
cat >"$d/good/a.c" <<'C'
const char *a(void) { return getenv("SHMEM_SYMMETRIC_SIZE"); }
const char *b(void) { return getenv("HOME"); }
const char *c(void) { return getenv("UCX_TLS"); }
C
out=$("$checker" "$table" "$d/bad" 2>&1)
rc=$?
fail=0
[ $rc -eq 1 ] || { echo "FAIL: checker on the bad tree returned $rc, want 1"; fail=1; }
for v in SYMM_NOT_A_ROW SHMEM_NOR_THIS SYMM_VIA_HELPER SYMM_IN_AN_ARRAY NOT_OURS_NOT_LISTED \
         SYMM_SHELL_VAR SYMM_PY_VAR; do
    grep -q ": $v is read but is not a row" <<<"$out" || { echo "FAIL: $v not reported"; fail=1; }
done
"$checker" "$table" "$d/good" || { echo "FAIL: the clean tree failed"; fail=1; }
[ $fail -eq 0 ] && echo "PASS"
exit $fail
