"""CPU streams: a FIFO of communication work run in order by a progress
thread of its own, so the caller computes while its puts proceed (the C
library's shmemx_stream_* / aclshmemx_*_on_stream).

Enqueueing returns at once. The arrays an item names must stay valid and a
put's source unchanged until the stream has run it; the Stream keeps a
reference to each until synchronize(). Signals on a stream are int32 words
(aclshmem's). A stream's barrier is over TEAM_WORLD only.
"""

from __future__ import annotations

import ctypes
import weakref
from typing import TYPE_CHECKING, Optional, Tuple, Union

import numpy as np

from . import _arrays, _lib, memory, rma, runtime
from ._arrays import as_array, pe_arg, symmetric
from ._lib import SymmError, c_int, c_int32, c_size_t, c_void_p, fn, state
from .team import TEAM_WORLD, Team, team_arg

if TYPE_CHECKING:
    import torch

# A numpy array or a (CPU) torch tensor: what symm's routines take and return.
ArrayLike = Union[np.ndarray, "torch.Tensor"]

# OpenSHMEM comparison values -> aclshmem's (GE and LE swap).
_TO_ACL_CMP = {0: 0, 1: 1, 2: 2, 3: 5, 4: 4, 5: 3}
_live = weakref.WeakSet()


class Stream:
    """A CPU stream. Stream() makes one with its own thread; Stream.default()
    is the library's default stream."""

    _default = None

    def __init__(self, _default=False):
        runtime.ensure()
        self._keep = []
        self._is_default = _default
        self._alive = True
        if _default:
            self._h = None  # NULL: the default stream
        else:
            h = c_void_p()
            mark = _lib.log_mark()
            rc = fn("shmemx_stream_create", c_int, [ctypes.POINTER(c_void_p)])(ctypes.byref(h))
            if rc != 0:
                _lib.fail("Stream", "shmemx_stream_create returned %d" % rc, mark)
            self._h = h.value
        _live.add(self)

    @classmethod
    def default(cls) -> Stream:
        """The default stream (the one NULL names in C)."""
        if cls._default is None or not cls._default._alive:
            cls._default = Stream(_default=True)
        return cls._default

    def _handle(self, routine):
        if not self._alive:
            raise ValueError("symm.%s: the stream was destroyed" % routine)
        if not state.initialized:
            raise SymmError("symm.%s: symm is not initialised" % routine)
        return self._h

    # ---- work -----------------------------------------------------------------
    def put(self, target: ArrayLike, source: ArrayLike, pe: int) -> None:
        """Enqueue: copy source into PE pe's copy of the symmetric target."""
        routine = "Stream.put"
        h = self._handle(routine)
        t, s, pe = rma._prepare(routine, target, source, pe, None, True)
        _arrays.contiguous(t, routine, "target")
        sc = np.ascontiguousarray(s)
        self._keep.append(sc)
        fn("aclshmemx_putmem_on_stream", None, [c_void_p, c_void_p, c_size_t, c_int32, c_void_p])(
            _arrays.data_ptr(t), _arrays.data_ptr(sc), t.nbytes, pe, h)

    def get(self, target: ArrayLike, source: ArrayLike, pe: int) -> None:
        """Enqueue: copy PE pe's copy of symmetric source into the local
        target (contiguous; complete after synchronize)."""
        routine = "Stream.get"
        h = self._handle(routine)
        t, s, pe = rma._prepare(routine, target, source, pe, None, False)
        _arrays.contiguous(t, routine, "target")
        _arrays.contiguous(s, routine, "source")
        self._keep.append(t)
        fn("aclshmemx_getmem_on_stream", None, [c_void_p, c_void_p, c_size_t, c_int32, c_void_p])(
            _arrays.data_ptr(t), _arrays.data_ptr(s), s.nbytes, pe, h)

    def _sig(self, signal, offset, routine):
        sg = as_array(signal, routine, "signal", raw_ok=False)
        _arrays.dtype_in(sg, [np.dtype(np.int32)], routine, "signal", "a stream signal")
        symmetric(sg, routine, "signal")
        return sg, _arrays.index_arg(sg, offset, routine, "signal")

    def signal_op(self, signal: ArrayLike, offset: Union[int, Tuple[int, ...]], value: int,
                  op: Union[int, str], pe: int) -> None:
        """Enqueue: set or add to element offset of PE pe's int32 signal
        array, after every earlier put of this stream has landed."""
        routine = "Stream.signal_op"
        h = self._handle(routine)
        pe = pe_arg(pe, routine)
        sg, addr = self._sig(signal, offset, routine)
        op = rma.sig_op_arg(op, routine)
        v = rma.value_arg(value, np.dtype(np.int32), routine)
        self._keep.append(sg)
        fn("aclshmemx_signal_op_on_stream", None, [c_void_p, c_int32, c_int, c_int, c_void_p])(
            addr, v, op, pe, h)

    def put_signal(self, target: ArrayLike, source: ArrayLike, signal: ArrayLike,
                   signal_offset: Union[int, Tuple[int, ...]], value: int, op: Union[int, str],
                   pe: int) -> None:
        """Enqueue a put, then the signal that announces it."""
        self.put(target, source, pe)
        self.signal_op(signal, signal_offset, value, op, pe)

    def wait_signal(self, signal: ArrayLike, offset: Union[int, Tuple[int, ...]],
                    cmp: Union[int, str], value: int) -> None:
        """Enqueue: hold the stream (not the caller) until element offset of
        this PE's int32 signal array compares to value."""
        routine = "Stream.wait_signal"
        h = self._handle(routine)
        sg, addr = self._sig(signal, offset, routine)
        c = _TO_ACL_CMP[rma.cmp_arg(cmp, routine)]
        v = rma.value_arg(value, np.dtype(np.int32), routine)
        self._keep.append(sg)
        fn("aclshmemx_signal_wait_until_on_stream", None, [c_void_p, c_int, c_int32, c_void_p])(
            addr, c, v, h)

    def barrier(self, team: Optional[Team] = None) -> None:
        """Enqueue a barrier of TEAM_WORLD (completes earlier puts). Every PE
        puts it on one of its streams."""
        routine = "Stream.barrier"
        h = self._handle(routine)
        if team_arg(team, routine) is not TEAM_WORLD:
            raise ValueError("symm.%s: only TEAM_WORLD has barriers on a stream" % routine)
        self._keep.append(None)  # marks the stream busy until synchronize
        fn("aclshmemx_barrier_all_on_stream", None, [c_void_p])(h)

    def quiet(self) -> None:
        """Enqueue: complete every earlier put of the stream and the host."""
        h = self._handle("Stream.quiet")
        self._keep.append(None)
        fn("aclshmemx_quiet_on_stream", None, [c_void_p])(h)

    def synchronize(self) -> None:
        """Wait until everything enqueued so far has run and completed."""
        h = self._handle("Stream.synchronize")
        mark = _lib.log_mark()
        rc = fn("shmemx_stream_synchronize", c_int, [c_void_p])(h)
        del self._keep[:]
        if rc != 0:
            _lib.fail("Stream.synchronize", "shmemx_stream_synchronize returned %d" % rc, mark)

    def destroy(self) -> None:
        """Run what is enqueued, then end the stream's thread."""
        if not self._alive:
            return
        self._alive = False
        if state.initialized:
            fn("shmemx_stream_destroy", c_int, [c_void_p])(self._h)
        del self._keep[:]

    @property
    def pending(self) -> bool:
        """True if work was enqueued since the last synchronize."""
        return bool(self._keep)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self._alive and state.initialized:
            self.synchronize()
        if not self._is_default:
            self.destroy()

    def __repr__(self):
        return "<symm.Stream %s%s>" % ("default" if self._is_default else hex(self._h or 0),
                                       "" if self._alive else " (destroyed)")


def _stream(stream):
    if stream is None:
        return Stream.default()
    if not isinstance(stream, Stream):
        raise TypeError("symm: stream must be a symm.Stream, not %s" % type(stream).__name__)
    return stream


def put_on_stream(target: ArrayLike, source: ArrayLike, pe: int,
                  stream: Optional[Stream] = None) -> None:
    """Enqueue a put on stream (default: the default stream)."""
    _stream(stream).put(target, source, pe)


def get_on_stream(target: ArrayLike, source: ArrayLike, pe: int,
                  stream: Optional[Stream] = None) -> None:
    """Enqueue a get on stream."""
    _stream(stream).get(target, source, pe)


def signal_op_on_stream(signal: ArrayLike, offset: Union[int, Tuple[int, ...]], value: int,
                        op: Union[int, str], pe: int, stream: Optional[Stream] = None) -> None:
    """Enqueue a signal update (int32 signal) on stream."""
    _stream(stream).signal_op(signal, offset, value, op, pe)


def wait_signal_on_stream(signal: ArrayLike, offset: Union[int, Tuple[int, ...]],
                          cmp: Union[int, str], value: int,
                          stream: Optional[Stream] = None) -> None:
    """Enqueue a wait for this PE's int32 signal on stream."""
    _stream(stream).wait_signal(signal, offset, cmp, value)


def barrier_on_stream(stream: Optional[Stream] = None, team: Optional[Team] = None) -> None:
    """Enqueue a TEAM_WORLD barrier on stream."""
    _stream(stream).barrier(team)


def quiet_on_stream(stream: Optional[Stream] = None) -> None:
    """Enqueue a quiet on stream."""
    _stream(stream).quiet()


def synchronize(stream: Optional[Stream] = None) -> None:
    """Wait for everything enqueued on stream."""
    _stream(stream).synchronize()


def _sync_live():
    # Allocation and free change the heap a stream's thread addresses.
    if not state.initialized:
        return
    for s in list(_live):
        if s._alive and s._keep:
            s.synchronize()


def _destroy_all():
    for s in list(_live):
        if s._alive:
            if s._is_default:
                fn("shmemx_stream_destroy", c_int, [c_void_p])(None)
                s._alive = False
                del s._keep[:]
            else:
                s.destroy()
    Stream._default = None


memory._before_heap_change.append(_sync_live)
state.before_finalize.insert(0, _destroy_all)
