#!/bin/bash
# hugepages_test.sh OSHRUN HUGEPAGES_PROGRAM - the heap on huge pages
# (SYMM_HUGEPAGES, tests/pe/hugepages.c): on, auto with enough free pages,
# auto without (normal pages), on without (init fails naming the shortage),
# and growth past the free pages (shmem_malloc fails naming it). Reserves
# huge pages through /proc/sys/vm/nr_hugepages for the run and gives them
# back; skips (77) where it cannot (not root, no hugetlbfs, a kernel that
# grants none).
set -u
oshrun=$1 prog=$2
nr=/proc/sys/vm/nr_hugepages
[ "$(id -u)" -eq 0 ] && [ -w $nr ] || { echo "SKIP: reserving huge pages needs root (vm.nr_hugepages)"; exit 77; }
grep -q '^Hugepagesize: *2048 kB' /proc/meminfo || { echo "SKIP: the default huge page is not 2 MiB"; exit 77; }
old=$(cat $nr)
trap 'echo "$old" > $nr' EXIT
echo $((old + 200)) > $nr
free=$(awk '/^HugePages_Free/ {print $2}' /proc/meminfo)
[ "$free" -ge 150 ] || { echo "SKIP: the kernel granted $free free huge pages, 150 needed"; exit 77; }
fail=0
run() { # WHAT EXPECT-REGEX ENV... -- ARGS
    local what=$1 re=$2 out
    shift 2
    out=$(env "$@" 2>&1)
    if grep -Eq "$re" <<<"$out"; then echo "ok: $what"; else echo "FAIL: $what"; echo "$out" | tail -5; fail=1; fi
}
run "on: 2 MiB pages, a peer's too, growth" "PE 1: page 2048 kB, peer's 2048 kB, grown yes: ok" \
    SHMEM_SYMMETRIC_SIZE=64M SYMM_HUGEPAGES=on SHMEM_INFO=1 "$oshrun" --timeout 60 -np 2 "$prog" 2048
run "SHMEM_INFO names the backing" "heap backing: 2 MiB huge pages" \
    SHMEM_SYMMETRIC_SIZE=64M SYMM_HUGEPAGES=on SHMEM_INFO=1 "$oshrun" --timeout 60 -np 2 "$prog" 2048
run "auto with enough: huge pages" "PE 0: page 2048 kB.*: ok" \
    SHMEM_SYMMETRIC_SIZE=32M SYMM_HUGEPAGES=auto "$oshrun" --timeout 60 -np 2 "$prog" 2048
run "auto without enough: normal pages, and why" "heap backing: normal pages \([0-9]+ free huge pages, [0-9]+ wanted" \
    SHMEM_SYMMETRIC_SIZE=1G SYMM_HUGEPAGES=auto SHMEM_INFO=1 "$oshrun" --timeout 60 -np 2 "$prog" 4
run "off: normal pages" "PE 1: page 4 kB, peer's 4 kB, grown yes: ok" \
    SHMEM_SYMMETRIC_SIZE=32M SYMM_HUGEPAGES=off "$oshrun" --timeout 60 -np 2 "$prog" 4
run "on without enough: init fails, naming the shortage" \
    "shmem_init: SYMM_HUGEPAGES=on: [0-9]+ huge pages wanted, [0-9]+ free" \
    SHMEM_SYMMETRIC_SIZE=1G SYMM_HUGEPAGES=on "$oshrun" --timeout 60 -np 2 "$prog" 2048
run "growth past the free pages fails cleanly" \
    "growing the symmetric heap to [0-9]+ bytes: [0-9]+ more huge pages wanted" \
    SHMEM_SYMMETRIC_SIZE=64M SYMM_HUGEPAGES=on SYMM_FAULT=hugepages#2 "$oshrun" --timeout 60 -np 2 "$prog" 2048
exit $fail
