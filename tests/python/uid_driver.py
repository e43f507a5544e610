"""Start a symm job of N Python processes without a launcher: the unique id
travels from rank 0 to the others through a temporary file (as a program
under torchrun would pass it through torch.distributed's store).

    python3 uid_driver.py N

Exits 0 when every process reports its checks passed.
"""

import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    n = int(sys.argv[1])
    # Not under a launcher: drop what oshrun would have told the processes.
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("SYMM_") or k in ("SYMM_LIBRARY", "SYMM_LOG_LEVEL")}
    with tempfile.TemporaryDirectory(prefix="symm-uid-") as d:
        path = os.path.join(d, "job.uid")
        procs = [subprocess.Popen([sys.executable, os.path.join(HERE, "uid_worker.py"),
                                   str(r), str(n), path], env=env, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True) for r in range(n)]
        bad = 0
        for r, p in enumerate(procs):
            try:
                out, _ = p.communicate(timeout=100)
            except subprocess.TimeoutExpired:
                for q in procs:
                    q.kill()
                out, _ = p.communicate()
                print("rank %d: timed out" % r)
            sys.stdout.write(out)
            if p.returncode != 0 or ("rank %d of %d: ok" % (r, n)) not in out:
                print("rank %d: FAILED (exit status %s)" % (r, p.returncode))
                bad += 1
    print("unique-id job of %d processes: %s" % (n, "FAILED" if bad else "ok"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
