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


# Every form the cost model can pick, forced: (mode, overlap).
FORMS = [("fused", True), ("fused", False), ("unfused", "auto"), ("auto", "auto")]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("block_rows", [None, 1, 3, 8])
@pytest.mark.parametrize("mode,overlap", FORMS)
def test_all_gather_matmul_exact(me, npes, dtype, block_rows, mode, overlap):
    m, k, n = 8, 12, 5
    b = ((np.arange(k * n).reshape(k, n) % 7) - 3).astype(dtype)
    expect_a = np.concatenate([_a_int(p, m, k, dtype) for p in range(npes)])
    for it in range(3):  # repeated calls reuse the buffers and signals (epochs)
        a = _a_int(me, m, k, dtype) + it
        a_all, c = symm.fused_all_gather_matmul(a, b, block_rows=block_rows, overlap=overlap,
                                                mode=mode)
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
    # The gathered rows are in every PE's symmetric buffer: a get from any PE
    # sees them once every PE has returned (a call returning on one PE says
    # nothing of its peers' buffers, as for any collective).
    symm.barrier_all()
    row = np.zeros(k)
    symm.get(row, g[npes * m - 1], (me + 1) % npes)
    assert (row == npes).all()
    symm.free(g)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("block_rows", [None, 1, 2])
@pytest.mark.parametrize("mode,overlap", FORMS)
def test_matmul_reduce_scatter_exact(me, npes, dtype, block_rows, mode, overlap):
    ml, k, n = 3, 10, 4
    M = ml * npes
    w = ((np.arange(k * n).reshape(k, n) % 5) - 2).astype(dtype)
    xs = [_a_int(p, M, k, dtype) for p in range(npes)]
    full = sum(x @ w for x in xs)
    for it in range(2):
        r = symm.fused_matmul_reduce_scatter(xs[me] + it, w, block_rows=block_rows,
                                             overlap=overlap, mode=mode)
        expect = full[me * ml:(me + 1) * ml] + it * npes * w.sum(axis=0)
        assert r.shape == (ml, n) and r.dtype == dtype
        assert (r == expect).all()


@pytest.mark.parametrize("op", ["sum", "max", "min", "prod"])
@pytest.mark.parametrize("mode", ["fused", "unfused"])
def test_matmul_reduce_scatter_ops(me, npes, op, mode):
    ml, k, n = 2, 5, 3
    M = ml * npes
    w = np.random.default_rng(3).standard_normal((k, n))
    xs = [np.random.default_rng(50 + p).standard_normal((M, k)) * 0.5 for p in range(npes)]
    parts = np.array([x @ w for x in xs])
    fold = {"sum": np.sum, "max": np.max, "min": np.min, "prod": np.prod}[op]
    expect = fold(parts, axis=0)[me * ml:(me + 1) * ml]
    out = np.empty((ml, n))
    r = symm.fused_matmul_reduce_scatter(xs[me], w, op=op, out=out, mode=mode)
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
    with pytest.raises(ValueError, match="mode must be 'auto', 'fused' or 'unfused', not 'fast'"):
        symm.fused_all_gather_matmul(a, np.ones((3, 2)), mode="fast")
    with pytest.raises(ValueError, match="overlap must be True, False or 'auto'"):
        symm.fused_matmul_reduce_scatter(np.ones((npes, 3)), np.ones((3, 2)), overlap=1)


# ---- the cost model: what ran, and why ----------------------------------

def test_plan_reports_the_form_forced(me, npes):
    a, b = np.ones((6, 4)), np.ones((4, 2))
    symm.fused_all_gather_matmul(a, b, mode="unfused")
    assert symm.fused_plan().form == "unfused" and symm.fused_plan().reason
    for overlap, form in ((True, "stream"), (False, "inline")):
        _, c = symm.fused_all_gather_matmul(a, b, mode="fused", overlap=overlap, block_rows=2)
        plan = symm.fused_plan()
        assert (c == 4).all()
        if npes == 1:  # nothing to overlap
            assert plan.form == "unfused" and "one PE" in plan.reason
        else:
            assert plan.form == form and plan.blocks == 3 and plan.block_rows == 2


def test_plan_first_call_of_a_shape_measures(me, npes):
    if npes == 1:
        pytest.skip("one PE always runs unfused")
    m, k, n = 7, 9, 3 + npes  # a shape no other test uses
    a = np.full((m, k), 1.0 + me)
    b = np.ones((k, n))
    expect = np.repeat(np.arange(1.0, npes + 1), m)[:, None] * k * np.ones((1, n))
    _, c = symm.fused_all_gather_matmul(a, b)
    assert (c == expect).all()
    plan = symm.fused_plan()
    assert plan.form == "unfused" and "first call of this shape" in plan.reason
    _, c = symm.fused_all_gather_matmul(a, b)
    assert (c == expect).all()
    plan = symm.fused_plan()  # now predicted from what the first call measured
    assert set(plan.predicted) >= {"unfused", "stream", "inline"}
    assert all(t > 0 for t in plan.predicted.values())
    assert "predicted" in plan.reason


def test_plan_pes_disagreeing_on_the_mode_all_fail(me, npes):
    if npes == 1:
        pytest.skip("needs two PEs to disagree")
    a, b = np.ones((4, 3)), np.ones((3, 2))
    with pytest.raises(symm.SymmError, match="different shapes, dtypes, block_rows or modes"):
        symm.fused_all_gather_matmul(a, b, mode="fused" if me == 0 else "unfused")
    _, c = symm.fused_all_gather_matmul(a, b)  # and the next call works
    assert (c == 3).all()


def _shape(spf, comm, err=None):
    from symm import _plan
    sh = _plan.Shape()
    for _ in range(3):
        sh._spf.append(spf)
        sh._comm.append(comm)
    for f, v in (err or {}).items():
        sh._err[f].append(v)
    sh.settle()
    sh.calls = 5
    sh.last = {f: 5 for f in sh.last}
    return sh


def test_model_choices():
    from symm import _plan
    flops = 1e9
    # Communication negligible next to the matmul, mapped peers, no spare
    # core: fusing hides nothing, the plain pair runs.
    p = _plan.choose(_shape(1e-11, 1e-5), "auto", "auto", 512, None, flops, 2, False, False)
    assert p.form == "unfused" and p.predicted["unfused"] <= p.predicted["stream"]
    # A slow network link as long as the matmul: a fused form, predicted
    # well below the pair (the matmul, 10 ms, hides most of the 10 ms).
    p = _plan.choose(_shape(1e-11, 1e-2), "auto", "auto", 512, None, flops, 2, True, True)
    assert p.form in ("stream", "inline") and p.blocks > 1
    assert p.predicted[p.form] < 0.8 * p.predicted["unfused"]
    # ... unless earlier fused calls took twice their prediction.
    p = _plan.choose(_shape(1e-11, 1e-2, {"stream": 2.0, "inline": 2.0}), "auto", "auto", 512,
                     None, flops, 2, True, True)
    assert p.form == "unfused" and "unfused predicted" in p.reason
    # Forced forms are honoured; the caller's block_rows is kept.
    p = _plan.choose(_shape(1e-11, 1e-5), "fused", False, 512, 100, flops, 2, False, False)
    assert (p.form, p.blocks, p.block_rows) == ("inline", 6, 100)
    # Every RECHECK calls the form not chosen runs once, to see whether the
    # machine changed.
    sh = _shape(1e-11, 1e-2)
    forms = []
    for _ in range(2 * _plan.RECHECK):
        p = _plan.choose(sh, "auto", "auto", 512, None, flops, 2, True, True)
        _plan.record(sh, p, sh.calls, 0.0, 0.0, 0.0, 0.0)
        forms.append(p.form)
    assert forms.count("unfused") == 2 and forms[0] != "unfused"
