#!/usr/bin/env bash
# cluster_compare.sh - symm's large collectives across emulated nodes next
# to Open MPI's OpenSHMEM and to the link's limit, in one run on one machine.
#
#   bench/cluster_compare.sh NODES PPN RATE [SIZES]          (needs root)
#   bench/cluster_compare.sh 2 1 10gbit
#   bench/cluster_compare.sh 4 1 2gbit 1048576,16777216
#
# NODES namespaces on one bridge, PPN PEs each, every link shaped to RATE
# each way (scripts/netns_cluster.sh; "none": unshaped). bench/net_bench.c,
# one source built with each library's oshcc, runs broadcast, fcollect,
# alltoall and sum_reduce (double) at SIZES bytes per PE (default 64K, 1M,
# 4M, 16M and 64M / P, P the PE count: Open MPI 4.1's OpenSHMEM fails a
# shmem_malloc of 128 MiB, and net_bench allocates P times the largest),
# RUNS times (default 5), the libraries alternating; each cell is the median.
# Open MPI runs under its mpirun with spml ucx, symm under its own rendezvous
# start; both over UCX_TLS=tcp between nodes. Open MPI's MPI layer gets btl
# self,tcp: its shared-memory btl (vader) crashed in MPI_Comm_dup at start
# with 2 PEs per namespace (the namespaces share one hostname and /dev/shm).
#
# The limit is the time the busiest link needs for the bytes it must carry
# at RATE (no protocol overhead): broadcast S (every node receives it),
# fcollect (P - PPN) S (a node receives every other node's blocks), alltoall
# PPN (P - PPN) S, sum_reduce 2 (N - 1) / N S (reduce-scatter + allgather
# among nodes), for P PEs on N nodes. Timing is OSU's (each call alone,
# averaged over PEs), so a broadcast root's early return shows below it.
# Environment: RUNS, SYMM_PREFIX (default build/install), SYMM_ENV
# (VAR=VALUE ... for symm's PEs only), HEAP (symmetric heap per PE), DELAY
# (one-way delay on every link, each way, e.g. 20us: netem).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
nodes=${1:?usage: cluster_compare.sh NODES PPN RATE [SIZES]}
ppn=${2:?PPN}
rate=${3:?RATE}
np=$((nodes * ppn))
sizes=${4:-65536,1048576,4194304,16777216,$(((64 << 20) / np))}
runs=${RUNS:-5}
prefix=${SYMM_PREFIX:-$here/../build/install}
work=$(mktemp -d "${TMPDIR:-/tmp}/cluster_compare.XXXXXX")
trap 'rm -rf "$work"' EXIT
largest=$(tr ',' '\n' <<<"$sizes" | sort -n | tail -1)
heap=${HEAP:-$((3 * np * largest + (64 << 20)))}
"$prefix/bin/oshcc" -O2 "$here/net_bench.c" -o "$work/nb_symm"
have_ompi=0
if /usr/bin/oshcc -O2 "$here/net_bench.c" -o "$work/nb_ompi" 2>/dev/null; then have_ompi=1; fi
shape=()
[ "$rate" = none ] || shape=(-r "$rate")
[ -z "${DELAY:-}" ] || shape+=(-d "$DELAY")
only=broadcast,fcollect,alltoall,sum_reduce
# The links can be shaped here (tc, netem for DELAY): fail now, saying why.
if ! msg=$("$here/../scripts/netns_cluster.sh" -n 2 "${shape[@]}" -q -- true 2>&1 >/dev/null); then
  echo "$msg" >&2
  exit 2
fi
echo "# $nodes nodes x $ppn PEs, link $rate${DELAY:+ delay $DELAY}, UCX_TLS=tcp, $runs runs, $(nproc) cores," \
     "symm $(git -C "$here/.." rev-parse --short HEAD 2>/dev/null || echo '?')"
for ((r = 1; r <= runs; r++)); do
  # shellcheck disable=SC2086
  NET_BENCH_SIZES=$sizes NET_BENCH_ONLY=$only SHMEM_SYMMETRIC_SIZE=$heap \
    "$here/../scripts/netns_cluster.sh" -n "$nodes" -p "$ppn" "${shape[@]}" -q -- \
    env ${SYMM_ENV:-} "$work/nb_symm" 100 2>/dev/null |
    awk '$1 == "net_bench" { print "symm", $2, $3, $4 }' >>"$work/rows"
  if [ $have_ompi = 1 ]; then
    NET_BENCH_SIZES=$sizes NET_BENCH_ONLY=$only SHMEM_SYMMETRIC_SIZE=$heap \
      "$here/../scripts/netns_cluster.sh" -n "$nodes" -p "$ppn" "${shape[@]}" -l mpirun -- \
      -x NET_BENCH_SIZES -x NET_BENCH_ONLY -x SHMEM_SYMMETRIC_SIZE --mca spml ucx --mca btl self,tcp \
      "$work/nb_ompi" 100 2>/dev/null | awk '$1 == "net_bench" { print "ompi", $2, $3, $4 }' \
      >>"$work/rows" || true
  fi
done
awk -v N="$nodes" -v ppn="$ppn" -v rate="$rate" '
function bps(r,   v, u) { # tc rate -> bytes per second
  if (r == "none") return 0
  v = r + 0; u = tolower(r); sub(/^[0-9.]+/, "", u)
  if (u == "gbit") return v * 1e9 / 8; if (u == "mbit") return v * 1e6 / 8
  if (u == "kbit") return v * 1e3 / 8; return v / 8
}
function median(k,   m, i, j, t, v) {
  m = cnt[k]; if (m == 0) return ""
  for (i = 1; i <= m; i++) v[i] = all[k, i]
  for (i = 2; i <= m; i++) for (j = i; j > 1 && v[j - 1] > v[j]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
  return m % 2 ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2
}
{ k = $2 SUBSEP $3; if (!(k in seen)) { seen[k] = 1; order[++n] = k }
  c = $1 SUBSEP k; all[c, ++cnt[c]] = $4 }
END {
  P = N * ppn; B = bps(rate)
  printf "| %-18s | %10s | %10s | %10s | %9s | %9s |\n", "row (median us)", "symm", "Open MPI", "limit", "symm/OMPI", "symm/lim"
  print "|--------------------|------------|------------|------------|-----------|-----------|"
  for (i = 1; i <= n; i++) {
    split(order[i], f, SUBSEP); op = f[1]; S = f[2]
    bytes = op == "broadcast" ? S : op == "fcollect" ? (P - ppn) * S : op == "alltoall" ? ppn * (P - ppn) * S : 2 * (N - 1) / N * S
    lim = B > 0 ? bytes / B * 1e6 : ""
    s = median("symm" SUBSEP order[i]); o = median("ompi" SUBSEP order[i])
    sz = S >= 1048576 ? S / 1048576 " MiB" : S >= 1024 ? S / 1024 " KiB" : S " B"
    printf "| %-18s | %10s | %10s | %10s | %9s | %9s |\n", op " " sz, s == "" ? "-" : sprintf("%.0f", s),
      o == "" ? "-" : sprintf("%.0f", o), lim == "" ? "-" : sprintf("%.0f", lim),
      s == "" || o == "" ? "-" : sprintf("%.2f", s / o), s == "" || lim == "" || lim == 0 ? "-" : sprintf("%.2f", s / lim)
  }
}' "$work/rows"
