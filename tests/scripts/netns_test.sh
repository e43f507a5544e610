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
tag="symm$$"
. "$(dirname "$0")/netns_lib.sh"
trap netns_down EXIT
netns_up "$tag" || exit $?

secret=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
port=$(( 20000 + $$ % 20000 ))
fail=0
# NETNS_PPN PEs per namespace (default 1): with 2, PEs 0-1 share one "node"
# (mapped to each other) and 2-3 the other, so every group mixes mapped and
# network peers. NETNS_CYCLIC=1 deals the ranks out in turn instead (0, 2
# on one "node", 1, 3 on the other): a node's members are not consecutive
# in the team.
ppn=${NETNS_PPN:-1}
np=$((2 * ppn))
for prog in "$@"; do
  port=$((port + 1))
  common=(SYMM_SIZE=$np SYMM_BOOT_ADDR="$net.1:$port" SYMM_JOB_SECRET="$secret"
          UCX_TLS=tcp SYMM_BOOT_TIMEOUT=30 TEST_PES_PER_NODE="$ppn")
  pids=()
  for ((r = 0; r < np; r++)); do
    if [ "${NETNS_CYCLIC:-0}" = 1 ]; then node=$((r % 2)); else node=$((r / ppn)); fi
    if [ $node -eq 0 ]; then ns=$nsa; dev=$deva; else ns=$nsb; dev=$devb; fi
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
