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
# A port below the kernel's ephemeral range: one inside it may be held by
# another connection's end, or its TIME_WAIT (hundreds under a loaded ctest),
# and rank 0 could not listen (about 1 run in 100 under load).
# SHELL_LOOP_PORT chooses it.
read -r eph_lo _ < /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || eph_lo=32768
if [ "$eph_lo" -gt 11024 ]; then
  port=$((10000 + RANDOM % (eph_lo - 10000)))
else
  port=$((61000 + RANDOM % 4000))
fi
port=${SHELL_LOOP_PORT:-$port}
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
