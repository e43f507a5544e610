#!/bin/bash
# python_path.sh OSHRUN EXAMPLES_DIR - the README's `oshrun -np N python3
# prog.py` with another python3 first on PATH (one without numpy, as pyenv's
# or conda's): oshrun runs the Python symm was built for, with the package on
# PYTHONPATH, and says so in one line; a path to python3 runs as given.
set -u
oshrun=$1 examples=$2
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
printf '#!/bin/sh\necho "the wrong python3 ran" >&2\nexit 3\n' >"$d/python3"
chmod +x "$d/python3"
fail=0
for ex in hello producer_consumer; do
    out=$(env -u PYTHONPATH PATH="$d:$PATH" "$oshrun" --timeout 60 -np 2 python3 "$examples/$ex.py" 2>&1)
    rc=$?
    if [ $rc -ne 0 ] || grep -q "wrong python3" <<<"$out"; then
        printf 'FAIL: %s: status %d\n%s\n' "$ex" $rc "$out"
        fail=1
    elif [ "$(grep -c "^oshrun: running python3 as .*$d/python3 is first on PATH" <<<"$out")" -ne 1 ]; then
        printf 'FAIL: %s: expected one line naming both interpreters\n%s\n' "$ex" "$out"
        fail=1
    else
        echo "ok: oshrun -np 2 python3 $ex.py"
    fi
done
out=$(PATH="$d:$PATH" "$oshrun" --timeout 30 -np 1 "$d/python3" "$examples/hello.py" 2>&1)
rc=$?
if [ $rc -ne 3 ] || ! grep -q "wrong python3" <<<"$out" || grep -q "^oshrun: running" <<<"$out"; then
    printf 'FAIL: a path to python3 must run as given: status %d\n%s\n' $rc "$out"
    fail=1
else
    echo "ok: a path to python3 runs as given"
fi
exit $fail
