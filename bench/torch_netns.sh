#!/bin/bash
# torch_netns.sh NPER [args...] - bench/torch_allreduce.py (or the script
# BENCH names: BENCH=bench/torch_train.py) with its ranks split over two
# network namespaces (tests/scripts/netns_lib.sh:
# the stand-in for two nodes on one machine), NPER ranks in each, started the
# way torchrun starts them: gloo over TCP on the veth pair, symm's off-node
# peers over UCX tcp. Prints rank 0's tables. Needs root and iproute2.
#
#   PYTHONPATH=build/python bench/torch_netns.sh 1      # 2 ranks, 1 + 1
#   PYTHONPATH=build/python bench/torch_netns.sh 2      # 4 ranks, 2 + 2
#   PYTHONPATH=build/python BENCH=bench/torch_train.py bench/torch_netns.sh 1
# RATE=10gbit shapes both ends of the veth pair with tc tbf.
set -u
here=$(cd "$(dirname "$0")" && pwd)
nper=${1:?usage: torch_netns.sh NPER [args...]}
shift
. "$here/../tests/scripts/netns_lib.sh"
netns_up tb || exit $?
trap netns_down EXIT
script=${BENCH:-$here/torch_allreduce.py}
if [ -n "${RATE:-}" ]; then
  ip netns exec "$nsa" tc qdisc replace dev "$deva" root tbf rate "$RATE" burst 4mb latency 50ms &&
    ip netns exec "$nsb" tc qdisc replace dev "$devb" root tbf rate "$RATE" burst 4mb latency 50ms ||
    exit 1
fi
n=$((2 * nper))
port=$((29700 + $$ % 2000))
out=$(mktemp -d "${TMPDIR:-/tmp}/torch_netns.XXXXXX")
pids=()
for ((r = 0; r < n; r++)); do
  if ((r < nper)); then ns=$nsa dev=$deva; else ns=$nsb dev=$devb; fi
  ip netns exec "$ns" env RANK=$r LOCAL_RANK=$((r % nper)) WORLD_SIZE=$n LOCAL_WORLD_SIZE=$nper \
    MASTER_ADDR="$net.1" MASTER_PORT=$port GLOO_SOCKET_IFNAME="$dev" UCX_TLS=tcp \
    UCX_NET_DEVICES="$dev" SYMM_BOOT_TIMEOUT=60 PYTHONPATH="${PYTHONPATH:-}" \
    OMP_NUM_THREADS=${OMP_NUM_THREADS:-1} /usr/bin/python3 "$script" "$@" >"$out/rank$r.log" 2>&1 &
  pids+=($!)
done
rc=0
for p in "${pids[@]}"; do wait "$p" || rc=1; done
grep -v -i "warn" "$out/rank0.log"
if [ $rc -ne 0 ]; then
  for ((r = 0; r < n; r++)); do echo "== rank $r"; tail -20 "$out/rank$r.log"; done
fi
rm -rf "$out"
exit $rc
