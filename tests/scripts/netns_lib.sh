# netns_lib.sh - sourced: two network namespaces joined by a veth pair, the
# stand-in for two nodes on one machine (node identity includes the network
# namespace). Used by tests/scripts/netns_test.sh and bench/ucx_compare.sh.
#
#   netns_up TAG    creates namespaces ${TAG}a and ${TAG}b with addresses
#                   $net.1 (device ${TAG}x) and $net.2 (device ${TAG}y);
#                   sets nsa nsb deva devb net; returns 77 with a SKIP line
#                   when this machine cannot (not root, no iproute2, a
#                   container without CAP_SYS_ADMIN)
#   netns_down      removes them (safe to call twice; install it as a trap)
netns_up() {
  local tag=$1
  nsa="${tag}a"; nsb="${tag}b"; deva="${tag}x"; devb="${tag}y"
  # A /24 from the process id keeps parallel runs apart.
  net="10.$(( ($$ >> 8) % 200 + 20 )).$(( $$ % 250 ))"
  if [ "$(id -u)" -ne 0 ]; then echo "SKIP: network namespaces need root (ip netns)"; return 77; fi
  if ! command -v ip >/dev/null; then echo "SKIP: network namespaces need iproute2 (ip)"; return 77; fi
  if ! ip netns add "$nsa" 2>/dev/null || ! ip netns add "$nsb"; then
    echo "SKIP: cannot create network namespaces here (container without CAP_SYS_ADMIN?)"; return 77
  fi
  ip link add "$deva" type veth peer name "$devb" || { echo "SKIP: cannot create a veth pair"; return 77; }
  ip link set "$deva" netns "$nsa"
  ip link set "$devb" netns "$nsb"
  ip -n "$nsa" addr add "$net.1/24" dev "$deva"
  ip -n "$nsb" addr add "$net.2/24" dev "$devb"
  local ns
  for ns in "$nsa" "$nsb"; do ip -n "$ns" link set lo up; done
  ip -n "$nsa" link set "$deva" up
  ip -n "$nsb" link set "$devb" up
}
netns_down() {
  ip netns del "$nsa" 2>/dev/null
  ip netns del "$nsb" 2>/dev/null
  return 0
}
