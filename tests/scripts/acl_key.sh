#!/bin/bash
# acl_key.sh CASE PROGRAM PORT_FINDER NP: NP copies of an aclshmem DEFAULT-mode
# PROGRAM (arguments: MY_PE N_PES URL) started by a plain loop, as
# acl_launch.sh does, each with its own output file, with the job key CASE
# says. HOME is a fresh empty directory, so the user's own key file never
# counts; SYMM_JOB_SECRET and XDG_CONFIG_HOME are unset.
#   var    SYMM_JOB_KEY on every PE: all exit 0, no warning
#   file   a key file of mode 0600: all exit 0, no warning
#   none   no key: all exit 0, and PE 0 alone warns, once
#   odd    the last PE has another SYMM_JOB_KEY: it is refused (bad or wrong
#          job secret) within 10 s; the others are then ended
#   mode   a key file of mode 0644: every PE refuses it at once, naming chmod
set -u
case_=$1 prog=$2 finder=$3 np=$4
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
export HOME=$tmp/home
mkdir -m 700 "$HOME"
unset SYMM_JOB_SECRET XDG_CONFIG_HOME SYMM_JOB_KEY
warning='no job key'
fail() {
  echo "FAIL: $*"
  for ((i = 0; i < np; i++)); do echo "--- PE $i ---"; cat "$tmp/out.$i"; done
  exit 1
}
case $case_ in
  var | odd) export SYMM_JOB_KEY="key-$RANDOM-$RANDOM-$$" ;;
  file | mode)
    mkdir -p -m 700 "$HOME/.config/symm"
    (umask 077 && echo "file-key-$RANDOM-$$" >"$HOME/.config/symm/job.key")
    [ "$case_" = mode ] && chmod 644 "$HOME/.config/symm/job.key"
    ;;
esac
port=$("$finder") || exit 1
url="tcp://127.0.0.1:$port"
pids=()
for ((i = 0; i < np; i++)); do
  if [ "$case_" = odd ] && [ "$i" -eq $((np - 1)) ]; then
    SYMM_JOB_KEY="another-$SYMM_JOB_KEY" "$prog" "$i" "$np" "$url" >"$tmp/out.$i" 2>&1 &
  else
    "$prog" "$i" "$np" "$url" >"$tmp/out.$i" 2>&1 &
  fi
  pids+=($!)
done

if [ "$case_" = odd ]; then
  last=${pids[np - 1]}
  for ((t = 0; t < 100; t++)); do
    kill -0 "$last" 2>/dev/null || break
    sleep 0.1
  done
  kill -0 "$last" 2>/dev/null && { kill "${pids[@]}"; fail "PE $((np - 1)) still waits after 10 s"; }
  wait "$last" && fail "PE $((np - 1)), with another key, joined the job"
  for ((i = 0; i < np - 1; i++)); do kill "${pids[i]}" 2>/dev/null; wait "${pids[i]}"; done
  grep -Eq "bad job secret|wrong job secret" "$tmp/out.$((np - 1))" ||
    fail "PE $((np - 1)) was refused without saying the job secret was wrong"
  echo "PASS: PE $((np - 1)) refused: $(grep -Eo '(bad|wrong) job secret' "$tmp/out.$((np - 1))" | head -1)"
  exit 0
fi

rc=0
for p in "${pids[@]}"; do
  wait "$p" || rc=1
done
if [ "$case_" = mode ]; then
  [ $rc -eq 0 ] && fail "a key file of mode 0644 was used"
  for ((i = 0; i < np; i++)); do
    grep -q "has mode 0644.*chmod 600" "$tmp/out.$i" || fail "PE $i did not say why it refused the key file"
  done
  echo "PASS: every PE refused the key file of mode 0644"
  exit 0
fi
[ $rc -eq 0 ] || fail "a PE exited non-zero"
want0=0
[ "$case_" = none ] && want0=1
for ((i = 0; i < np; i++)); do
  n=$(grep -c "$warning" "$tmp/out.$i")
  want=0
  [ "$i" -eq 0 ] && want=$want0
  [ "$n" -eq "$want" ] || fail "PE $i warned $n times of '$warning', expected $want"
done
echo "PASS: $np PEs, case $case_"
