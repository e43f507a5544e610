"""symm.torch: the torch.distributed backend "symm" (every collective, every
dtype and op it takes, sync and async, send/recv, bad input raising on
every rank) and the DDP hooks (training matches gloo's), checked against
values computed here from every rank's inputs. Runs as torch.distributed
ranks started the torchrun way (tests/python/torchrun_driver.py) and under
oshrun (the process group then made over a FileStore)."""

import hashlib
import os
import tempfile
import time
from datetime import timedelta

import pytest
import torch
import torch.distributed as dist

import symm
import symm.torch as st

if not dist.is_initialized():
    if "RANK" in os.environ:
        dist.init_process_group("symm")
    else:  # under oshrun: symm runs; torch's ranks meet over a file
        key = hashlib.sha256((os.environ.get("SYMM_BOOT_ADDR", "") +
                              os.environ.get("SYMM_JOB_SECRET", "")).encode()).hexdigest()[:16]
        symm.init()
        dist.init_process_group("symm", store=dist.FileStore(
            os.path.join(tempfile.gettempdir(), "symm_test_torch_" + key), symm.n_pes()),
            rank=symm.my_pe(), world_size=symm.n_pes())

ME, N = dist.get_rank(), dist.get_world_size()
R = dist.ReduceOp
FLOATS = [torch.float32, torch.float64, torch.float16, torch.bfloat16]
INTS = [torch.int8, torch.uint8, torch.int16, torch.int32, torch.int64]


def data(rank, n, dtype, salt=0):
    """Rank's input: small integers (exact in every dtype), by rank."""
    v = (torch.arange(n, dtype=torch.int64) * 7 + rank * 3 + salt) % 5 + 1
    if dtype == torch.bool:
        return (v + rank) % 3 == 0
    if dtype in (torch.complex64, torch.complex128):
        return torch.complex(v.double(), (v % 2 - rank).double()).to(dtype)
    return v.to(dtype)


def expected(op, n, dtype):
    """op over every rank's data, in rank order, computed here in float64
    or int64 (bool: logical)."""
    xs = [data(r, n, dtype) for r in range(N)]
    if dtype == torch.bool:
        f = {R.SUM: torch.logical_or, R.MAX: torch.logical_or, R.BOR: torch.logical_or,
             R.PRODUCT: torch.logical_and, R.MIN: torch.logical_and,
             R.BAND: torch.logical_and, R.BXOR: torch.logical_xor}[op]
        acc = xs[0]
        for x in xs[1:]:
            acc = f(acc, x)
        return acc
    wide = torch.complex128 if dtype.is_complex else (
        torch.float64 if dtype.is_floating_point else torch.int64)
    acc = xs[0].to(wide)
    for x in xs[1:]:
        x = x.to(wide)
        acc = {R.SUM: torch.add, R.PRODUCT: torch.mul, R.MIN: torch.minimum,
               R.MAX: torch.maximum, R.BAND: torch.bitwise_and, R.BOR: torch.bitwise_or,
               R.BXOR: torch.bitwise_xor}[op](acc, x)
    return acc.to(dtype)


def ops_of(dtype):
    if dtype == torch.bool or dtype in INTS:
        return [R.SUM, R.PRODUCT, R.MIN, R.MAX, R.BAND, R.BOR, R.BXOR]
    if dtype.is_complex:
        return [R.SUM]  # torch.distributed allows no other op on complex tensors
    return [R.SUM, R.PRODUCT, R.MIN, R.MAX]


@pytest.mark.parametrize("dtype", FLOATS + INTS + [torch.bool, torch.complex64,
                                                   torch.complex128])
@pytest.mark.parametrize("n", [0, 1, 1001, 70001])
def test_all_reduce(dtype, n):
    for op in ops_of(dtype):
        t = data(ME, n, dtype)
        dist.all_reduce(t, op=op)
        want = expected(op, n, dtype)
        assert torch.equal(t, want), (dtype, n, op, t[:8], want[:8])


def test_all_reduce_avg_and_noncontiguous():
    if hasattr(R, "AVG"):
        t = data(ME, 999, torch.float64)
        dist.all_reduce(t, op=R.AVG)
        want = sum(data(r, 999, torch.float64) for r in range(N)) / N
        assert torch.allclose(t, want)
    m = data(ME, 600, torch.float32).view(20, 30).t()  # not contiguous
    dist.all_reduce(m)
    want = sum(data(r, 600, torch.float32) for r in range(N)).view(20, 30).t()
    assert torch.equal(m, want)


def test_async_many_in_flight():
    ts = [data(ME, 5000 + i, torch.float32, salt=i) for i in range(12)]
    works = [dist.all_reduce(t, async_op=True) for t in ts]
    for w in works:
        w.wait()
    for i, t in enumerate(ts):
        assert torch.equal(t, sum(data(r, 5000 + i, torch.float32, salt=i) for r in range(N)))


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.int64, torch.bool])
def test_broadcast(dtype):
    for root in range(N):
        t = data(ME, 3001, dtype)
        dist.broadcast(t, src=root)
        assert torch.equal(t, data(root, 3001, dtype))


def test_all_gather_both_forms():
    t = data(ME, 777, torch.float16)
    outs = [torch.empty(777, dtype=torch.float16) for _ in range(N)]
    dist.all_gather(outs, t)
    for r in range(N):
        assert torch.equal(outs[r], data(r, 777, torch.float16))
    flat = torch.empty(N * 777, dtype=torch.float16)
    dist._all_gather_base(flat, t)
    assert torch.equal(flat, torch.cat([data(r, 777, torch.float16) for r in range(N)]))


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.int32])
def test_reduce_scatter_both_forms(dtype):
    blk = 513
    ins = [data(ME, blk, dtype, salt=j) for j in range(N)]
    out = torch.empty(blk, dtype=dtype)
    dist.reduce_scatter(out, ins)
    want = sum(data(r, blk, dtype, salt=ME).to(torch.float64) for r in range(N)).to(dtype)
    assert torch.equal(out, want)
    out2 = torch.empty(blk, dtype=dtype)
    dist._reduce_scatter_base(out2, torch.cat(ins))
    assert torch.equal(out2, want)


def test_reduce_gather_scatter():
    for root in range(N):
        t = data(ME, 100, torch.int64)
        dist.reduce(t, dst=root, op=R.MAX)
        if ME == root:
            assert torch.equal(t, expected(R.MAX, 100, torch.int64))
        else:
            assert torch.equal(t, data(ME, 100, torch.int64))  # left as it was
        g = [torch.empty(100, dtype=torch.int64) for _ in range(N)] if ME == root else None
        dist.gather(data(ME, 100, torch.int64), gather_list=g, dst=root)
        if ME == root:
            for r in range(N):
                assert torch.equal(g[r], data(r, 100, torch.int64))
        got = torch.empty(50, dtype=torch.float32)
        sl = [data(j, 50, torch.float32, salt=root) for j in range(N)] if ME == root else None
        dist.scatter(got, scatter_list=sl, src=root)
        assert torch.equal(got, data(ME, 50, torch.float32, salt=root))


def test_all_to_all_single_equal_and_uneven():
    rows = 4 * N
    inp = torch.arange(rows * 3, dtype=torch.float64).view(rows, 3) + 1000 * ME
    out = torch.empty_like(inp)
    dist.all_to_all_single(out, inp)
    for i in range(N):
        want = torch.arange(rows * 3, dtype=torch.float64).view(rows, 3)[4 * ME:4 * ME + 4] \
            + 1000 * i
        assert torch.equal(out[4 * i:4 * i + 4], want)
    # Rank i sends i + j + 1 rows to rank j.
    ins = [i_ + ME + 1 for i_ in range(N)]
    outs = [r + ME + 1 for r in range(N)]
    inp = torch.cat([torch.full((ins[j], 2), float(100 * ME + j)) for j in range(N)])
    out = torch.empty(sum(outs), 2)
    dist.all_to_all_single(out, inp, output_split_sizes=outs, input_split_sizes=ins)
    pos = 0
    for r in range(N):
        assert torch.equal(out[pos:pos + outs[r]], torch.full((outs[r], 2), float(100 * r + ME)))
        pos += outs[r]


def test_all_to_all_list():
    ins = [torch.full((j + 1,), ME * 10 + j, dtype=torch.int32) for j in range(N)]
    outs = [torch.empty(ME + 1, dtype=torch.int32) for _ in range(N)]
    dist.all_to_all(outs, ins)
    for r in range(N):
        assert torch.equal(outs[r], torch.full((ME + 1,), r * 10 + ME, dtype=torch.int32))


def test_barrier():
    dist.barrier()


@pytest.mark.parametrize("n", [0, 5, 300000])
def test_send_recv_ring_both_ways(n):
    if N == 1:
        return
    right, left = (ME + 1) % N, (ME - 1) % N
    a = data(ME, n, torch.float32)
    b = torch.empty(n)
    c = torch.empty(n)
    ws = [dist.isend(a, right), dist.isend(a, left), dist.irecv(b, left), dist.irecv(c, right)]
    for w in ws:
        w.wait()
    assert torch.equal(b, data(left, n, torch.float32))
    assert torch.equal(c, data(right, n, torch.float32))
    if ME == 0:
        dist.send(torch.tensor([42, ME]), 1)
    elif ME == 1:
        t = torch.empty(2, dtype=torch.int64)
        dist.recv(t, 0)
        assert t.tolist() == [42, 0]


def test_bad_input_raises_everywhere_then_works():
    n = 100 if ME != N - 1 else 101
    with pytest.raises(RuntimeError, match="rank %d passed 101 elements" % (N - 1)
                       if N > 1 else "."):
        if N == 1:
            raise RuntimeError("one rank: sizes cannot differ")
        dist.all_reduce(torch.ones(n))
    if N > 1:  # at one rank a sparse all_reduce is simply right
        bad = torch.ones(10).to_sparse() if ME == 0 else torch.ones(10)
        with pytest.raises(RuntimeError, match="a sparse tensor of 10 elements"):
            dist.all_reduce(bad)
    with pytest.raises(RuntimeError, match="reduction op"):
        dist.all_reduce(torch.ones(4), op=R.BAND)  # floats have no bitwise and
    t = torch.ones(10)
    dist.all_reduce(t)
    assert torch.equal(t, torch.full((10,), float(N)))


def test_queued_collective_raises_from_wait_and_group_goes_on():
    # Behind work in flight (as behind a hook's bucket) the handshake is
    # queued too; its error must still reach the caller, from wait().
    eng = dist.distributed_c10d._get_default_group()._eng
    eng.submit(lambda: time.sleep(0.3), False)
    n = 100 if ME != N - 1 else 101
    w = dist.all_reduce(torch.ones(n), async_op=True)
    ok = torch.ones(7)
    w2 = dist.all_reduce(ok, async_op=True)
    if N > 1:
        with pytest.raises(RuntimeError, match="rank %d passed 101 elements" % (N - 1)):
            w.wait()
    else:
        w.wait()
    w2.wait()
    assert torch.equal(ok, torch.full((7,), float(N)))


def _train(hook, group, steps=6, state=None):
    torch.manual_seed(1234)
    model = torch.nn.Sequential(torch.nn.Linear(64, 256), torch.nn.ReLU(),
                                torch.nn.Linear(256, 10))
    ddp = torch.nn.parallel.DistributedDataParallel(model, process_group=group,
                                                    bucket_cap_mb=0.1)
    if hook is not None:
        ddp.register_comm_hook(state, hook)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.05)
    g = torch.Generator().manual_seed(99 + ME)
    losses = []
    for _ in range(steps):
        x = torch.randn(32, 64, generator=g)
        y = torch.randint(0, 10, (32,), generator=g)
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(ddp(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses, [p.detach().clone() for p in model.parameters()]


def test_ddp_matches_gloo():
    gloo = dist.new_group(backend="gloo")
    ref_loss, ref = _train(None, gloo)
    for hook, group in [(None, None), (st.allreduce_hook, None), (st.allreduce_hook, gloo)]:
        loss, params = _train(hook, group)
        assert all(abs(a - b) < 1e-5 for a, b in zip(loss, ref_loss)), (loss, ref_loss)
        for p, q in zip(params, ref):
            assert torch.allclose(p, q, rtol=1e-5, atol=1e-6)
    for hook in (st.fp16_compress_hook, st.bf16_compress_hook):
        loss, params = _train(hook, None)
        assert all(abs(a - b) < 5e-2 for a, b in zip(loss, ref_loss)), (hook, loss, ref_loss)


def test_all_gather_coalesced_pairs_ranks_and_inputs():
    ins = [data(ME, 3, torch.float32), data(ME, 5, torch.float32, salt=1)]
    outs = [[torch.empty(3), torch.empty(5)] for _ in range(N)]
    dist.all_gather_coalesced(outs, ins)
    for r in range(N):
        assert torch.equal(outs[r][0], data(r, 3, torch.float32))
        assert torch.equal(outs[r][1], data(r, 5, torch.float32, salt=1))


def test_recv_errors_reach_the_caller():
    if N == 1:
        return
    if ME == 0:
        dist.send(torch.ones(100), 1)
        dist.send(torch.ones(4), 1, tag=5)
    elif ME == 1:
        with pytest.raises(RuntimeError, match="message has 400 bytes and tag 0, this receive "
                           "200 bytes"):
            dist.recv(torch.empty(50), 0)
        w = dist.irecv(torch.empty(4), 0, tag=6)
        with pytest.raises(RuntimeError, match="tag 5, this receive 16 bytes and tag 6"):
            w.wait()
    dist.barrier()


def test_recv_from_any_source():
    if N == 1:
        return
    if ME == 0:
        seen = set()
        for _ in range(N - 1):
            t = torch.empty(1, dtype=torch.int64)
            src = dist.recv(t)
            assert int(t) == src
            seen.add(src)
        assert seen == set(range(1, N))
    else:
        dist.send(torch.tensor([ME]), 0)
    dist.barrier()


def test_sparse_all_reduce_sums():
    idx = torch.tensor([[ME, (ME + 1) % 7, 6]])
    val = torch.tensor([[1.0, 2.0], [float(ME), 1.0], [0.5, 0.5]])
    t = torch.sparse_coo_tensor(idx, val, (7, 2))
    dist.all_reduce(t)
    want = torch.zeros(7, 2)
    for r in range(N):
        want += torch.sparse_coo_tensor(torch.tensor([[r, (r + 1) % 7, 6]]),
                                        torch.tensor([[1.0, 2.0], [float(r), 1.0], [0.5, 0.5]]),
                                        (7, 2)).to_dense()
    assert torch.equal(t.to_dense(), want)


def _lists():
    """Groups of every shape: pairs, one rank, every rank but one (in
    reverse), overlapping, made in one order on every rank."""
    lists = [[r, r + 1] for r in range(0, N - 1, 2)] + [[N - 1]]
    if N > 2:
        lists += [list(range(N - 1, 0, -1)), [0, N - 1]]
    return lists


def test_subgroups_collectives_and_p2p():
    groups = [(ranks, dist.new_group(ranks)) for ranks in _lists()]
    for ranks, g in groups:
        if ME not in ranks:
            assert g == dist.GroupMember.NON_GROUP_MEMBER
            continue
        ranks = sorted(ranks)
        t = torch.full((1001,), float(ME + 1))
        dist.all_reduce(t, group=g)
        assert torch.equal(t, torch.full((1001,), float(sum(r + 1 for r in ranks))))
        b = torch.arange(10.0) + ME
        dist.broadcast(b, src=ranks[-1], group=g)
        assert torch.equal(b, torch.arange(10.0) + ranks[-1])
        outs = [torch.empty(3) for _ in ranks]
        dist.all_gather(outs, data(ME, 3, torch.float32), group=g)
        for o, r in zip(outs, ranks):
            assert torch.equal(o, data(r, 3, torch.float32))
        if len(ranks) > 1:
            peer = ranks[(ranks.index(ME) + 1) % len(ranks)]
            back = ranks[(ranks.index(ME) - 1) % len(ranks)]
            x = torch.empty(2, dtype=torch.int64)
            w = [dist.isend(torch.tensor([ME, 7]), peer, group=g), dist.irecv(x, back, group=g)]
            for q in w:
                q.wait()
            assert x.tolist() == [back, 7]
        dist.barrier(group=g)
    dist.barrier()


def test_ddp_per_subgroup_with_and_without_the_hook():
    # (torch 1.13's new_subgroups_by_enumeration refuses to run without
    # CUDA; this is what it does: one new_group per list, on every rank.)
    if N < 2:
        return
    halves = [list(range(0, N, 2)), list(range(1, N, 2))]
    made = [dist.new_group(h) for h in halves]
    mine = made[ME % 2]
    ranks = halves[ME % 2]
    gloo_even = dist.new_group(halves[0], backend="gloo")
    gloo_odd = dist.new_group(halves[1], backend="gloo")
    gloo = gloo_even if ME % 2 == 0 else gloo_odd
    assert dist.get_world_size(mine) == len(ranks)
    ref_loss, ref = _train(None, gloo)
    for hook, state in [(None, mine), (st.allreduce_hook, mine)]:
        loss, params = _train(hook, mine, state=state)
        assert all(abs(a - b) < 1e-5 for a, b in zip(loss, ref_loss)), (loss, ref_loss)
        for p, q in zip(params, ref):
            assert torch.allclose(p, q, rtol=1e-5, atol=1e-6)
    dist.barrier()


def test_group_timeout_raises_on_every_rank_naming_who():
    if N == 1:
        return
    g = dist.new_group(list(range(N)), timeout=timedelta(seconds=2))
    late = N - 1
    if ME != late:
        t0 = time.monotonic()
        with pytest.raises(RuntimeError, match=r"all_reduce.*Timed out after 2\.0 s.*rank %d "
                           "did not call" % late):
            dist.all_reduce(torch.ones(3), group=g)
        assert time.monotonic() - t0 < 60  # bounded, not the 30 min default
    dist.barrier()  # the late rank comes after the others gave up
    if ME == late:
        with pytest.raises(RuntimeError, match="the group is aborted.*rank %d did not call"
                           % late):
            dist.all_reduce(torch.ones(3), group=g)
    # The group stays aborted; the default group works on.
    with pytest.raises(RuntimeError, match="aborted"):
        dist.barrier(group=g)
    t = torch.ones(2)
    dist.all_reduce(t)
    assert torch.equal(t, torch.full((2,), float(N)))


def test_barrier_and_monitored_barrier_timeouts():
    if N == 1:
        return
    g = dist.new_group(list(range(N)), timeout=timedelta(seconds=1))
    if ME != 0:
        with pytest.raises(RuntimeError, match="barrier.*rank 0 did not call"):
            dist.barrier(group=g)
    dist.barrier()
    g2 = dist.new_group(list(range(N)))
    if ME != 1:
        with pytest.raises(RuntimeError, match="rank 1 did not call"):
            _monitored(g2, 1.5)
    dist.barrier()


def _monitored(group, secs):
    """monitored_barrier on a symm group, as torch calls it for gloo."""
    opts = dist.BarrierOptions()
    opts.timeout = timedelta(seconds=secs)
    group.monitored_barrier(opts)


def test_a_rank_that_leaves_ends_the_others_wait():
    if N == 1:
        return
    g = dist.new_group(list(range(N)))
    # Uneven inputs: the last rank stops one step early and leaves (as at
    # its exit); the others' extra step raises at once, naming it.
    steps = 3 if ME != N - 1 else 2
    for i in range(steps):
        if i == 2:
            t0 = time.monotonic()
            with pytest.raises(RuntimeError, match="rank %d left the group" % (N - 1)):
                dist.all_reduce(torch.ones(4), group=g)
            assert time.monotonic() - t0 < 60
        else:
            dist.all_reduce(torch.ones(4), group=g)
    if ME == N - 1:
        g._eng.leave("it finished its steps")
    dist.barrier()
