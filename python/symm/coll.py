"""Collectives over teams: barrier, sync, broadcast, allgather (fcollect),
alltoall, reductions (every PE of the team gets the result) and
reduce_scatter.

Every PE of the team calls each collective, in the same order, with arrays
of the same shapes. dest and source are symmetric arrays (reduce_scatter's
dest may be any array). Arguments are checked on each PE before any
communication: a PE whose call is wrong raises TypeError/ValueError and has
not entered the collective, so its peers wait for its next (correct) call.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional, Union

import numpy as np

from . import _arrays, _lib, rma, runtime
from ._arrays import as_array, symmetric
from ._lib import c_char_p, c_int, c_size_t, c_void_p, fn
from .team import TEAM_WORLD, Team, team_arg

if TYPE_CHECKING:
    import torch

# A numpy array or a (CPU) torch tensor: what symm's routines take and return.
ArrayLike = Union[np.ndarray, "torch.Tensor"]

OPS = ("sum", "prod", "min", "max", "and", "or", "xor")
_UFUNC = {"sum": np.add, "prod": np.multiply, "min": np.minimum, "max": np.maximum,
          "and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}


def barrier_all() -> None:
    """Complete this PE's puts, then meet every PE."""
    runtime.ensure("barrier_all")
    fn("shmem_barrier_all", None, [])()
    del rma._nbi_keep[:]


def sync_all() -> None:
    """Meet every PE (puts are not completed)."""
    runtime.ensure("sync_all")
    fn("shmem_sync_all", None, [])()


def sync(team: Optional[Team] = None) -> None:
    """Meet every PE of team (default TEAM_WORLD)."""
    runtime.ensure("sync")
    team_arg(team, "sync").sync()


def barrier(team: Optional[Team] = None) -> None:
    """Complete this PE's puts, then meet every PE of team."""
    runtime.ensure("barrier")
    team_arg(team, "barrier").barrier()


def _pair(routine, dest, source, raw_ok=True):
    runtime.ensure(routine, dest=dest, source=source)
    d = as_array(dest, routine, "dest", raw_ok=raw_ok)
    s = as_array(source, routine, "source", raw_ok=raw_ok)
    if d.dtype != s.dtype:
        raise TypeError("symm.%s: source has dtype %s, dest has dtype %s"
                        % (routine, s.dtype, d.dtype))
    _arrays.contiguous(d, routine, "dest")
    _arrays.contiguous(s, routine, "source")
    symmetric(d, routine, "dest")
    symmetric(s, routine, "source")
    return d, s


def _rc(rc, routine, cname, mark):
    if rc != 0:
        _lib.fail(routine, "%s failed" % cname, mark)


def broadcast(dest: ArrayLike, source: ArrayLike, root: int = 0,
              team: Optional[Team] = None) -> ArrayLike:
    """Copy root's source into every PE's dest (root's dest too). root is a
    PE number in team. Returns dest."""
    t = team_arg(team, "broadcast")
    d, s = _pair("broadcast", dest, source)
    root = _arrays.pe_arg(root, "broadcast", "root", t.n_pes())
    if d.nbytes != s.nbytes:
        raise ValueError("symm.broadcast: dest has %d elements, source %d"
                         % (d.size, s.size))
    mark = _lib.log_mark()
    _rc(fn("shmem_broadcastmem", c_int, [c_void_p, c_void_p, c_void_p, c_size_t, c_int])(
        t.handle, _arrays.data_ptr(d), _arrays.data_ptr(s), s.nbytes, root),
        "broadcast", "shmem_broadcastmem", mark)
    return dest


def allgather(dest: ArrayLike, source: ArrayLike, team: Optional[Team] = None) -> ArrayLike:
    """dest = every team PE's source, in team order (fcollect): dest holds
    n_pes times source's elements. Returns dest."""
    t = team_arg(team, "allgather")
    d, s = _pair("allgather", dest, source)
    n = t.n_pes()
    if d.size != n * s.size:
        raise ValueError("symm.allgather: dest has %d elements, need %d PEs x %d"
                         % (d.size, n, s.size))
    mark = _lib.log_mark()
    _rc(fn("shmem_fcollectmem", c_int, [c_void_p, c_void_p, c_void_p, c_size_t])(
        t.handle, _arrays.data_ptr(d), _arrays.data_ptr(s), s.nbytes),
        "allgather", "shmem_fcollectmem", mark)
    return dest


fcollect = allgather


def alltoall(dest: ArrayLike, source: ArrayLike, team: Optional[Team] = None) -> ArrayLike:
    """Block j of source (its elements split into n_pes equal blocks) goes
    to PE j's dest, block i of dest comes from PE i. Returns dest."""
    t = team_arg(team, "alltoall")
    d, s = _pair("alltoall", dest, source)
    n = t.n_pes()
    if d.size != s.size or s.size % n != 0:
        raise ValueError("symm.alltoall: source and dest need the same number of elements, "
                         "a multiple of %d PEs (source %d, dest %d)" % (n, s.size, d.size))
    mark = _lib.log_mark()
    _rc(fn("shmem_alltoallmem", c_int, [c_void_p, c_void_p, c_void_p, c_size_t])(
        t.handle, _arrays.data_ptr(d), _arrays.data_ptr(s), s.nbytes // n),
        "alltoall", "shmem_alltoallmem", mark)
    return dest


def _op_arg(op, routine):
    if not isinstance(op, str) or op.lower() not in OPS:
        raise ValueError("symm.%s: op %r is not one of %s" % (routine, op, ", ".join(OPS)))
    return op.lower()


def reduce(dest: ArrayLike, source: ArrayLike, op: str = "sum",
           team: Optional[Team] = None) -> ArrayLike:
    """dest = op over every team PE's source, elementwise, on every PE (an
    all-reduce). op: sum, prod, min, max (numbers), and, or, xor
    (integers). dest may be source. Returns dest."""
    routine = "reduce"
    t = team_arg(team, routine)
    op = _op_arg(op, routine)
    d, s = _pair(routine, dest, source, raw_ok=False)
    dt = _arrays.dtype_in(s, _arrays.REDUCE_TYPES[op], routine, "source", "op %r" % op)
    if d.size != s.size:
        raise ValueError("symm.%s: dest has %d elements, source %d" % (routine, d.size, s.size))
    del dt  # checked: the C routine is chosen by the source's dtype
    reduce_raw(d, s, op, t)
    return dest


allreduce = reduce

_raw_fns = {}


def reduce_raw(dest: np.ndarray, source: np.ndarray, op: str,
               team: Optional[Team] = None) -> np.ndarray:
    """reduce() of arrays the caller has checked already (symmetric,
    contiguous, of one dtype and size, op valid for it): the C call alone,
    its function bound once. For callers that reduce the same buffers many
    times (symm.torch's staging)."""
    key = (source.dtype, op)
    f = _raw_fns.get(key)
    if f is None:
        name = "shmem_%s_%s_reduce" % (_arrays.C_NAME[source.dtype], op)
        f = _raw_fns[key] = (name, fn(name, c_int, [c_void_p, c_void_p, c_void_p, c_size_t]))
    t = TEAM_WORLD if team is None else team
    mark = _lib.log_mark()
    _rc(f[1](t.handle, _arrays.data_ptr(dest), _arrays.data_ptr(source), source.size),
        "reduce", f[0], mark)
    return dest


def reduce_private(dest_ptr: int, source_ptr: int, count: int, dtype: Any, op: str,
                   team: Optional[Team] = None) -> bool:
    """Reduce count elements of numpy dtype at source_ptr over the team into
    dest_ptr (may be source_ptr), both memory private to this PE (a
    tensor's data), by shmemx_reduce_private. True when done; False, at
    once and with nothing sent, where some other member of the team maps
    this PE's memory: the caller then reduces through symmetric buffers
    (reduce_raw) for this call. Collective over the team like reduce()."""
    f = fn("shmemx_reduce_private", c_int, [c_void_p, c_void_p, c_void_p, c_size_t, c_char_p])
    t = TEAM_WORLD if team is None else team
    name = ("%s_%s" % (_arrays.C_NAME[np.dtype(dtype)], op)).encode()
    mark = _lib.log_mark()
    rc = f(t.handle, dest_ptr, source_ptr, count, name)
    if rc == -2:
        return False
    _rc(rc, "reduce", "shmemx_reduce_private", mark)
    return True


def reduce_scatter(dest: ArrayLike, source: ArrayLike, op: str = "sum",
                   team: Optional[Team] = None) -> ArrayLike:
    """source (symmetric, n_pes equal blocks) is reduced elementwise over
    the team, and PE i's dest receives block i of the result. dest may be
    any array of one block's size. Returns dest."""
    routine = "reduce_scatter"
    t = team_arg(team, routine)
    op = _op_arg(op, routine)
    runtime.ensure(routine, dest=dest, source=source)
    s = as_array(source, routine, "source", raw_ok=False)
    d = as_array(dest, routine, "dest", raw_ok=False)
    dt = _arrays.dtype_in(s, _arrays.REDUCE_TYPES[op], routine, "source", "op %r" % op)
    if d.dtype != dt:
        raise TypeError("symm.%s: source has dtype %s, dest has dtype %s" % (routine, dt, d.dtype))
    _arrays.contiguous(s, routine, "source")
    symmetric(s, routine, "source")
    _arrays.writable(d, routine, "dest")
    n, me = t.n_pes(), t.my_pe()
    if s.size != n * d.size:
        raise ValueError("symm.%s: source has %d elements, need %d PEs x dest's %d"
                         % (routine, s.size, n, d.size))
    chunk = d.size
    mine = s.reshape(-1)[me * chunk:(me + 1) * chunk]
    world = [t.translate_pe(i) for i in range(n)]
    sync(t)  # every PE's source is ready
    acc = np.array(mine)
    if n > 1:
        tmp = np.empty_like(acc)
        get = fn("shmem_getmem", None, [c_void_p, c_void_p, c_size_t, c_int])
        ufunc = _UFUNC[op]
        for i in range(1, n):  # rotated: PE me reads from me+1 first, no hot spot
            get(_arrays.data_ptr(tmp), _arrays.data_ptr(mine), mine.nbytes, world[(me + i) % n])
            ufunc(acc, tmp, out=acc)
    sync(t)  # nobody rewrites its source while a peer still reads it
    np.copyto(d, acc.reshape(d.shape))
    return dest
