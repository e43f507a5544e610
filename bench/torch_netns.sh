#!/bin/bash
# torch_netns.sh NPER [args...] - bench/torch_allreduce.py (or the script
# BENCH names: BENCH=bench/torch_train.py) on an emulated cluster
# (scripts/netns_cluster.sh: NODES network namespaces on one bridge, default
# 2), NPER ranks on each, started the way torchrun starts them: gloo over
# TCP on each node's link, symm's off-node peers over UCX tcp. Prints rank
# 0's tables. Needs root and iproute2.
#
#   PYTHONPATH=build/python bench/torch_netns.sh 1      # 2 ranks, 1 + 1
#   PYTHONPATH=build/python bench/torch_netns.sh 2      # 4 ranks, 2 + 2
#   PYTHONPATH=build/python NODES=4 RATE=4gbit bench/torch_netns.sh 1
#   PYTHONPATH=build/python BENCH=bench/torch_train.py bench/torch_netns.sh 1
# RATE=10gbit shapes every link, each way, with tc (DELAY=10us adds delay).
set -u
here=$(cd "$(dirname "$0")" && pwd)
nper=${1:?usage: torch_netns.sh NPER [args...]}
shift
shape=()
[ -z "${RATE:-}" ] || shape+=(-r "$RATE")
[ -z "${DELAY:-}" ] || shape+=(-d "$DELAY")
exec "$here/../scripts/netns_cluster.sh" -n "${NODES:-2}" -p "$nper" "${shape[@]}" -l torch -q -- \
  env SYMM_BOOT_TIMEOUT=60 PYTHONPATH="${PYTHONPATH:-}" OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}" \
  /usr/bin/python3 "${BENCH:-$here/torch_allreduce.py}" "$@"
