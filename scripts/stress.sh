#!/bin/bash
# stress.sh - run the seeded stress tester (tests/stress/, docs/stress.md)
# over configurations: PE counts, threads, UCX for every peer, emulated
# nodes, the progress thread off, a small heap that must grow.
#
#   scripts/stress.sh [--build DIR] [--config NAME[,NAME...]]... [--seed S]
#                     [--steps N] [--minutes N | --runs N] [--slice [GROUP]]
#                     [--timeout SEC] [--inject STEP] [--list] [--keep DIR] [--no-ucx]
#
#   --build DIR    the build tree (default build/); its CMakeCache says
#                  whether it is an ASan or TSan build, which picks the
#                  default configurations (TSan: no UCX) and the timeouts
#   --config NAME  run these configurations (repeatable or comma list);
#                  default: every configuration the build suits
#   --seed S       this seed for every run (default: a random one per run)
#   --steps N      steps per lane (default 200)
#   --minutes N    loop random seeds over the configurations until N
#                  minutes are up (default: one pass)
#   --runs N       passes over the configurations (default 1)
#   --slice [GROUP] the CI slice: fixed seeds and configurations of GROUP
#                  (shm, threads, ucx, nodes; default all) for this kind of build
#   --timeout SEC  per run (default 120; x3 under the sanitizers); a run
#                  that hits it, or SYMM_HANG_TIMEOUT at 2/3 of it, is a HANG
#   --inject STEP  SYMM_STRESS_INJECT=STEP: the driver corrupts the first
#                  expected value at or after STEP (the self-test)
#   --keep DIR     keep every run's output there (default: failures only,
#                  in a temporary directory named at the end)
#   --no-ucx       leave out the configurations that need UCX (a build
#                  without it)
#   --list         print the configurations and exit
#
# Every failing run prints its FAIL (or HANG, ERROR) line and the command
# that replays it. Exit 0 only when every check held; the last line is the
# summary: configurations, runs, steps, minutes, failures.
set -u
export LC_ALL=C
here=$(cd "$(dirname "$0")/.." && pwd)

# name | PEs | environment
CONFIGS="
shm-np1|1|
shm-np2|2|
shm-np3|3|
shm-np4|4|
shm-np5|5|
shm-np8|8|
shm-threads2-np4|4|SYMM_STRESS_THREADS=2
shm-threads3-np3|3|SYMM_STRESS_THREADS=3
shm-threads4-np2|2|SYMM_STRESS_THREADS=4
shm-debug-np4|4|SHMEM_DEBUG=1
heap-small-np4|4|SHMEM_SYMMETRIC_SIZE=32M
heap-small-threads3-np2|2|SHMEM_SYMMETRIC_SIZE=32M SYMM_STRESS_THREADS=3
ucx-np2|2|SYMM_TRANSPORT=ucx
ucx-np3|3|SYMM_TRANSPORT=ucx
ucx-np4|4|SYMM_TRANSPORT=ucx
ucx-noprog-np3|3|SYMM_TRANSPORT=ucx SYMM_PROGRESS_THREAD=0
ucx-noprog-np4|4|SYMM_TRANSPORT=ucx SYMM_PROGRESS_THREAD=0
ucx-threads2-np2|2|SYMM_TRANSPORT=ucx SYMM_STRESS_THREADS=2
ucx-threads2-np3|3|SYMM_TRANSPORT=ucx SYMM_STRESS_THREADS=2
ucx-threads3-np2|2|SYMM_TRANSPORT=ucx SYMM_STRESS_THREADS=3
ucx-heap-small-np3|3|SYMM_TRANSPORT=ucx SHMEM_SYMMETRIC_SIZE=32M
ucx-tls-posix-np3|3|SYMM_TRANSPORT=ucx UCX_TLS=posix,self
ucx-tls-sysv-np3|3|SYMM_TRANSPORT=ucx UCX_TLS=sysv,self
ucx-tls-cma-np3|3|SYMM_TRANSPORT=ucx UCX_TLS=cma,tcp,self
ucx-tls-tcp-np3|3|SYMM_TRANSPORT=ucx UCX_TLS=tcp,self
ucx-tls-posix-np4|4|SYMM_TRANSPORT=ucx UCX_TLS=posix,self
ucx-tls-tcp-np4|4|SYMM_TRANSPORT=ucx UCX_TLS=tcp,self
ucx-heap-small-threads2-np2|2|SYMM_TRANSPORT=ucx SHMEM_SYMMETRIC_SIZE=32M SYMM_STRESS_THREADS=2
nodes-2x2|4|SYMM_NODE_SIZE=2
nodes-3x2|6|SYMM_NODE_SIZE=2
nodes-2x3|6|SYMM_NODE_SIZE=3
nodes-4x1|4|SYMM_NODE_SIZE=1
nodes-cyclic-2x2|4|SYMM_NODE_SIZE=2 SYMM_NODE_CYCLIC=1
nodes-cyclic-3x2|6|SYMM_NODE_SIZE=2 SYMM_NODE_CYCLIC=1
nodes-noprog-2x2|4|SYMM_NODE_SIZE=2 SYMM_PROGRESS_THREAD=0
nodes-prog-2x2|4|SYMM_NODE_SIZE=2 SYMM_PROGRESS_THREAD=1
nodes-threads2-2x2|4|SYMM_NODE_SIZE=2 SYMM_STRESS_THREADS=2
nodes-heap-small-2x2|4|SYMM_NODE_SIZE=2 SHMEM_SYMMETRIC_SIZE=32M
nodes-rndv-3x2|6|SYMM_NODE_SIZE=2 SYMM_COLL_EAGER_MAX=0 SYMM_COLL_EXCHANGE_EAGER_MAX=0 SYMM_COLL_HEADS=bruck
nodes-xeager-2x2|4|SYMM_NODE_SIZE=2 SYMM_COLL_EAGER_MAX=1K SYMM_COLL_EXCHANGE_EAGER_MAX=4K
nodes-ring-4x1|4|SYMM_NODE_SIZE=1 SYMM_COLL_HEADS=ring
nodes-auto-4x2|8|SYMM_NODE_SIZE=2 SYMM_COLL_DIRECT_NODES=2 SYMM_COLL_RING_MIN=0
nodes-netamo-2x2|4|SYMM_NODE_SIZE=2 SYMM_ATOMICS=network
nodes-split-2x2|4|SYMM_NODE_SIZE=2 SYMM_COLL_SPLIT_MIN=1
nodes-split-cyclic-3x2|6|SYMM_NODE_SIZE=2 SYMM_NODE_CYCLIC=1 SYMM_COLL_SPLIT_MIN=1 SYMM_COLL_SEGMENT=64
shm-nosame-np4|4|SYMM_SAME_ADDRESS=0
"

# The CI slice: GROUP:config:seed:steps for each kind of build.
SLICE_PLAIN="
shm:shm-np1:101:200 shm:shm-np2:102:300 shm:shm-np3:103:300 shm:shm-np4:104:400
shm:shm-np8:105:150 shm:shm-debug-np4:106:200 shm:heap-small-np4:107:300 shm:shm-nosame-np4:108:150
threads:shm-threads2-np4:201:250 threads:shm-threads3-np3:202:250 threads:shm-threads4-np2:203:250
threads:heap-small-threads3-np2:204:200 threads:ucx-threads2-np3:24:200 threads:ucx-threads3-np2:205:150
ucx:ucx-np2:301:400 ucx:ucx-np3:302:250 ucx:ucx-np4:303:400 ucx:ucx-noprog-np4:25:200
ucx:ucx-noprog-np3:304:150 ucx:ucx-heap-small-np3:305:200
ucx:ucx-tls-posix-np3:306:200 ucx:ucx-tls-sysv-np3:307:150 ucx:ucx-tls-tcp-np4:308:200
nodes:nodes-split-2x2:410:150 nodes:nodes-split-cyclic-3x2:411:100
nodes:nodes-2x2:401:200 nodes:nodes-3x2:402:150 nodes:nodes-cyclic-2x2:403:150
nodes:nodes-noprog-2x2:406:150 nodes:nodes-threads2-2x2:404:120 nodes:nodes-4x1:405:120
nodes:nodes-netamo-2x2:407:150 nodes:nodes-rndv-3x2:408:100 nodes:nodes-xeager-2x2:409:100
nodes:nodes-netamo-2x2:1729011529:130 nodes:nodes-netamo-2x2:3933307223:170
nodes:nodes-heap-small-2x2:1934081243:200
"
SLICE_ASAN="
shm:shm-np2:102:150 shm:shm-np4:104:150 shm:heap-small-np4:107:150 shm:shm-debug-np4:106:100
threads:shm-threads3-np3:202:100 threads:shm-threads2-np4:201:100 threads:ucx-threads2-np3:24:100
ucx:ucx-np2:301:150 ucx:ucx-np4:303:100 ucx:ucx-noprog-np4:25:100
nodes:nodes-2x2:401:100 nodes:nodes-cyclic-2x2:403:80 nodes:nodes-netamo-2x2:407:80
"
SLICE_TSAN="
threads:shm-threads2-np4:201:60 threads:shm-threads3-np3:202:60
threads:shm-threads4-np2:203:60 threads:shm-np2:102:80
threads:heap-small-threads3-np2:775943988:100
"

usage() { sed -n '2,34p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

build=build seed="" steps=200 minutes="" runs=1 slice="" timeout="" inject="" keep="" list=0 noucx=0
configs=()
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$2; shift 2 ;;
    --config) IFS=, read -r -a more <<< "$2"; configs+=("${more[@]}"); shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --steps) steps=$2; shift 2 ;;
    --minutes) minutes=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --slice) if [ $# -gt 1 ] && [ "${2#--}" = "$2" ]; then slice=$2; shift 2; else slice=all; shift; fi ;;
    --timeout) timeout=$2; shift 2 ;;
    --inject) inject=$2; shift 2 ;;
    --keep) keep=$2; shift 2 ;;
    --list) list=1; shift ;;
    --no-ucx) noucx=1; shift ;;
    -h|--help) usage ;;
    *) echo "stress.sh: unknown argument $1" >&2; usage ;;
  esac
done

case $build in /*) ;; *) build=$(cd "$here" && cd "$build" 2>/dev/null && pwd || echo "$build") ;; esac
oshrun=$build/oshrun
prog=$build/tests/stress
kind=plain
if [ -f "$build/CMakeCache.txt" ]; then
  grep -q '^SYMM_TSAN:BOOL=ON' "$build/CMakeCache.txt" && kind=tsan
  grep -q '^SYMM_SANITIZE:BOOL=ON' "$build/CMakeCache.txt" && kind=asan
fi

cfg_line() { printf '%s\n' "$CONFIGS" | grep -E "^$1\|" | head -1; }
suits() { # a configuration this build can run: TSan (and --no-ucx) has no UCX
  [ "$kind" != tsan ] && [ "$noucx" = 0 ] || ! printf '%s' "$1" | grep -qE 'SYMM_TRANSPORT=ucx|SYMM_NODE_SIZE'
}

if [ "$list" = 1 ]; then
  printf '%s\n' "$CONFIGS" | grep -v '^$' | while IFS='|' read -r n np env; do
    suits "$env" && printf '%-26s -np %-2s %s\n' "$n" "$np" "$env"
  done
  exit 0
fi
[ -x "$oshrun" ] && [ -x "$prog" ] || { echo "stress.sh: no $oshrun or $prog (build the tests first)" >&2; exit 2; }

if [ -z "$timeout" ]; then
  timeout=120
  [ "$kind" = plain ] || timeout=360
fi
hang_t=$((timeout * 2 / 3))

# The plan: lines "config seed steps".
plan=()
if [ -n "$slice" ]; then
  case $kind in plain) table=$SLICE_PLAIN ;; asan) table=$SLICE_ASAN ;; tsan) table=$SLICE_TSAN ;; esac
  for e in $table; do
    IFS=: read -r g c s n <<< "$e"
    [ "$slice" = all ] || [ "$slice" = "$g" ] || continue
    IFS='|' read -r _ _ env <<< "$(cfg_line "$c")"
    suits "$env" || continue
    plan+=("$c $s $n")
  done
  [ ${#plan[@]} -gt 0 ] || { echo "stress.sh: no slice $slice for a $kind build" >&2; exit 2; }
else
  if [ ${#configs[@]} -eq 0 ]; then
    while IFS='|' read -r n np env; do
      [ -n "$n" ] && suits "$env" && configs+=("$n")
    done <<< "$CONFIGS"
  fi
  for c in "${configs[@]}"; do
    [ -n "$(cfg_line "$c")" ] || { echo "stress.sh: no configuration $c (see --list)" >&2; exit 2; }
  done
fi

logdir=${keep:-$(mktemp -d "${TMPDIR:-/tmp}/stress.XXXXXX")}
mkdir -p "$logdir"
t0=$(date +%s)
nruns=0 nsteps=0 nfail=0 nhang=0 nerr=0
declare -A used=()

random_seed() { od -An -N4 -tu4 /dev/urandom | tr -d ' '; }

# run CONFIG SEED STEPS: one job; prints a line per failure and its replay.
run() {
  local c=$1 s=$2 n=$3 line np env
  line=$(cfg_line "$c")
  IFS='|' read -r _ np env <<< "$line"
  local log="$logdir/$c.seed$s.log" extra=""
  [ -n "$inject" ] && extra="SYMM_STRESS_INJECT=$inject"
  local replay="SYMM_STRESS_SEED=$s SYMM_STRESS_STEPS=$n $env $extra $oshrun -np $np $prog"
  local t1=$(date +%s)
  # shellcheck disable=SC2086
  env SYMM_STRESS_SEED="$s" SYMM_STRESS_STEPS="$n" $env $extra SYMM_HANG_TIMEOUT="$hang_t" \
    "$oshrun" --timeout "$timeout" -np "$np" "$prog" > "$log" 2>&1
  local rc=$? secs=$(( $(date +%s) - t1 ))
  nruns=$((nruns + 1))
  used[$c]=1
  if [ $rc -eq 0 ] && grep -q '^stress: PASS' "$log"; then
    nsteps=$((nsteps + n))
    [ -n "$keep" ] || rm -f "$log"
    printf 'stress.sh: ok    %-24s seed=%-10s steps=%-4s %3ss\n' "$c" "$s" "$n" "$secs"
    return 0
  fi
  if grep -q '^stress: FAIL' "$log"; then
    nfail=$((nfail + 1))
    grep '^stress: FAIL' "$log" | head -3 | sed "s/^/stress.sh: FAIL  $c: /"
    local drv; drv=$(grep -m1 '^replay: ' "$log" | sed 's/^replay: //')
    local fs; fs=$(grep -m1 '^stress: FAIL' "$log" | sed -n 's/.* step=\([0-9]*\) .*/\1/p')
    [ -n "$fs" ] && replay="SYMM_STRESS_SEED=$s SYMM_STRESS_STEPS=$((fs + 1)) $env $extra $oshrun -np $np $prog"
    [ -n "$drv" ] && echo "stress.sh:       (driver's replay: $drv)"
  elif [ $rc -eq 124 ] || grep -q 'SYMM_HANG_TIMEOUT' "$log"; then
    nhang=$((nhang + 1))
    echo "stress.sh: HANG  $c seed=$s steps=$n (rc $rc after ${secs}s)"
    grep -E '^symm: ' "$log" | head -12 | sed 's/^/stress.sh:       /'
  else
    nerr=$((nerr + 1))
    echo "stress.sh: ERROR $c seed=$s steps=$n (exit $rc, no PASS line)"
    tail -8 "$log" | sed 's/^/stress.sh:       /'
  fi
  echo "stress.sh:       replay: $(echo "$replay" | tr -s ' ')"
  echo "stress.sh:       log: $log"
  return 1
}

if [ -n "$slice" ]; then
  for p in "${plan[@]}"; do
    read -r c s n <<< "$p"
    run "$c" "${seed:-$s}" "$n"
  done
elif [ -n "$minutes" ]; then
  end=$((t0 + minutes * 60))
  while [ "$(date +%s)" -lt "$end" ]; do
    for c in $(printf '%s\n' "${configs[@]}" | shuf); do
      [ "$(date +%s)" -lt "$end" ] || break
      run "$c" "${seed:-$(random_seed)}" "$steps"
    done
  done
else
  for ((i = 0; i < runs; i++)); do
    for c in "${configs[@]}"; do
      run "$c" "${seed:-$(random_seed)}" "$steps"
    done
  done
fi

secs=$(( $(date +%s) - t0 ))
fails=$((nfail + nhang + nerr))
[ -n "$keep" ] || [ $fails -gt 0 ] || rmdir "$logdir" 2>/dev/null
[ $fails -gt 0 ] && echo "stress.sh: logs of failing runs in $logdir"
printf 'stress.sh: %d configurations, %d runs, %d steps passed, %d.%d minutes, %d failures (%d FAIL, %d HANG, %d ERROR)\n' \
  "${#used[@]}" "$nruns" "$nsteps" $((secs / 60)) $(((secs % 60) * 10 / 60)) "$fails" "$nfail" "$nhang" "$nerr"
[ $fails -eq 0 ]
