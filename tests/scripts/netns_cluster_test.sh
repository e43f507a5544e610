#!/bin/bash
# netns_cluster_test.sh PROG [ARGS...] - PROG on emulated clusters
# (scripts/netns_cluster.sh: namespaces on one bridge): 2 nodes of 1 PE
# (the two-member pipeline, in place too), 3 nodes of 2 PEs
# (node-aware groups whose heads are 3) and 4 nodes of 1,
# each with the pipelined reduction's segments short (SYMM_COLL_SEGMENT=40,
# SYMM_COLL_WINDOW=3), once eager and once with every segment by
# rendezvous. Exits 77 (skipped) where namespaces cannot be made.
set -u
cluster=$(dirname "$0")/../../scripts/netns_cluster.sh
for layout in "2 1" "3 2" "4 1"; do
  for mode in eager rndv; do
    extra=()
    [ $mode = rndv ] && extra=(SYMM_COLL_EAGER_MAX=0 SYMM_COLL_EXCHANGE_EAGER_MAX=0)
    read -r nodes ppn <<<"$layout"
    "$cluster" -n "$nodes" -p "$ppn" -- env SYMM_COLL_SEGMENT=40 SYMM_COLL_WINDOW=3 \
      SYMM_BOOT_TIMEOUT=30 "${extra[@]}" timeout "${NETNS_TIMEOUT:-120}" "$@"
    rc=$?
    [ $rc -eq 77 ] && exit 77
    if [ $rc -ne 0 ]; then
      echo "FAIL: $* on $nodes nodes x $ppn ($mode): exit $rc"; exit 1
    fi
    echo "ok: $* on $nodes nodes x $ppn ($mode)"
  done
done
