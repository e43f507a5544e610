#!/bin/bash
# expect_fail.sh REGEX CMD...: passes when CMD exits non-zero and its
# combined output matches the extended regular expression REGEX.
set -u
regex=$1
shift
out=$("$@" 2>&1)
rc=$?
if [ "$rc" -eq 0 ]; then
  printf 'FAIL: expected a non-zero exit status from: %s\n--- output ---\n%s\n' "$*" "$out"
  exit 1
fi
if ! printf '%s\n' "$out" | grep -Eq -- "$regex"; then
  printf 'FAIL: exit %d but output does not match /%s/\n--- output ---\n%s\n' "$rc" "$regex" "$out"
  exit 1
fi
printf 'PASS: exit %d, output matches /%s/\n' "$rc" "$regex"
