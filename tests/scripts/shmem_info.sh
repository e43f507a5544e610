#!/bin/bash
# shmem_info.sh OSHRUN PROGRAM - SHMEM_INFO=1 prints, from PE 0 only, the
# version line first, then every user variable of the table (those read by
# the bootstraps and by oshrun included) and not oshrun's internal ones;
# SYMM_LOG_LEVEL=3 adds those, the job secret's value still hidden.
set -u
oshrun=$1 prog=$2
fail=0
check() { # DESCRIPTION CONDITION...
    local what=$1
    shift
    if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; fail=1; fi
}
out=$(SHMEM_INFO=1 "$oshrun" --timeout 30 -np 2 "$prog" 2>&1 >/dev/null)
first=$(grep -m1 '^symm:' <<<"$out")
check "first line is the version: '$first'" \
    grep -Eq '^symm: version [0-9]+\.[0-9]+\.[0-9]+ \(OpenSHMEM 1\.[0-9]+\)$' <<<"$first"
check "one version line (PE 0 only)" test "$(grep -c '^symm: version' <<<"$out")" -eq 1
for v in SHMEM_SYMMETRIC_SIZE SHMEM_UID_SESSION_ID SHMEM_UID_SOCK_IFNAME SHMEM_INSTANCE_PORT_RANGE \
         SYMM_TIMEOUT SYMM_KILL_GRACE SYMM_BOOT_IFADDR SYMM_LIBRARY; do
    check "lists $v" grep -Eq "^  $v " <<<"$out"
done
for v in SYMM_RANK SYMM_CTRL_FD SYMM_JOB_SECRET SYMM_BOOT_LISTEN_FD; do
    check "hides $v" bash -c "! grep -Eq '^  $v ' <<<\"\$1\"" _ "$out"
done
all=$(SHMEM_INFO=1 SYMM_LOG_LEVEL=3 "$oshrun" --timeout 30 -np 2 "$prog" 2>&1 >/dev/null)
for v in SYMM_RANK SYMM_CTRL_FD SYMM_BOOT_ADDR; do
    check "SYMM_LOG_LEVEL=3 lists $v" grep -Eq "^  $v .*set\)" <<<"$all"
done
check "SYMM_LOG_LEVEL=3 lists SYMM_JOB_SECRET as (hidden)" \
    grep -Eq '^  SYMM_JOB_SECRET +\(hidden\)' <<<"$all"
exit $fail
