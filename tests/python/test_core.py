"""symm core: setup, symmetric arrays, put/get, atomics, signals, waits,
and the errors raised before any communication. Runs at 1, 2 and 4 PEs;
every check compares against values computed here from the PE numbers."""

import os

import numpy as np
import pytest

import symm
from conftest import gathered


def test_setup_queries(me, npes):
    assert symm.initialized()
    assert symm.init_status() == symm.STATUS_IS_INITIALIZED
    assert 0 <= me < npes
    if "SYMM_SIZE" in os.environ:
        assert npes == int(os.environ["SYMM_SIZE"])
        assert me == int(os.environ["SYMM_RANK"])
    symm.init()  # a second init is harmless
    assert symm.my_pe() == me
    assert symm.info_get_version() == (1, 5)
    assert symm.info_get_name().startswith("symm")
    assert symm.heap_size() > 0 and symm.heap_free() <= symm.heap_size()
    assert os.environ["SYMM_MAP_GLOBALS"] == "0"
    assert symm.TEAM_WORLD.n_pes() == npes and symm.TEAM_WORLD.my_pe() == me
    # One machine: every PE shares memory, except under SYMM_TRANSPORT=ucx.
    shared = 1 if os.environ.get("SYMM_TRANSPORT") == "ucx" else npes
    assert symm.TEAM_SHARED.n_pes() == shared


def test_allocation_kinds(me, npes):
    a = symm.empty((3, 4), np.float32)
    assert a.shape == (3, 4) and a.dtype == np.float32 and symm.is_symmetric(a)
    z = symm.zeros(10, np.int32)
    assert (z == 0).all()
    o = symm.ones((2, 2), np.int16)
    assert (o == 1).all() and o.dtype == np.int16
    f = symm.full(5, 7.5)
    assert f.dtype == np.float64 and (f == 7.5).all()
    src = np.arange(6, dtype=np.uint64).reshape(2, 3) * (me + 1)
    c = symm.like(src)
    assert c.dtype == np.uint64 and (c == src).all() and symm.is_symmetric(c)
    el = symm.empty_like(src)
    zl = symm.zeros_like(src, dtype=np.float32)
    assert el.shape == (2, 3) and zl.dtype == np.float32 and (zl == 0).all()
    e0 = symm.zeros(0, np.int64)  # an empty array is still an allocation
    assert e0.size == 0 and symm.is_symmetric(e0)
    # Views of a symmetric array are symmetric; private memory is not.
    assert symm.is_symmetric(a[1]) and symm.is_symmetric(a[:, 2]) and symm.is_symmetric(a.T)
    assert not symm.is_symmetric(np.zeros(3)) and not symm.is_symmetric([1, 2])
    arrays = [a, z, o, f, c, el, zl, e0]
    addrs = gathered(z.ctypes.data - a.ctypes.data)  # same layout on every PE
    assert (addrs == addrs[0]).all()
    for x in arrays:
        symm.free(x)
    assert not symm.is_symmetric(a)
    with pytest.raises(ValueError, match="not a live symmetric allocation"):
        symm.free(a)
    with pytest.raises(ValueError, match="not a live symmetric allocation"):
        symm.free(np.zeros(4))
    b = symm.zeros(8)
    with pytest.raises(ValueError, match="starts 16 bytes into"):
        symm.free(b[2:])
    symm.free(b)


def test_put_get_ring(me, npes):
    right, left = (me + 1) % npes, (me - 1) % npes
    x = symm.zeros((4, 8), np.int64)
    src = me * 1000 + np.arange(32, dtype=np.int64).reshape(4, 8)
    symm.put(x, src, right)
    symm.barrier()
    assert (x == left * 1000 + np.arange(32).reshape(4, 8)).all()
    # get the right neighbour's copy (holding what its left neighbour, me, wrote).
    got = np.empty((4, 8), np.int64)
    symm.get(got, x, right)
    assert (got == src).all()
    # Lists and scalars as a put's source take the target's dtype.
    y = symm.zeros(3, np.int32)
    symm.put(y, [me, me + 1, me + 2], right)
    symm.barrier()
    assert y.tolist() == [left, left + 1, left + 2]
    symm.free(y)
    symm.free(x)


def test_put_get_offsets_rfc_form(me, npes):
    # put(target, target_offset, src, src_offset, size, target_rank): PE q
    # writes src[2:5] into slot q of every PE's target.
    t = symm.zeros(3 * npes, np.float64)
    src = me * 1000.0 + np.arange(10)
    for pe in range(npes):
        symm.put(t, 3 * me, src, 2, 3, pe)
    symm.barrier()
    expect = np.concatenate([q * 1000.0 + np.arange(2, 5) for q in range(npes)])
    assert (t == expect).all()
    # get(target, target_offset, src, src_offset, size, rank): the slot of
    # PE (me+1) from PE (me+1)'s copy.
    q = (me + 1) % npes
    local = np.full(6, -1.0)
    symm.get(local, 1, t, 3 * q, 3, q)
    assert local.tolist() == [-1.0] + [q * 1000.0 + i for i in (2, 3, 4)] + [-1.0, -1.0]
    with pytest.raises(ValueError, match="outside target"):
        symm.put(t, 3 * npes - 1, src, 0, 2, q)
    symm.free(t)


def test_nbi_and_quiet(me, npes):
    x = symm.zeros(npes * 4, np.int32)
    for pe in range(npes):
        # A non-contiguous source: symm keeps its contiguous copy until quiet.
        src = (me * 100 + np.arange(8, dtype=np.int32))[::2]
        symm.put_nbi(x[me * 4:(me + 1) * 4], src, pe)
    symm.quiet()
    symm.barrier()
    expect = np.concatenate([q * 100 + np.arange(0, 8, 2) for q in range(npes)])
    assert (x == expect).all()
    # fence: my data put to a PE lands before my flag put to it.
    flag = symm.zeros(npes, np.int32)
    for pe in range(npes):
        symm.put(x[me * 4:(me + 1) * 4], np.full(4, 7000 + me, np.int32), pe)
        symm.fence()
        symm.put_nbi(flag[me:me + 1], np.array([1], np.int32), pe)
    for q in range(npes):
        symm.wait_until(flag, "==", 1, index=q)
        assert (x[q * 4:(q + 1) * 4] == 7000 + q).all()
    symm.quiet()
    symm.barrier()
    symm.free(flag)
    expect = np.repeat(7000 + np.arange(npes), 4)
    assert (x == expect).all()
    out = np.zeros((npes, npes * 4), np.int32)
    for pe in range(npes):
        symm.get_nbi(out[pe], x, pe)
    symm.quiet()
    assert (out == expect).all()
    symm.free(x)


def test_slices_and_strided_targets(me, npes):
    right, left = (me + 1) % npes, (me - 1) % npes
    x = symm.zeros(20, np.int64)
    symm.put(x[5:9], me * 10 + np.arange(4), right)     # a slice: same offset remotely
    symm.put(x[10::3], me * 100 + np.arange(4), right)  # strided: iput
    symm.barrier()
    expect = np.zeros(20, np.int64)
    expect[5:9] = left * 10 + np.arange(4)
    expect[10::3] = left * 100 + np.arange(4)
    assert (x == expect).all()
    m = symm.zeros((4, 3), np.float32)
    symm.put(m[:, 1], np.array([1, 2, 3, 4], np.float32) * (me + 1), right)  # a column
    symm.barrier()
    assert (m[:, 1] == np.array([1, 2, 3, 4]) * (left + 1)).all() and (m[:, [0, 2]] == 0).all()
    col = np.empty(4, np.float32)
    symm.get(col, m[:, 1], right)  # strided source: iget
    assert (col == np.array([1, 2, 3, 4]) * (me + 1)).all()
    tgt = np.zeros((3, 2), np.float32)
    symm.get(tgt[:, 0], m[1], right)  # a non-contiguous local target
    assert tgt[:, 0].tolist() == [0, 2 * (me + 1), 0] and (tgt[:, 1] == 0).all()
    with pytest.raises(ValueError, match="no single stride"):
        symm.put(m[:, :2], np.zeros((4, 2), np.float32), right)
    symm.free(m)
    symm.free(x)


def test_p_g(me, npes):
    right, left = (me + 1) % npes, (me - 1) % npes
    x = symm.zeros((2, 3), np.int32)
    symm.p(x, 40 + me, right, index=4)
    symm.p(x, 50 + me, right, index=(0, 1))
    symm.barrier()
    assert x[1, 1] == 40 + left and x[0, 1] == 50 + left
    assert symm.g(x, right, (1, 1)) == 40 + me
    symm.free(x)


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint32, np.uint64])
def test_atomics_integer(me, npes, dtype):
    c = symm.zeros(8, dtype)
    symm.atomic_add(c, me + 1, 0, index=0)
    old = symm.atomic_fetch_add(c, 1, 0, index=1)
    symm.atomic_inc(c, 0, index=2)
    old_inc = symm.atomic_fetch_inc(c, 0, index=3)
    symm.atomic_or(c, 1 << me, 0, index=4)
    symm.atomic_set(c, 0xFF, me, index=5)
    symm.barrier()
    symm.atomic_and(c, ~(1 << me) & 0xFF, 0, index=5)
    symm.atomic_xor(c, 1 << me, 0, index=6)
    symm.barrier()
    olds = gathered(int(old))
    olds_inc = gathered(int(old_inc))
    if me == 0:
        assert int(c[0]) == npes * (npes + 1) // 2
        assert int(c[1]) == npes and sorted(olds.tolist()) == list(range(npes))
        assert int(c[2]) == npes and sorted(olds_inc.tolist()) == list(range(npes))
        assert int(c[4]) == (1 << npes) - 1
        assert int(c[5]) == 0xFF & ~((1 << npes) - 1)
        assert int(c[6]) == (1 << npes) - 1
    assert symm.atomic_fetch(c, 0, index=0) == npes * (npes + 1) // 2
    symm.barrier()
    # compare_swap: exactly one PE wins the slot.
    won = symm.atomic_compare_swap(c, 0, me + 1, 0, index=7)
    wins = gathered(int(won))
    symm.barrier()
    winner = symm.atomic_fetch(c, 0, index=7)
    assert (wins == 0).sum() == 1 and winner == int(np.argmin(wins)) + 1
    # fetch_and/or/xor return the old value.
    symm.barrier()
    if me == 0:
        c[0] = 0b1100
    symm.barrier()
    if me == 0:
        assert symm.atomic_fetch_or(c, 0b0011, npes - 1, index=0) == (0b1100 if npes == 1 else 0)
    symm.barrier()
    assert symm.atomic_fetch_xor(c, 0, 0, 0) == (0b1111 if npes == 1 else 0b1100)
    assert symm.atomic_fetch_and(c, 0xFF, 0, 0) == (0b1111 if npes == 1 else 0b1100)
    symm.barrier()
    old_sw = symm.atomic_swap(c, 1000 + me, me, index=3)
    assert old_sw == npes if me == 0 else old_sw == 0
    assert c[3] == 1000 + me
    symm.free(c)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_atomics_float(me, npes, dtype):
    right, left = (me + 1) % npes, (me - 1) % npes
    x = symm.zeros(2, dtype)
    symm.atomic_set(x, me + 0.5, right, index=1)
    symm.barrier()
    assert x[1] == left + 0.5
    assert symm.atomic_fetch(x, right, 1) == me + 0.5
    symm.barrier()
    assert symm.atomic_swap(x, -1.0, me, 1) == left + 0.5 and x[1] == -1.0
    with pytest.raises(TypeError, match="atomic_add: target has dtype"):
        symm.atomic_add(x, 1, right)
    symm.free(x)


@pytest.mark.parametrize("sigtype", [np.uint64, np.int32])
def test_put_signal_producer_consumer(me, npes, sigtype):
    """The RFC's example: every PE produces ROUNDS batches for its right
    neighbour with put-with-signal; the consumer waits for the signal,
    checks the batch, acknowledges; the producer waits for the ack before
    reusing the buffer."""
    ROUNDS, B = 20, 64
    right, left = (me + 1) % npes, (me - 1) % npes
    batch = symm.zeros(B, np.float32)
    sig = symm.zeros(2, sigtype)  # [0] ready (by the producer), [1] ack (by the consumer)
    bad = 0
    for k in range(1, ROUNDS + 1):
        symm.wait_signal(sig, 1, symm.CMP_GE, k - 1)  # previous batch consumed
        out = (me * 1_000_000 + k * 1000 + np.arange(B)).astype(np.float32)
        if k % 2:
            symm.put_signal(batch, out, sig, 0, k, symm.SIGNAL_SET, right)
        else:
            symm.put_signal_nbi(batch, out, sig, 0, k, "set", right)
        got = symm.wait_signal(sig, 0, ">=", k)
        assert got == k
        bad += int((batch != (left * 1_000_000 + k * 1000 + np.arange(B))).sum())
        symm.signal_op(sig, 1, k, "set", left)
    symm.quiet()
    symm.barrier()
    assert bad == 0
    assert symm.signal_fetch(sig, 0) == ROUNDS and symm.signal_fetch(sig, 1) == ROUNDS
    # SIGNAL_ADD from every PE.
    symm.barrier()
    symm.signal_op(sig, 0, me + 1, symm.SIGNAL_ADD, 0)
    symm.barrier()
    if me == 0:
        assert symm.signal_fetch(sig, 0) == ROUNDS + npes * (npes + 1) // 2
    symm.free(sig)
    symm.free(batch)


@pytest.mark.parametrize("dtype", [np.int16, np.int32, np.int64, np.uint16, np.uint32,
                                   np.uint64])
def test_wait_until_and_test(me, npes, dtype):
    right = (me + 1) % npes
    flags = symm.zeros(npes, dtype)
    # Every PE writes 10 + q into slot q of every PE.
    for pe in range(npes):
        symm.p(flags, 10 + me, pe, index=me)
    symm.wait_until(flags, symm.CMP_EQ, 10 + right, index=right)
    symm.wait_until_all(flags, ">=", 10)
    assert symm.test_all(flags, ">=", 10)
    assert symm.test(flags, "==", 10 + me, index=me)
    assert not symm.test(flags, "<", 10, index=me)
    assert (flags == 10 + np.arange(npes)).all()
    assert symm.wait_until_any(flags, "==", 10 + right) == right
    status = np.zeros(npes, np.intc)
    status[right] = 1
    assert symm.test_any(flags, "==", 10 + right, status=status) is None
    assert symm.wait_until_any(flags, "ge", 10, status=np.ones(npes)) is None
    assert symm.wait_until_some(flags, ">=", 10) == list(range(npes))
    assert symm.test_some(flags, ">", 10) == list(range(1, npes))
    assert symm.test_some(flags, "<=", 10 + npes) == list(range(npes))
    # One comparison value per element (the _vector forms).
    symm.wait_until_all(flags, "==", 10 + np.arange(npes))
    assert symm.test_any(flags, "==", np.arange(npes) + 11) is None
    symm.barrier()
    symm.free(flags)


def test_poll_pingpong(me, npes):
    """A ping-pong whose receiver polls symm.test (issue 47.2): PE k with PE
    k + npes/2, at 4 PEs the pairs that share a core on 2 cores; the polls
    must hand the core over (the library backs off after repeated misses),
    so the rounds finish well inside the test's timeout. Each round's
    payload is checked."""
    half = npes // 2
    partner = me + half if me < half else me - half if me < 2 * half else me
    pinger = me < half or partner == me
    flag = symm.zeros(1, np.int64)
    data = symm.zeros(3, np.int64)
    symm.barrier()

    def send(r):
        symm.put(data, np.array([r, r * 7 + me, -r], np.int64), partner)
        symm.fence()
        symm.p(flag, r, partner)

    def recv(r):
        while not symm.test(flag, "==", r):
            pass
        assert data.tolist() == [r, r * 7 + partner, -r]

    for r in range(1, 301):
        if pinger:
            send(r)
            recv(r)
        else:
            recv(r)
            send(r)
    symm.barrier()
    symm.free(data)
    symm.free(flag)


def test_peer_array(me, npes):
    right, left = (me + 1) % npes, (me - 1) % npes
    x = symm.zeros(6, np.int64)
    view = symm.peer_array(x[2:5], right)
    if os.environ.get("SYMM_TRANSPORT") == "ucx" and right != me:
        # Reached through UCX, not mapped: no direct view; the same stores by put.
        assert view is None
        symm.put(x[2:5], np.array([me, me * 10, me * 100], np.int64), right)
    else:
        assert view is not None and view.shape == (3,)
        view[:] = [me, me * 10, me * 100]  # stores straight into the neighbour's memory
    symm.barrier()
    assert x.tolist() == [0, 0, left, left * 10, left * 100, 0]
    symm.free(x)


# ---- errors: raised on the PE that made the mistake, before any communication ----
def test_errors_non_symmetric(me, npes):
    private = np.zeros(4)
    with pytest.raises(ValueError, match=r"symm\.put: target is not in symmetric memory"):
        symm.put(private, np.ones(4), 0)
    x = symm.zeros(4)
    with pytest.raises(ValueError, match=r"symm\.get: source is not in symmetric memory"):
        symm.get(np.zeros(4), private, 0)
    with pytest.raises(ValueError, match=r"symm\.broadcast: dest is not in symmetric memory"):
        symm.broadcast(private, x, 0)
    with pytest.raises(ValueError, match=r"signal is not in symmetric memory"):
        symm.put_signal(x, np.ones(4), np.zeros(1, np.uint64), 0, 1, symm.SIGNAL_SET, 0)
    with pytest.raises(ValueError, match="runs past the end"):
        y = x[2:]
        symm.put(np.lib.stride_tricks.as_strided(y, shape=(8,)), np.ones(8), 0)
    symm.free(x)
    with pytest.raises(ValueError, match="not in symmetric memory"):
        symm.put(x, np.ones(4), 0)  # freed


def test_errors_dtype_and_shape(me, npes):
    x = symm.zeros(4, np.int32)
    i16 = symm.zeros(1, np.int16)
    f = symm.zeros(4)
    with pytest.raises(TypeError, match="source has dtype float64, target has dtype int32"):
        symm.put(x, np.ones(4), 0)
    with pytest.raises(ValueError, match="source has 3 elements, target has 4"):
        symm.put(x, np.ones(3, np.int32), 0)
    with pytest.raises(TypeError, match="must be a numpy array or a torch tensor"):
        symm.put("abc", x, 0)
    with pytest.raises(TypeError, match="atomic_add: target has dtype int16"):
        symm.atomic_add(i16, 1, 0)
    with pytest.raises(ValueError, match="does not fit in int32"):
        symm.atomic_set(x, 2 ** 40, 0)
    with pytest.raises(ValueError, match="index 4 outside target of 4 elements"):
        symm.atomic_inc(x, 0, index=4)
    with pytest.raises(TypeError, match="signal has dtype float64"):
        symm.signal_op(f, 0, 1, "set", 0)
    with pytest.raises(ValueError, match="signal operator 'mul'"):
        symm.signal_op(x, 0, 1, "mul", 0)
    with pytest.raises(ValueError, match="comparison '=~'"):
        symm.wait_until(x, "=~", 0)
    with pytest.raises(TypeError, match="source has dtype float64; op 'xor' takes"):
        symm.allreduce(f, f, "xor")
    with pytest.raises(ValueError, match="op 'avg' is not one of"):
        symm.allreduce(x, x, "avg")
    with pytest.raises(ValueError, match="dest has 4 elements, need %d PEs x 3" % npes):
        symm.allgather(x, x[:3])
    with pytest.raises(ValueError, match="negative dimension"):
        symm.empty((2, -1))
    with pytest.raises(TypeError, match="holds Python objects"):
        symm.empty(3, object)
    for a in (f, i16, x):
        symm.free(a)


def test_errors_pe_range(me, npes):
    x = symm.zeros(4)
    for bad in (npes, npes + 5, -1):
        with pytest.raises(ValueError, match=r"symm\.put: target PE %d outside \[0,%d\)"
                           % (bad, npes)):
            symm.put(x, np.ones(4), bad)
    with pytest.raises(ValueError, match=r"symm\.atomic_fetch: target PE 9 outside"):
        symm.atomic_fetch(symm.zeros(1, np.int64), 9)
    with pytest.raises(ValueError, match=r"symm\.broadcast: root %d outside" % npes):
        symm.broadcast(x, x, npes)
    with pytest.raises(TypeError, match="target PE must be an int"):
        symm.put(x, np.ones(4), True)
    with pytest.raises(TypeError, match="target PE must be an int"):
        symm.put(x, np.ones(4), 1.0)
    symm.free(x)


def test_error_on_one_pe_does_not_hang_the_others(me, npes):
    """Only PE 0 makes mistakes (a put to a PE out of range, a collective
    with a wrong dtype): it raises, its peers carry on, and the next
    collective PE 0 enters (the corrected call) completes everywhere."""
    x = symm.full(4, float(me + 1))
    d = symm.zeros(4)
    z = symm.zeros(4, np.int32)
    if me == 0:
        with pytest.raises(ValueError, match="outside"):
            symm.put(x, np.ones(4), npes + 3)
        with pytest.raises(TypeError, match="source has dtype int32, dest has dtype float64"):
            symm.allreduce(d, z, "sum")
    symm.allreduce(d, x, "sum")
    assert (d == npes * (npes + 1) / 2).all()
    for a in (z, d, x):
        symm.free(a)
