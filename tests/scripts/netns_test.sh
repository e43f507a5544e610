#!/bin/bash
# netns_test.sh PROG... - run each PROG as a 2-PE job whose PEs live in two
# network namespaces joined by a veth pair, so they are on different "nodes"
# (different addresses; node identity includes the network namespace) and
# everything between them goes through UCX over TCP on the veth addresses.
# The bootstrap (TCP, rank 0 listening on its veth address) also uses only
# those addresses. Needs root and iproute2; otherwise exits 77 (skipped) and
# says why. NETNS_EXPECT_FAIL=REGEX: each job must instead fail, without
# hanging, and print a line matching REGEX.
set -u
if [ "$(id -u)" -ne 0 ]; then echo "SKIP: netns test needs root (ip netns)"; exit 77; fi
if ! command -v ip >/dev/null; then echo "SKIP: netns test needs iproute2 (ip)"; exit 77; fi
tag="symm$$"
nsa="${tag}a"; nsb="${tag}b"
# A /24 from the process id keeps parallel runs apart.
net="10.$(( ($$ >> 8) % 200 + 20 )).$(( $$ % 250 ))"
cleanup() { ip netns del "$nsa" 2>/dev/null; ip netns del "$nsb" 2>/dev/null; }
trap cleanup EXIT
if ! ip netns add "$nsa" 2>/dev/null || ! ip netns add "$nsb"; then
  echo "SKIP: cannot create network namespaces here (container without CAP_SYS_ADMIN?)"; exit 77
fi
ip link add "${tag}x" type veth peer name "${tag}y" || { echo "SKIP: cannot create a veth pair"; exit 77; }
ip link set "${tag}x" netns "$nsa"
ip link set "${tag}y" netns "$nsb"
ip -n "$nsa" addr add "$net.1/24" dev "${tag}x"
ip -n "$nsb" addr add "$net.2/24" dev "${tag}y"
for ns in "$nsa" "$nsb"; do ip -n "$ns" link set lo up; done
ip -n "$nsa" link set "${tag}x" up
ip -n "$nsb" link set "${tag}y" up

secret=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
port=$(( 20000 + $$ % 20000 ))
fail=0
# NETNS_PPN PEs per namespace (default 1): with 2, PEs 0-1 share one "node"
# (mapped to each other) and 2-3 the other, so every group mixes mapped and
# network peers.
ppn=${NETNS_PPN:-1}
np=$((2 * ppn))
for prog in "$@"; do
  port=$((port + 1))
  common=(SYMM_SIZE=$np SYMM_BOOT_ADDR="$net.1:$port" SYMM_JOB_SECRET="$secret"
          UCX_TLS=tcp SYMM_BOOT_TIMEOUT=30 TEST_PES_PER_NODE="$ppn")
  pids=()
  for ((r = 0; r < np; r++)); do
    if [ $r -lt "$ppn" ]; then ns=$nsa; dev="${tag}x"; else ns=$nsb; dev="${tag}y"; fi
    ip netns exec "$ns" env "${common[@]}" SYMM_RANK=$r UCX_NET_DEVICES="$dev" \
       timeout "${NETNS_TIMEOUT:-120}" $prog > "/tmp/$tag.$r" 2>&1 &
    pids+=($!)
  done
  rcs=()
  for p in "${pids[@]}"; do wait "$p"; rcs+=($?); done
  r0=${rcs[0]}; r1=${rcs[$((np - 1))]}
  for rc in "${rcs[@]}"; do
    if [ "$rc" -ne 0 ] && [ "$r1" -eq 0 ]; then r1=$rc; fi
  done
  out=$(for ((r = 0; r < np; r++)); do sed "s/^/[PE $r] /" "/tmp/$tag.$r"; rm -f "/tmp/$tag.$r"; done)
  echo "$out"
  if [ -n "${NETNS_EXPECT_FAIL:-}" ]; then
    # The job must fail (not hang: timeout's 124 is a failure here) and say why.
    if [ $r0 -eq 0 ] || [ $r0 -eq 124 ] || [ $r1 -eq 124 ] ||
       ! grep -q -E "$NETNS_EXPECT_FAIL" <<<"$out"; then
      echo "FAIL: $prog across namespaces: expected a failure matching '$NETNS_EXPECT_FAIL'," \
           "got exit $r0 / $r1"; fail=1
    else
      echo "ok: $prog failed as expected ('$NETNS_EXPECT_FAIL')"
    fi
  elif [ $r0 -ne 0 ] || [ $r1 -ne 0 ]; then
    echo "FAIL: $prog across namespaces: exit $r0 / $r1"; fail=1
  else
    echo "ok: $prog across namespaces $net.1 <-> $net.2"
  fi
done
exit $fail
