"""The engine under symm.torch: one per symm team that torch uses (today
the world), shared by the torch.distributed backend and the DDP hooks.

Owns the order of the collectives it runs (a FIFO worker thread), the
symmetric staging buffer they go through (grown, never shrunk: no
allocation per step once warm), and the handshake that opens every
collective: each rank's descriptor (what it calls, how many elements of
which dtype, the root, its local error) gathered on every rank, so a rank
whose call is wrong or differs makes every rank raise the same error
instead of leaving the others waiting. The handshake runs in the caller's
thread (on a team of its own), so the error is raised by the call itself:
torch 1.13's Work made from a future does not re-raise a failed future's
error in wait(). A failure on the engine's thread after a handshake (symm
out of memory, say) completes the future with it (DDP sees it there) and
makes every rank's next handshake raise.

Must never: run two collectives of one team at once, or allocate symmetric
memory anywhere but in the worker's order (allocation is collective).
"""

import collections
import threading

import numpy as np
import torch

from .. import coll, memory, runtime
from ..team import TEAM_WORLD
from .._lib import SymmError

# Descriptor slots (int64 each).
_KIND, _SEQ, _NUMEL, _DTYPE, _OP, _ROOT, _ERR, _EXTRA = range(8)
_DESC = 8

KINDS = ["all_reduce", "broadcast", "all_gather", "reduce_scatter", "all_to_all", "barrier",
         "reduce", "gather", "scatter", "hook"]

DTYPES = [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int8, torch.uint8,
          torch.int16, torch.int32, torch.int64, torch.bool, torch.complex64, torch.complex128]
DTYPE_CODE = {d: i for i, d in enumerate(DTYPES)}
# torch dtypes symm reduces natively (numpy dtype of the same layout).
NATIVE = {torch.float32: np.float32, torch.float64: np.float64, torch.int8: np.int8,
          torch.uint8: np.uint8, torch.int16: np.int16, torch.int32: np.int32,
          torch.int64: np.int64, torch.complex64: np.complex64,
          torch.complex128: np.complex128}
_NUMPY = dict(NATIVE)
_NUMPY.update({torch.float16: np.float16, torch.bool: np.bool_})

# Local errors a rank reports in its descriptor (every rank raises them).
ERRORS = {1: "a tensor not on the CPU", 2: "a dtype symm.torch does not take",
          3: "a reduction op symm.torch does not take for this dtype",
          4: "a sparse or non-strided tensor", 5: "a root outside the group",
          6: "input sizes that differ from each other", 7: "(an earlier failure)"}


class Engine:
    """Ordered collectives over one symm team (rank = the team's PE)."""

    def __init__(self, team=None):
        runtime.ensure("symm.torch")
        self.team = team
        self.rank = runtime.my_pe() if team is None else team.my_pe()
        self.size = runtime.n_pes() if team is None else team.n_pes()
        self.seq = 0
        # Handshakes run in the caller's thread on a team of their own, while
        # the engine's thread may be in a collective of the world team.
        world = team if team is not None else TEAM_WORLD
        self.hteam = world.split_strided(0, 1, self.size)
        self._hs_lock = threading.Lock()
        self._desc_src = memory.zeros(_DESC, np.int64)
        self._desc_all = memory.zeros(_DESC * self.size, np.int64)
        self._mat_src = memory.zeros(2 * self.size, np.int64)
        self._mat_all = memory.zeros(2 * self.size * self.size, np.int64)
        self.failed = None  # the first failure on the engine's thread
        self._buf = None
        self._lock = threading.Lock()
        self._cv = threading.Condition(self._lock)
        self._queue = collections.deque()
        self._busy = False
        self._thread = None
        self._closed = False

    # ---- ordering -----------------------------------------------------------
    def submit(self, fn, sync):
        """Run fn() after every collective submitted before; a
        torch.futures.Future of its result. sync: with nothing queued or
        running, fn runs here, in the caller's thread."""
        fut = torch.futures.Future()
        with self._cv:
            if self._closed:
                raise SymmError("symm.torch: the group is destroyed")
            inline = sync and not self._busy and not self._queue
            if inline:
                self._busy = True
            else:
                self._queue.append((fn, fut))
                if self._thread is None:
                    self._thread = threading.Thread(target=self._run, name="symm.torch",
                                                    daemon=True)
                    self._thread.start()
                self._cv.notify_all()
        if inline:
            try:
                _complete(fut, fn)
            finally:
                with self._cv:
                    self._busy = False
                    self._cv.notify_all()
        return fut

    def _run(self):
        while True:
            with self._cv:
                while not self._queue or self._busy:
                    if self._closed and not self._queue:
                        return
                    self._cv.wait()
                fn, fut = self._queue.popleft()
                self._busy = True
            try:
                _complete(fut, fn, self)
            finally:
                with self._cv:
                    self._busy = False
                    self._cv.notify_all()

    def drain(self):
        """Wait until everything submitted has run."""
        with self._cv:
            while self._queue or self._busy:
                self._cv.wait()

    def close(self):
        self.drain()
        with self._cv:
            self._closed = True
            self._cv.notify_all()
        if self._thread is not None:
            self._thread.join()

    # ---- the handshake ------------------------------------------------------
    def handshake(self, kind, numel=0, dtype=None, op=0, root=0, err=0, extra=0):
        """Gather every rank's descriptor; raise on every rank when one
        reported an error or the calls differ. Returns the descriptors
        (size x 8 int64)."""
        if not err and self.failed is not None:
            err = 7
        with self._hs_lock:
            self.seq += 1
            d = self._desc_src
            d[:] = (KINDS.index(kind), self.seq, numel,
                    -1 if dtype is None else DTYPE_CODE.get(dtype, -1), op, root, err, extra)
            coll.allgather(self._desc_all, d, team=self.hteam)
            rows = self._desc_all.reshape(self.size, _DESC).copy()
        for r in range(self.size):
            if rows[r, _ERR] == 7:
                raise SymmError("symm.torch: %s: on rank %d an earlier asynchronous collective "
                                "failed%s" % (kind, r, (": %s" % self.failed)
                                              if r == self.rank else ""))
            if rows[r, _ERR]:
                raise SymmError("symm.torch: %s: rank %d passed %s%s" % (
                    kind, r, ERRORS.get(int(rows[r, _ERR]), "bad input"),
                    "" if r != self.rank else " (this rank)"))
        for r in range(self.size):
            if rows[r, _KIND] != rows[0, _KIND] or rows[r, _SEQ] != rows[0, _SEQ]:
                raise SymmError("symm.torch: rank %d called %s (collective %d) while rank 0 "
                                "called %s (collective %d): every rank must call the group's "
                                "collectives in the same order" % (
                                    r, KINDS[rows[r, _KIND]], rows[r, _SEQ],
                                    KINDS[rows[0, _KIND]], rows[0, _SEQ]))
        return rows

    def counts(self, mine):
        """Every rank's 2 x size int64 counts (a handshake's companion, in
        the caller's thread): a (size, 2 * size) array."""
        with self._hs_lock:
            self._mat_src[:] = mine
            coll.allgather(self._mat_all, self._mat_src, team=self.hteam)
            return self._mat_all.reshape(self.size, 2 * self.size).copy()

    def same(self, rows, kind, what, cols):
        """Raise on every rank unless every rank's descriptor agrees in cols."""
        for r in range(1, self.size):
            if any(rows[r, c] != rows[0, c] for c in cols):
                raise SymmError("symm.torch: %s: rank %d passed %s, rank 0 %s: %s must match "
                                "on every rank" % (kind, r, _describe(rows[r]),
                                                   _describe(rows[0]), what))

    # ---- staging ------------------------------------------------------------
    def staging(self, nbytes):
        """The symmetric staging buffer, at least nbytes (uint8). Collective:
        call it at the same point on every rank (after a handshake)."""
        if self._buf is None or self._buf.nbytes < nbytes:
            size = 1 << 16
            while size < nbytes:
                size <<= 1
            if self._buf is not None:
                memory.free(self._buf)
                self._buf = None
            self._buf = memory.empty(size, np.uint8)
        return self._buf

    def free(self):
        """Give the symmetric memory back (collective)."""
        if self._buf is not None:
            memory.free(self._buf)
            self._buf = None
        for a in (self._mat_all, self._mat_src, self._desc_all, self._desc_src):
            memory.free(a)
        self.hteam.destroy()


def _describe(row):
    dt = int(row[_DTYPE])
    name = str(DTYPES[dt]).replace("torch.", "") if 0 <= dt < len(DTYPES) else "?"
    return "%d elements of %s (op %d, root %d)" % (row[_NUMEL], name, row[_OP], row[_ROOT])


def _complete(fut, fn, eng=None):
    try:
        result = fn()
    except BaseException as e:  # the waiter re-raises it
        if eng is not None and eng.failed is None:
            eng.failed = e
        fut.set_exception(e)
    else:
        fut.set_result(result)


def view(buf, offset, numel, dtype):
    """A torch tensor of numel dtype elements at byte offset of the staging
    buffer (sharing its memory)."""
    nbytes = numel * torch.empty((), dtype=dtype).element_size()
    t = torch.from_numpy(buf[offset:offset + nbytes])
    return t.view(dtype) if nbytes else torch.empty(0, dtype=dtype)


def np_view(buf, offset, numel, dtype):
    """The numpy view (symmetric) of a staging region, for symm's calls."""
    nd = np.dtype(_NUMPY[dtype]) if dtype in _NUMPY else None
    if nd is None:
        raise SymmError("symm.torch: no numpy dtype for %s" % dtype)
    return buf[offset:offset + numel * nd.itemsize].view(nd)
