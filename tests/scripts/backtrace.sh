#!/bin/bash
# backtrace.sh STATUS MODE FUNCTION OSHRUN PROG - PROG MODE dies of a signal
# in FUNCTION on its last PE: the job ends with STATUS (killed by the signal),
# and the output holds the crashing PE's backtrace naming FUNCTION, in one
# block; with SYMM_BACKTRACE=0 it holds neither.
set -u
want=$1 mode=$2 func=$3 oshrun=$4 prog=$5
fail=0
out=$("$oshrun" --timeout 30 -np 2 "$prog" "$mode" 2>&1)
rc=$?
[ $rc -eq "$want" ] || { echo "FAIL: status $rc, want $want"; fail=1; }
if ! grep -Eq '^symm: PE 1: killed by SIG[A-Z]+, backtrace' <<<"$out" ||
   ! grep -A20 '^symm: PE 1: killed by' <<<"$out" | grep -Eq "^symm:   .*\\($func\\+0x[0-9a-f]+\\)"; then
    echo "FAIL: no backtrace naming $func"
    fail=1
fi
off=$(SYMM_BACKTRACE=0 "$oshrun" --timeout 30 -np 2 "$prog" "$mode" 2>&1)
rc=$?
[ $rc -eq "$want" ] || { echo "FAIL: SYMM_BACKTRACE=0: status $rc, want $want"; fail=1; }
if grep -q "$func\\|backtrace" <<<"$off"; then
    echo "FAIL: SYMM_BACKTRACE=0 still printed a backtrace"
    fail=1
fi
grep -q 'died: killed by SIG' <<<"$off" || { echo "FAIL: SYMM_BACKTRACE=0 lost the death line"; fail=1; }
printf -- '--- output ---\n%s\n--- SYMM_BACKTRACE=0 ---\n%s\n' "$out" "$off"
[ $fail -eq 0 ] && echo PASS
exit $fail
