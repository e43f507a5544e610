"""torch interop: tensors on symmetric memory, remote writes seen through
them, tensors as arguments everywhere, and the fused operations on
tensors. (One file: importing torch is slow.)"""

import numpy as np
import pytest
import torch

import symm


def test_torch_backend_remote_put_visible(me, npes):
    right, left = (me + 1) % npes, (me - 1) % npes
    t = symm.zeros(8, torch.float32, backend="torch")
    assert isinstance(t, torch.Tensor) and t.dtype == torch.float32 and symm.is_symmetric(t)
    symm.put(t, torch.arange(8, dtype=torch.float32) + 100 * me, right)
    symm.barrier()
    assert torch.equal(t, torch.arange(8, dtype=torch.float32) + 100 * left)
    # A get into a tensor.
    got = torch.zeros(8)
    symm.get(got, t, right)
    assert torch.equal(got, torch.arange(8, dtype=torch.float32) + 100 * me)
    symm.free(t)


def test_to_torch_shares_memory(me, npes):
    right, left = (me + 1) % npes, (me - 1) % npes
    a = symm.zeros((2, 3), np.int64)
    t = symm.to_torch(a)
    assert t.data_ptr() == a.ctypes.data
    t += me + 1  # a local write through the tensor...
    symm.barrier()
    got = np.zeros((2, 3), np.int64)
    symm.get(got, a, right)  # ...is what a peer reads
    assert (got == right + 1).all()
    symm.barrier()
    symm.put(t[1], torch.full((3,), 50 + me, dtype=torch.int64), right)  # a view of a tensor
    symm.barrier()
    assert a[1].tolist() == [50 + left] * 3 and a[0].tolist() == [me + 1] * 3
    symm.free(t)


def test_torch_dtypes_and_like(me, npes):
    right, left = (me + 1) % npes, (me - 1) % npes
    bf = symm.empty(4, torch.bfloat16, backend="torch")
    assert bf.dtype == torch.bfloat16
    symm.put(bf, torch.tensor([1.5, 2.5, -3.0, me], dtype=torch.bfloat16), right)  # raw bytes
    symm.barrier()
    assert bf.tolist() == [1.5, 2.5, -3.0, float(left)]
    with pytest.raises(TypeError, match="bfloat16, which symm cannot compute with"):
        symm.allreduce(bf, bf, "sum")
    with pytest.raises(TypeError, match="needs backend='torch'"):
        symm.empty(2, torch.bfloat16)
    src = torch.arange(6, dtype=torch.float64).reshape(2, 3) * (me + 1)
    c = symm.like(src)
    assert isinstance(c, torch.Tensor) and torch.equal(c, src) and symm.is_symmetric(c)
    h = symm.ones((3,), torch.float16, backend="torch")
    assert h.dtype == torch.float16 and h.tolist() == [1.0, 1.0, 1.0]
    n = symm.zeros_like(src, backend="numpy")
    assert isinstance(n, np.ndarray) and n.dtype == np.float64 and n.shape == (2, 3)
    for x in (n, h, c, bf):
        symm.free(x)
    with pytest.raises(ValueError, match="not in symmetric memory"):
        symm.put(torch.zeros(3), torch.ones(3), right)


def test_torch_collectives_and_atomics(me, npes):
    src = symm.full(5, me + 1, torch.int32, backend="torch")
    dst = symm.zeros(5, torch.int32, backend="torch")
    symm.allreduce(dst, src, "sum")
    assert dst.tolist() == [npes * (npes + 1) // 2] * 5
    g = symm.zeros((npes, 5), torch.int32, backend="torch")
    symm.allgather(g, src)
    assert torch.equal(g, (torch.arange(npes, dtype=torch.int32) + 1)[:, None].expand(npes, 5))
    c = symm.zeros(1, torch.int64, backend="torch")
    symm.atomic_add(c, me + 1, 0)
    symm.barrier()
    assert symm.atomic_fetch(c, 0) == npes * (npes + 1) // 2
    for x in (c, g, dst, src):
        symm.free(x)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_torch_fused(me, npes, dtype):
    m, k, n = 6, 8, 5
    gen = [torch.Generator().manual_seed(100 + p) for p in range(npes)]
    a_parts = [torch.randn(m, k, generator=gen[p], dtype=dtype) for p in range(npes)]
    b = torch.randn(k, n, generator=torch.Generator().manual_seed(9), dtype=dtype)
    a_all, c = symm.fused_all_gather_matmul(a_parts[me], b, block_rows=2)
    assert isinstance(a_all, torch.Tensor) and isinstance(c, torch.Tensor)
    expect_a = torch.cat(a_parts)
    assert torch.equal(a_all, expect_a)
    tol = 1e-4 if dtype == torch.float32 else 1e-12
    torch.testing.assert_close(c, expect_a @ b, rtol=tol, atol=tol)
    xs = [torch.randn(2 * npes, k, generator=torch.Generator().manual_seed(200 + p),
                      dtype=dtype) for p in range(npes)]
    x = xs[me]
    r = symm.fused_matmul_reduce_scatter(x, b)
    full = sum(xp @ b for xp in xs)
    assert isinstance(r, torch.Tensor)
    torch.testing.assert_close(r, full[2 * me:2 * me + 2], rtol=tol, atol=tol)
