#!/bin/bash
# port_taken.sh PROG ARGS...: a 2-PE shell-loop job whose bootstrap port
# another socket holds for its first 3.5 s. Rank 0 must say, once, that it
# cannot listen there yet and goes on trying, then the job must run.
set -u
py=/usr/bin/python3
# scripts/test.sh installs Debian's python3; without it this test fails.
[ -x $py ] || { echo "port_taken: needs $py to hold the port"; exit 1; }
port=$((10000 + RANDOM % 1000))
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# A bound socket that does not listen: bind() elsewhere fails with EADDRINUSE.
$py -c "
import socket, sys, time
s = socket.socket()
s.bind(('127.0.0.1', $port))
print('held', flush=True)
time.sleep(3.5)
" > "$log.held" &
holder=$!
for ((i = 0; i < 100; i++)); do grep -q held "$log.held" 2>/dev/null && break; sleep 0.05; done
rm -f "$log.held"
SHELL_LOOP_PORT=$port SHELL_LOOP_TIMEOUT=60 "$(dirname "$0")/shell_loop.sh" 2 "$@" 2>"$log"
rc=$?
wait $holder
cat "$log"
n=$(grep -c "cannot listen on 127.0.0.1:$port: Address already in use; still trying" "$log")
if [ "$rc" -ne 0 ] || [ "$n" -ne 1 ]; then
  echo "port_taken: job status $rc, rank 0 said it waits for the port $n times (want 0 and 1)"
  exit 1
fi
echo "port_taken: ok"
