"""Registering existing memory: a numpy array or torch tensor the program
already has becomes the target of every PE's one-sided operations, without
a copy into the symmetric heap (C: shmemx_register, include/shmemx.h).

Every PE registers its own array of the same size, in the same order, and
gets a Region; from then on symm.put/get/p/g (and, with atomic access,
atomics, signal_op and put_signal's signal) accept the array, or any view
of it, as the remote side: the same offset in PE p's array is PE p's copy.

    a = np.zeros(1024, np.float32)            # the program's own array
    r = symm.register(a)                      # collective
    symm.put(a[:16], np.ones(16, np.float32), (me + 1) % n)
    symm.barrier()
    symm.deregister(r)                        # collective; a is plain again

access: any of "r" (peers get), "w" (peers put), "a" (atomics and
signals), or the ACCESS_* bits; default "rw". Atomic access moves the
array's pages into shared memory so node-local peers apply CPU atomics to
them: the array must be whole pages of private anonymous memory, e.g.
np.frombuffer(mmap.mmap(-1, n, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)).
Without it, node-local peers reach the array with one process_vm_writev /
process_vm_readv per operation, and any contiguous array can be registered.

Collectives, streams, peer_array and free need symmetric-heap arrays and
refuse registered ones. A Region keeps its array alive until deregistered
(or until finalize, which releases every region; the arrays keep their
values).
"""

from __future__ import annotations

import ctypes
from typing import TYPE_CHECKING, Optional, Union

from . import _arrays, _lib, runtime
from ._lib import c_int, c_size_t, c_void_p, fn

if TYPE_CHECKING:
    import numpy as np
    import torch

ACCESS_READ, ACCESS_WRITE, ACCESS_ATOMIC = 1, 2, 4
ACCESS_RW = ACCESS_READ | ACCESS_WRITE
_LETTERS = {"r": ACCESS_READ, "w": ACCESS_WRITE, "a": ACCESS_ATOMIC}
_NEED = {"r": (ACCESS_READ, "read", "get from"), "w": (ACCESS_WRITE, "write", "put into"),
         "a": (ACCESS_ATOMIC, "atomic", "apply an atomic or signal to")}


class _CRegion(ctypes.Structure):  # shmemx_region_t
    _fields_ = [("id", ctypes.c_int), ("addr", ctypes.c_void_p), ("size", ctypes.c_size_t),
                ("access", ctypes.c_uint)]


def access_str(access: int) -> str:
    """'rwa'-style text of ACCESS_* bits."""
    return "".join(c for c, b in sorted(_LETTERS.items(), key=lambda kv: kv[1])
                   if access & b) or "-"


def _access_arg(access, routine):
    if isinstance(access, str):
        bits = 0
        for c in access.lower():
            if c not in _LETTERS:
                raise ValueError("symm.%s: access %r: each letter must be r, w or a"
                                 % (routine, access))
            bits |= _LETTERS[c]
    else:
        bits = _arrays.int_arg(access, routine, "access")
    if bits == 0 or bits & ~(ACCESS_RW | ACCESS_ATOMIC):
        raise ValueError("symm.%s: access %r is not a combination of 'r', 'w' and 'a'"
                         % (routine, access))
    return bits


class Region(_arrays.Allocation):
    """A registered array: .id (the same on every PE), .addr and .size (this
    PE's bytes), .access (ACCESS_* bits), .array (what was registered)."""
    __slots__ = ("id", "access", "array", "_c")

    def __init__(self, c, array):
        super().__init__(c.addr, c.size, None)
        self.id = c.id
        self.access = c.access
        self.array = array
        self._c = c

    @property
    def addr(self) -> int:
        """The address of this PE's registered bytes."""
        return self.ptr

    @property
    def size(self) -> int:
        """The number of this PE's registered bytes."""
        return self.nbytes

    def check(self, routine: str, name: str, need: Optional[str]) -> None:
        """Raise unless operations of kind `need` may reach this region."""
        if need == "local":
            return
        if need is None:
            raise ValueError("symm.%s: %s is a registered array (region %d); only put, get, p, "
                             "g, atomics and signals reach registered memory: use a symmetric "
                             "array (symm.empty & co.) here" % (routine, name, self.id))
        bit, word, verb = _NEED[need]
        if not self.access & bit:
            raise ValueError("symm.%s: cannot %s %s: registered array (region %d, access '%s') "
                             "was registered without %s access ('%s')"
                             % (routine, verb, name, self.id, access_str(self.access), word,
                                need))

    def __repr__(self):
        return "<symm.Region %d: 0x%x+%d access '%s'%s>" % (
            self.id, self.ptr, self.nbytes, access_str(self.access), "" if self.live else
            " (deregistered)")


def register(a: Union[np.ndarray, torch.Tensor], access: Union[str, int] = "rw") -> Region:
    """Register array (or tensor) a, collectively: every PE passes an array
    of the same size, with the same access, in the same order. Returns a
    Region. a must be C-contiguous and non-empty; with 'w' access, writable.
    A failure on any PE (differing sizes, memory already symmetric or
    registered, atomic access on memory that cannot move, ...) raises
    SymmError on every PE."""
    runtime.ensure("register", a=a)
    arr = _arrays.as_array(a, "register", "a")
    bits = _access_arg(access, "register")
    _arrays.contiguous(arr, "register", "a")
    if arr.nbytes == 0:
        raise ValueError("symm.register: a is empty; register at least one byte")
    if bits & (ACCESS_WRITE | ACCESS_ATOMIC):
        _arrays.writable(arr, "register", "a")
    c = _CRegion()
    mark = _lib.log_mark()
    rc = fn("shmemx_register", c_int, [c_void_p, c_size_t, ctypes.c_uint,
                                       ctypes.POINTER(_CRegion)])(
        _arrays.data_ptr(arr), arr.nbytes, bits, ctypes.byref(c))
    if rc != 0:
        _lib.fail("register", "cannot register %d bytes at 0x%x (access '%s')"
                  % (arr.nbytes, _arrays.data_ptr(arr), access_str(bits)), mark)
    rec = Region(c, a)
    _arrays.register(rec)
    return rec


def deregister(region: Region) -> None:
    """Release a Region, collectively (every PE, the same region, in the
    same order). Its array keeps its values and is the program's alone."""
    if not isinstance(region, Region):
        raise TypeError("symm.deregister: need a symm.Region, not %s" % type(region).__name__)
    runtime.ensure("deregister")
    if not region.live:
        raise ValueError("symm.deregister: region %d is not registered (deregistered already, "
                         "or released by finalize)" % region.id)
    mark = _lib.log_mark()
    if fn("shmemx_deregister", c_int, [ctypes.POINTER(_CRegion)])(ctypes.byref(region._c)) != 0:
        _lib.fail("deregister", "cannot deregister region %d" % region.id, mark)
    _arrays.unregister(region)
    region.array = None
