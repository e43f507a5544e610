"""One rank of a torch.distributed job (started by torchrun_driver.py
--kill K) that blocks in shmem_wait_for_signal for a signal nobody sends,
after saying so; the driver then kills rank K. symm's watcher must end the
others with a report naming PE K (not leave them waiting, as torchrun's
workers would).

    python3 rfc_kill_worker.py
"""
import torch
import torch.distributed as dist

import hyper_parallel.core.symmetric_memory as symm_mem

dist.init_process_group(backend="gloo")
rank = dist.get_rank()
buf = symm_mem.empty((16,), dtype=torch.float32)
signal = symm_mem.empty((1,), dtype=torch.int32)
signal.zero_()
symm_mem.barrier()
print("rank %d: waiting" % rank, flush=True)
symm_mem.shmem_wait_for_signal(buf, signal, 0, 1, 0)   # never arrives
print("rank %d: the wait returned" % rank, flush=True)
raise SystemExit(5)
