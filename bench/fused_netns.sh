#!/usr/bin/env bash
# fused_netns.sh: the fused operations across two "nodes" (network
# namespaces joined by a veth pair, tests/scripts/netns_lib.sh), every form
# side by side (python -m symm.bench), on a link shaped to RATE so the
# transfer is the link's time, not the CPU's: the case where the fused
# forms can hide it (on one machine an unshaped veth is a memcpy by the
# kernel, which takes the same cores the matmul needs).
#
#   bench/fused_netns.sh [PPN] [-- symm.bench options]     (needs root)
#
# PPN PEs per namespace (default 1: 2 PEs; 2: 4 PEs as 2 x 2). Environment:
# RATE (tc tbf rate of each direction, default 1gbit; "none": unshaped),
# UCX_TLS (default tcp), PYTHON (default /usr/bin/python3), SYMM_PREFIX
# SYMM_BUILD (the build tree, default build: its python/ and libsymm.so).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ppn=${1:-1}
shift || true
[ "${1:-}" = "--" ] && shift
rate=${RATE:-1gbit}
py=${PYTHON:-/usr/bin/python3}
build=${SYMM_BUILD:-$here/../build}
. "$here/../tests/scripts/netns_lib.sh"
trap netns_down EXIT
netns_up "fz$$" || exit $?
if [ "$rate" != none ]; then
  ip netns exec "$nsa" tc qdisc add dev "$deva" root tbf rate "$rate" burst 1mb latency 100ms
  ip netns exec "$nsb" tc qdisc add dev "$devb" root tbf rate "$rate" burst 1mb latency 100ms
fi
np=$((2 * ppn))
port=$(( 20000 + $$ % 20000 ))
secret=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
echo "# fused forms across 2 namespaces x $ppn PEs, link ${rate}, UCX_TLS=${UCX_TLS:-tcp}," \
     "$(nproc) cores"
pids=()
for ((r = 0; r < np; r++)); do
  node=$((r / ppn))
  if [ $node -eq 0 ]; then ns=$nsa; dev=$deva; else ns=$nsb; dev=$devb; fi
  ip netns exec "$ns" env SYMM_SIZE=$np SYMM_RANK=$r SYMM_BOOT_ADDR="$net.1:$port" \
     SYMM_JOB_SECRET="$secret" UCX_TLS="${UCX_TLS:-tcp}" UCX_NET_DEVICES="$dev" \
     PYTHONPATH="$build/python" SYMM_LIBRARY="$build/libsymm.so" \
     OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 \
     "$py" -m symm.bench "$@" > "/tmp/fz$$.$r" 2>&1 &
  pids+=($!)
done
rc=0
for p in "${pids[@]}"; do wait "$p" || rc=$?; done
cat "/tmp/fz$$.0"
for ((r = 1; r < np; r++)); do
  if [ -s "/tmp/fz$$.$r" ]; then sed "s/^/[PE $r] /" "/tmp/fz$$.$r"; fi
done
rm -f /tmp/fz$$.*
exit $rc
