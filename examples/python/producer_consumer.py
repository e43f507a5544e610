"""producer_consumer.py - put-with-signal between neighbours.

    oshrun -np 4 python3 examples/python/producer_consumer.py

Every PE produces ROUNDS batches for its right neighbour: it waits until the
neighbour has acknowledged the previous batch, then puts the new batch and
sets the neighbour's "ready" signal in one call (a PE that sees the signal
sees the data). The consumer waits for the signal, checks the batch and
acknowledges by setting its producer's "ack" signal. The same batch buffer
is reused every round; no barrier inside the loop.
"""
import sys

import numpy as np

import symm

ROUNDS, BATCH = 100, 1024
me, n = symm.my_pe(), symm.n_pes()
right, left = (me + 1) % n, (me - 1) % n

batch = symm.zeros(BATCH, np.float32)      # where my left neighbour's batches land
sig = symm.zeros(2, np.uint64)              # [0] ready (set by producer), [1] ack (set by consumer)
bad = 0
for k in range(1, ROUNDS + 1):
    # Producer: my right neighbour consumed batch k-1, so its buffer is free.
    symm.wait_signal(sig, 1, symm.CMP_GE, k - 1)
    data = (me * 1_000_000 + k * 1000 + np.arange(BATCH)).astype(np.float32)
    symm.put_signal(batch, data, sig, 0, k, symm.SIGNAL_SET, right)
    # Consumer: batch k from my left neighbour.
    symm.wait_signal(sig, 0, symm.CMP_GE, k)
    bad += int((batch != left * 1_000_000 + k * 1000 + np.arange(BATCH)).sum())
    symm.signal_op(sig, 1, k, symm.SIGNAL_SET, left)   # acknowledge
symm.barrier()
print("PE %d of %d: %d batches of %d floats from PE %d: %s"
      % (me, n, ROUNDS, BATCH, left, "ok" if bad == 0 else "%d WRONG values" % bad))
symm.free(sig)
symm.free(batch)
sys.exit(0 if bad == 0 else 1)
