"""send/recv of the symm backend: one channel per ordered pair of ranks,
through symmetric memory set aside when the group is made (collectively).

Each rank's inbox has two slots of SLOT bytes per sender. A message is a
16-byte header (its bytes, its tag) and the tensor's bytes, cut into
chunks of one slot: the sender puts chunk k into slot k % 2 of the
receiver's inbox with a put-with-signal (the receiver's ready word for
this sender becomes k + 1: who sees it sees the data), after waiting until
the receiver has taken chunk k - 2 (its acked word for this receiver, in
the sender's memory). The receiver waits for ready, copies the chunk out
and sets acked. Sends to one rank run in order on their own thread, and so
do receives from one rank, apart from the group's collectives: isend and
irecv both ways at once cannot deadlock. Messages between two ranks match
in order; a receive whose size or tag differs from the message's raises
(after taking the message, so the channel stays in step).
"""

import collections
import threading
import time

import numpy as np
import torch

from .. import memory, rma
from .._lib import SymmError

SLOT = 256 << 10
_HDR = 16


class _Ordered:
    """A FIFO thread: run(fn) -> torch future of fn()."""

    def __init__(self, name):
        self._cv = threading.Condition()
        self._q = collections.deque()
        self._t = threading.Thread(target=self._loop, name=name, daemon=True)
        self._t.start()

    def run(self, fn):
        fut = torch.futures.Future()
        with self._cv:
            self._q.append((fn, fut))
            self._cv.notify()
        return fut

    def _loop(self):
        while True:
            with self._cv:
                while not self._q:
                    self._cv.wait()
                fn, fut = self._q.popleft()
            try:
                r = fn()
            except BaseException as e:
                fut.set_exception(e)
            else:
                fut.set_result(r)


class Channels:
    """Every channel of this rank (made collectively, by every rank)."""

    def __init__(self, rank, size):
        self.rank, self.size = rank, size
        self.inbox = memory.empty(size * 2 * SLOT, np.uint8)
        self.ready = memory.zeros(size, np.uint64)   # written by the senders
        self.acked = memory.zeros(size, np.uint64)   # written by the receivers
        self.sent = [0] * size                       # chunks sent to each rank
        self.got = [0] * size                        # chunks taken from each rank
        self._senders, self._receivers = {}, {}
        self._lock = threading.Lock()

    def _thread(self, table, peer, what):
        with self._lock:
            if peer not in table:
                table[peer] = _Ordered("symm.torch %s %d" % (what, peer))
            return table[peer]

    def _peer(self, peer, what):
        if not 0 <= peer < self.size:
            raise SymmError("symm.torch: %s: rank %d outside [0,%d)" % (what, peer, self.size))
        if peer == self.rank:
            raise SymmError("symm.torch: %s: rank %d to itself" % (what, peer))

    @staticmethod
    def _bytes(t, what):
        if not isinstance(t, torch.Tensor) or t.device.type != "cpu" or \
                t.layout != torch.strided:
            raise SymmError("symm.torch: %s takes a CPU tensor" % what)
        c = t.contiguous()
        return c, c.view(-1).view(torch.uint8).numpy() if c.numel() else np.empty(0, np.uint8)

    def send(self, t, dst, tag):
        self._peer(dst, "send")
        c, raw = self._bytes(t, "send")
        hdr = np.array([raw.nbytes, tag], dtype=np.int64).view(np.uint8)
        return self._thread(self._senders, dst, "send").run(
            lambda: self._send(np.concatenate([hdr, raw]), dst) or [t])

    def _send(self, msg, dst):
        for lo in range(0, msg.nbytes, SLOT):
            k = self.sent[dst]
            if k >= 2:  # slot k % 2 is free once the receiver took chunk k - 2
                rma.wait_until(self.acked, ">=", k - 1, index=dst)
            part = msg[lo:lo + SLOT]
            base = (self.rank * 2 + k % 2) * SLOT
            rma.put_signal(self.inbox[base:base + part.nbytes], part, self.ready, self.rank,
                           k + 1, rma.SIGNAL_SET, dst)
            self.sent[dst] = k + 1

    def recv(self, t, src, tag):
        self._peer(src, "recv")
        if not isinstance(t, torch.Tensor) or t.device.type != "cpu":
            raise SymmError("symm.torch: recv takes a CPU tensor")
        return self._thread(self._receivers, src, "recv").run(
            lambda: self._recv(t, src, tag) or [t])

    def recv_any(self, t, pes, tag, source):
        """A receive from whichever of pes (world ranks) sends first; the
        index in pes of the sender goes to source[0]. Runs on its own
        thread, then on the sender's receive thread (its messages stay in
        order)."""
        if not isinstance(t, torch.Tensor) or t.device.type != "cpu":
            raise SymmError("symm.torch: recv takes a CPU tensor")
        others = [p for p in pes if p != self.rank]
        out = torch.futures.Future()

        def pick():
            polls = 0
            while True:
                for p in others:
                    if int(self.ready[p]) > self.got[p]:
                        return p
                polls += 1
                if polls > 64:
                    time.sleep(min(1e-3, 1e-6 * polls))

        def go():
            try:
                src = pick()
                source[0] = pes.index(src)
                self._thread(self._receivers, src, "recv").run(
                    lambda: self._recv(t, src, tag) or [t]).wait()
            except BaseException as e:
                out.set_exception(e)
            else:
                out.set_result([t])
        threading.Thread(target=go, name="symm.torch recv any", daemon=True).start()
        return out

    def _chunk(self, src):
        k = self.got[src]
        rma.wait_signal(self.ready, src, ">=", k + 1)
        base = (src * 2 + k % 2) * SLOT
        return k, self.inbox[base:base + SLOT]

    def _taken(self, src, k):
        self.got[src] = k + 1
        rma.atomic_set(self.acked, k + 1, src, index=self.rank)

    def _recv(self, t, src, tag):
        k, slot = self._chunk(src)
        nbytes, mtag = (int(x) for x in slot[:_HDR].view(np.int64))
        want = t.numel() * t.element_size()
        out = bytearray(nbytes)
        pos, lo = 0, _HDR
        while True:
            n = min(SLOT - lo, nbytes - pos)
            out[pos:pos + n] = slot[lo:lo + n].tobytes()
            pos += n
            self._taken(src, k)
            if pos >= nbytes:
                break
            k, slot = self._chunk(src)
            lo = 0
        if nbytes != want or mtag != tag:
            raise SymmError("symm.torch: recv from rank %d: the message has %d bytes and tag %d, "
                            "this receive %d bytes and tag %d" % (src, nbytes, mtag, want, tag))
        if want:
            flat = torch.frombuffer(out, dtype=t.dtype)
            t.copy_(flat.view(t.shape))


_channels = {"c": None}


def make(rank, size):
    """Collective: every rank's channels."""
    if _channels["c"] is None:
        _channels["c"] = Channels(rank, size)
    return _channels["c"]


def channels():
    if _channels["c"] is None:
        raise SymmError("symm.torch: send/recv need the symm process group "
                        "(init_process_group('symm'))")
    return _channels["c"]
