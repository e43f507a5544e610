#!/bin/bash
# self_connect.sh NP PROG ARGS...: a shell-loop job (no launcher) whose
# ranks 1..NP-1 start before rank 0 listens, in a network namespace of its
# own whose 16 ephemeral ports include the job's bootstrap port. A connect
# made while rank 0 is not listening is soon given that port and TCP joins
# the socket to itself; the bootstrap must notice, drop that connection
# without holding the port, and retry until rank 0 listens. Passes when every
# PE exits 0 and the case did arise (the bootstrap's debug line); 77 (skip)
# where this machine cannot make a network namespace.
set -u
np=$1
shift
if [ -z "${SYMM_SELF_CONNECT_INNER:-}" ]; then
  if ! unshare -n true 2>/dev/null; then
    echo "SKIP: cannot make a network namespace here (unshare -n: not root or no CAP_SYS_ADMIN)"
    exit 77
  fi
  exec env SYMM_SELF_CONNECT_INNER=1 unshare -n "$0" "$np" "$@"
fi
# The job's port is one of the 16 the kernel may give a connect.
port=41000
ip link set lo up 2>/dev/null || { echo "SKIP: cannot bring lo up (no iproute2?)"; exit 77; }
echo "$port $((port + 15))" > /proc/sys/net/ipv4/ip_local_port_range ||
  { echo "SKIP: cannot set ip_local_port_range"; exit 77; }
secret=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
log=$(mktemp)
trap 'rm -f "$log"' EXIT
pids=()
start() {
  local r=$1
  shift
  SYMM_LOG_LEVEL=3 SYMM_RANK=$r SYMM_SIZE=$np SYMM_BOOT_ADDR=127.0.0.1:$port \
    SYMM_JOB_SECRET=$secret timeout 60 "$@" 2>>"$log" &
  pids+=($!)
}
for ((r = 1; r < np; r++)); do start $r "$@"; done
# Rank 0 starts once an early rank's connect has been joined to itself (the
# kernel picks among the range's ports, so it takes a few tries), or after
# 10 s, when the check at the end fails.
for ((i = 0; np > 1 && i < 200; i++)); do
  grep -q "joined its socket to itself" "$log" && break
  sleep 0.05
done
start 0 "$@"
fail=0 st=()
for p in "${pids[@]}"; do
  wait "$p"
  s=$?
  st+=("$s")
  [ "$s" -ne 0 ] && fail=1
done
echo "self_connect: statuses ${st[*]}"
if [ "$fail" -ne 0 ]; then
  grep -v "joined its socket to itself" "$log" | tail -20
  exit 1
fi
if [ "$np" -gt 1 ] && ! grep -q "joined its socket to itself" "$log"; then
  echo "self_connect: no connect was joined to itself: the case this test is for did not arise"
  exit 1
fi
exit 0
