#!/bin/bash
# tool_cli.sh SYMM_INFO SYMM_BENCH [SYMM_STREAM_BENCH] - the tools' command
# lines: --version, --help (usage on stdout, status 0) and unknown options
# (an error naming the option on stderr, nothing on stdout, status 2).
set -u
info=$1 bench=$2 sbench=${3:-}
fail=0 tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# expect STATUS STDOUT_ERE STDERR_ERE CMD...; an ERE of '^$' means empty.
expect() {
    local want=$1 out_re=$2 err_re=$3 rc
    shift 3
    "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
    rc=$?
    local out err
    out=$(cat "$tmp/out") err=$(cat "$tmp/err")
    if [ "$rc" -ne "$want" ] || ! grep -Eq -- "$out_re" <<<"$out" || ! grep -Eq -- "$err_re" <<<"$err"; then
        printf 'FAIL: %s\n  status %d (want %d)\n  stdout: %s\n  (want /%s/)\n  stderr: %s\n  (want /%s/)\n' \
            "$*" "$rc" "$want" "$out" "$out_re" "$err" "$err_re"
        fail=1
    else
        printf 'ok: %s -> %d\n' "$*" "$rc"
    fi
}

expect 0 '^symm [0-9]+\.[0-9]+\.[0-9]+ \(.*\), OpenSHMEM 1\.[0-9]+$' '^$' "$info" --version
lines=$("$info" --version | wc -l)
[ "$lines" -eq 1 ] || { echo "FAIL: symm-info --version printed $lines lines, want 1"; fail=1; }
expect 0 '^usage: symm-info' '^$' "$info" --help
expect 0 '^usage: symm-info' '^$' "$info" -h
expect 2 '^$' "symm-info: unknown option '--bogus'" "$info" --bogus
expect 2 '^$' "symm-info: unknown option 'extra'" "$info" --version extra
# Without options: the whole report, the table's version line included.
expect 0 'SHMEM_SYMMETRIC_SIZE' '^$' "$info"

expect 0 '^usage: symm-bench' '^$' "$bench" --help
expect 0 '^usage: symm-bench' '^$' "$bench" -h
expect 0 '^  --osu +measure as the OSU' '^$' "$bench" --help
expect 2 '^$' "symm-bench: bad option '--bogus'" "$bench" --bogus
expect 2 '^$' "symm-bench: unknown test 'nosuchtest'" "$bench" nosuchtest

if [ -n "$sbench" ]; then
    expect 0 '^usage: .*symm-stream-bench' '^$' "$sbench" --help
    expect 0 '^usage: .*symm-stream-bench' '^$' "$sbench" -h
    expect 2 '^$' "(invalid|unrecognized) option.*(q|--bogus)" "$sbench" -q
    expect 2 '^$' "symm-stream-bench: unknown option '--bogus'" "$sbench" --bogus
    expect 2 '^$' "symm-stream-bench: -k: unknown kernel 'sideways'" "$sbench" -k sideways
fi
exit $fail
