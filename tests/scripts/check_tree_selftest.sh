#!/bin/bash
# check_tree_selftest.sh CHECK_TREE CC - check_tree.sh on made-up trees: a
# clean one passes; a repeated file name, a function one line too long and
# an unprefixed global symbol are each reported, naming the file or symbol.
set -u
check=$1
cc=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
expect() {  # expect STATUS REGEX ARGS...: run the checker, match its output
  local want=$1 re=$2; shift 2
  out=$(MAX_LINES=5 "$check" "$@" 2>&1); st=$?
  if [ "$st" != "$want" ] || ! grep -qE "$re" <<<"$out"; then
    echo "FAIL: check_tree $* gave $st (want $want), output:"; echo "$out"; echo "(wanted /$re/)"
    fail=1
  fi
}
body() {  # body N: a function of N body lines
  printf 'int f%s(void)\n{\n' "$1"
  for ((i = 0; i < $1; i++)); do echo "    (void)0;"; done
  printf '    return 0;\n}\n'
}
mkdir -p "$tmp/ok/a" "$tmp/ok/b"
{ body 4; } > "$tmp/ok/a/a_one.c"
echo 'int symm_x(void);' > "$tmp/ok/b/b_two.h"
expect 0 'unique names, no function over 5 lines' "$tmp/ok"

cp -r "$tmp/ok" "$tmp/dup"; cp "$tmp/dup/a/a_one.c" "$tmp/dup/b/a_one.c"
expect 1 '^name: a_one.c is used 2 times' "$tmp/dup"

cp -r "$tmp/ok" "$tmp/long"; body 5 > "$tmp/long/a/a_long.c"
expect 1 '^length: .*a_long.c:1: f5\(\) is 6 lines' "$tmp/long"

printf 'int symm_ok(void) { return 0; }\nint arrived(int x) { return x; }\nint shmem_my_pe(void) { return 0; }\n' > "$tmp/s.c"
"$cc" -c -o "$tmp/s.o" "$tmp/s.c" && ar rc "$tmp/libt.a" "$tmp/s.o"
expect 1 '^symbol: arrived \(defined in s.o\)' "$tmp/ok" "$tmp/libt.a"
out=$(MAX_LINES=5 "$check" "$tmp/ok" "$tmp/libt.a" 2>&1)
if grep -qE 'symm_ok|shmem_my_pe' <<<"$out"; then echo "FAIL: a prefixed symbol reported: $out"; fail=1; fi
[ $fail = 0 ] && echo "check_tree selftest: ok"
exit $fail
