"""One rank of a job started the torchrun way (by torchrun_driver.py),
checking how symm.rfc starts symm there:

    python3 rfc_start_worker.py pg|env|uid

pg:  after torch.distributed.init_process_group("gloo"), the first empty()
     starts symm over every rank: the same rank numbers, the heap of
     SYMMETRIC_MEMORY_HEAP_SIZE, PE 0 at MASTER_ADDR:MASTER_PORT+13 with a
     random secret in the id the store carried; a bad heap size is refused
     on every rank before anything starts.
env: without a process group (RANK, WORLD_SIZE, MASTER_* only).
uid: the program starts symm itself with a unique id it passes through the
     store (symm.init(uid=...)); the RFC calls then use that job.
Each rank then checks a put-with-signal ring and a gather computed here,
and prints "rank R of N: ok".
"""
import os
import re
import sys

import torch
import torch.distributed as dist

import symm
import hyper_parallel.core.symmetric_memory as symm_mem

mode = sys.argv[1]
rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
master_port = int(os.environ["MASTER_PORT"])
assert not symm.initialized()

if mode in ("pg", "uid"):
    dist.init_process_group(backend="gloo")
    assert (dist.get_rank(), dist.get_world_size()) == (rank, world)
store = dist.distributed_c10d._get_default_store() if mode != "env" else None

if mode == "uid":
    if rank == 0:
        store.set("my-uid", symm.get_unique_id())
    symm.init(uid=store.get("my-uid"), rank=rank, nranks=world)
else:
    os.environ["SYMMETRIC_MEMORY_HEAP_SIZE"] = "lots"
    try:
        symm_mem.empty(4, dtype=torch.float32)
        raise SystemExit("a bad SYMMETRIC_MEMORY_HEAP_SIZE was accepted")
    except symm.SymmError as e:
        assert "SYMMETRIC_MEMORY_HEAP_SIZE='lots'" in str(e), e
    assert not symm.initialized()
    os.environ["SYMMETRIC_MEMORY_HEAP_SIZE"] = "48M"

buf = symm_mem.empty((8,), dtype=torch.int64)        # starts symm (pg, env)
assert symm.initialized()
assert (symm.my_pe(), symm.n_pes()) == (rank, world), (symm.my_pe(), symm.n_pes())
if mode != "uid":
    heap = symm.heap_size()
    assert 48 << 20 <= heap < 64 << 20, heap
if mode == "pg":
    # The id rank 0 handed over: "symm1:" + 32-hex secret + ":" + PE 0's address.
    text = store.get("symm/unique-id")[12:].split(b"\0")[0].decode()
    m = re.fullmatch(r"symm1:([0-9a-f]{32}):127\.0\.0\.1:(\d+)", text)
    assert m, text
    assert int(m.group(2)) == master_port + 13, (text, master_port)

signal = symm_mem.empty((1,), dtype=torch.int32)
signal.zero_()
symm_mem.barrier()
right, left = (rank + 1) % world, (rank - 1) % world
src = torch.arange(8, dtype=torch.int64) + 100 * rank
symm_mem.shmem_put_with_signal(buf, 0, src, 0, 8, signal, 0, 1, 0, right)
symm_mem.shmem_wait_for_signal(buf, signal, 0, 1, 0)
assert torch.equal(buf, torch.arange(8, dtype=torch.int64) + 100 * left), buf
out = symm_mem.empty((world, 3), dtype=torch.float32)
symm_mem.shmem_allgather(out, torch.full((3,), float(rank)))
assert torch.equal(out, torch.arange(world, dtype=torch.float32)[:, None].expand(world, 3)), out
symm_mem.barrier()
print("rank %d of %d: ok" % (rank, world), flush=True)
if mode != "env":
    dist.destroy_process_group()
