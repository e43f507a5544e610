#!/bin/bash
# stress_selftest.sh RUNNER BUILD_DIR - the stress runner fails when a check
# fails, and its replay command reproduces the failure exactly.
#  1. RUNNER --inject: the driver corrupts the first value it checks on PE 0
#     at or after step 12; the runner must exit non-zero, print the driver's
#     FAIL line with the seed, a replay command and a summary of 1 failure.
#  2. The replay command, run as printed, must fail with the same FAIL line.
#  3. Without --inject the same seed passes.
set -u
runner=$1
build=$2
seed=5
fail() { printf 'FAIL: %s\n--- output ---\n%s\n' "$1" "$2"; exit 1; }

out=$("$runner" --build "$build" --config shm-np2 --seed $seed --steps 30 --inject 12 2>&1)
rc=$?
[ $rc -ne 0 ] || fail "the runner exited 0 with an injected failure" "$out"
line=$(printf '%s\n' "$out" | grep -m1 -E "stress: FAIL seed=$seed pe=0 thread=0 step=(1[2-9]|2[0-9]) .*\[injected\]") ||
  fail "no FAIL line with seed=$seed and [injected]" "$out"
printf '%s\n' "$out" | tail -1 | grep -qE '^stress.sh: 1 configurations, 1 runs, .* 1 failures \(1 FAIL' ||
  fail "the last line is not the summary of one failure" "$out"
replay=$(printf '%s\n' "$out" | sed -n 's/^stress.sh: *replay: //p' | head -1)
[ -n "$replay" ] || fail "no replay command" "$out"

fline=${line#*stress.sh: FAIL  shm-np2: }
rout=$(eval "$replay" 2>&1)
rrc=$?
[ $rrc -ne 0 ] || fail "the replay ($replay) exited 0" "$rout"
printf '%s\n' "$rout" | grep -qF -- "$fline" ||
  fail "the replay's FAIL line differs from the run's ($fline)" "$rout"

out=$("$runner" --build "$build" --config shm-np2 --seed $seed --steps 30 2>&1) ||
  fail "the same seed without --inject failed" "$out"
echo "PASS: injected failure reported (rc $rc), replayed exactly: $fline"
