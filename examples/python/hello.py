"""hello.py - the first symm program in Python.

    oshrun -np 4 python3 examples/python/hello.py

Every PE writes into its right neighbour's symmetric array with a one-sided
put, then all PEs sum their numbers with an all-reduce. Prints one line per
PE; exits 1 if a value is wrong.
"""
import sys

import numpy as np

import symm

me, n = symm.my_pe(), symm.n_pes()         # starts symm on first use
left = (me - 1) % n

x = symm.zeros(4, np.int64)                # symmetric: exists on every PE
symm.put(x, 100 * me + np.arange(4), (me + 1) % n)   # one-sided write
symm.barrier()                             # puts complete, everyone arrives

mine = symm.full(1, me, np.int64)
total = symm.zeros(1, np.int64)
symm.allreduce(total, mine, "sum")          # every PE gets the sum

ok = (x == 100 * left + np.arange(4)).all() and total[0] == n * (n - 1) // 2
print("PE %d of %d: got %s from PE %d, sum of PE numbers %d: %s"
      % (me, n, x.tolist(), left, total[0], "ok" if ok else "WRONG"))
for a in (total, mine, x):
    symm.free(a)                           # collective, like the allocation
sys.exit(0 if ok else 1)
