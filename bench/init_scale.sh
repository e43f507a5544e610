#!/usr/bin/env bash
# init_scale.sh: how init's cost grows with the job. Runs an empty program
# (init + finalize only, tests/pe/empty.c) under oshrun at each N, with the
# shared-memory transport and with SYMM_TRANSPORT=ucx (every peer through
# UCX), and prints wall time (best of RUNS), the largest per-PE max RSS and
# the CPU time of the whole job (one run).
#
#   bench/init_scale.sh [N...]            (default: 2 8 32 64)
#
# Environment: RUNS (default 3), BUILD (build directory, default ../build),
# EMPTY (the program, default $BUILD/tests/empty), OSHRUN ($BUILD/oshrun).
# RSS is /usr/bin/time's %M of each PE (the PE is its child), KiB; "-" when
# /usr/bin/time is missing. Oversubscribed runs measure the machine too:
# compare before/after on the same machine, quiet.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BUILD=${BUILD:-$here/../build}
EMPTY=${EMPTY:-$BUILD/tests/empty}
OSHRUN=${OSHRUN:-$BUILD/oshrun}
RUNS=${RUNS:-3}
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(2 8 32 64)
work=$(mktemp -d "${TMPDIR:-/tmp}/symm-init.XXXXXX")
trap 'rm -rf "$work"' EXIT

# Best wall time of RUNS launches, seconds; env assignments come first.
best_time() {
    local best="" t0 t1 t
    for _ in $(seq "$RUNS"); do
        t0=$(date +%s.%N)
        env "$@" "$OSHRUN" --timeout 300 -np "$np" "$EMPTY" >/dev/null
        t1=$(date +%s.%N)
        t=$(echo "$t1 - $t0" | bc -l)
        if [ -z "$best" ] || [ "$(echo "$t < $best" | bc -l)" = 1 ]; then best=$t; fi
    done
    printf '%.3f' "$best"
}

# Largest max RSS of any PE (KiB) and the CPU time of the whole job, oshrun
# and every PE (user + system, s; one /usr/bin/time around oshrun, which
# waits for its PEs: per-PE times round to 10 ms each). The CPU column is
# steadier than wall time on a busy machine.
rss_cpu() {
    [ -x /usr/bin/time ] || { echo "- -"; return; }
    : >"$work/rss"
    env "$@" /usr/bin/time -o "$work/cpu" -f "%U %S" "$OSHRUN" --timeout 300 -np "$np" \
        /usr/bin/time -a -o "$work/rss" -f "%M" "$EMPTY" >/dev/null
    awk '{ if ($1 > m) m = $1 } END { printf "%d ", m }' "$work/rss"
    awk '{ printf "%.2f\n", $1 + $2 }' "$work/cpu"
}

printf '%6s %8s %8s %12s %12s %10s %10s\n' N shm_s ucx_s shm_rss_KiB ucx_rss_KiB shm_cpu_s \
    ucx_cpu_s
for np in "${sizes[@]}"; do
    shm=$(best_time SYMM_TRANSPORT=shm)
    ucx=$(best_time SYMM_TRANSPORT=ucx)
    read -r shm_rss shm_cpu < <(rss_cpu SYMM_TRANSPORT=shm)
    read -r ucx_rss ucx_cpu < <(rss_cpu SYMM_TRANSPORT=ucx)
    printf '%6s %8s %8s %12s %12s %10s %10s\n' "$np" "$shm" "$ucx" "$shm_rss" "$ucx_rss" \
        "$shm_cpu" "$ucx_cpu"
done
