"""symm: symmetric memory for Python, on the symm C library (OpenSHMEM 1.5).

numpy arrays (and torch tensors) whose buffer is the symmetric heap, so a
peer reads and writes them one-sided, with no copy between the Python object
and the memory; puts, gets, atomics, signals, collectives over teams, CPU
streams, and fused all-gather+matmul / matmul+reduce-scatter that hide the
communication behind the computation.

    import numpy as np, symm
    me, n = symm.my_pe(), symm.n_pes()          # initialises on first use
    x = symm.zeros(4, np.int64)                 # collective allocation
    symm.put(x, np.arange(4) + 100 * me, (me + 1) % n)
    symm.barrier()
    print(me, x)                                # what the left neighbour wrote
    symm.free(x)

Run with the launcher: ``oshrun -np 4 python3 prog.py``, or as the ranks of
torchrun (symm then starts through the torch.distributed store).
``symm.rfc`` (also ``hyper_parallel.core.symmetric_memory``) is the
HyperParallel symmetric-memory RFC's API on symm.
"""

from __future__ import annotations

from . import _lib
from ._lib import SymmError
from .runtime import (STATUS_IS_INITIALIZED, STATUS_NOT_INITIALIZED, STATUS_SHM_CREATED,
                      UNIQUE_ID_SIZE, finalize, get_unique_id, global_exit, heap_free,
                      heap_size, info_get_name, info_get_version, init, init_status,
                      initialized, my_pe, n_pes, wtime)
from .memory import (empty, empty_like, free, full, is_symmetric, like, ones, peer_array,
                     to_torch, zeros, zeros_like)
from .rma import (CMP_EQ, CMP_GE, CMP_GT, CMP_LE, CMP_LT, CMP_NE, SIGNAL_ADD, SIGNAL_SET,
                  atomic_add, atomic_and, atomic_compare_swap, atomic_fetch, atomic_fetch_add,
                  atomic_fetch_and, atomic_fetch_inc, atomic_fetch_or, atomic_fetch_xor,
                  atomic_inc, atomic_or, atomic_set, atomic_swap, atomic_xor, fence, g, get,
                  get_nbi, p, put, put_nbi, put_signal, put_signal_nbi, quiet, signal_fetch,
                  signal_op, test, test_all, test_any, test_some, wait_signal, wait_until,
                  wait_until_all, wait_until_any, wait_until_some)
from .team import TEAM_SHARED, TEAM_WORLD, Team
from .coll import (allgather, allreduce, alltoall, barrier, barrier_all, broadcast, fcollect,
                   reduce, reduce_scatter, sync, sync_all)
from .stream import (Stream, barrier_on_stream, get_on_stream, put_on_stream, quiet_on_stream,
                     signal_op_on_stream, synchronize, wait_signal_on_stream)
from .fused import fused_all_gather_matmul, fused_matmul_reduce_scatter, fused_plan
from .register import (ACCESS_ATOMIC, ACCESS_READ, ACCESS_RW, ACCESS_WRITE, Region, deregister,
                       register)

__version__ = "0.1.0"


def __getattr__(name: str) -> str:
    """The module attribute `name` made on demand: LIBRARY_PATH, the path
    libsymm was (or is now) loaded from; any other name raises AttributeError."""
    # PEP 562: LIBRARY_PATH loads libsymm when asked for; importing symm
    # loads nothing.
    if name == "LIBRARY_PATH":
        return _lib.library_path()
    raise AttributeError("module %r has no attribute %r" % (__name__, name))

__all__ = [
    "__version__", "ACCESS_ATOMIC", "ACCESS_READ", "ACCESS_RW", "ACCESS_WRITE", "Region",
    "deregister", "register", "allgather", "allreduce", "alltoall", "atomic_add", "atomic_and",
    "atomic_compare_swap", "atomic_fetch", "atomic_fetch_add", "atomic_fetch_and",
    "atomic_fetch_inc", "atomic_fetch_or", "atomic_fetch_xor", "atomic_inc", "atomic_or",
    "atomic_set", "atomic_swap", "atomic_xor", "barrier", "barrier_all", "barrier_on_stream",
    "broadcast", "CMP_EQ", "CMP_GE", "CMP_GT", "CMP_LE", "CMP_LT", "CMP_NE", "empty",
    "empty_like", "fcollect", "fence", "finalize", "free", "full", "fused_all_gather_matmul",
    "fused_matmul_reduce_scatter", "fused_plan", "g", "get", "get_nbi", "get_on_stream", "get_unique_id",
    "global_exit", "heap_free", "heap_size", "info_get_name", "info_get_version", "init",
    "init_status", "initialized", "is_symmetric", "LIBRARY_PATH", "like", "my_pe", "n_pes",
    "ones", "p", "peer_array", "put", "put_nbi", "put_on_stream", "put_signal",
    "put_signal_nbi", "quiet", "quiet_on_stream", "reduce", "reduce_scatter", "SIGNAL_ADD",
    "signal_fetch", "signal_op", "signal_op_on_stream", "SIGNAL_SET", "STATUS_IS_INITIALIZED",
    "STATUS_NOT_INITIALIZED", "STATUS_SHM_CREATED", "Stream", "SymmError", "sync", "sync_all",
    "synchronize", "Team", "team_destroy", "team_my_pe", "team_n_pes", "TEAM_SHARED",
    "team_split_2d", "team_split_strided", "team_translate_pe", "TEAM_WORLD", "test",
    "test_all", "test_any", "test_some", "to_torch", "UNIQUE_ID_SIZE", "wait_signal",
    "wait_signal_on_stream", "wait_until", "wait_until_all", "wait_until_any",
    "wait_until_some", "wtime", "zeros", "zeros_like",
]


def team_split_strided(parent, start, stride, size):
    """parent.split_strided(start, stride, size)."""
    return parent.split_strided(start, stride, size)


def team_split_2d(parent, xrange):
    """parent.split_2d(xrange)."""
    return parent.split_2d(xrange)


def team_translate_pe(src_team, pe, dest_team=None):
    """src_team.translate_pe(pe, dest_team)."""
    return src_team.translate_pe(pe, dest_team)


def team_destroy(team):
    """team.destroy()."""
    team.destroy()


def team_my_pe(team=None):
    """This PE's number in team (default TEAM_WORLD)."""
    return (team or TEAM_WORLD).my_pe()


def team_n_pes(team=None):
    """The size of team (default TEAM_WORLD)."""
    return (team or TEAM_WORLD).n_pes()
