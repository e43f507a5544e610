"""DDP communication hooks through symm, with PyTorch's own hooks'
conventions (torch.distributed.algorithms.ddp_comm_hooks):

    model.register_comm_hook(state, symm.torch.allreduce_hook)

A hook takes the state and a GradBucket and returns a torch.futures.Future
of the bucket's averaged gradients. state None means the default group, as
with PyTorch's allreduce_hook; a symm process group (the default one or a
subgroup: the reduction is then over its ranks), or another backend's
group of every rank, is accepted too. The reduction runs on symm's engine thread: the hook
returns at once and backward goes on while symm reduces (ctypes releases
the GIL in symm's calls). The bucket is staged through the engine's
symmetric buffer, kept and reused across steps. symm starts from the
default group's store on first use when it is not running yet.

  allreduce_hook         average in the bucket's dtype
  fp16_compress_hook     moved as float16, reduced in float32, back in the
                         bucket's dtype (PyTorch's fp16_compress_hook)
  bf16_compress_hook     the same with bfloat16
"""

# No "from __future__ import annotations" here: DDP's register_comm_hook compares
# a hook's annotations with dist.GradBucket and torch.futures.Future[torch.Tensor],
# so they must be those objects, not strings.
from typing import Optional

import torch
import torch.distributed as dist

from .. import runtime
from .._lib import SymmError
from . import _engine, _ops, backend


def _engine_of(state):
    if state is not None and not isinstance(state, dist.ProcessGroup):
        raise SymmError("symm.torch: a hook's state is None or a process group, not %r"
                        % type(state).__name__)
    if not runtime.initialized():
        if not dist.is_initialized():
            raise SymmError("symm.torch: the hooks need torch.distributed initialised "
                            "(init_process_group) or symm running")
        from torch.distributed import distributed_c10d
        backend.ensure_symm(dist.get_rank(), dist.get_world_size(),
                            distributed_c10d._get_default_store())
    if isinstance(state, backend.ProcessGroupSymm):
        return state._eng  # its own group: the world or a subgroup
    eng = backend.world_engine()
    if state is not None and state.size() != eng.size:
        raise SymmError("symm.torch: the hook's process group (%s) has %d ranks: give a symm "
                        "group (new_group(..., backend='symm')) to reduce over some ranks; "
                        "another backend's group is taken only when it has every rank (%d)"
                        % (state.name(), state.size(), eng.size))
    return eng


def _check_bucket(eng, t):
    _ops._check(eng, "hook", t, "sum", same=("the bucket's number of elements and dtype",
                                             (_engine._NUMEL, _engine._DTYPE)))


def _reduce_bucket(eng, t, wire):
    """Average t over every rank, moved as dtype wire (engine's thread)."""
    if wire is None or wire == t.dtype:
        _ops.allreduce_flat(eng, t, "avg")
        return t
    # Divided first, as PyTorch's hook does: the sum of the halves cannot
    # overflow where the average would not.
    w = t.div(eng.size).to(wire)
    _ops.allreduce_flat(eng, w, "sum")  # float32 accumulation inside
    t.copy_(w)
    return t


def _hook(state, bucket, wire):
    eng = _engine_of(state)
    t = bucket.buffer() if callable(getattr(bucket, "buffer", None)) else bucket.get_tensor()
    if eng.idle():
        _check_bucket(eng, t)  # here: nothing queued can be overtaken
        return eng.submit(lambda: _reduce_bucket(eng, t, wire), sync=False)
    # Behind a bucket in flight: the handshake too runs on the engine's
    # thread, so handshakes keep the order of the calls on every rank.
    return eng.submit(lambda: (_check_bucket(eng, t), _reduce_bucket(eng, t, wire))[1],
                      sync=False)


def allreduce_hook(state: Optional[dist.ProcessGroup],
                   bucket: dist.GradBucket) -> torch.futures.Future[torch.Tensor]:
    """The bucket averaged over every rank through symm."""
    return _hook(state, bucket, None)


def fp16_compress_hook(state: Optional[dist.ProcessGroup],
                       bucket: dist.GradBucket) -> torch.futures.Future[torch.Tensor]:
    """Averaged with the bucket moved as float16 (reduced in float32)."""
    return _hook(state, bucket, torch.float16)


def bf16_compress_hook(state: Optional[dist.ProcessGroup],
                       bucket: dist.GradBucket) -> torch.futures.Future[torch.Tensor]:
    """Averaged with the bucket moved as bfloat16 (reduced in float32)."""
    return _hook(state, bucket, torch.bfloat16)


# DDP refuses a hook named bf16_compress_hook without NCCL (it takes the
# name for PyTorch's own): ours goes by another name inside.
bf16_compress_hook.__name__ = bf16_compress_hook.__qualname__ = "symm_bf16_compress_hook"
