#!/bin/bash
# shell_loop.sh NP PROG ARGS...: start a job as a plain shell loop of NP
# processes, no launcher: each gets the built-in tcp bootstrap's variables
# (SYMM_RANK, SYMM_SIZE, SYMM_BOOT_ADDR on a random port of 127.0.0.1,
# SYMM_JOB_SECRET). Exits with the first non-zero status of the processes
# (0 if none), 124 if some process is still there after SHELL_LOOP_TIMEOUT
# seconds (default 30; they are killed), and prints the statuses.
set -u
np=$1
shift
port=$((20000 + RANDOM % 30000))
secret=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
pids=()
for ((r = 0; r < np; r++)); do
  SYMM_RANK=$r SYMM_SIZE=$np SYMM_BOOT_ADDR=127.0.0.1:$port SYMM_JOB_SECRET=$secret "$@" &
  pids+=($!)
done
deadline=$((SECONDS + ${SHELL_LOOP_TIMEOUT:-30}))
while [ $SECONDS -lt $deadline ]; do
  alive=0
  for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
  [ $alive -eq 0 ] && break
  sleep 0.1
done
first=0 st=()
for p in "${pids[@]}"; do
  if kill -0 "$p" 2>/dev/null; then
    kill -9 "$p" 2>/dev/null
    first=124
  fi
  wait "$p"
  s=$?
  st+=("$s")
  if [ "$first" -eq 0 ] && [ "$s" -ne 0 ]; then first=$s; fi
done
echo "shell_loop: statuses ${st[*]}"
exit "$first"
