"""fused_matmul.py - all-gather + matmul, and matmul + reduce-scatter, with
the communication hidden behind the computation.

    oshrun -np 4 python3 examples/python/fused_matmul.py

Tensor-parallel layers in a few lines: each PE holds a shard of the
activations (A: m_local x k rows); fused_all_gather_matmul returns the
gathered A and A @ B, multiplying each PE's rows as soon as they arrive.
fused_matmul_reduce_scatter computes X @ W and leaves each PE its slice of
the sum over PEs. Both results are checked against plain numpy.
"""
import sys

import numpy as np

import symm

me, n = symm.my_pe(), symm.n_pes()
m_local, k, cols = 64, 128, 32


def shard(p):  # every PE can make every PE's input: checks need no messages
    return np.random.default_rng(p).standard_normal((m_local, k)).astype(np.float32)


B = np.random.default_rng(100).standard_normal((k, cols)).astype(np.float32)
A_all, C = symm.fused_all_gather_matmul(shard(me), B, block_rows=16)
A_ref = np.concatenate([shard(p) for p in range(n)])
ok_ag = np.array_equal(A_all, A_ref) and np.allclose(C, A_ref @ B, rtol=1e-4, atol=1e-4)

W = np.random.default_rng(200).standard_normal((cols, k)).astype(np.float32)
R = symm.fused_matmul_reduce_scatter(C, W)       # C is the same on every PE here
rows = slice(me * m_local, (me + 1) * m_local)
ok_rs = np.allclose(R, n * (C @ W)[rows], rtol=1e-3, atol=1e-3)

print("PE %d of %d: all-gather+matmul %s (%s), matmul+reduce-scatter %s (%s)"
      % (me, n, C.shape, "ok" if ok_ag else "WRONG", R.shape, "ok" if ok_rs else "WRONG"))
sys.exit(0 if ok_ag and ok_rs else 1)
