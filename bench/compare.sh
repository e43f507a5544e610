#!/usr/bin/env bash
# compare.sh: run symm-bench under symm and under another OpenSHMEM, side by side.
#
#   bench/compare.sh OTHER_OSHCC "OTHER_LAUNCH" [symm-bench args...]
#   e.g. bench/compare.sh /usr/bin/oshcc "oshrun --allow-run-as-root -np 2" put_lat get_lat
#
# Builds bench/symm_bench.c with each implementation's compiler wrapper, runs the two
# binaries one after the other with the same arguments plus --csv, and prints one table
# per test (and unit): row | symm | other | symm/other, with the geometric mean of the
# ratios.  For latency (us) lower is better; for MB/s, msgs/s, ops/s higher is better.
# A side that fails value checks is still compared; its failures are printed.
# With RUNS=N the two are run N times, alternately, and each cell is the median.
#
# Environment:
#   SYMM_PREFIX   symm install prefix (default: <this dir>/../build/install)
#   SYMM_OSHCC    symm compiler wrapper (default: $SYMM_PREFIX/bin/oshcc)
#   SYMM_LAUNCH   symm launcher command (default: "$SYMM_PREFIX/bin/oshrun -np 2")
#   BENCH_CFLAGS  flags for both builds (default: -O2)
#   KEEP_DIR      directory for binaries, CSVs and raw outputs (default: a mktemp dir)
#   RUNS          runs per side, alternating; cells are medians (default: 1)
# OMPI_MCA_opal_common_ucx_opal_mem_hooks=0 is exported (needed by Open MPI's
# OpenSHMEM in containers, harmless elsewhere).
set -euo pipefail

if [ $# -lt 2 ] || [ "$1" = -h ] || [ "$1" = --help ]; then
    sed -n '2,22s/^# \{0,1\}//p' "$0" >&2
    exit 2
fi
other_cc=$1
other_launch=$2
shift 2

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SYMM_PREFIX=${SYMM_PREFIX:-$here/../build/install}
SYMM_OSHCC=${SYMM_OSHCC:-$SYMM_PREFIX/bin/oshcc}
SYMM_LAUNCH=${SYMM_LAUNCH:-$SYMM_PREFIX/bin/oshrun -np 2}
read -r -a cflags <<<"${BENCH_CFLAGS:--O2}"
export OMPI_MCA_opal_common_ucx_opal_mem_hooks=0

work=${KEEP_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/symm-compare.XXXXXX")}
mkdir -p "$work"

build() { # name compiler
    echo "compare.sh: building $1 with $2" >&2
    if ! "$2" "${cflags[@]}" "$here/symm_bench.c" -o "$work/bench-$1" >"$work/build-$1.log" 2>&1; then
        echo "compare.sh: build with $2 failed:" >&2
        cat "$work/build-$1.log" >&2
        exit 1
    fi
}

run() { # name "launcher" run# [args...]
    local name=$1 launch out=$work/$1.$3
    read -r -a launch <<<"$2"
    shift 3
    echo "compare.sh: running $name: ${launch[*]} bench-$name $*" >&2
    rm -f "$out.csv"
    local rc=0
    "${launch[@]}" "$work/bench-$name" "$@" --csv "$out.csv" >"$out.out" 2>&1 || rc=$?
    # A run whose only trouble is a failed value check (exit 1, CSV written) is
    # still compared, with the failures shown: its numbers may be those of a
    # broken routine (e.g. a fetching atomic that does not update the target).
    if [ "$rc" -ne 0 ] && [ -s "$out.csv" ] && grep -q 'VALIDATION FAILED' "$out.out"; then
        echo "compare.sh: WARNING: the $name run failed value checks:" >&2
        grep 'VALIDATION FAILED' "$out.out" | sed 's/^/compare.sh:   /' >&2
    elif [ "$rc" -ne 0 ] || [ ! -s "$out.csv" ]; then
        echo "compare.sh: the $name run failed; last lines of $out.out:" >&2
        tail -n 20 "$out.out" >&2
        exit 1
    fi
}

runs=${RUNS:-1}
build symm "$SYMM_OSHCC"
build other "$other_cc"
files=()
for ((i = 1; i <= runs; i++)); do
    run symm "$SYMM_LAUNCH" "$i" "$@"
    run other "$other_launch" "$i" "$@"
done
for ((i = 1; i <= runs; i++)); do files+=(side=1 "$work/symm.$i.csv"); done
for ((i = 1; i <= runs; i++)); do files+=(side=2 "$work/other.$i.csv"); done

awk -F, '
FNR == 1 { next }
{
    t = $3 SUBSEP $7; k = t SUBSEP $4
    if (!(t in seen)) { seen[t] = 1; order[++nt] = t; name[t] = $3; unit[t] = $7 }
    if (!(k in have)) { have[k] = 1; rows[t, ++nr[t]] = $4 }
    val[side, k, ++cnt[side, k]] = $6
    impl[side] = $1; np[side] = $2
}
function median(sd, k,    n, i, j, x, a) {
    n = cnt[sd, k]
    if (!n) return ""
    for (i = 1; i <= n; i++) {           # insertion sort; n is small
        x = val[sd, k, i] + 0
        for (j = i - 1; j > 0 && a[j] > x; j--) a[j + 1] = a[j]
        a[j + 1] = x
    }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function fmt(v, u) {
    if (v == "") return "-"
    return sprintf(u == "us" ? "%.3f" : u == "MB/s" ? "%.2f" : "%.0f", v)
}
END {
    printf "# symm  = %s (%s PEs)\n# other = %s (%s PEs)\n", impl[1], np[1], impl[2], np[2]
    if (runs > 1) printf "# each cell: median of %d runs\n", runs
    for (i = 1; i <= nt; i++) {
        t = order[i]; u = unit[t]
        printf "\n# %s  [%s, %s is better]\n", name[t], u, u == "us" ? "lower" : "higher"
        printf "%-14s| %14s | %14s | %10s\n", rows[t, 1] ~ /^[0-9]+$/ ? "size" : "op",
               "symm", "other", "symm/other"
        logsum = 0; nlog = 0
        for (j = 1; j <= nr[t]; j++) {
            k = t SUBSEP rows[t, j]; s = median(1, k); o = median(2, k); r = "-"
            if (s != "" && o != "" && s + 0 > 0 && o + 0 > 0) {
                r = sprintf("%.2f", s / o); logsum += log(s / o); nlog++
            }
            printf "%-14s| %14s | %14s | %10s\n", rows[t, j], fmt(s, u), fmt(o, u), r
        }
        if (nlog) printf "%-14s| %14s | %14s | %10.2f\n", "geomean", "", "", exp(logsum / nlog)
    }
}' runs="$runs" "${files[@]}"

for name in symm other; do # tests a side could not run (e.g. 1.5-only routines on 1.4)
    grep -h 'skipped:' "$work/$name.1.out" | sed "s/^# symm-bench/# $name:/" || true
done
echo "compare.sh: binaries, CSVs and raw outputs are in $work" >&2
