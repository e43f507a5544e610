#!/bin/bash
# expect_lines.sh [--count N REGEX]... [--order R1 R2]... -- CMD...: passes
# when CMD exits 0 and, in its combined output, exactly N lines match each
# --count REGEX (0: none may), and for each --order the first line that
# matches R1 comes before the first that matches R2 (both present).
# Extended regular expressions.
set -u
counts=()
orders=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  case $1 in
    --count) counts+=("$2" "$3"); shift 3 ;;
    --order) orders+=("$2" "$3"); shift 3 ;;
    *) printf 'expect_lines.sh: unknown option %s\n' "$1"; exit 2 ;;
  esac
done
shift
out=$("$@" 2>&1)
rc=$?
fail() {
  printf 'FAIL: %s\n--- output ---\n%s\n' "$1" "$out"
  exit 1
}
[ "$rc" -eq 0 ] || fail "exit status $rc from: $*"
for ((i = 0; i < ${#counts[@]}; i += 2)); do
  n=$(printf '%s\n' "$out" | grep -Ec -- "${counts[i + 1]}")
  [ "$n" -eq "${counts[i]}" ] || fail "$n lines match /${counts[i + 1]}/, expected ${counts[i]}"
done
for ((i = 0; i < ${#orders[@]}; i += 2)); do
  a=$(printf '%s\n' "$out" | grep -En -- "${orders[i]}" | head -n 1 | cut -d: -f1)
  b=$(printf '%s\n' "$out" | grep -En -- "${orders[i + 1]}" | head -n 1 | cut -d: -f1)
  [ -n "$a" ] && [ -n "$b" ] && [ "$a" -lt "$b" ] ||
    fail "no line /${orders[i]}/ before a line /${orders[i + 1]}/"
done
printf 'PASS: exit 0, every count and order as expected\n'
