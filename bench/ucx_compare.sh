#!/usr/bin/env bash
# ucx_compare.sh: symm's network path next to raw UCX and Open MPI's
# OpenSHMEM (spml ucx) on the same UCX transport, in one run on one machine.
#
#   bench/ucx_compare.sh [UCX_TLS]        (default: tcp; needs root)
#
# Two "nodes" are two network namespaces joined by a veth pair
# (tests/scripts/netns_lib.sh). Both libraries' jobs are started the same
# way: Open MPI's mpirun inside the first namespace, reaching the second
# through an rsh agent that is `ip netns exec` (symm's PMIx bootstrap runs
# under mpirun). Layouts: 2 PEs = 2 namespaces x 1; 4 PEs = 2 namespaces x 2
# (PEs 0-1 and 2-3 share a namespace: symm maps them to each other, Open MPI
# reaches them through UCX_TLS as well).
#
# Rows (bench/net_bench.c, one source built with each oshcc): put, get and
# fetch-add latency of 8 B from PE 0 to the last PE (another namespace),
# put bandwidth at 1 MiB, barrier, and broadcast / fcollect / alltoall /
# sum-reduce at 8 B, 64 KiB and 1 MiB per PE, OSU-style (each call timed
# alone, average over PEs). Raw UCX (bench/ucx_raw.c, 2 processes, one per
# namespace) gives the floor of the point-to-point rows. Each cell is the
# best of RUNS runs (default 3), the libraries alternating; the last two
# columns are ratios of the medians over the runs (symm's to Open MPI's, and
# to raw UCX's), which a party whose times scatter more (one that polls on
# an oversubscribed machine, or raw UCX's one lucky run of five) cannot win
# by one lucky run.
#
# Environment: RUNS, ITERS (net_bench iterations, default 1000; its latency
# rows run 10 x ITERS operations, as many as raw UCX's),
# SYMM_PREFIX (symm's install, default build/install), KEEP_DIR (keep the
# work directory, its "rows" file holds every run's numbers), ROWS=FILE
# (only print the tables of such a file; runs nothing, needs no root),
# TCP_CC (the namespaces' TCP congestion control, e.g. reno; default: the
# machine's, which a namespace inherits; only those in the machine's
# net.ipv4.tcp_allowed_congestion_control can be set), ONLY (net_bench's
# rows to run, NET_BENCH_ONLY's form: ONLY=fcollect:1048576,sum_reduce:1048576
# runs those two; the point-to-point rows still run, unprinted), SYMM_ENV
# (VAR=VALUE ... given to symm's PEs only, to compare its settings).
set -euo pipefail
tls=${1:-tcp}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SYMM_PREFIX=${SYMM_PREFIX:-$here/../build/install}
runs=${RUNS:-3}
iters=${ITERS:-1000}
export OMPI_MCA_opal_common_ucx_opal_mem_hooks=0
work=${KEEP_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/symm-ucx.XXXXXX")}
mkdir -p "$work"

out="$work/rows"
if [ -n "${ROWS:-}" ]; then
  out=$ROWS
  [ -n "${KEEP_DIR:-}" ] || rm -rf "$work"
else # the runs, up to the matching fi
. "$here/../tests/scripts/netns_lib.sh"
cleanup() { netns_down; [ -n "${KEEP_DIR:-}" ] || rm -rf "$work"; }
trap cleanup EXIT
if ! netns_up "uc$$"; then exit 77; fi
if [ -n "${TCP_CC:-}" ]; then
  for ns in "$nsa" "$nsb"; do
    ip netns exec "$ns" sysctl -qw net.ipv4.tcp_congestion_control="$TCP_CC"
  done
fi
# The rsh agent: "HOST CMD..." runs CMD in the namespace that owns HOST.
cat >"$work/nsexec.sh" <<EOF
#!/bin/sh
host=\$1; shift
case \$host in $net.1) ns=$nsa ;; *) ns=$nsb ;; esac
exec ip netns exec "\$ns" sh -c "\$*"
EOF
chmod +x "$work/nsexec.sh"
ompi_ucx=(--mca spml ucx --mca pml ucx --mca pml_ucx_tls any --mca pml_ucx_devices any)

echo "# UCX_TLS=$tls, UCX $(pkg-config --modversion ucx 2>/dev/null || echo '?'),"\
     "$(nproc) cores, best of $runs runs, $iters iterations"
cc -O2 "$here/ucx_raw.c" -o "$work/ucx_raw" -lucp -lucs
"$SYMM_PREFIX/bin/oshcc" -O2 "$here/net_bench.c" -o "$work/nb_symm"
/usr/bin/oshcc -O2 "$here/net_bench.c" -o "$work/nb_ompi" 2>/dev/null

launch() { # ppn binary extra-args...
  local ppn=$1 bin=$2
  shift 2
  # Not bound: mpirun would bind each "node"'s first PE to core 0, on
  # this one machine the same core for both namespaces.
  ip netns exec "$nsa" mpirun --allow-run-as-root --bind-to none -np $((2 * ppn)) \
    --host "$net.1:$ppn,$net.2:$ppn" --mca plm_rsh_agent "$work/nsexec.sh" \
    -x UCX_TLS="$tls" -x OMPI_MCA_opal_common_ucx_opal_mem_hooks=0 \
    -x NET_BENCH_ONLY="${ONLY:-}" "$@" "$bin" "$iters"
}
symm_env=()
for e in ${SYMM_ENV:-}; do symm_env+=(-x "$e"); done

: >"$out"
for ((r = 1; r <= runs; r++)); do
  rm -rf "$work/raw$r" && mkdir -p "$work/raw$r"   # addresses of this run only
  ip netns exec "$nsb" env UCX_TLS="$tls" "$work/ucx_raw" 1 "$work/raw$r" 10000 >/dev/null &
  ip netns exec "$nsa" env UCX_TLS="$tls" "$work/ucx_raw" 0 "$work/raw$r" 10000 |
    awk '$1 == "put_lat+flush" { print "2 raw put 8", $3 }
         $1 == "get_lat" { print "2 raw get 8", $3 }
         $1 == "fetch_add" { print "2 raw fetch_add 8", $3 }
         $1 == "put_bw" && $2 == 1048576 { print "2 raw put_bw 1048576", $3 }' >>"$out"
  wait
  for ppn in 1 2; do
    launch $ppn "$work/nb_symm" "${symm_env[@]}" 2>"$work/symm.err" |
      awk -v np=$((2 * ppn)) '$1 == "net_bench" { print np, "symm", $2, $3, $4 }' >>"$out" ||
      { echo "symm run failed:"; cat "$work/symm.err"; exit 1; }
    launch $ppn "$work/nb_ompi" "${ompi_ucx[@]}" 2>/dev/null |
      awk -v np=$((2 * ppn)) '$1 == "net_bench" { print np, "ompi", $2, $3, $4 }' >>"$out" || true
  done
done
fi

# One table per layout: best of the runs (lowest time, highest bandwidth),
# and the ratio of the runs' medians.
awk '
{ k = $1 SUBSEP $3 SUBSEP $4; bw = ($3 == "put_bw")
  if (!(k in seen)) { seen[k] = 1; order[$1, ++n[$1]] = $3 SUBSEP $4 }
  c = k SUBSEP $2
  all[c, ++cnt[c]] = $5
  if (!(c in best) || (bw ? $5 > best[c] : $5 < best[c])) best[c] = $5 }
function cell(v) { return v == "" ? "-" : sprintf(v >= 100 ? "%.0f" : "%.1f", v) }
function ratio(a, b) { return a == "" || b == "" || b == 0 ? "-" : sprintf("%.2f", a / b) }
function median(c,    m, i, j, t, v) {
  m = cnt[c]
  if (m == 0) return ""
  for (i = 1; i <= m; i++) v[i] = all[c, i]
  for (i = 2; i <= m; i++)
    for (j = i; j > 1 && v[j - 1] > v[j]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
  return m % 2 ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2
}
END {
  for (np = 2; np <= 4; np += 2) {
    printf "\n## %d PEs (2 namespaces x %d)\n", np, np / 2
    printf "| %-21s | %8s | %8s | %8s | %10s | %9s | %11s | %11s |\n", "row (us; put_bw MB/s)",
           "raw UCX", "symm", "Open MPI", "symm/OMPI", "symm/raw", "median/OMPI", "median/raw"
    printf "|%s|%s|%s|%s|%s|%s|%s|%s|\n", "-----------------------", "----------", "----------",
           "----------", "------------", "-----------", "-------------", "-------------"
    for (i = 1; i <= n[np]; i++) {
      split(order[np, i], f, SUBSEP)
      k = np SUBSEP f[1] SUBSEP f[2]; rk = 2 SUBSEP f[1] SUBSEP f[2]
      s = best[k, "symm"]; o = best[k, "ompi"]; w = best[rk, "raw"]
      ms = median(k SUBSEP "symm"); mo = median(k SUBSEP "ompi"); mw = median(rk SUBSEP "raw")
      sz = f[2] >= 1048576 ? f[2] / 1048576 " MiB" : f[2] >= 1024 ? f[2] / 1024 " KiB" : f[2] " B"
      name = f[1] (f[1] == "barrier" ? "" : " " sz)
      bw = f[1] == "put_bw"
      printf "| %-21s | %8s | %8s | %8s | %10s | %9s | %11s | %11s |\n", name, cell(w), cell(s),
             cell(o), bw ? ratio(o, s) : ratio(s, o), bw ? ratio(w, s) : ratio(s, w),
             bw ? ratio(mo, ms) : ratio(ms, mo), bw ? ratio(mw, ms) : ratio(ms, mw)
    }
  }
  print "\n(ratios are time ratios: below 1.00 symm is faster; for put_bw, OMPI/symm and raw/symm)"
}' "$out"
