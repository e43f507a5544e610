#!/bin/bash
# kill_loop.sh MODE NP KILLS [kill|exit]: end PEs of tests/pe/fault_loop.c at
# random points and time how long the job takes to end.
#
# MODE: how the job is started
#   oshrun   oshrun -np NP fault_loop shmem
#   default  a bash loop of NP processes, aclshmem DEFAULT mode (tcp://127.0.0.1:PORT)
#   uid      a bash loop of NP processes, aclshmem UNIQUEID mode (the id in a file)
#   pmix     Open MPI's mpirun, plain shmem_init with SYMM_BOOTSTRAP=pmix
#   mpi      Open MPI's mpirun, an MPI program with SYMM_BOOTSTRAP=mpi
# kill (default): once every PE printed its ready line, wait 0.2-1.0 s and
#   kill -9 a random PE (PE 0 included). Detection time: from the kill until
#   the last other process of the job (the launcher too) has exited. Needs a
#   line "symm: PE r (...) died" (or UCX's "PE r (...) died or became
#   unreachable", "connection to PE r failed") on stderr
#   and a non-zero status (the launcher's, or every survivor's).
# exit: a random PE calls exit(3) 0.2-1.0 s into the loop. Time from its
#   exit line (fault_loop prints the time) until the last process is gone;
#   needs "symm: exit: PE r exited with status 3" and status 3 (the
#   launcher's, or every process's in the bash-loop modes).
# Two times are kept: until every PE is gone (what symm decides) and until
# the job has ended (the launcher too). Open MPI's mpirun waits
# odls_base_sigkill_timeout (1 s) per round of killing PEs it still thinks
# alive, so its job ends up to 1-2 s after its PEs did. (With that timeout
# at 0 it kills the survivors at once and, in ~1 of 15 kills, exits before
# forwarding symm's line: the line is then lost.)
# A job not ended 10 s after the event is a hang: everything is killed.
# Prints one line per kill and a summary; exits 1 on any hang, any time
# over SYMM_KILL_MAX_S (default 2 s; for the job's end plus
# SYMM_KILL_LAUNCHER_SLACK, default 0), any missing message or wrong status.
#
# Programs from the environment (defaults: under SYMM_BUILD, default ./build):
# FAULT_LOOP, FAULT_LOOP_MPI, OSHRUN, ACL_PORT, MPIRUN (default: mpirun).
# KILL_LOOP_KEEP=DIR keeps every job's output there.
set -u
if [ $# -lt 3 ]; then
  echo "usage: kill_loop.sh oshrun|default|uid|pmix|mpi NP KILLS [kill|exit]" >&2
  exit 2
fi
mode=$1 np=$2 kills=$3 variant=${4:-kill}
build=${SYMM_BUILD:-build}
FAULT_LOOP=${FAULT_LOOP:-$build/tests/fault_loop}
FAULT_LOOP_MPI=${FAULT_LOOP_MPI:-$build/tests/fault_loop_mpi}
OSHRUN=${OSHRUN:-$build/oshrun}
ACL_PORT=${ACL_PORT:-$build/tests/acl_port}
MPIRUN=${MPIRUN:-mpirun}
max_s=${SYMM_KILL_MAX_S:-2}
slack_s=${SYMM_KILL_LAUNCHER_SLACK:-0}
hang_s=10
case $variant in kill | exit) ;; *) echo "kill_loop.sh: variant '$variant' is not kill or exit" >&2; exit 2 ;; esac

work=$(mktemp -d /tmp/kill_loop.XXXXXX)
trap 'rm -rf "$work"' EXIT
if [ "$mode" = pmix ] || [ "$mode" = mpi ]; then
  # As tests/boot_pmix.cmake: root allowed, no UCX, shared memory only, and
  # a session directory of our own.
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  export OMPI_MCA_opal_common_ucx_opal_mem_hooks=0 OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,vader
  export OMPI_MCA_osc=^ucx OMPI_MCA_btl_vader_single_copy_mechanism=none
  export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_hwloc_base_binding_policy=none
  export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
  export TMPDIR=$work
fi

# A sleep without a fork: read with a timeout on a pipe nobody writes.
exec {nap_fd}<> <(:)
nap() { read -r -t "$1" -u "$nap_fd" _ || true; }

# Exited: no such process, or a zombie (its parent has not reaped it yet).
gone() {
  local st
  { read -r st < "/proc/$1/stat"; } 2>/dev/null || return 0
  st=${st##*) }
  case ${st:0:1} in Z | X) return 0 ;; esac
  return 1
}

times=() pe_times=() hangs=0 bad_msg=0 bad_status=0 slow=0

for ((k = 1; k <= kills; k++)); do
  out=$work/out.$k err=$work/err.$k
  : > "$out"; : > "$err"
  ev_pe=$((RANDOM % np))
  ev_ms=$((200 + RANDOM % 801))
  args=()
  [ "$variant" = exit ] && args=("exit=$ev_pe,$ev_ms,3")
  launcher= pes=()
  case $mode in
  oshrun)
    setsid "$OSHRUN" --timeout 60 -np "$np" "$FAULT_LOOP" shmem "${args[@]}" \
      </dev/null >"$out" 2>"$err" &
    launcher=$! ;;
  pmix)
    SYMM_BOOTSTRAP=pmix setsid "$MPIRUN" --timeout 60 -np "$np" "$FAULT_LOOP" shmem \
      "${args[@]}" </dev/null >"$out" 2>"$err" &
    launcher=$! ;;
  mpi)
    SYMM_BOOTSTRAP=mpi setsid "$MPIRUN" --timeout 60 -np "$np" "$FAULT_LOOP_MPI" mpi \
      "${args[@]}" </dev/null >"$out" 2>"$err" &
    launcher=$! ;;
  default | uid)
    if [ "$mode" = default ]; then
      port=$("$ACL_PORT") || exit 1
      where=tcp://127.0.0.1:$port
    else
      where=$work/uid.$k
    fi
    for ((i = 0; i < np; i++)); do
      setsid "$FAULT_LOOP" "$mode" "$i" "$np" "$where" "${args[@]}" \
        </dev/null >>"$out" 2>>"$err" &
      pes+=($!)
    done ;;
  *)
    echo "kill_loop.sh: mode '$mode' is not oshrun, default, uid, pmix or mpi" >&2
    exit 2 ;;
  esac

  # Every PE ready (its pid from its line).
  declare -A pid_of=()
  for ((w = 0; w < 3000; w++)); do
    while read -r _ _ _ r _ p; do pid_of[$r]=$p; done < <(grep '^fault_loop: ready PE' "$out")
    [ ${#pid_of[@]} -ge "$np" ] && break
    nap 0.01
  done
  procs=("${pes[@]}")
  [ -n "$launcher" ] && procs+=("$launcher")
  if [ ${#pid_of[@]} -lt "$np" ]; then
    echo "kill $k: only ${#pid_of[@]} of $np PEs ready in 30 s; stderr:" >&2
    cat "$err" >&2
    kill -9 "${procs[@]}" ${pid_of[@]+"${pid_of[@]}"} 2>/dev/null
    wait
    exit 1
  fi
  [ -z "$launcher" ] || procs+=("${pid_of[@]}")

  victim=${pid_of[$ev_pe]}
  if [ "$variant" = kill ]; then
    nap "$(printf '%d.%03d' $((ev_ms / 1000)) $((ev_ms % 1000)))"
    t_ev=$EPOCHREALTIME
    disown "$victim" 2>/dev/null # our child in a shell loop: no "Killed" notice
    kill -9 "$victim"
  fi
  # Until every process is gone (the victim too, for exit).
  # t_pes: every PE gone (what symm controls); t_end: the launcher too.
  t_end= t_pes= hung=0
  for ((w = 0; ; w++)); do
    all=1
    for p in "${procs[@]}"; do
      if [ "$variant" = kill ] && [ "$p" = "$victim" ]; then continue; fi
      [ "$p" = "$launcher" ] && continue
      gone "$p" || { all=0; last=$p; break; }
    done
    if [ $all = 1 ] && [ -z "$t_pes" ]; then t_pes=$EPOCHREALTIME; fi
    if [ $all = 1 ] && [ -n "$launcher" ] && ! gone "$launcher"; then all=0; last=$launcher; fi
    if [ $all = 1 ]; then t_end=$EPOCHREALTIME; break; fi
    if [ "$variant" = exit ] && [ -z "${t_ev:-}" ]; then
      t_ev=$(sed -n "s/^fault_loop: PE $ev_pe exit(3) at //p" "$err")
      [ -z "$t_ev" ] && w=0 # the loop runs until the exit comes
      if [ -z "$t_ev" ] && [ $((${EPOCHREALTIME%.*} - ${t_start:=${EPOCHREALTIME%.*}})) -gt 30 ]; then
        t_ev=$EPOCHREALTIME
      fi
    fi
    if [ $w -ge $((hang_s * 200)) ]; then hung=1; break; fi
    nap 0.005
  done
  unset t_start
  [ "$variant" = exit ] && [ -z "${t_ev:-}" ] && t_ev=$(sed -n "s/^fault_loop: PE $ev_pe exit(3) at //p" "$err")
  if [ $hung = 1 ]; then
    hangs=$((hangs + 1))
    kill -9 "${procs[@]}" 2>/dev/null
    [ -n "$launcher" ] && kill -9 -- "-$launcher" 2>/dev/null
  fi

  # Statuses: the launcher's, or every bash-loop process's but the victim's.
  sts=() st_ok=1
  for p in ${launcher:-} "${pes[@]}"; do
    { wait "$p"; } 2>/dev/null; st=$?
    if [ "$variant" = kill ] && [ "$p" = "$victim" ]; then continue; fi
    sts+=("$st")
    if [ "$variant" = exit ]; then [ "$st" = 3 ] || st_ok=0
    else [ "$st" != 0 ] || st_ok=0; fi
  done
  wait 2>/dev/null

  if [ "$variant" = kill ]; then
    # A node-local watcher's line, or UCX's (before and after it named the PE's host).
    re="symm: ((ucx: )?PE $ev_pe \\(.*died|.*connection to PE $ev_pe failed)"
  else
    re="symm: exit: PE $ev_pe exited with status 3"
  fi
  msg_ok=1
  grep -Eq "$re" "$err" || msg_ok=0
  if [ $hung = 1 ]; then
    dt=$hang_s dpe=$hang_s
  else
    dt=$(awk -v a="$t_ev" -v b="$t_end" 'BEGIN { printf "%.3f", b - a }')
    dpe=$(awk -v a="$t_ev" -v b="$t_pes" 'BEGIN { printf "%.3f", b - a }')
  fi
  times+=("$dt") pe_times+=("$dpe")
  [ $msg_ok = 1 ] || bad_msg=$((bad_msg + 1))
  [ $st_ok = 1 ] || bad_status=$((bad_status + 1))
  awk -v t="$dt" -v p="$dpe" -v m="$max_s" -v l="$slack_s" \
    'BEGIN { exit !(p > m || t > m + l) }' && slow=$((slow + 1))
  line=$(grep -E "$re" "$err" | head -1 | cut -c1-150)
  # The process that ended last, when it took long.
  last_is=
  if awk -v t="$dt" 'BEGIN { exit !(t > 0.5) }'; then
    last_is=" (last to go: pid ${last:-?}"
    [ "${last:-}" = "$launcher" ] && last_is+=", the launcher"
    for r in "${!pid_of[@]}"; do [ "${pid_of[$r]}" = "${last:-}" ] && last_is+=", PE $r"; done
    last_is+=")"
  fi
  printf '%s %s np %d #%d: PE %d %s, PEs gone in %s s, job in %s s%s, status %s, %s%s\n' \
    "$mode" "$variant" "$np" "$k" \
    "$ev_pe" "$([ "$variant" = kill ] && echo "killed at ${ev_ms} ms" || echo "exit(3) after ${ev_ms} ms")" \
    "$dpe" "$([ $hung = 1 ] && echo "HANG >$hang_s" || echo "$dt")" "$last_is" "${sts[*]}" \
    "$([ $msg_ok = 1 ] && echo "message ok" || echo "NO MESSAGE")" \
    "$([ $st_ok = 1 ] || echo ", WRONG STATUS")"
  if [ $msg_ok = 0 ] || [ $st_ok = 0 ] || [ $hung = 1 ] || [ -n "${KILL_LOOP_VERBOSE:-}" ]; then
    sed 's/^/    | /' "$err" | head -20
  elif [ -n "$line" ]; then
    echo "    | $line"
  fi
  if [ -n "${KILL_LOOP_KEEP:-}" ]; then
    mkdir -p "$KILL_LOOP_KEEP"
    cp "$out" "$KILL_LOOP_KEEP/$mode.$variant.np$np.$k.out"
    cp "$err" "$KILL_LOOP_KEEP/$mode.$variant.np$np.$k.err"
  fi
  unset pid_of t_ev last
done

stats() {
  printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 }
    END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
          printf "median %.3f s, max %.3f s", m, v[NR] }'
}
echo "SUMMARY $mode $variant np $np: $kills events, job ended: $(stats "${times[@]}")," \
  "PEs gone: $(stats "${pe_times[@]}"), hangs $hangs," \
  "messages ok $((kills - bad_msg))/$kills, statuses ok $((kills - bad_status))/$kills," \
  "over the limit: $slow"
[ $hangs = 0 ] && [ $bad_msg = 0 ] && [ $bad_status = 0 ] && [ $slow = 0 ]
