#!/bin/bash
# bench_plot.sh OSHRUN SYMM_BENCH SYMM_BENCH_PLOT PYTHON - symm-bench-plot draws
# a real symm-bench --csv run (2 PEs, few sizes and iterations) against an
# OSU-format text file into one SVG: the SVG must parse as XML, hold both
# series' labels and the panels both inputs feed; bad inputs exit 2 naming
# the file. Exit 77 (ctest SKIP_RETURN_CODE) when PYTHON lacks matplotlib.
set -u
oshrun=$1 bench=$2 plot=$3 py=$4
if ! "$py" -c 'import matplotlib' 2>/dev/null; then
    echo "SKIP: $py has no matplotlib (Debian: apt-get install python3-matplotlib)"
    exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() { # WHAT CMD...
    local what=$1
    shift
    if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; fail=1; fi
}

"$oshrun" --timeout 60 -np 2 "$bench" --quiet --min-size 8 --max-size 1K --iters 50 \
    --csv "$tmp/symm.csv" put_lat put_bw >"$tmp/bench.out" 2>&1 || {
    echo "FAIL: symm-bench run:"
    cat "$tmp/bench.out"
    exit 1
}
check "symm-bench wrote put_lat rows" grep -q ',put_lat,8,8,.*,us$' "$tmp/symm.csv"
cat >"$tmp/osu_other.txt" <<'OSU'
# OSU OpenSHMEM Put Test v7.5
# Size            Latency (us)
8                         0.41
64                        0.45
1024                      0.80

# OSU OpenSHMEM Put Bandwidth Test v7.5
# Size      Bandwidth (MB/s)
8                        20.10
64                      160.00
1024                   1900.50
OSU

"$plot" --label symm-here "$tmp/symm.csv" "$tmp/osu_other.txt" -o "$tmp/plot.svg" >"$tmp/plot.out" 2>&1
check "plot exits 0 ($(head -c 300 "$tmp/plot.out"))" test $? -eq 0
"$py" - "$tmp/plot.svg" <<'PY' || fail=1
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
texts = [t.text or "" for t in root.iter() if t.tag.endswith("text")]
texts += [s.text or "" for t in root.iter() if t.tag.endswith("text") for s in t]
ok = True
for want in ("symm-here", "osu_other.txt", "put_lat: latency", "put_bw: bandwidth"):
    n = sum(1 for t in texts if t.strip() == want)
    # Each label is in the legend of both panels (put_lat and put_bw).
    need = 2 if want in ("symm-here", "osu_other.txt") else 1
    if n < need:
        print("FAIL: SVG has %d text elements '%s' (want >= %d); texts: %s" % (n, want, need, sorted(set(texts))[:40]))
        ok = False
    else:
        print("ok: SVG parses and holds '%s' %d times" % (want, n))
sys.exit(0 if ok else 1)
PY

# Errors: exit 2, a message naming the tool and the file.
err_case() { # WHAT REGEX ARGS...
    local what=$1 re=$2
    shift 2
    out=$("$plot" "$@" 2>&1)
    rc=$?
    check "$what: exit 2 and /$re/ (got $rc: $out)" \
        bash -c '[ "$1" -eq 2 ] && grep -Eq -- "$2" <<<"$3"' _ "$rc" "$re" "$out"
}
err_case "unreadable file" "^symm-bench-plot: $tmp/missing.csv: cannot read: No such file" \
    "$tmp/missing.csv" -o "$tmp/x.svg"
printf 'hello\nworld\n' >"$tmp/junk.txt"
err_case "unknown format" "^symm-bench-plot: $tmp/junk.txt: unknown format" "$tmp/junk.txt" -o "$tmp/x.svg"
err_case "bad output name" "^symm-bench-plot: -o $tmp/x.pdf: the plot must be a .svg or .png" \
    "$tmp/symm.csv" -o "$tmp/x.pdf"
check "no plot written on errors" test ! -e "$tmp/x.svg"
exit $fail
