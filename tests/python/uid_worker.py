"""One process of a unique-id job (started by uid_driver.py, not by a
launcher): rank 0 makes the id and hands it over in a file; every rank
joins with symm.init(uid=..., rank=..., nranks=...), then checks puts, a
reduction and a fused all-gather+matmul against values computed here.

    python3 uid_worker.py RANK NRANKS UID_FILE
"""

import os
import sys
import time

import numpy as np

import symm


def share_uid(rank, path):
    if rank == 0:
        uid = symm.get_unique_id()
        tmp = "%s.tmp%d" % (path, os.getpid())
        with open(tmp, "wb") as f:
            f.write(uid)
        os.rename(tmp, path)  # the others never see a half-written id
        return uid
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with open(path, "rb") as f:
                return f.read()
        except FileNotFoundError:
            time.sleep(0.01)
    raise SystemExit("rank %d: no unique id in %s" % (rank, path))


def main():
    rank, n, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    assert symm.init_status() == symm.STATUS_NOT_INITIALIZED
    for bad, exc in (((b"short",), ValueError),):
        try:
            symm.init(uid=bad[0], rank=rank, nranks=n)
            raise SystemExit("a short uid was accepted")
        except exc as e:
            assert "unique id has %d" % symm.UNIQUE_ID_SIZE in str(e), e
    try:
        symm.init(rank=rank, nranks=n)
        raise SystemExit("rank without uid was accepted")
    except ValueError:
        pass
    uid = share_uid(rank, path)
    assert len(uid) == symm.UNIQUE_ID_SIZE
    symm.init(uid=uid, rank=rank, nranks=n, timeout=60)
    if rank == 0:
        os.unlink(path)  # everybody has joined, so everybody has read it
    assert symm.init_status() == symm.STATUS_IS_INITIALIZED
    me, npes = symm.my_pe(), symm.n_pes()
    assert (me, npes) == (rank, n), (me, npes)
    right, left = (me + 1) % npes, (me - 1) % npes
    x = symm.zeros(5, np.int64)
    symm.put(x, me * 1000 + np.arange(5), right)
    symm.barrier()
    assert (x == left * 1000 + np.arange(5)).all(), x
    s = symm.full(3, me + 1.0)
    d = symm.zeros(3)
    symm.allreduce(d, s, "sum")
    assert (d == npes * (npes + 1) / 2).all(), d
    a = np.full((2, 3), float(me))
    a_all, c = symm.fused_all_gather_matmul(a, np.ones((3, 4)))
    assert (a_all == np.repeat(np.arange(npes, dtype=float), 2)[:, None]).all()
    assert (c == 3 * a_all[:, :1]).all()
    for arr in (d, s, x):
        symm.free(arr)
    print("rank %d of %d: ok" % (me, npes), flush=True)
    symm.finalize()
    assert symm.init_status() == symm.STATUS_NOT_INITIALIZED
    try:
        symm.init()
        raise SystemExit("init after finalize was accepted")
    except symm.SymmError:
        pass


if __name__ == "__main__":
    main()
