"""symm.register / symm.deregister: the program's own arrays as targets of
put/get/p/g, atomics and signals (python/symm/register.py). Every PE runs
every test; expected values come from the PE numbers alone."""

import mmap

import numpy as np
import pytest

import symm


def _aligned(nbytes):
    """Whole pages of private anonymous memory (atomic access needs them)."""
    m = mmap.mmap(-1, nbytes, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS,
                  prot=mmap.PROT_READ | mmap.PROT_WRITE)
    return m, np.frombuffer(m, dtype=np.uint64)


def test_put_get_numpy(me, npes):
    right, left = (me + 1) % npes, (me + npes - 1) % npes
    a = np.full(64, -1, np.int64)
    r = symm.register(a)
    assert r.live and r.id == 0 and r.addr == a.ctypes.data and r.size == a.nbytes
    assert r.access == symm.ACCESS_RW and r.array is a
    symm.put(a[me * 8:me * 8 + 8], np.arange(8) + 100 * me, right)
    symm.p(a, 1000 + me, right, index=60)
    symm.barrier()
    assert list(a[left * 8:left * 8 + 8]) == list(np.arange(8) + 100 * left)
    assert a[60] == 1000 + left
    got = np.empty(8, np.int64)
    symm.get(got, a[me * 8:me * 8 + 8], right)  # what I put there
    assert list(got) == list(np.arange(8) + 100 * me)
    assert symm.g(a, right, index=60) == 1000 + me
    # The sized form and a strided view.
    symm.put(a, 40, np.arange(4) + 7 * me, 0, 4, right)
    symm.put(a[48:56:2], np.full(4, 3 * me, np.int64), right)
    symm.barrier()
    assert list(a[40:44]) == list(np.arange(4) + 7 * left)
    assert list(a[48:56:2]) == [3 * left] * 4
    symm.barrier()
    symm.deregister(r)
    assert not r.live and r.array is None
    assert a[60] == 1000 + left  # the array keeps its values
    with pytest.raises(ValueError, match="not in symmetric memory"):
        symm.put(a[:1], np.zeros(1, np.int64), right)


def test_torch_tensor(me, npes):
    torch = pytest.importorskip("torch")
    right, left = (me + 1) % npes, (me + npes - 1) % npes
    t = torch.zeros(32, dtype=torch.float32)
    r = symm.register(t)
    assert r.array is t and r.size == 128
    symm.put(t[:16], torch.full((16,), float(me)), right)
    symm.barrier()
    assert torch.equal(t[:16], torch.full((16,), float(left)))
    out = torch.empty(16)
    symm.get(out, t[:16], right)
    assert torch.equal(out, torch.full((16,), float(me)))
    symm.barrier()
    symm.deregister(r)


def test_atomics_on_moved_pages(me, npes):
    right, left = (me + 1) % npes, (me + npes - 1) % npes
    m, a = _aligned(mmap.PAGESIZE)
    a[:] = 0
    a[100:] = me * 1000 + np.arange(len(a) - 100, dtype=np.uint64)
    r = symm.register(a, access="rwa")
    assert r.access == symm.ACCESS_RW | symm.ACCESS_ATOMIC
    assert list(a[100:104]) == [me * 1000 + i for i in range(4)]  # kept when moved
    symm.barrier()
    for _ in range(5):
        for t in range(npes):
            symm.atomic_add(a, me + 1, t, index=0)
            symm.atomic_fetch_inc(a, t, index=1)
            old = symm.atomic_fetch(a, t, index=2)
            while True:
                seen = symm.atomic_compare_swap(a, old, old + 1, t, index=2)
                if seen == old:
                    break
                old = seen
            symm.signal_op(a, 3, 2, symm.SIGNAL_ADD, t)
    symm.atomic_set(a, 500 + me, right, index=4)
    symm.barrier()
    assert a[0] == 5 * npes * (npes + 1) // 2
    assert a[1] == 5 * npes and a[2] == 5 * npes
    assert symm.signal_fetch(a, 3) == 10 * npes
    assert a[4] == 500 + left
    assert symm.atomic_fetch(a, right, index=0) == 5 * npes * (npes + 1) // 2
    got = np.empty(4, np.uint64)
    symm.get(got, a[100:104], right)
    assert list(got) == [right * 1000 + i for i in range(4)]
    symm.barrier()
    symm.deregister(r)
    assert a[0] == 5 * npes * (npes + 1) // 2  # back in private memory, same bytes
    a[5] = 9
    del a
    m.close()


def test_misuse_raises(me, npes):
    right = (me + 1) % npes
    rw = np.zeros(16, np.int64)
    ro = np.arange(16, dtype=np.int64)
    wo = np.zeros(16, np.int64)
    r1 = symm.register(rw)
    r2 = symm.register(ro, access="r")
    r3 = symm.register(wo, access=symm.ACCESS_WRITE)
    assert (r1.id, r2.id, r3.id) == (0, 1, 2)
    with pytest.raises(ValueError, match="without atomic access"):
        symm.atomic_add(rw, 1, right)
    with pytest.raises(ValueError, match="without write access"):
        symm.put(ro[:2], np.zeros(2, np.int64), right)
    with pytest.raises(ValueError, match="without read access"):
        symm.get(np.zeros(2, np.int64), wo[:2], right)
    with pytest.raises(ValueError, match="registered array"):
        symm.peer_array(rw, me)
    with pytest.raises(ValueError, match="registered array"):
        symm.broadcast(rw, rw, 0)
    with pytest.raises(ValueError, match="symm.deregister"):
        symm.free(rw)
    got = np.empty(2, np.int64)
    symm.get(got, ro[4:6], right)  # read access: fine
    assert list(got) == [4, 5]
    for r in (r3, r2, r1):
        symm.deregister(r)
    with pytest.raises(ValueError, match="not registered"):
        symm.deregister(r1)
    with pytest.raises(ValueError, match="C-contiguous"):
        symm.register(np.zeros((4, 4))[:, 1])
    with pytest.raises(ValueError, match="access"):
        symm.register(rw, access="rx")
    if npes > 1:
        # A size that differs on one PE fails the call on every PE.
        with pytest.raises(symm.SymmError, match="same size"):
            symm.register(np.zeros(8 + (me == npes - 1), np.int64))
    # Nothing stayed half-registered.
    r = symm.register(rw)
    assert r.id == 0
    symm.deregister(r)
