#!/usr/bin/env bash
# ucx_compare.sh: symm's UCX transport next to raw UCX and Open MPI's
# OpenSHMEM on the same UCX transport, in one run on one machine.
#
#   bench/ucx_compare.sh [UCX_TLS]        (default: tcp)
#
# 1. bench/ucx_raw.c: the operations symm-bench times, directly on UCP
#    (2 processes, memory registered as symm registers its heap);
# 2. bench/compare.sh: symm-bench under symm with SYMM_TRANSPORT=ucx (every
#    peer through UCX) and under Open MPI's OpenSHMEM with spml ucx and pml
#    ucx, both with UCX_TLS as given: put/get latency, put bandwidth,
#    atomics, barrier;
# 3. bench/coll_active.c: 8 B, 64 KiB and 1 MiB broadcast, fcollect,
#    sum-reduce on both.
# Environment: RUNS (compare.sh's runs per side, default 3), SYMM_PREFIX.
set -euo pipefail
tls=${1:-tcp}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SYMM_PREFIX=${SYMM_PREFIX:-$here/../build/install}
export OMPI_MCA_opal_common_ucx_opal_mem_hooks=0
# Open MPI on the same UCX transport for everything: OpenSHMEM RMA/AMO (spml
# ucx) and the MPI layer its barrier and collectives use (pml ucx, which
# otherwise refuses tcp-only devices, and would leave them on shared memory).
ompi_ucx="--mca spml ucx --mca pml ucx --mca pml_ucx_tls any --mca pml_ucx_devices any"
work=$(mktemp -d "${TMPDIR:-/tmp}/symm-ucx.XXXXXX")
trap 'rm -rf "$work"' EXIT

echo "# UCX_TLS=$tls, $(ucx_info -v | head -1 | sed 's/# //'), $(nproc) cores"
echo "## raw UCX (bench/ucx_raw.c)"
cc -O2 "$here/ucx_raw.c" -o "$work/ucx_raw" -lucp -lucs
mkdir "$work/x"
UCX_TLS=$tls "$work/ucx_raw" 1 "$work/x" 10000 >/dev/null &
UCX_TLS=$tls "$work/ucx_raw" 0 "$work/x" 10000
wait

echo
echo "## symm-bench: symm (SYMM_TRANSPORT=ucx) vs Open MPI OpenSHMEM (spml ucx)"
SYMM_LAUNCH="env SYMM_TRANSPORT=ucx UCX_TLS=$tls $SYMM_PREFIX/bin/oshrun -np 2" \
RUNS=${RUNS:-3} "$here/compare.sh" /usr/bin/oshcc \
  "oshrun --allow-run-as-root -np 2 $ompi_ucx -x UCX_TLS=$tls" \
  --min-size 8 --max-size 1M --iters 2000 put_lat get_lat put_bw atomic_lat barrier 2>/dev/null

echo
echo "## active-set collectives (bench/coll_active.c)"
"$SYMM_PREFIX/bin/oshcc" -O2 "$here/coll_active.c" -o "$work/ca_symm"
/usr/bin/oshcc -O2 "$here/coll_active.c" -o "$work/ca_ompi" 2>/dev/null
SYMM_TRANSPORT=ucx UCX_TLS=$tls "$SYMM_PREFIX/bin/oshrun" -np 2 "$work/ca_symm" 8 65536 1048576
oshrun --allow-run-as-root -np 2 $ompi_ucx -x UCX_TLS="$tls" "$work/ca_ompi" 8 65536 1048576 \
  2>/dev/null
