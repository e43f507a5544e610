#!/usr/bin/env bash
# netns_cluster.sh - an emulated cluster on one machine: NODES network
# namespaces, each with one link (a veth) to a bridge in a switch namespace,
# each link shaped by tc (rate and one-way delay, both directions), and a
# command run with PPN processes per node. The stand-in for a rack of nodes
# on one switch: the wire, not the shared CPU, is the limit once the rate
# is below what the kernel's veth copy reaches (docs/user-guide/networks.md).
#
#   scripts/netns_cluster.sh [options] -- COMMAND [ARGS...]      (needs root)
#
#   -n, --nodes N     namespaces (default 2)
#   -p, --ppn P       processes per node (default 1); rank r is on node r / P
#   -r, --rate R      each link's rate each way, tc's units (10gbit, 25gbit);
#                     default: unshaped
#   -d, --delay D     one-way delay each link adds each way (10us; default none)
#   -l, --launch HOW  symm (default): each process started with symm's
#                     rendezvous (SYMM_SIZE, SYMM_RANK, SYMM_BOOT_ADDR,
#                     SYMM_JOB_SECRET) and torchrun's variables (RANK,
#                     WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, MASTER_ADDR,
#                     MASTER_PORT), so symm programs and torch scripts both
#                     start; torch: torchrun's variables only; mpirun: Open
#                     MPI's mpirun (or oshrun) in node 0 reaching the others
#                     through an rsh agent that enters their namespace (symm
#                     programs take their PMIx bootstrap from it; Open MPI's
#                     OpenSHMEM programs run as they would on a cluster)
#   -t, --tls TLS     UCX_TLS of every process (default tcp)
#   -o, --out DIR     keep each rank's output in DIR/rank<r>.log
#   -q, --quiet       print only rank 0's output (others' only on failure)
#
# Every process also gets NETNS_NODE (its node), GLOO_SOCKET_IFNAME and
# UCX_NET_DEVICES (its link). Rank 0's output goes to stdout; the exit
# status is the first failing rank's. Environment: MPIRUN (default mpirun),
# MPIRUN_ARGS (more mpirun options), BURST (tc tbf burst, default 4mb).
set -euo pipefail
nodes=2 ppn=1 rate="" delay="" launch=symm tls=tcp outdir="" quiet=0
usage() { sed -n '2,/^set -e/p' "$0" | sed 's/^# \{0,1\}//;/^set -e/d'; exit "${1:-2}"; }
while [ $# -gt 0 ]; do
  case $1 in
    -n|--nodes) nodes=$2; shift 2 ;;
    -p|--ppn) ppn=$2; shift 2 ;;
    -r|--rate) rate=$2; shift 2 ;;
    -d|--delay) delay=$2; shift 2 ;;
    -l|--launch) launch=$2; shift 2 ;;
    -t|--tls) tls=$2; shift 2 ;;
    -o|--out) outdir=$2; shift 2 ;;
    -q|--quiet) quiet=1; shift ;;
    -h|--help) usage 0 ;;
    --) shift; break ;;
    *) echo "netns_cluster.sh: unknown option '$1'" >&2; usage ;;
  esac
done
[ $# -gt 0 ] || { echo "netns_cluster.sh: no command (after --)" >&2; usage; }
case $nodes in ''|*[!0-9]*) echo "netns_cluster.sh: --nodes '$nodes' is not a count" >&2; exit 2 ;; esac
case $ppn in ''|*[!0-9]*) echo "netns_cluster.sh: --ppn '$ppn' is not a count" >&2; exit 2 ;; esac
if [ "$nodes" -lt 1 ] || [ "$nodes" -gt 200 ] || [ "$ppn" -lt 1 ]; then
  echo "netns_cluster.sh: --nodes must be 1-200 and --ppn at least 1 (got $nodes, $ppn)" >&2; exit 2
fi
case $launch in symm|torch|mpirun) ;; *)
  echo "netns_cluster.sh: --launch '$launch': symm, torch or mpirun" >&2; exit 2 ;; esac
if [ "$(id -u)" -ne 0 ]; then echo "SKIP: network namespaces need root (ip netns)"; exit 77; fi
command -v ip >/dev/null || { echo "SKIP: network namespaces need iproute2 (ip)"; exit 77; }
if [ -n "$rate$delay" ] && ! command -v tc >/dev/null; then
  echo "netns_cluster.sh: --rate/--delay need tc (iproute2)" >&2; exit 2
fi

tag="nc$$"
sw="${tag}s"
# A /24 from the process id keeps parallel clusters apart.
net="10.$(( ($$ >> 8) % 200 + 20 )).$(( $$ % 250 ))"
work=$(mktemp -d "${TMPDIR:-/tmp}/netns_cluster.XXXXXX")
made=()
cleanup() {
  local ns
  for ns in "${made[@]}"; do ip netns del "$ns" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# shape DEV NS: tbf at RATE, netem DELAY under it (or alone without a rate).
shape() {
  local dev=$1 ns=$2
  if [ -n "$rate" ]; then
    ip netns exec "$ns" tc qdisc add dev "$dev" root handle 1: tbf rate "$rate" \
      burst "${BURST:-4mb}" latency 50ms
    [ -z "$delay" ] || ip netns exec "$ns" tc qdisc add dev "$dev" parent 1:1 handle 10: \
      netem delay "$delay" limit 100000 || no_netem
  elif [ -n "$delay" ]; then
    ip netns exec "$ns" tc qdisc add dev "$dev" root netem delay "$delay" limit 100000 || no_netem
  fi
}
no_netem() {
  echo "netns_cluster.sh: --delay $delay: tc could not add netem (is sch_netem in this kernel?)" >&2
  exit 2
}

if ! ip netns add "$sw" 2>/dev/null; then
  echo "SKIP: cannot create network namespaces here (container without CAP_SYS_ADMIN?)"; exit 77
fi
made+=("$sw")
ip -n "$sw" link add br0 type bridge
ip -n "$sw" link set br0 up
ip -n "$sw" link set lo up
for ((i = 0; i < nodes; i++)); do
  ns="${tag}n$i"
  ip netns add "$ns"
  made+=("$ns")
  ip link add "${tag}e$i" type veth peer name "${tag}p$i"
  ip link set "${tag}e$i" netns "$ns"
  ip link set "${tag}p$i" netns "$sw"
  ip -n "$ns" link set "${tag}e$i" name eth0
  ip -n "$ns" addr add "$net.$((i + 1))/24" dev eth0
  ip -n "$ns" link set lo up
  ip -n "$ns" link set eth0 up
  ip -n "$sw" link set "${tag}p$i" master br0
  ip -n "$sw" link set "${tag}p$i" up
  shape eth0 "$ns"            # node -> switch
  shape "${tag}p$i" "$sw"     # switch -> node
done
n=$((nodes * ppn))
port=$((20000 + $$ % 20000))
secret=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
echo "# netns_cluster: $nodes nodes x $ppn, link ${rate:-unshaped}${delay:+ + $delay each way}," \
     "UCX_TLS=$tls, launch $launch, $(nproc) cores" >&2

rc=0
if [ "$launch" = mpirun ]; then
  # The rsh agent: "HOST CMD..." runs CMD in the namespace that owns HOST.
  {
    echo '#!/bin/sh'
    echo 'host=$1; shift'
    echo "exec ip netns exec \"${tag}n\$((\${host##*.} - 1))\" sh -c \"\$*\""
  } >"$work/nsexec.sh"
  chmod +x "$work/nsexec.sh"
  hosts=""
  for ((i = 0; i < nodes; i++)); do hosts="$hosts${hosts:+,}$net.$((i + 1)):$ppn"; done
  # Not bound: mpirun would bind each node's first process to core 0, on
  # this one machine the same core for every namespace.
  # shellcheck disable=SC2086
  ip netns exec "${tag}n0" "${MPIRUN:-mpirun}" --allow-run-as-root --bind-to none -np "$n" \
    --host "$hosts" --mca plm_rsh_agent "$work/nsexec.sh" -x UCX_TLS="$tls" \
    -x UCX_NET_DEVICES=eth0 -x OMPI_MCA_opal_common_ucx_opal_mem_hooks=0 \
    ${MPIRUN_ARGS:-} "$@" || rc=$?
  exit $rc
fi

logdir=${outdir:-$work}
mkdir -p "$logdir"
pids=()
for ((r = 0; r < n; r++)); do
  node=$((r / ppn))
  vars=(RANK=$r WORLD_SIZE=$n LOCAL_RANK=$((r % ppn)) LOCAL_WORLD_SIZE=$ppn
        MASTER_ADDR="$net.1" MASTER_PORT=$port)
  [ "$launch" = torch ] || vars+=(SYMM_SIZE=$n SYMM_RANK=$r SYMM_BOOT_ADDR="$net.1:$((port + 1))"
                                  SYMM_JOB_SECRET="$secret")
  ip netns exec "${tag}n$node" env "${vars[@]}" NETNS_NODE=$node GLOO_SOCKET_IFNAME=eth0 \
    UCX_NET_DEVICES=eth0 UCX_TLS="$tls" "$@" >"$logdir/rank$r.log" 2>&1 &
  pids+=($!)
done
failed=-1
for ((r = 0; r < n; r++)); do
  s=0
  wait "${pids[$r]}" || s=$?
  if [ $s -ne 0 ] && [ $rc -eq 0 ]; then rc=$s failed=$r; fi
done
cat "$logdir/rank0.log"
for ((r = 1; r < n; r++)); do
  if [ -s "$logdir/rank$r.log" ] && { [ $quiet -eq 0 ] || [ $rc -ne 0 ]; }; then
    sed "s/^/[rank $r] /" "$logdir/rank$r.log"
  fi
done
[ $failed -lt 0 ] || echo "netns_cluster.sh: rank $failed exited with status $rc" >&2
exit $rc
