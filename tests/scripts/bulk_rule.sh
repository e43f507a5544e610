#!/bin/bash
# bulk_rule.sh SYMM_INFO - SYMM_UCX_BULK_EP=auto follows the TCP congestion
# control of the PE's network namespace (symm_ucx_bulk_rule): in a namespace
# on reno, large collective messages to other nodes go by rendezvous on the
# second endpoint; on bbr (where this kernel allows it), on the first.
# 0 and 1 override it. Needs root (ip netns); 77 skips.
set -u
info=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/netns_lib.sh"
netns_up "br$$" || exit 77
trap netns_down EXIT
if [ -e /sys/class/infiniband ]; then echo "SKIP: an InfiniBand device is present (auto: off)"; exit 77; fi
fail=0
# reno is built into every Linux kernel: a namespace that cannot take it
# cannot run this test at all (rather than passing without a check).
if ! ip netns exec "$nsa" sysctl -qw net.ipv4.tcp_congestion_control=reno; then
  echo "SKIP: cannot set the namespace's congestion control"; exit 77
fi
expect() { # cc env-value regex
  local out
  ip netns exec "$nsa" sysctl -qw net.ipv4.tcp_congestion_control="$1" ||
    { echo "FAIL: cannot set congestion control $1"; fail=1; return; }
  out=$(ip netns exec "$nsa" env SYMM_UCX_BULK_EP="$2" "$info" | grep '^large collective messages')
  if [[ "$out" =~ $3 ]]; then echo "ok: $1, SYMM_UCX_BULK_EP=$2: $out"
  else echo "FAIL: $1, SYMM_UCX_BULK_EP=$2: '$out' does not match '$3'"; fail=1; fi
}
expect reno auto "rendezvous on a second endpoint \(SYMM_UCX_BULK_EP=auto; tcp, congestion control reno"
expect reno 0 "on the first endpoint \(SYMM_UCX_BULK_EP=0\)"
if grep -qw bbr /proc/sys/net/ipv4/tcp_allowed_congestion_control 2>/dev/null; then
  expect bbr auto "on the first endpoint \(SYMM_UCX_BULK_EP=auto; tcp, congestion control bbr paces"
  expect bbr 1 "rendezvous on a second endpoint \(SYMM_UCX_BULK_EP=1\)"
fi
exit $fail
