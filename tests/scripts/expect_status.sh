#!/bin/bash
# expect_status.sh STATUS [--match REGEX] [--absent REGEX] CMD...: passes
# when CMD exits with exactly STATUS and, with --match, its combined output
# matches the extended regular expression REGEX; with --absent, no line of
# it matches that one.
set -u
if [ $# -lt 2 ]; then
  echo "usage: expect_status.sh STATUS [--match REGEX] [--absent REGEX] CMD..." >&2
  exit 2
fi
want=$1
shift
regex=
absent=
if [ "$1" = "--match" ]; then
  regex=$2
  shift 2
fi
if [ "$1" = "--absent" ]; then
  absent=$2
  shift 2
fi
out=$("$@" 2>&1)
rc=$?
if [ "$rc" -ne "$want" ]; then
  printf 'FAIL: expected exit status %d got %d from: %s\n--- output ---\n%s\n' "$want" "$rc" "$*" "$out"
  exit 1
fi
if [ -n "$regex" ] && ! printf '%s\n' "$out" | grep -Eq -- "$regex"; then
  printf 'FAIL: exit %d but output does not match /%s/\n--- output ---\n%s\n' "$rc" "$regex" "$out"
  exit 1
fi
if [ -n "$absent" ] && printf '%s\n' "$out" | grep -Eq -- "$absent"; then
  printf 'FAIL: exit %d but output matches /%s/\n--- output ---\n%s\n' "$rc" "$absent" "$out"
  exit 1
fi
printf 'PASS: exit %d%s\n' "$rc" "${regex:+, output matches /$regex/}"
