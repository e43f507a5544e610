"""Fused all-gather+matmul and matmul+reduce-scatter, checked against the
unfused numpy result that every PE computes on its own (each PE can make
every other PE's input: it is a function of the PE number)."""

import numpy as np
import pytest

import symm


def _a_int(p, m, k, dtype):
    # Small integers: every product and sum is exact in float32 and float64,
    # whatever the order of the additions.
    return ((np.arange(m * k).reshape(m, k) + 7 * p) % 11 - 5).astype(dtype)


def _a_rand(p, m, k, dtype):
    return np.random.default_rng(1000 + p).standard_normal((m, k)).astype(dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("block_rows", [None, 1, 3, 8])
@pytest.mark.parametrize("overlap", [True, False])
def test_all_gather_matmul_exact(me, npes, dtype, block_rows, overlap):
    m, k, n = 8, 12, 5
    b = ((np.arange(k * n).reshape(k, n) % 7) - 3).astype(dtype)
    expect_a = np.concatenate([_a_int(p, m, k, dtype) for p in range(npes)])
    for it in range(3):  # repeated calls reuse the buffers and signals (epochs)
        a = _a_int(me, m, k, dtype) + it
        a_all, c = symm.fused_all_gather_matmul(a, b, block_rows=block_rows, overlap=overlap)
        assert a_all.dtype == dtype and c.dtype == dtype
        assert a_all.shape == (npes * m, k) and c.shape == (npes * m, n)
        assert (a_all == expect_a + it).all()
        assert (c == (expect_a + it) @ b).all()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_all_gather_matmul_random(me, npes, dtype):
    m, k, n = 33, 64, 17
    b = np.random.default_rng(7).standard_normal((k, n)).astype(dtype)
    a = _a_rand(me, m, k, dtype)
    a_all, c = symm.fused_all_gather_matmul(a, b, block_rows=10)
    expect_a = np.concatenate([_a_rand(p, m, k, dtype) for p in range(npes)])
    assert (a_all == expect_a).all()
    tol = 1e-4 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(c, expect_a @ b, rtol=tol, atol=tol)


def test_all_gather_matmul_into_symmetric_buffers(me, npes):
    m, k, n = 4, 6, 3
    g = symm.zeros((npes * m, k))
    out = np.full((npes * m, n), np.nan)
    b = np.ones((k, n))
    a = np.full((m, k), me + 1.0)
    a_all, c = symm.fused_all_gather_matmul(a, b, gather_out=g, out=out)
    assert a_all is g and c is out
    expect = np.repeat(np.arange(1.0, npes + 1), m)[:, None]
    assert (g == expect).all() and (out == expect * k).all()
    # The gathered rows are in every PE's symmetric buffer: a get from any PE sees them.
    row = np.zeros(k)
    symm.get(row, g[npes * m - 1], (me + 1) % npes)
    assert (row == npes).all()
    symm.free(g)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("block_rows", [None, 1, 2])
@pytest.mark.parametrize("overlap", [True, False])
def test_matmul_reduce_scatter_exact(me, npes, dtype, block_rows, overlap):
    ml, k, n = 3, 10, 4
    M = ml * npes
    w = ((np.arange(k * n).reshape(k, n) % 5) - 2).astype(dtype)
    xs = [_a_int(p, M, k, dtype) for p in range(npes)]
    full = sum(x @ w for x in xs)
    for it in range(2):
        r = symm.fused_matmul_reduce_scatter(xs[me] + it, w, block_rows=block_rows,
                                             overlap=overlap)
        expect = full[me * ml:(me + 1) * ml] + it * npes * w.sum(axis=0)
        assert r.shape == (ml, n) and r.dtype == dtype
        assert (r == expect).all()


@pytest.mark.parametrize("op", ["sum", "max", "min", "prod"])
def test_matmul_reduce_scatter_ops(me, npes, op):
    ml, k, n = 2, 5, 3
    M = ml * npes
    w = np.random.default_rng(3).standard_normal((k, n))
    xs = [np.random.default_rng(50 + p).standard_normal((M, k)) * 0.5 for p in range(npes)]
    parts = np.array([x @ w for x in xs])
    fold = {"sum": np.sum, "max": np.max, "min": np.min, "prod": np.prod}[op]
    expect = fold(parts, axis=0)[me * ml:(me + 1) * ml]
    out = np.empty((ml, n))
    r = symm.fused_matmul_reduce_scatter(xs[me], w, op=op, out=out)
    assert r is out
    np.testing.assert_allclose(r, expect, rtol=1e-12, atol=1e-12)


def test_fused_errors(me, npes):
    a = np.ones((4, 3))
    with pytest.raises(ValueError, match="cannot be multiplied"):
        symm.fused_all_gather_matmul(a, np.ones((4, 2)))
    with pytest.raises(TypeError, match="a has dtype int64"):
        symm.fused_all_gather_matmul(np.ones((4, 3), np.int64), np.ones((3, 2), np.int64))
    with pytest.raises(TypeError, match="a has dtype float64, b has dtype float32"):
        symm.fused_all_gather_matmul(a, np.ones((3, 2), np.float32))
    with pytest.raises(ValueError, match="gather_out is not in symmetric memory"):
        symm.fused_all_gather_matmul(a, np.ones((3, 2)), gather_out=np.zeros((4 * npes, 3)))
    with pytest.raises(ValueError, match="block_rows 0"):
        symm.fused_all_gather_matmul(a, np.ones((3, 2)), block_rows=0)
    if npes > 1:  # every M is a multiple of 1
        with pytest.raises(ValueError, match="not a multiple of %d PEs" % npes):
            symm.fused_matmul_reduce_scatter(np.ones((npes * 2 + 1, 3)), np.ones((3, 2)))
    with pytest.raises(ValueError, match="op 'xor' is not sum"):
        symm.fused_matmul_reduce_scatter(np.ones((npes, 3)), np.ones((3, 2)), op="xor")
    with pytest.raises(ValueError, match="2-D"):
        symm.fused_matmul_reduce_scatter(np.ones(3), np.ones((3, 2)))
