"""Start N processes the way torchrun starts its workers (RANK, LOCAL_RANK,
WORLD_SIZE, LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT; no launcher of
symm's), run COMMAND in each and check them. Debian 12's own torchrun does
not run on its Python 3.11, hence this.

    python3 torchrun_driver.py [--ok-line] [--kill RANK [--within S]]
        [--rank-env R:NAME=VALUE]... [--expect-fail REGEX] N COMMAND...

Passes when every process exits 0 (with --ok-line, also when each printed
"rank R of N: ok"). With --kill RANK: once every process has printed
"rank R: waiting", RANK is killed with SIGKILL; passes when every other
process then exits non-zero within S seconds (default 20) and one of them
printed a line naming PE RANK as dead (symm's watcher reports once per
node). --rank-env sets a variable for rank R only; with --expect-fail,
passes when every process exits non-zero and one printed a line matching
REGEX.
"""

import argparse
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time


def free_port():
    """A port p such that p, p + 13 (symm's bootstrap) and p + 14 (its
    store without a process group) are free now."""
    for _ in range(100):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        p = s.getsockname()[1]
        s.close()
        if p + 14 > 65535:
            continue
        ok = True
        for q in (p + 13, p + 14):
            t = socket.socket()
            try:
                t.bind(("127.0.0.1", q))
            except OSError:
                ok = False
            finally:
                t.close()
        if ok:
            return p
    raise SystemExit("torchrun_driver: no free port")


def output_of(path):
    with open(path, "r", errors="replace") as f:
        return f.read()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ok-line", action="store_true")
    ap.add_argument("--kill", type=int, default=None)
    ap.add_argument("--within", type=float, default=20.0)
    ap.add_argument("--timeout", type=float, default=100.0)
    ap.add_argument("--rank-env", action="append", default=[], metavar="R:NAME=VALUE")
    ap.add_argument("--expect-fail", default=None, metavar="REGEX")
    ap.add_argument("n", type=int)
    ap.add_argument("command", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    n = a.n
    # Not under a launcher: drop what oshrun would have told the processes.
    keep = ("SYMM_LIBRARY", "SYMM_LOG_LEVEL", "SYMM_BOOT_TIMEOUT", "SYMM_TRANSPORT")
    base = {k: v for k, v in os.environ.items()
            if not (k.startswith("SYMM_") or k.startswith("PMIX_")) or k in keep}
    base.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(free_port()), WORLD_SIZE=str(n),
                LOCAL_WORLD_SIZE=str(n), GROUP_RANK="0", ROLE_RANK="0")
    with tempfile.TemporaryDirectory(prefix="symm-torchrun-") as d:
        logs, procs = [], []
        for r in range(n):
            env = dict(base, RANK=str(r), LOCAL_RANK=str(r), ROLE_WORLD_SIZE=str(n))
            for spec in a.rank_env:
                who, _, kv = spec.partition(":")
                if int(who) == r:
                    k, _, v = kv.partition("=")
                    env[k] = v
            path = os.path.join(d, "rank%d.log" % r)
            logs.append(path)
            with open(path, "w") as f:
                procs.append(subprocess.Popen(a.command, env=env, stdout=f,
                                              stderr=subprocess.STDOUT))
        start = time.monotonic()
        bad = []
        killed_at = None
        reported = False
        if a.kill is not None:
            # Wait until every rank is blocked, then kill one.
            while time.monotonic() - start < a.timeout:
                outs = [output_of(p) for p in logs]
                if all("rank %d: waiting" % r in outs[r] for r in range(n)):
                    break
                if any(p.poll() is not None for p in procs):
                    break
                time.sleep(0.05)
            time.sleep(0.3)
            procs[a.kill].send_signal(signal.SIGKILL)
            killed_at = time.monotonic()
        deadline = (killed_at + a.within) if killed_at else start + a.timeout
        while time.monotonic() < deadline and any(p.poll() is None for p in procs):
            time.sleep(0.05)
        late = [r for r, p in enumerate(procs) if p.poll() is None]
        for r in late:
            procs[r].kill()
        for p in procs:
            p.wait()
        ended = time.monotonic()
        for r, p in enumerate(procs):
            out = output_of(logs[r])
            sys.stdout.write("".join("[rank %d] %s\n" % (r, line) for line in out.splitlines()))
            if r in late:
                bad.append("rank %d: still running after %s; killed" % (
                    r, "%g s after the kill" % a.within if killed_at else "%g s" % a.timeout))
                continue
            if a.expect_fail is not None:
                if p.returncode == 0:
                    bad.append("rank %d: exit status 0, expected a failure" % r)
                if re.search(a.expect_fail, out):
                    reported = True
            elif a.kill is None:
                if p.returncode != 0:
                    bad.append("rank %d: exit status %d" % (r, p.returncode))
                elif a.ok_line and ("rank %d of %d: ok" % (r, n)) not in out:
                    bad.append("rank %d: no 'rank %d of %d: ok' line" % (r, r, n))
            elif r != a.kill:
                if p.returncode == 0:
                    bad.append("rank %d: exit status 0 although PE %d died" % (r, a.kill))
                if re.search(r"PE %d\b[^\n]*(died|killed|SIGKILL)" % a.kill, out):
                    reported = True
        if a.expect_fail is not None and not reported:
            bad.append("no rank printed a line matching %r" % a.expect_fail)
        if killed_at is not None:
            # One survivor per node prints symm's report (src/core/watch.c).
            if not reported:
                bad.append("no survivor printed a line naming PE %d as dead" % a.kill)
            print("torchrun_driver: exit statuses %s" % [p.returncode for p in procs])
            print("torchrun_driver: every survivor ended %.1f s after rank %d was killed"
                  % (ended - killed_at, a.kill))
    for b in bad:
        print("torchrun_driver: FAILED: " + b)
    print("torchrun-style job of %d processes: %s" % (n, "FAILED" if bad else "ok"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
