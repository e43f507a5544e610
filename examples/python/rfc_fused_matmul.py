"""rfc_fused_matmul.py - the HyperParallel symmetric-memory RFC's second
quick start: a fused AllGather + MatMul with block_size, as RFC code is
written, with device='npu' replaced by 'cpu' and "hccl" by "gloo".

    python3 tests/python/torchrun_driver.py 4 python3 examples/python/rfc_fused_matmul.py

Every rank holds m rows of A; each gets all of A (gather_out) and A @ B
(c), the blocks of block_size rows multiplied as they arrive. The result is
checked against torch.matmul of the whole A, which every rank can build.
"""
import torch
import torch.distributed as dist

import hyper_parallel.core.symmetric_memory as symm_mem

dist.init_process_group(backend="gloo")
rank = dist.get_rank()
world_size = dist.get_world_size()

m, k, n = 64, 32, 48
block_size = 16
torch.manual_seed(0)
a_all = torch.randn(world_size * m, k)                 # the same on every rank
b = torch.randn(k, n, device="cpu")
a = a_all[rank * m:(rank + 1) * m].to("cpu")

gather_out = symm_mem.empty((world_size * m, k), dtype=torch.float32)
c = symm_mem.empty((world_size * m, n), dtype=torch.float32)
signal = symm_mem.empty((world_size * ((m + block_size - 1) // block_size),), dtype=torch.int32)
signal.zero_()
symm_mem.barrier()

gather_result, matmul_result = symm_mem.fused_all_gather_matmul(a, b, c, gather_out, signal,
                                                                block_size=block_size)
ok = (tuple(gather_result.shape) == (world_size * m, k)
      and tuple(matmul_result.shape) == (world_size * m, n)
      and torch.equal(gather_result, a_all)
      and torch.allclose(matmul_result, a_all @ b, rtol=1e-4, atol=1e-4))
symm_mem.barrier()
print("rank %d of %d: %s" % (rank, world_size, "ok" if ok else "WRONG result"), flush=True)
dist.destroy_process_group()
raise SystemExit(0 if ok else 1)
