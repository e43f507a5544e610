#!/bin/bash
# bench_osu.sh OSHRUN SYMM_BENCH - symm-bench --osu (the OSU micro-benchmarks'
# way of measuring) runs at 2 PEs: the barrier table has its two rows, bcast
# one per size from 4 to 64 bytes, both headers say "osu method", and the CSV
# keeps the test and row names compare.sh matches on.
set -u
oshrun=$1 bench=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() { # WHAT CMD...
    local what=$1
    shift
    if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; fail=1; fi
}

"$oshrun" --timeout 60 -np 2 "$bench" --osu barrier bcast --max-size 64 \
    --csv "$tmp/osu.csv" >"$tmp/out" 2>&1 || {
    echo "FAIL: symm-bench --osu run:"
    cat "$tmp/out"
    exit 1
}
cat "$tmp/out"
num='[0-9]+\.[0-9]{3}'
check "barrier header says osu method" grep -Eq '^# symm-bench barrier .*osu method\)$' "$tmp/out"
check "bcast header says osu method" grep -Eq '^# symm-bench bcast .*osu method\)$' "$tmp/out"
for r in barrier barrier_all; do
    check "row $r: avg min max" grep -Eq "^$r +$num +$num +$num\$" "$tmp/out"
done
check "bcast: one row per size 4..64" \
    test "$(grep -Ec "^(4|8|16|32|64) +$num +$num +$num\$" "$tmp/out")" -eq 5
check "no row above --max-size" bash -c "! grep -Eq '^128 ' '$tmp/out'"
check "CSV barrier rows" grep -Eq ',2,barrier,barrier_all,0,[0-9.e+-]+,us$' "$tmp/osu.csv"
check "CSV bcast rows" grep -Eq ',2,bcast,64,64,[0-9.e+-]+,us$' "$tmp/osu.csv"
exit $fail
