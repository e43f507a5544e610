"""rfc_producer_consumer.py - the HyperParallel symmetric-memory RFC's first
quick start (a producer puts a tensor with a signal; its consumer waits for
the signal, then reads), as RFC code is written, with device='npu' replaced
by 'cpu' and the "hccl" process group by "gloo". Nothing else is symm's.

    python3 tests/python/torchrun_driver.py 4 python3 examples/python/rfc_producer_consumer.py
    (or torchrun --nproc-per-node 4 ..., where torchrun runs)

Each rank produces for the next one in a ring, so it runs at any size.
"""
import torch
import torch.distributed as dist

import hyper_parallel.core.symmetric_memory as symm_mem

dist.init_process_group(backend="gloo")
rank = dist.get_rank()
world_size = dist.get_world_size()
peer = (rank + 1) % world_size   # whom I produce for
producer = (rank - 1) % world_size

n = 1024
buf = symm_mem.empty((n,), dtype=torch.float32)        # symmetric: starts symm
signal = symm_mem.empty((world_size,), dtype=torch.int32)
signal.zero_()
symm_mem.barrier()

# Offsets, sizes and values as the RFC passes them: 1-element tensors.
target_offset = torch.tensor([0], dtype=torch.int64, device="cpu")
src_offset = torch.tensor([0], dtype=torch.int64, device="cpu")
size = torch.tensor([n], dtype=torch.int64, device="cpu")
signal_offset = torch.tensor([rank], dtype=torch.int64, device="cpu")
signal_value = torch.tensor([1], dtype=torch.int32, device="cpu")

# Producer: the data, then the signal, in one call.
src = torch.arange(n, dtype=torch.float32, device="cpu") + 1000 * rank
symm_mem.shmem_put_with_signal(buf, target_offset, src, src_offset, size,
                               signal, signal_offset, signal_value, 0, peer)

# Consumer: wait until my producer's signal word equals 1 (compare_op 0: EQ).
symm_mem.shmem_wait_for_signal(buf, signal,
                               torch.tensor([producer], dtype=torch.int64, device="cpu"),
                               signal_value, 0)
expected = torch.arange(n, dtype=torch.float32) + 1000 * producer
ok = torch.equal(buf, expected)
symm_mem.barrier()
print("rank %d of %d: %s" % (rank, world_size,
                             "ok" if ok else "WRONG data from rank %d" % producer), flush=True)
dist.destroy_process_group()
raise SystemExit(0 if ok else 1)
