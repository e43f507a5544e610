#!/bin/bash
# expect_once.sh REGEX [--match R]... CMD...: passes when CMD exits non-zero,
# exactly one line of its combined output matches the extended regular
# expression REGEX (a failure several PEs see is reported once per job, not
# once per PE) and, for each --match, some line matches R. Exit status 77
# (skipped) is passed on.
set -u
regex=$1
shift
matches=()
while [ "${1:-}" = "--match" ]; do
  matches+=("$2")
  shift 2
done
out=$("$@" 2>&1)
rc=$?
if [ "$rc" -eq 77 ]; then
  # The command's "skipped" (netns_test.sh without root) is passed on.
  printf '%s\n' "$out"
  exit 77
fi
n=$(printf '%s\n' "$out" | grep -Ec -- "$regex")
if [ "$rc" -eq 0 ] || [ "$n" -ne 1 ]; then
  printf 'FAIL: exit %d, %d lines match /%s/ (want non-zero and 1) from: %s\n--- output ---\n%s\n' \
    "$rc" "$n" "$regex" "$*" "$out"
  exit 1
fi
for m in "${matches[@]}"; do
  if ! printf '%s\n' "$out" | grep -Eq -- "$m"; then
    printf 'FAIL: exit %d but no line matches /%s/\n--- output ---\n%s\n' "$rc" "$m" "$out"
    exit 1
  fi
done
printf 'PASS: exit %d, one line matches /%s/%s\n' "$rc" "$regex" \
  "${matches[*]:+, and each of ${#matches[@]} patterns matched}"
