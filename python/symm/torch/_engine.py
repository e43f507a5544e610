"""The engine under symm.torch: one per process group (a symm team: the
world, or a team its members made alone), shared by the torch.distributed
backend and the DDP hooks.

Owns the order of the group's collectives (a FIFO worker thread), the
symmetric staging memory they go through, and the handshake that opens
every collective. The handshake runs in the caller's thread when nothing
is in flight, so bad input raises from the call itself on every rank
(torch 1.13's Work made from a future does not re-raise a failed future's
error in wait()); behind work in flight it is queued with its data phase,
so every rank runs the handshakes in the order of the calls:

- every rank puts its descriptor (what it calls, how many elements of
  which dtype, the op, the root, its local error; all_to_all's counts too)
  into the leader's (group rank 0's) table, then adds 1 to the leader's
  state word S ((seq - 1) << 20 | GO | ABORT | arrivals);
- the leader, once all arrived, turns S to GO with a compare-and-swap,
  checks the descriptors and answers every rank in its verdict word V
  (seq << 8 | GO or ERR; an error's text goes first, so every rank raises
  the same message);
- a rank that waits past the group's timeout sets ABORT in S with a
  compare-and-swap instead (so either every rank goes on, or the group is
  aborted: never some of each), and writes every rank's abort word A and
  text: each raises naming the operation, the group and the ranks that did
  not arrive. A rank that leaves (destroys the group, or its process
  exits) aborts the group the same way, so a peer waiting in a collective
  it will never join raises at once instead of at its timeout. An aborted
  group refuses every later collective.

Every wait here polls the rank's own memory, running the network's
progress at each poll (a peer's atomic on this rank's control area over
tcp needs this rank to answer it: the progress thread backs off while the
process calls symm often), and backs off (sleeps) after a short spin, so
oversubscribed ranks go on. After the handshake the data
phase cannot wait for a rank that did not arrive.

Must never: run two collectives of one group at once, run a handshake
in the caller's thread while another is queued (it would overtake it on
one rank and not on another), or allocate
symmetric memory but in the worker's order on the world group (allocation
is collective over the world; a subgroup's staging is its window of the
world's pool, made when the world group was).
"""

import collections
import ctypes
import threading
import time

import numpy as np
import torch

from .. import memory, runtime
from .._lib import SymmError, c_int, c_void_p, fn

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

# The control area (int64 words, the same offsets on every member).
_S, _V, _RESULT, _A = 0, 1, 2, 3
_TEXT, _ATEXT, _TEXT_WORDS = 8, 72, 64        # verdict text, abort text: 512 bytes each
_TABLE = 136                                   # the leader's descriptors, then counts
_GO, _ABORT, _COUNT = 1 << 18, 1 << 19, (1 << 18) - 1
_V_GO, _V_ERR = 1, 2
_CMP_NE = 1  # SHMEM_CMP_NE


def control_words(size):
    """Words of the control area of a group of size ranks."""
    return _TABLE + size * _DESC + 2 * size * size


class GroupAborted(SymmError):
    """The group was aborted (a timeout, or a rank left): it refuses every
    collective from now on."""


def _c():
    """The C routines of the handshake (ctypes, bound once)."""
    i64 = ctypes.c_int64
    return {
        "fadd": fn("shmem_int64_atomic_fetch_add", i64, [c_void_p, i64, c_int]),
        "fetch": fn("shmem_int64_atomic_fetch", i64, [c_void_p, c_int]),
        "set": fn("shmem_int64_atomic_set", None, [c_void_p, i64, c_int]),
        "cswap": fn("shmem_int64_atomic_compare_swap", i64, [c_void_p, i64, i64, c_int]),
        "put": fn("shmem_putmem", None, [c_void_p, c_void_p, ctypes.c_size_t, c_int]),
        "get": fn("shmem_getmem", None, [c_void_p, c_void_p, ctypes.c_size_t, c_int]),
        "fence": fn("shmem_fence", None, []),
        "quiet": fn("shmem_quiet", None, []),
        # A test of the abort word, which also runs the network's progress
        # once: a peer's atomic on this PE's control area over a network
        # without hardware atomics needs this PE to answer it.
        "test": fn("shmem_int64_test", c_int, [c_void_p, c_int, i64]),
    }


def _backoff(polls, waited):
    """Spin briefly, then yield the CPU (oversubscribed ranks go on) for
    the first 2 ms of a wait, then sleep, up to 1 ms (the GIL is free while
    sleeping). A sleep lasts 50 us or more (timer slack): sleeping early
    made a 4 KiB all_reduce several times slower."""
    if polls < 64:
        return
    time.sleep(0 if waited < 2e-3 else min(1e-3, waited / 16))


class Engine:
    """Ordered, checked collectives over one symm team.

    team: the symm Team (None: the world); pes: the world PE of each group
    rank; name: the group as messages call it; timeout: seconds a rank
    waits for the others in a handshake; ctrl: the control area (int64,
    symmetric, zero, control_words(size) long) or None to allocate it
    (world only); window: the staging memory (uint8, symmetric) or None to
    grow it on demand (world only)."""

    def __init__(self, team=None, pes=None, name="the default group", timeout=1800.0,
                 ctrl=None, window=None):
        runtime.ensure("symm.torch")
        self.team = team
        self.rank = runtime.my_pe() if team is None else team.my_pe()
        self.size = runtime.n_pes() if team is None else team.n_pes()
        self.pes = list(pes) if pes is not None else list(range(self.size))
        self.name = name
        self.timeout = float(timeout)
        self._limit = self.timeout
        self.seq = 0
        self._own_ctrl = ctrl is None
        self.ctrl = memory.zeros(control_words(self.size), np.int64) if ctrl is None else ctrl
        self._addr = self.ctrl.ctypes.data
        self._window = window
        self._c = _c()
        self._desc = np.zeros(_DESC, np.int64)
        self._hs_lock = threading.Lock()
        self.failed = None  # the first failure on the engine's thread
        self.aborted = None  # the text of the group's abort
        self._buf = None
        self.plans = {}  # _ops' per-shape staging views, for this staging buffer
        self.private = None  # whether reductions run on the tensors' own memory (_ops)
        self._lock = threading.Lock()
        self._cv = threading.Condition(self._lock)
        self._queue = collections.deque()
        self._busy = False
        self._thread = None
        self._closed = False

    def describe(self):
        """The group as messages name it: its name and global ranks."""
        return "%s (ranks %s)" % (self.name, _ranges(self.pes))
    # ---- ordering -----------------------------------------------------------
    def idle(self):
        """Nothing queued or running (a caller may then run a handshake in
        its own thread without overtaking one)."""
        with self._cv:
            return not self._busy and not self._queue

    def submit(self, fn, sync, poison=True):
        """Run fn() after every collective submitted before; a
        torch.futures.Future of its result. sync: with nothing queued or
        running, fn runs here, in the caller's thread. poison: a failure of
        fn on the engine's thread fails the group's later collectives (for
        a result nobody may look at; False when the caller's Work raises
        it)."""
        fut = torch.futures.Future()
        with self._cv:
            if self._closed:
                raise SymmError("symm.torch: the group is destroyed")
            inline = sync and not self._busy and not self._queue
            if inline:
                self._busy = True
            else:
                self._queue.append((fn, fut, poison))
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
                fn, fut, poison = self._queue.popleft()
                self._busy = True
            try:
                _complete(fut, fn, self if poison else None)
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
    def handshake(self, kind, numel=0, dtype=None, op=0, root=0, err=0, extra=0, same=None,
                  counts=None, timeout=None):
        """Every rank's descriptor checked by the leader: raises on every
        rank when one reported an error, the calls differ, the columns
        `same` = (what, cols) differ, or (all_to_all) what rank i sends j is
        not what j expects from i; raises GroupAborted when the group timed
        out or a rank left (after timeout seconds, default the group's).
        Returns the leader's result (all_to_all: the largest block), 0
        otherwise."""
        if not err and self.failed is not None:
            err = 7
        with self._hs_lock:
            if self.aborted is not None:
                raise GroupAborted(self._abort_text(kind, self.seq + 1))
            self.seq += 1
            seq = self.seq
            self._limit = timeout or self.timeout
            d = self._desc
            d[:] = (KINDS.index(kind), seq, numel,
                    -1 if dtype is None else DTYPE_CODE.get(dtype, -1), op, root, err, extra)
            if self.size == 1:
                mat = None if counts is None else np.asarray(counts, np.int64).reshape(1, 2)
                code, text, result = _verdict(d.reshape(1, _DESC), same, mat, self)
                if code != _V_GO:
                    raise SymmError(text)
                return result
            if self.rank == 0:
                return self._lead(kind, seq, same, counts)
            return self._follow(kind, seq, counts)

    def _word(self, i):
        return self._addr + 8 * i

    def _follow(self, kind, seq, counts):
        c, leader = self._c, self.pes[0]
        c["put"](self._word(_TABLE + self.rank * _DESC), self._desc.ctypes.data, 8 * _DESC,
                 leader)
        if counts is not None:
            cnt = np.ascontiguousarray(counts, dtype=np.int64)
            c["put"](self._word(self._counts_off(self.rank)), cnt.ctypes.data, cnt.nbytes,
                     leader)
        c["fence"]()
        old = c["fadd"](self._word(_S), 1, leader)
        if old & _ABORT:
            self._await_abort(kind, seq)
        v = self._wait(kind, seq, lambda: self.ctrl[_V] >> 8 >= seq)
        if v & 0xff == _V_GO:
            return int(self.ctrl[_RESULT])
        raise SymmError(_text(self.ctrl, _TEXT))

    def _lead(self, kind, seq, same, counts):
        c, ctrl, n = self._c, self.ctrl, self.size
        ctrl[_TABLE:_TABLE + _DESC] = self._desc
        if counts is not None:
            o = self._counts_off(0)
            ctrl[o:o + 2 * n] = counts
        base = (seq - 1) << 20
        want = base | (n - 1)
        self._wait(kind, seq, lambda: (int(ctrl[_S]) & _COUNT) >= n - 1 or
                   (int(ctrl[_S]) & _ABORT) != 0)
        if c["cswap"](self._word(_S), want, base | _GO, self.pes[0]) != want:
            self._await_abort(kind, seq)
        rows = ctrl[_TABLE:_TABLE + n * _DESC].reshape(n, _DESC).copy()
        mat = None
        if counts is not None:
            o = self._counts_off(0)
            mat = ctrl[o:o + 2 * n * n].reshape(n, 2 * n).copy()
        code, text, result = _verdict(rows, same, mat, self)
        # The next collective's arrivals count from zero; a rank that left
        # meanwhile set ABORT, which must stay.
        c["cswap"](self._word(_S), base | _GO, seq << 20, self.pes[0])
        tb = None
        if code != _V_GO:
            tb = np.frombuffer(text.encode()[:8 * _TEXT_WORDS - 1].ljust(8 * _TEXT_WORDS,
                                                                         b"\0"), np.uint8)
        res = np.array([result], np.int64)
        for r in range(1, n):
            pe = self.pes[r]
            if tb is not None:
                c["put"](self._word(_TEXT), tb.ctypes.data, tb.nbytes, pe)
            elif counts is not None:
                c["put"](self._word(_RESULT), res.ctypes.data, 8, pe)
            if tb is not None or counts is not None:
                c["fence"]()
            c["set"](self._word(_V), (seq << 8) | code, pe)
        c["quiet"]()  # a verdict for a peer off the node must not wait in a queue
        if code != _V_GO:
            raise SymmError(text)
        return result

    def _counts_off(self, r):
        return _TABLE + self.size * _DESC + r * 2 * self.size

    def _wait(self, kind, seq, done):
        """Poll done() (this rank's memory) until true, the group aborts,
        or the timeout passes (then abort the group). V's value."""
        polls, start = 0, time.monotonic()
        deadline = start + self._limit
        test, aborted = self._c["test"], self._word(_A)
        while not done():
            if test(aborted, _CMP_NE, 0):
                self._await_abort(kind, seq)
            polls += 1
            if polls < 64:
                continue
            now = time.monotonic()
            if now > deadline:
                self._time_out(kind, seq)
                deadline = now + self._limit
            _backoff(polls, now - start)
        return int(self.ctrl[_V])

    def _missing(self, seq):
        """The group ranks whose descriptor for call seq is not in the
        leader's table."""
        n = self.size
        table = np.zeros(n * _DESC, np.int64)
        self._c["get"](table.ctypes.data, self._word(_TABLE), table.nbytes, self.pes[0])
        rows = table.reshape(n, _DESC)
        return [r for r in range(n) if rows[r, _SEQ] < seq and r != self.rank]

    def _time_out(self, kind, seq):
        """Past the timeout in call seq: abort the group unless every rank
        has arrived meanwhile (then the verdict is on its way)."""
        missing = [self.pes[r] for r in self._missing(seq)]
        why = ("Timed out after %.1f s on rank %d: rank%s %s did not call collective #%d of "
               "the group" % (self._limit, self.pes[self.rank], "s" if len(missing) != 1 else "",
                              _ranges(missing) if missing else "(none: an answer was lost)",
                              seq))
        if self.abort(why, seq):
            self._await_abort(kind, seq)

    def abort(self, why, seq=None):
        """Abort the group (every rank's later or waiting collective raises
        GroupAborted with why); no effect if it is aborted already. Any
        member may call it at any time; with seq (a timeout in that call),
        not once every rank has arrived in it: False then."""
        c, leader = self._c, self.pes[0]
        if self.size > 1:
            while True:
                cur = c["fetch"](self._word(_S), leader)
                if cur & _ABORT:
                    return True
                if seq is not None and (cur & _GO or cur >> 20 >= seq):
                    return False
                if c["cswap"](self._word(_S), cur, cur | _ABORT, leader) == cur:
                    break
        tb = np.frombuffer(why.encode()[:8 * _TEXT_WORDS - 1].ljust(8 * _TEXT_WORDS, b"\0"),
                           np.uint8)
        for r in range(self.size):
            c["put"](self._word(_ATEXT), tb.ctypes.data, tb.nbytes, self.pes[r])
        c["fence"]()
        for r in range(self.size):
            c["set"](self._word(_A), 1, self.pes[r])
        c["quiet"]()
        return True

    def _await_abort(self, kind, seq):
        """The group is aborted: wait (briefly) for its text, then raise."""
        t0 = time.monotonic()
        polls = 0
        while (not self._c["test"](self._word(_A), _CMP_NE, 0) and
               time.monotonic() - t0 < 10):
            polls += 1
            _backoff(polls + 64, time.monotonic() - t0)
        self.aborted = _text(self.ctrl, _ATEXT) if self.ctrl[_A] else "aborted"
        raise GroupAborted(self._abort_text(kind, seq))

    def _abort_text(self, kind, seq):
        return ("symm.torch: %s (collective #%d) on %s: the group is aborted: %s"
                % (kind, seq, self.describe(), self.aborted))

    def leave(self, why):
        """This rank leaves the group: peers waiting in (or later calling) a
        collective of it raise at once, naming this rank."""
        if self.aborted is None and self.size > 1:
            try:
                self.abort("rank %d left the group (%s)" % (self.pes[self.rank], why))
            except Exception:  # symm already gone: nothing to tell
                pass

    # ---- staging ------------------------------------------------------------
    def staging_limit(self):
        """The most staging bytes one step may use (None: no limit)."""
        return None if self._window is None else self._window.nbytes

    def staging(self, nbytes):
        """The symmetric staging buffer, at least nbytes (uint8). Collective:
        call it at the same point on every rank (after a handshake)."""
        if self._window is not None:
            if nbytes > self._window.nbytes:
                raise SymmError("symm.torch: a collective on %s needs %d bytes of staging, more "
                                "than the group's window of %d (SYMM_TORCH_GROUP_WINDOW)"
                                % (self.describe(), nbytes, self._window.nbytes))
            return self._window
        if self._buf is None or self._buf.nbytes < nbytes:
            size = 1 << 16
            while size < nbytes:
                size <<= 1
            if self._buf is not None:
                self.plans.clear()  # their views are of this buffer
                memory.free(self._buf)
                self._buf = None
            self._buf = memory.empty(size, np.uint8)
        return self._buf

    def free(self):
        """Give the world group's symmetric memory back (collective over
        the world)."""
        if self._buf is not None:
            self.plans.clear()
            memory.free(self._buf)
            self._buf = None
        if self._own_ctrl:
            memory.free(self.ctrl)


def _text(ctrl, off):
    raw = ctrl[off:off + _TEXT_WORDS].view(np.uint8).tobytes()
    return raw.split(b"\0", 1)[0].decode(errors="replace")


def _ranges(ranks):
    """[0, 1, 2, 5] -> '0-2, 5'."""
    out, ranks = [], sorted(ranks)
    i = 0
    while i < len(ranks):
        j = i
        while j + 1 < len(ranks) and ranks[j + 1] == ranks[j] + 1:
            j += 1
        out.append(str(ranks[i]) if i == j else "%d-%d" % (ranks[i], ranks[j]))
        i = j + 1
    return ", ".join(out)


def _verdict(rows, same, mat, eng):
    """The leader's check of every descriptor: (code, text, result)."""
    size = rows.shape[0]
    kind = KINDS[int(rows[0, _KIND])] if 0 <= rows[0, _KIND] < len(KINDS) else "?"
    where = "on %s" % eng.describe()
    for r in range(size):
        if rows[r, _ERR] == 7:
            return _V_ERR, ("symm.torch: %s %s: on rank %d an earlier asynchronous collective "
                            "failed%s" % (kind, where, eng.pes[r], (": %s" % eng.failed)
                                          if r == eng.rank and eng.failed else "")), 0
        if rows[r, _ERR]:
            return _V_ERR, "symm.torch: %s %s: rank %d passed %s" % (
                kind, where, eng.pes[r], ERRORS.get(int(rows[r, _ERR]), "bad input")), 0
    for r in range(size):
        if rows[r, _KIND] != rows[0, _KIND]:
            return _V_ERR, ("symm.torch: %s: rank %d called %s (collective #%d) while rank %d "
                            "called %s: every rank must call the group's collectives in the "
                            "same order" % (where, eng.pes[r], KINDS[int(rows[r, _KIND])],
                                            rows[r, _SEQ], eng.pes[0], kind)), 0
    if same is not None:
        what, cols = same
        for r in range(1, size):
            if any(rows[r, c] != rows[0, c] for c in cols):
                return _V_ERR, ("symm.torch: %s %s: rank %d passed %s, rank %d %s: %s must "
                                "match on every rank" % (kind, where, eng.pes[r],
                                                         _describe(rows[r]), eng.pes[0],
                                                         _describe(rows[0]), what)), 0
    if mat is not None:
        for i in range(size):
            for j in range(size):
                if mat[i, j] != mat[j, size + i]:
                    return _V_ERR, ("symm.torch: all_to_all %s: rank %d sends %d elements to "
                                    "rank %d, which expects %d from it"
                                    % (where, eng.pes[i], mat[i, j], eng.pes[j],
                                       mat[j, size + i])), 0
        return _V_GO, "", int(mat[:, :size].max())
    return _V_GO, "", 0


def _describe(row):
    dt = int(row[_DTYPE])
    name = str(DTYPES[dt]).replace("torch.", "") if 0 <= dt < len(DTYPES) else "?"
    sparse = "a sparse tensor of " if row[_EXTRA] == 1 and row[_KIND] == 0 else ""
    return "%s%d elements of %s (op %d, root %d)" % (sparse, row[_NUMEL], name, row[_OP],
                                                     row[_ROOT])


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
