#!/usr/bin/env bash
# run_tests.sh OSHRUN_PATH CHILD_PATH - tests of the oshrun launcher.
#
# Runs oshrun (tools/oshrun.c) on lt_child (tests/launcher/lt_child.c, no
# libsymm) and checks exit statuses, messages, timing of job teardown, output
# integrity, the bootstrap environment contract, binding and signal handling.
# Prints one PASS/FAIL/SKIP line per case; exits non-zero if any case failed.
# Time bounds are generous (a loaded 2-core machine must pass) but bounded.
#
# CMake wiring (tests/launcher/CMakeLists.txt), for the integrator:
#   add_executable(lt_child lt_child.c)
#   add_test(NAME launcher
#            COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/run_tests.sh
#                    $<TARGET_FILE:oshrun> $<TARGET_FILE:lt_child>)
#   set_tests_properties(launcher PROPERTIES TIMEOUT 300)
# (the oshrun target is add_executable(oshrun tools/oshrun.c) at the top level)
set -u

if [ $# -ne 2 ]; then
    echo "usage: $0 OSHRUN_PATH CHILD_PATH" >&2
    exit 2
fi
OSHRUN=$(realpath "$1")
CHILD=$(realpath "$2")
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
ulimit -c 0 # the signal cases must not write cores
# Descriptors this shell already has are passed through oshrun untouched;
# lt_child bootfd must not count them as leaks.
LT_INHERITED=$("$CHILD" listfds)
export LT_INHERITED
unset SYMM_TIMEOUT SYMM_KILL_GRACE SYMM_BOOT_IFADDR SYMM_BOOT_LISTEN_FD
fails=0

pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; fails=$((fails + 1)); }
skip() { echo "SKIP $1: $2"; }
now_ms() { echo $(($(date +%s%N) / 1000000)); }

# run ARGS...: oshrun ARGS with stdin from /dev/null; sets rc and el (ms);
# stdout in $TMP/out, stderr in $TMP/err. The outer timeout only guards
# against a hung oshrun; no case comes near it.
run() {
    local t0
    t0=$(now_ms)
    timeout -k 5 60 "$OSHRUN" "$@" >"$TMP/out" 2>"$TMP/err" </dev/null
    rc=$?
    el=$(($(now_ms) - t0))
}

# expect NAME RC MAX_MS [STDERR_REGEX]: checks the last run.
expect() {
    local name=$1 want=$2 max=$3 re=${4:-}
    if [ "$rc" -ne "$want" ]; then
        fail "$name" "exit $rc, want $want; stderr: $(head -c 400 "$TMP/err")"
    elif [ "$el" -gt "$max" ]; then
        fail "$name" "took $el ms, want < $max ms"
    elif [ -n "$re" ] && ! grep -Eq -- "$re" "$TMP/err"; then
        fail "$name" "stderr lacks /$re/: $(head -c 400 "$TMP/err")"
    else
        pass "$name ($el ms)"
        return 0
    fi
    return 1
}

# wait_ready FILE N: until FILE holds N "ready" lines (at most 10 s).
wait_ready() {
    for _ in $(seq 1 500); do
        [ "$(grep -c ready "$1" 2>/dev/null)" -ge "$2" ] && return 0
        sleep 0.02
    done
    return 1
}

# pes_gone PIDS...: every pid is gone or a zombie (reparented, maybe unreaped).
pes_gone() {
    local p
    for _ in $(seq 1 100); do
        local alive=0
        for p in "$@"; do
            if [ -e "/proc/$p" ] && [ "$(awk '{print $3}' "/proc/$p/stat" 2>/dev/null)" != Z ]; then
                alive=1
            fi
        done
        [ $alive -eq 0 ] && return 0
        sleep 0.02
    done
    return 1
}

# check_lines FILE STREAM NP COUNT LEN TAG: every line intact, in order, all there.
check_lines() {
    awk -v s="$2" -v np="$3" -v count="$4" -v len="$5" -v tag="$6" '
    BEGIN { abc = "abcdefghijklmnopqrstuvwxyz"; bad = 0 }
    {
        line = $0
        if (tag) {
            if (!match(line, /^\[pe [0-9]+\] /)) { print "untagged: " substr(line, 1, 80); bad++; next }
            tpe = substr(line, 5, RLENGTH - 6) + 0
            line = substr(line, RLENGTH + 1)
        }
        if (!match(line, "^pe=[0-9]+ s=" s " i=[0-9]+ [a-z]+\\|end$")) { print "broken: " substr(line, 1, 120); bad++; next }
        split(line, f, " ")
        pe = substr(f[1], 4) + 0; i = substr(f[3], 3) + 0
        if (tag && tpe != pe) { print "tag " tpe " on pe " pe; bad++ }
        want = substr(abc, (pe + i) % 26 + 1, 1)
        body = substr(f[4], 1, length(f[4]) - 4)
        if (length(body) != len || gsub(want, "", body) != len) { print "bad payload pe " pe " i " i; bad++ }
        if ((pe in last) ? i != last[pe] + 1 : i != 0) { print "order pe " pe " i " i; bad++ }
        last[pe] = i; n[pe]++
    }
    END {
        for (p = 0; p < np; p++) if (n[p] != count) { print "pe " p " has " n[p] + 0 " lines, want " count; bad++ }
        exit bad > 0
    }' "$1"
}

# ---------------------------------------------------------------- basics

run -np 4 "$CHILD" ok
expect basic_ok 0 5000 && [ -s "$TMP/err" ] && fail basic_ok_quiet "stderr not empty: $(head -c 200 "$TMP/err")"

t0=$(now_ms)
for _ in $(seq 1 20); do "$OSHRUN" -np 4 true || fail fast_true "exit $?"; done
t=$(($(now_ms) - t0))
if [ $t -lt 4000 ]; then pass "fast_true (20 x -np 4 true: $t ms)"; else fail fast_true "20 runs took $t ms"; fi

run -np 4 "$CHILD" exit 2 5
expect exit_code 5 1500 '^oshrun: PE 2 \(pid [0-9]+\) exited with status 5$' &&
    [ "$(grep -c '^oshrun:' "$TMP/err")" -ne 1 ] && fail exit_code_one_report "$(cat "$TMP/err")"

run -np 4 "$CHILD" staggered
expect first_failure 10 3000 '^oshrun: PE 0 \(pid [0-9]+\) exited with status 10$' &&
    [ "$(grep -c '^oshrun:' "$TMP/err")" -ne 1 ] && fail first_failure_one_report "$(cat "$TMP/err")"

run -np 4 "$CHILD" signal 1 9
expect signal_kill 137 1500 '^oshrun: PE 1 \(pid [0-9]+\) killed by signal 9 \(SIGKILL\)$'
run -np 3 "$CHILD" signal 2 11
expect signal_segv 139 1500 'killed by signal 11 \(SIGSEGV\)$'
run -np 2 "$CHILD" signal 0 15
expect signal_term 143 1500 'killed by signal 15 \(SIGTERM\)$'

# Others ignore SIGTERM: they need the SIGKILL after the grace period.
SYMM_KILL_GRACE=0.3 run -np 3 "$CHILD" ignterm_exit 0 4
expect kill_escalation 4 1500 'exited with status 4' && [ $el -lt 250 ] &&
    fail kill_escalation_grace "ended after $el ms, before the 300 ms grace"

# ---------------------------------------------------------------- timeout

run -np 3 --timeout 1 "$CHILD" sleep
expect timeout 124 2500 '^oshrun: job timed out after 1 s; killing 3 PEs$' && [ $el -lt 900 ] &&
    fail timeout_early "ended after $el ms"
SYMM_TIMEOUT=0.5 run -np 2 "$CHILD" sleep
expect timeout_env 124 2000 'timed out after 0.5 s' && [ $el -lt 400 ] && fail timeout_env_early "after $el ms"
SYMM_KILL_GRACE=0.2 run -np 2 --timeout=0.3 "$CHILD" ignore
expect timeout_sigkill 124 2000 'killing 2 PEs'

# ---------------------------------------------------------------- output

run -np 4 "$CHILD" lines 3000 300
if expect lines_status 0 20000; then
    if err=$(check_lines "$TMP/out" out 4 3000 300 0) && err2=$(check_lines "$TMP/err" err 4 3000 300 0); then
        pass "lines_intact (4 PEs x 3000 lines x 2 streams)"
    else
        fail lines_intact "$(echo "$err" "${err2:-}" | head -5)"
    fi
fi
run -np 4 --tag-output "$CHILD" lines 500 100
if expect tag_status 0 10000; then
    if err=$(check_lines "$TMP/out" out 4 500 100 1) && err2=$(check_lines "$TMP/err" err 4 500 100 1); then
        pass tag_output
    else
        fail tag_output "$(echo "$err" "${err2:-}" | head -5)"
    fi
fi
run -np 2 "$CHILD" longline 200000
if expect longline_status 0 5000; then
    maxlen=$(awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' "$TMP/out")
    xs=$(tr -cd x <"$TMP/out" | wc -c)
    others=$(tr -d 'x\n' <"$TMP/out" | wc -c)
    if [ "$maxlen" -le 65536 ] && [ "$xs" -eq 400000 ] && [ "$others" -eq 0 ]; then
        pass "longline_split (max line $maxlen)"
    else
        fail longline_split "max line $maxlen, $xs x, $others other bytes"
    fi
fi
run -np 3 "$CHILD" partial
if expect partial_status 0 5000; then
    if [ "$(sort "$TMP/out" | tr '\n' ' ')" = "pe=0 partial pe=1 partial pe=2 partial " ] &&
        [ "$(tail -c 1 "$TMP/out" | od -An -c | tr -d ' ')" = '\n' ]; then
        pass partial_line
    else
        fail partial_line "$(od -c "$TMP/out" | head -5)"
    fi
fi
# A grandchild holding the pipes must not keep oshrun past the drain bound.
run -np 2 "$CHILD" grandchild
expect drain_bound 0 1500 && [ "$(grep -c bye "$TMP/out")" -ne 2 ] && fail drain_bound_output "$(cat "$TMP/out")"

# A reader that goes away (| head) must not kill oshrun or stall the PEs.
t0=$(now_ms)
timeout 60 "$OSHRUN" -np 2 "$CHILD" lines 3000 300 2>"$TMP/err" </dev/null | head -1 >"$TMP/out"
rc=${PIPESTATUS[0]}
el=$(($(now_ms) - t0))
expect closed_stdout 0 5000 && [ "$(wc -l <"$TMP/out")" -ne 1 ] && fail closed_stdout_line "$(cat "$TMP/out")"

echo hello >"$TMP/in"
timeout 60 "$OSHRUN" -np 2 "$CHILD" stdin <"$TMP/in" >"$TMP/out" 2>"$TMP/err"
if [ $? -eq 0 ] && grep -qx 'pe=0 stdin=hello' "$TMP/out" && grep -qx 'pe=1 stdin eof' "$TMP/out"; then
    pass stdin
else
    fail stdin "$(cat "$TMP/out" "$TMP/err")"
fi

# ---------------------------------------------------------------- global_exit

run -np 4 "$CHILD" global_exit 2 7
if expect global_exit 7 1500 '^oshrun: PE 2 called shmem_global_exit\(7\)$'; then
    grep -Eq 'exited with|killed by' "$TMP/err" && fail global_exit_quiet "$(cat "$TMP/err")"
fi
run -np 3 "$CHILD" global_exit 1 0
expect global_exit_0 0 1500 && [ -s "$TMP/err" ] && fail global_exit_0_quiet "$(cat "$TMP/err")"

# ---------------------------------------------------------------- environment

LT_PASS=yes LT_THROUGH=z run -np 2 -x FOO=bar -x LT_PASS -x EMPTY= "$CHILD" env FOO LT_PASS LT_THROUGH EMPTY SYMM_RANK SYMM_SIZE SYMM_LAUNCHER SYMM_BOOT_LISTEN_FD
want="pe=0 FOO=bar
pe=0 LT_PASS=yes
pe=0 LT_THROUGH=z
pe=0 EMPTY=
pe=0 SYMM_RANK=0
pe=0 SYMM_SIZE=2
pe=0 SYMM_LAUNCHER=oshrun"
want1=$(echo "$want" | sed 's/pe=0/pe=1/; s/SYMM_RANK=0/SYMM_RANK=1/')
if [ $rc -eq 0 ] && [ "$(grep '^pe=0' "$TMP/out" | grep -v LISTEN_FD)" = "$want" ] &&
    [ "$(grep '^pe=1' "$TMP/out" | grep -v LISTEN_FD)" = "$want1" ] &&
    grep -Eqx 'pe=0 SYMM_BOOT_LISTEN_FD=[0-9]+' "$TMP/out" && grep -qx 'pe=1 SYMM_BOOT_LISTEN_FD=(unset)' "$TMP/out"; then
    pass env_x
else
    fail env_x "$(cat "$TMP/out" "$TMP/err")"
fi

for np in 1 4; do
    run -np $np "$CHILD" bootfd
    if expect "bootfd_np$np" 0 5000 && [ "$(grep -c 'bootfd ok addr=127.0.0.1:' "$TMP/out")" -ne $np ]; then
        fail "bootfd_np$np" "$(cat "$TMP/out")"
    fi
done
SYMM_BOOT_IFADDR=127.0.0.2 run -np 2 "$CHILD" bootfd
if expect bootfd_ifaddr 0 5000 && [ "$(grep -c 'bootfd ok addr=127.0.0.2:' "$TMP/out")" -ne 2 ]; then
    fail bootfd_ifaddr "$(cat "$TMP/out")"
fi
secrets=$(for _ in 1 2; do "$OSHRUN" -np 1 "$CHILD" env SYMM_JOB_SECRET; done | sort -u | grep -Ec '=[0-9a-f]{32}$')
if [ "$secrets" -eq 2 ]; then pass secret_fresh; else fail secret_fresh "two jobs gave $secrets distinct secrets"; fi

# ---------------------------------------------------------------- binding

run -np 1 --bind-to none "$CHILD" affinity
allowed=$(sed -n 's/^pe=0 cpus=//p' "$TMP/out")
IFS=, read -r -a cpus <<<"$allowed"
if [ ${#cpus[@]} -ge 2 ]; then
    run -np 2 "$CHILD" affinity
    if [ $rc -eq 0 ] && grep -qx "pe=0 cpus=${cpus[0]}" "$TMP/out" && grep -qx "pe=1 cpus=${cpus[1]}" "$TMP/out"; then
        pass bind_core
    else
        fail bind_core "allowed $allowed; $(cat "$TMP/out")"
    fi
    run -np 2 --bind-to none "$CHILD" affinity
    if [ $rc -eq 0 ] && [ "$(grep -c "cpus=$allowed\$" "$TMP/out")" -eq 2 ]; then
        pass bind_none
    else
        fail bind_none "allowed $allowed; $(cat "$TMP/out")"
    fi
    # Oversubscribed inside a 2-CPU taskset: PE i on the (i mod 2)-th CPU;
    # --bind-to none leaves all three on both.
    two="${cpus[0]},${cpus[1]}"
    if command -v taskset >/dev/null; then
        taskset -c "$two" "$OSHRUN" -np 3 "$CHILD" affinity >"$TMP/out" 2>"$TMP/err"
        if [ $? -eq 0 ] && grep -qx "pe=0 cpus=${cpus[0]}" "$TMP/out" &&
            grep -qx "pe=1 cpus=${cpus[1]}" "$TMP/out" && grep -qx "pe=2 cpus=${cpus[0]}" "$TMP/out"; then
            pass bind_oversubscribed
        else
            fail bind_oversubscribed "$(cat "$TMP/out" "$TMP/err")"
        fi
        # The notes (tools/oshrun.c, note_oversubscribed): only on a
        # terminal; -q silences them.
        note_re='^oshrun: 3 PEs on 2 CPUs: oversubscribed, PE i bound to CPU i mod 2( and waits yield the CPU)?'
        taskset -c "$two" "$OSHRUN" --bind-to none -np 3 "$CHILD" affinity >"$TMP/out" 2>"$TMP/err"
        if [ $? -eq 0 ] && [ "$(grep -c "cpus=$two\$" "$TMP/out")" -eq 3 ] && [ ! -s "$TMP/err" ]; then
            pass bind_none_oversubscribed
        else
            fail bind_none_oversubscribed "stderr: $(cat "$TMP/err"); stdout: $(cat "$TMP/out")"
        fi
        # Not a terminal (as under ctest): oversubscribed but silent.
        taskset -c "$two" "$OSHRUN" -np 3 "$CHILD" ok >"$TMP/out" 2>"$TMP/err"
        if [ $? -eq 0 ] && [ ! -s "$TMP/err" ]; then
            pass oversubscribed_quiet_off_tty
        else
            fail oversubscribed_quiet_off_tty "stderr: $(cat "$TMP/err")"
        fi
        for q in -q --quiet; do
            taskset -c "$two" "$OSHRUN" $q --bind-to core -np 3 "$CHILD" ok >"$TMP/out" 2>"$TMP/err"
            if [ $? -eq 0 ] && [ ! -s "$TMP/err" ]; then
                pass "bind_core_note_$q"
            else
                fail "bind_core_note_$q" "stderr: $(cat "$TMP/err")"
            fi
        done
        # On a terminal (script(1) gives the job a pty; its output has \r\n).
        tty_run() { # ARGS...: oshrun ARGS inside the 2-CPU taskset on a pty; output in $TMP/tty
            local cmd
            cmd=$(printf '%q ' taskset -c "$two" "$OSHRUN" "$@")
            timeout -k 5 60 script -qec "$cmd" /dev/null </dev/null 2>&1 | tr -d '\r' >"$TMP/tty"
        }
        if command -v script >/dev/null && tty_run -np 1 "$CHILD" env SYMM_RANK && grep -q '^pe=0' "$TMP/tty"; then
            if ! grep -q '^oshrun:' "$TMP/tty"; then
                pass oversubscribed_note_np1_none
            else
                fail oversubscribed_note_np1_none "$(cat "$TMP/tty")"
            fi
            tty_run -np 3 "$CHILD" env SYMM_RANK
            if [ "$(grep -Ec "$note_re\$" "$TMP/tty")" -eq 1 ] && [ "$(grep -c '^oshrun:' "$TMP/tty")" -eq 1 ] &&
                [ "$(grep -c '^pe=' "$TMP/tty")" -eq 3 ]; then
                pass oversubscribed_note_tty
            else
                fail oversubscribed_note_tty "want one /$note_re/: $(cat "$TMP/tty")"
            fi
            tty_run -np 3 --bind-to none "$CHILD" env SYMM_RANK
            if [ "$(grep -c '^oshrun:' "$TMP/tty")" -eq 1 ] &&
                grep -Eqx 'oshrun: 3 PEs on 2 CPUs: oversubscribed, PEs are not bound( and waits yield the CPU)?' "$TMP/tty"; then
                pass oversubscribed_note_tty_bind_none
            else
                fail oversubscribed_note_tty_bind_none "want one 'not bound' line: $(cat "$TMP/tty")"
            fi
            tty_run -q -np 3 "$CHILD" env SYMM_RANK
            if ! grep -q '^oshrun:' "$TMP/tty" && [ "$(grep -c '^pe=' "$TMP/tty")" -eq 3 ]; then
                pass oversubscribed_note_tty_quiet
            else
                fail oversubscribed_note_tty_quiet "$(cat "$TMP/tty")"
            fi
        else
            skip oversubscribed_note_tty "no script(1) or no pty"
        fi
    else
        skip bind_oversubscribed "no taskset"
    fi
    # Not oversubscribed: an explicit --bind-to core is honoured, no note.
    run -np 2 --bind-to core "$CHILD" affinity
    if [ $rc -eq 0 ] && [ ! -s "$TMP/err" ] && grep -qx "pe=1 cpus=${cpus[1]}" "$TMP/out"; then
        pass bind_core_explicit_no_note
    else
        fail bind_core_explicit_no_note "stderr: $(cat "$TMP/err"); stdout: $(cat "$TMP/out")"
    fi
else
    skip bind "only ${#cpus[@]} CPU allowed"
fi

# ---------------------------------------------------------------- usage

usage_case() { # NAME REGEX ARGS...
    local name=$1 re=$2
    shift 2
    run "$@"
    expect "$name" 2 5000 "$re"
}
echo 'echo hi' >"$TMP/noexec"
chmod 644 "$TMP/noexec"
usage_case usage_np0 '^oshrun: invalid number of PEs' -np 0 "$CHILD" ok
usage_case usage_np_negative '^oshrun: invalid number of PEs' -np -1 "$CHILD" ok
usage_case usage_np_text '^oshrun: invalid number of PEs' -np abc "$CHILD" ok
usage_case usage_np_missing '^oshrun: option' -np
usage_case usage_no_program '^oshrun: no program' -np 2
usage_case usage_not_found '^oshrun: no_such_prog_lt: command not found$' -np 2 no_such_prog_lt
usage_case usage_not_found_path '^oshrun: \./no_such_prog_lt: No such file' -np 2 ./no_such_prog_lt
usage_case usage_not_executable 'Permission denied$' -np 2 "$TMP/noexec"
PATH="$TMP:$PATH" usage_case usage_not_executable_path '^oshrun: noexec: Permission denied$' -np 2 noexec
usage_case usage_unknown_option '^oshrun: unknown option' --bogus -np 2 "$CHILD" ok
usage_case usage_bad_timeout '^oshrun: invalid --timeout' --timeout xyz "$CHILD" ok
SYMM_KILL_GRACE=abc usage_case usage_bad_grace '^oshrun: invalid SYMM_KILL_GRACE' "$CHILD" ok
SYMM_BOOT_IFADDR=nowhere usage_case usage_bad_ifaddr '^oshrun: SYMM_BOOT_IFADDR' "$CHILD" ok
usage_case usage_remote_host '^oshrun: multi-node launch is not supported by oshrun; use mpirun/srun \(PMIx\)$' \
    --host localhost,node-elsewhere.example -np 2 "$CHILD" ok
printf 'far-away-node slots=4\n' >"$TMP/hosts_far"
usage_case usage_remote_hostfile 'multi-node launch is not supported' --hostfile "$TMP/hosts_far" "$CHILD" ok
if [ -n "$(cat "$TMP/out")" ]; then fail usage_no_output "a PE ran: $(cat "$TMP/out")"; fi
if ! (
    ulimit -n 40 || exit 0
    run -np 100 "$CHILD" ok
    expect usage_fd_limit 2 5000 '^oshrun: -np 100 needs'
); then
    fails=$((fails + 1))
fi
# oshrun raises its own open-file limit for many PEs; the PEs keep the user's.
nofile=$( (
    ulimit -Sn 64
    "$OSHRUN" -np 30 sh -c 'ulimit -Sn' | sort -u | tr '\n' ' '
))
if [ "$nofile" = "64 " ]; then pass nofile_restored; else fail nofile_restored "PEs saw limits: $nofile"; fi

printf '# local\nlocalhost slots=4\n\n127.0.0.1\n' >"$TMP/hosts"
run --allow-run-as-root --oversubscribe --mca btl self -mca plm x --map-by core --quiet -q \
    --host localhost -H "$(uname -n):4" --hostfile "$TMP/hosts" -tag-output --np=3 "$CHILD" env SYMM_SIZE
if expect compat_options 0 5000 && [ "$(grep -c '^\[pe [0-2]\] pe=[0-2] SYMM_SIZE=3$' "$TMP/out")" -ne 3 ]; then
    fail compat_options "$(cat "$TMP/out")"
fi
for form in "-n 2" "-c 2" "--np 2" "-np=2"; do
    # shellcheck disable=SC2086
    run $form -- "$CHILD" env SYMM_SIZE
    expect "np_form '$form'" 0 5000 && [ "$(grep -c 'SYMM_SIZE=2$' "$TMP/out")" -ne 2 ] && fail "np_form '$form'" "$(cat "$TMP/out")"
done
run --bind-to socket --bind-to l3cache -np 1 "$CHILD" ok
expect bind_to_other_warns 0 5000 'warning: --bind-to socket' && [ "$(grep -c warning "$TMP/err")" -ne 1 ] &&
    fail bind_to_other_warns_once "$(cat "$TMP/err")"
run --help
expect help 0 5000 && ! grep -q '^usage: oshrun' "$TMP/out" && fail help "$(cat "$TMP/out")"
run --version
expect version 0 5000 && ! grep -q '^oshrun ' "$TMP/out" && fail version "$(cat "$TMP/out")"
# Options after the program are the program's own.
run -np 1 "$CHILD" env -np
expect program_args 0 5000 && ! grep -qx 'pe=0 -np=(unset)' "$TMP/out" && fail program_args "$(cat "$TMP/out")"
# A script without #! runs through sh, as with execvp.
printf 'echo "noshebang $SYMM_RANK"\n' >"$TMP/noshebang"
chmod 755 "$TMP/noshebang"
run -np 2 "$TMP/noshebang"
expect noshebang 0 5000 && [ "$(grep -c '^noshebang [01]$' "$TMP/out")" -ne 2 ] && fail noshebang "$(cat "$TMP/out")"

# ---------------------------------------------------------------- signals

# start_bg NP MODE [env...]: oshrun in the background (through exec_dfl so
# SIGINT is not inherited as ignored); waits for every PE's ready line.
start_bg() {
    local np=$1 mode=$2
    "$CHILD" exec_dfl "$OSHRUN" -np "$np" "$CHILD" "$mode" >"$TMP/out" 2>"$TMP/err" </dev/null &
    bg=$!
    wait_ready "$TMP/out" "$np"
}
finish_bg() { # sets rc and el (ms since t0)
    wait $bg
    rc=$?
    el=$(($(now_ms) - t0))
}
pids_of_pes() { sed -n 's/^pe=[0-9]* pid=\([0-9]*\) ready$/\1/p' "$TMP/out"; }

if start_bg 3 term_report; then
    t0=$(now_ms)
    kill -TERM $bg
    finish_bg
    if expect sigterm_forward 143 1500 && [ "$(grep -c 'got SIGTERM' "$TMP/out")" -ne 3 ]; then
        fail sigterm_forward_reached "$(cat "$TMP/out")"
    fi
else
    fail sigterm_forward "PEs not ready"
    kill -KILL $bg 2>/dev/null
fi

if SYMM_KILL_GRACE=0.3 start_bg 2 ignore; then
    pids=$(pids_of_pes)
    t0=$(now_ms)
    kill -HUP $bg
    finish_bg
    if expect sighup_grace_kill 129 1500 && [ $el -lt 250 ]; then fail sighup_grace "after $el ms"; fi
    pes_gone $pids || fail sighup_grace_pes_gone "$pids still alive"
else
    fail sighup_grace_kill "PEs not ready"
    kill -KILL $bg 2>/dev/null
fi

if SYMM_KILL_GRACE=30 start_bg 2 ignore; then
    pids=$(pids_of_pes)
    kill -INT $bg
    sleep 0.3
    if ! kill -0 $bg 2>/dev/null; then
        fail sigint_twice "oshrun ended on the first SIGINT though PEs ignore it"
    fi
    t0=$(now_ms)
    kill -INT $bg
    finish_bg
    expect sigint_twice 130 1500
    pes_gone $pids || fail sigint_twice_pes_gone "$pids still alive"
else
    fail sigint_twice "PEs not ready"
    kill -KILL $bg 2>/dev/null
fi

# oshrun itself killed outright: its PEs must not live on as orphans.
if start_bg 2 sleep; then
    pids=$(pids_of_pes)
    kill -KILL $bg
    wait $bg 2>/dev/null
    if pes_gone $pids; then pass orphans_die; else fail orphans_die "$pids still alive"; fi
else
    fail orphans_die "PEs not ready"
    kill -KILL $bg 2>/dev/null
fi

if [ $fails -ne 0 ]; then
    echo "launcher tests: $fails FAILED"
    exit 1
fi
echo "launcher tests: all passed"
exit 0
