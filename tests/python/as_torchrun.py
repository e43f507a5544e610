"""Run a torch.distributed program (one that calls init_process_group()
with the env:// defaults) as one PE under oshrun: RANK, WORLD_SIZE,
LOCAL_RANK and MASTER_ADDR/MASTER_PORT from what oshrun tells its PEs, so
the RFC's examples run unchanged under oshrun too (symm then starts from
oshrun's bootstrap, torch from these).

MASTER_PORT is a port the kernel gave rank 0 as free, handed to the other
ranks through a file named after this job's bootstrap address and secret (all ranks
of an oshrun job share a host). A port derived from the bootstrap's own
(say one above it) is not reserved by anyone: with tests running in
parallel, another job's socket can hold it, and torch's store then fails
to listen.

    oshrun -np N python3 as_torchrun.py PROGRAM [ARGS...]
"""
import atexit
import hashlib
import os
import runpy
import socket
import sys
import tempfile
import time

rank, size = os.environ["SYMM_RANK"], os.environ["SYMM_SIZE"]
# The job's secret (oshrun draws a fresh one per job) names the file, so a
# file left by an earlier, killed job on the same bootstrap port is not read.
job = hashlib.sha256((os.environ["SYMM_BOOT_ADDR"] + os.environ.get("SYMM_JOB_SECRET", "")).encode()).hexdigest()[:16]
path = os.path.join(tempfile.gettempdir(), "symm_as_torchrun_" + job)


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("0.0.0.0", 0))
        return s.getsockname()[1]


if int(rank) == 0:
    port = free_port()
    with open(path + ".tmp", "w") as f:
        f.write(str(port))
    os.rename(path + ".tmp", path)
    # Every rank has read it once init_process_group (collective) returned;
    # removed at exit so /tmp keeps no trace of the job.
    atexit.register(lambda: os.path.exists(path) and os.unlink(path))
else:
    deadline = time.monotonic() + 60
    while not os.path.exists(path):
        if time.monotonic() > deadline:
            sys.exit("as_torchrun: rank %s: rank 0 published no port in %s within 60 s" % (rank, path))
        time.sleep(0.01)
    with open(path) as f:
        port = int(f.read())
os.environ.update(RANK=rank, WORLD_SIZE=size, LOCAL_RANK=rank, LOCAL_WORLD_SIZE=size,
                  MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
