"""symm collectives, teams and streams at 1, 2 and 4 PEs, each checked
against values computed here from the PE numbers."""

import numpy as np
import pytest

import symm


def test_barrier_and_sync(me, npes):
    x = symm.zeros(npes, np.int64)
    for rnd in range(1, 4):
        for pe in range(npes):
            symm.put(x[me:me + 1], np.array([rnd * 100 + me]), pe)
        symm.barrier()  # puts complete, then meet
        assert (x == rnd * 100 + np.arange(npes)).all()
        symm.sync()     # nobody writes round rnd+1 before everyone checked round rnd
    symm.barrier_all()
    symm.sync_all()
    symm.barrier(symm.TEAM_WORLD)
    symm.sync(symm.TEAM_SHARED)
    symm.free(x)


def test_broadcast(me, npes):
    dst = symm.zeros((2, 5), np.int32)
    for root in range(npes):
        src = symm.full((2, 5), -1, np.int32)
        if me == root:
            src[:] = root * 100 + np.arange(10).reshape(2, 5)
        symm.sync()
        out = symm.broadcast(dst, src, root)
        assert out is dst
        assert (dst == root * 100 + np.arange(10).reshape(2, 5)).all()
        symm.free(src)
    symm.free(dst)


@pytest.mark.parametrize("dtype", [np.int8, np.float32, np.complex128])
def test_allgather(me, npes, dtype):
    m = 7
    src = symm.like((me * 10 + np.arange(m)).astype(dtype))
    dst = symm.zeros((npes, m), dtype)
    symm.allgather(dst, src)
    expect = np.array([[p * 10 + i for i in range(m)] for p in range(npes)], dtype)
    assert (dst == expect).all()
    symm.free(dst)
    symm.free(src)


def test_alltoall(me, npes):
    b = 3
    src = symm.like(np.array([[me * 1000 + j * 10 + i for i in range(b)] for j in range(npes)],
                             np.int64))
    dst = symm.zeros((npes, b), np.int64)
    symm.alltoall(dst, src)
    expect = np.array([[i * 1000 + me * 10 + k for k in range(b)] for i in range(npes)])
    assert (dst == expect).all()
    symm.free(dst)
    symm.free(src)


_INT_TYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
_CASES = ([(op, t) for op in ("sum", "prod", "min", "max", "and", "or", "xor")
           for t in _INT_TYPES] +
          [(op, t) for op in ("sum", "prod", "min", "max")
           for t in (np.float32, np.float64, np.longdouble)] +
          [(op, t) for op in ("sum", "prod") for t in (np.complex64, np.complex128)])


def _contribution(op, dtype, pe, n):
    i = np.arange(n)
    if op in ("and", "or", "xor"):
        return ((i + 1) * 3 + (1 << (pe % 7))).astype(dtype)
    if op == "prod":
        return ((pe % 3) + 1 + (i % 2)).astype(dtype)
    return (pe * 3 + i % 5 + 1).astype(dtype) * (1 if np.dtype(dtype).kind != "c" else 1 + 1j)


@pytest.mark.parametrize("op,dtype", _CASES)
def test_reduce(me, npes, op, dtype):
    n = 9
    contribs = [_contribution(op, dtype, p, n) for p in range(npes)]
    fold = {"sum": np.add, "prod": np.multiply, "min": np.minimum, "max": np.maximum,
            "and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}[op]
    expect = contribs[0]
    for c in contribs[1:]:
        expect = fold(expect, c)
    src = symm.like(contribs[me])
    dst = symm.zeros(n, dtype)
    symm.reduce(dst, src, op)
    assert (dst == expect).all(), (dst, expect)
    symm.allreduce(src, src, op)  # in place
    assert (src == expect).all()
    symm.free(dst)
    symm.free(src)


def test_reduce_scatter(me, npes):
    chunk = 5
    src = symm.like(np.array([p * 100 + me * 10 + np.arange(chunk) for p in range(npes)],
                             np.float64))
    dst = np.zeros(chunk)
    for op in ("sum", "max"):
        symm.reduce_scatter(dst, src, op)
        rows = [q * 10 + me * 100 + np.arange(chunk) for q in range(npes)]
        expect = np.sum(rows, axis=0) if op == "sum" else np.max(rows, axis=0)
        assert (dst == expect).all()
    symm.free(src)


def test_team_split_strided(me, npes):
    # Even PEs 0, 2, ...
    even = symm.TEAM_WORLD.split_strided(0, 2, (npes + 1) // 2)
    if me % 2:
        assert even is None
    else:
        assert even.my_pe() == me // 2 and even.n_pes() == (npes + 1) // 2
        assert even.translate_pe(even.my_pe()) == me
        assert symm.TEAM_WORLD.translate_pe(me, even) == me // 2
        for i in range(even.n_pes()):
            assert even.translate_pe(i, symm.TEAM_WORLD) == 2 * i
    if even is not None and npes > 1:
        assert symm.TEAM_WORLD.translate_pe(1, even) == -1  # PE 1 is odd
    # Allocation is collective over the world: every PE allocates.
    src = symm.full(3, me, np.int64)
    dst = symm.zeros(3, np.int64)
    bsrc = symm.zeros(2, np.int64)
    if even is not None:  # a collective inside the team: the sum of its world PE numbers
        symm.allreduce(dst, src, "sum", team=even)
        assert (dst == sum(range(0, npes, 2))).all()
    if even is not None:
        if even.my_pe() == even.n_pes() - 1:
            bsrc[:] = [me, 77]
        symm.sync(even)
        symm.broadcast(dst[:2], bsrc, even.n_pes() - 1, team=even)
        assert dst[:2].tolist() == [2 * (even.n_pes() - 1), 77]
        even.barrier()
        even.sync()
    symm.free(bsrc)
    symm.free(dst)
    symm.free(src)
    if even is not None:
        even.destroy()
        with pytest.raises(ValueError, match="destroyed"):
            even.n_pes()
    with pytest.raises(ValueError, match="TEAM_WORLD cannot be destroyed"):
        symm.TEAM_WORLD.destroy()


def test_team_split_2d(me, npes):
    xrange = 2 if npes > 1 else 1
    xt, yt = symm.TEAM_WORLD.split_2d(xrange)
    assert xt is not None and yt is not None
    assert xt.my_pe() == me % xrange and xt.n_pes() == min(xrange, npes - (me // xrange) * xrange)
    assert yt.my_pe() == me // xrange
    assert yt.n_pes() == len(range(me % xrange, npes, xrange))
    assert xt.translate_pe(0) == (me // xrange) * xrange
    assert yt.translate_pe(0) == me % xrange
    # Row sums (x team) and column sums (y team).
    src = symm.full(1, me + 1, np.int64)
    dx = symm.zeros(1, np.int64)
    dy = symm.zeros(1, np.int64)
    symm.allreduce(dx, src, "sum", team=xt)
    symm.allreduce(dy, src, "sum", team=yt)
    row = [p + 1 for p in range(npes) if p // xrange == me // xrange]
    col = [p + 1 for p in range(npes) if p % xrange == me % xrange]
    assert dx[0] == sum(row) and dy[0] == sum(col)
    # reduce_scatter in a team that is a copy of the world.
    with symm.team_split_strided(symm.TEAM_WORLD, 0, 1, npes) as dup:
        assert dup.n_pes() == npes and dup.my_pe() == me
        s2 = symm.like(np.array([[p * 10 + me for _ in range(2)] for p in range(npes)],
                                np.int64))
        d2 = np.zeros(2, np.int64)
        symm.reduce_scatter(d2, s2, "sum", team=dup)
        assert (d2 == sum(me * 10 + q for q in range(npes))).all()
        symm.free(s2)
    assert not dup.valid
    for a in (dy, dx, src):
        symm.free(a)
    xt.destroy()
    yt.destroy()


def test_team_split_errors(me, npes):
    with pytest.raises(symm.SymmError, match="split_strided: cannot split"):
        symm.TEAM_WORLD.split_strided(0, 1, npes + 1)
    with pytest.raises(TypeError, match="team must be a symm.Team"):
        symm.barrier(team="world")


def test_stream_put_signal_wait(me, npes):
    right, left = (me + 1) % npes, (me - 1) % npes
    buf = symm.zeros((4, 16), np.float64)
    sig = symm.zeros(4, np.int32)
    with symm.Stream() as st:
        for k in range(4):
            st.put_signal(buf[k], me * 100.0 + k * 10 + np.arange(16), sig, k, k + 1,
                          symm.SIGNAL_SET, right)
        # The caller computes meanwhile; then waits for its left neighbour's rows.
        for k in range(4):
            symm.wait_signal(sig, k, symm.CMP_EQ, k + 1)
            assert (buf[k] == left * 100.0 + k * 10 + np.arange(16)).all()
        st.synchronize()
        # A wait on the stream holds the stream, not the caller.
        st.wait_signal(sig, 3, ">=", 4)
        out = np.zeros(16)
        st.get(out, buf[0], right)
        st.quiet()
        st.synchronize()
        assert (out == me * 100.0 + np.arange(16)).all()
        st.barrier()
        st.synchronize()
        assert not st.pending
    with pytest.raises(ValueError, match="destroyed"):
        st.put(buf[0], np.zeros(16), right)
    # The default stream, through the module-level forms.
    symm.barrier()
    symm.put_on_stream(buf[1], np.full(16, me + 0.5), right)
    symm.signal_op_on_stream(sig, 0, 100 + me, "set", right)
    symm.quiet_on_stream()
    symm.synchronize()
    symm.wait_signal(sig, 0, "==", 100 + left)
    assert (buf[1] == left + 0.5).all()
    symm.barrier_on_stream()
    symm.synchronize()
    with pytest.raises(TypeError, match="signal has dtype uint64"):
        symm.Stream.default().signal_op(symm.zeros(1, np.uint64), 0, 1, "set", right)
    with pytest.raises(ValueError, match="Stream.put: target PE"):
        symm.put_on_stream(buf[0], np.zeros(16), npes)
    symm.free(sig)
    symm.free(buf)
    # alloc/free synchronize streams that still hold work.
    s = symm.Stream()
    x = symm.zeros(8, np.int64)
    s.put(x, np.arange(8) + me, right)
    y = symm.zeros(1)   # synchronizes s first
    assert not s.pending
    symm.barrier()
    assert (x == np.arange(8) + left).all()
    s.destroy()
    symm.free(y)
    symm.free(x)
