"""symm.rfc (hyper_parallel.core.symmetric_memory): every routine of the
HyperParallel RFC with ints and with 1-element tensors, positional and
keyword, each code value, every dtype class, checked against values
computed here. Runs under oshrun and as torch.distributed ranks (gloo)
started the torchrun way (tests/python/torchrun_driver.py): then the
process group is made here, before symm starts."""

import os
import time

import numpy as np
import pytest
import torch
import torch.distributed as dist

import symm
import symm.rfc as rfc

if "RANK" in os.environ and "SYMM_RANK" not in os.environ and not dist.is_initialized():
    dist.init_process_group(backend="gloo")  # before conftest's symm.init(): symm joins it

import hyper_parallel.core.symmetric_memory as symm_mem  # noqa: E402

RFC_NAMES = ["is_shmem_available", "empty", "rendezvous", "set_signal_pad_size",
             "get_signal_pad_size", "barrier", "shmem_put", "shmem_get", "shmem_wait_for_signal",
             "shmem_put_with_signal", "shmem_signal_op", "shmem_allgather", "shmem_alltoall",
             "fused_all_gather_matmul", "fused_matmul_reduce_scatter"]
DTYPES = [torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.int8, torch.uint8,
          torch.int16, torch.int32, torch.int64]


def i64(v):
    return torch.tensor([v], dtype=torch.int64)


def i32(v):
    return torch.tensor([v], dtype=torch.int32)


def values(dtype, n, base):
    """n distinct values of dtype (exact in every dtype), depending on base."""
    return ((torch.arange(n) + 7 * base) % 100).to(dtype)


def test_names_and_module():
    assert sorted(symm_mem.__all__) == sorted(RFC_NAMES)
    for name in RFC_NAMES:
        assert getattr(symm_mem, name) is getattr(rfc, name)
    assert symm_mem.is_shmem_available() is True
    if dist.is_initialized():  # the torch.distributed start-up: the same rank numbers
        assert (dist.get_rank(), dist.get_world_size()) == (symm.my_pe(), symm.n_pes())


def test_empty(me, npes):
    for shape, want in ((5, (5,)), ((2, 3), (2, 3)), ([4, 1], (4, 1)), (torch.Size([3]), (3,)),
                        ((0,), (0,))):
        t = symm_mem.empty(shape, dtype=torch.float32)
        assert isinstance(t, torch.Tensor) and tuple(t.shape) == want
        assert symm.is_symmetric(t) or t.numel() == 0  # torch gives no address to an empty one
    for dt in DTYPES:
        t = symm_mem.empty((3,), dtype=dt)
        assert t.dtype == dt and symm.is_symmetric(t)
    t = symm_mem.empty(shape=(2,), dtype=torch.int32, device="cpu")
    assert t.dtype == torch.int32
    with pytest.raises(ValueError, match="device 'npu'"):
        symm_mem.empty((2,), dtype=torch.float32, device="npu")


@pytest.mark.parametrize("form", ["int", "tensor", "scalar_tensor", "keyword"])
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_put_get(me, npes, form, dtype):
    """Elements [3, 8) of the source into [2, 7) of the right neighbour's
    target; then a get of them back from there."""
    right, left = (me + 1) % npes, (me - 1) % npes
    target = symm_mem.empty((16,), dtype=dtype)
    target.zero_()
    symm_mem.barrier()
    src = values(dtype, 16, me)
    conv = {"int": int, "tensor": i64, "scalar_tensor": lambda v: torch.tensor(v),
            "keyword": int}[form]
    if form == "keyword":
        symm_mem.shmem_put(target_rank=right, size=5, src_offset=3, src=src, target_offset=2,
                           target=target)
    else:
        symm_mem.shmem_put(target, conv(2), src, conv(3), conv(5), conv(right))
    symm_mem.barrier()
    want = torch.zeros(16, dtype=dtype)
    want[2:7] = values(dtype, 16, left)[3:8]
    assert torch.equal(target, want)
    got = torch.full((10,), 99).to(dtype)
    if form == "keyword":
        symm_mem.shmem_get(target=got, target_offset=1, src=target, src_offset=2, size=5,
                           target_rank=right)
    else:
        symm_mem.shmem_get(got, conv(1), target, conv(2), conv(5), conv(right))
    want = torch.full((10,), 99).to(dtype)
    want[1:6] = src[3:8]  # right's target holds what I put there
    assert torch.equal(got, want)
    symm_mem.barrier()


def test_put_zero_size_and_2d(me, npes):
    right = (me + 1) % npes
    t = symm_mem.empty((3, 4), dtype=torch.float32)
    t.fill_(-1)
    symm_mem.barrier()
    symm_mem.shmem_put(t, 12, torch.ones(4), 4, 0, right)  # nothing, at the very end
    symm_mem.shmem_put(t, 4, torch.arange(8, dtype=torch.float32), 0, 8, right)  # rows 1-2
    symm_mem.barrier()
    want = torch.cat([torch.full((4,), -1.0), torch.arange(8, dtype=torch.float32)]).reshape(3, 4)
    assert torch.equal(t, want)


def test_signal_op_codes(me, npes):
    """SET and ADD with each value sign; waits with each comparison (the
    RFC's own signal test)."""
    right, left = (me + 1) % npes, (me - 1) % npes
    sig = symm_mem.empty((6,), dtype=torch.int32)
    sig.zero_()
    symm_mem.barrier()
    symm_mem.shmem_signal_op(sig, i64(0), i32(1), 0, right)
    symm_mem.shmem_signal_op(sig, 1, 1, 1, right)
    symm_mem.shmem_signal_op(sig, i64(2), i32(-1), signal_op=0, target_rank=right)
    symm_mem.shmem_signal_op(signal=sig, signal_offset=3, signal_value=-1, signal_op=1,
                             target_rank=i64(right))
    symm_mem.shmem_signal_op(sig, torch.tensor(4), torch.tensor(2, dtype=torch.int32), 0, right)
    symm_mem.shmem_signal_op(sig, 5, 2, rfc.SIGNAL_ADD, right)
    symm_mem.shmem_wait_for_signal(sig, sig, i64(0), i32(1), 0)
    symm_mem.shmem_wait_for_signal(sig, sig, 1, 1, compare_op=0)
    symm_mem.shmem_wait_for_signal(sig, sig, i64(2), i32(0), 2)
    symm_mem.shmem_wait_for_signal(depend_tensor=sig, signal=sig, signal_offset=3, compare_value=0,
                                   compare_op=2)
    symm_mem.shmem_wait_for_signal(sig, sig, 4, 1, 1)
    symm_mem.shmem_wait_for_signal(None, sig, i64(5), i32(1), rfc.COMPARE_GT)
    assert sig.tolist() == [1, 1, -1, -1, 2, 2]
    symm_mem.barrier()
    # ADD accumulates: every rank adds its rank + 1 to rank 0's word.
    sig.zero_()
    symm_mem.barrier()
    symm_mem.shmem_signal_op(sig, 0, me + 1, 1, 0)
    if me == 0:
        symm_mem.shmem_wait_for_signal(sig, sig, 0, npes * (npes + 1) // 2, 0)
        assert int(sig[0]) == npes * (npes + 1) // 2
    symm_mem.barrier()
    del left


@pytest.mark.parametrize("code", [0, 1, 2])
def test_wait_compare_semantics(me, npes, code):
    """EQ waits for equality, GT for strictly greater, LT for strictly
    less: the producer passes through values that must not release the
    waiter (the one it first satisfies is the last, and stays)."""
    right = (me + 1) % npes
    sig = symm_mem.empty((1,), dtype=torch.int32)
    start = {0: 0, 1: 5, 2: 10}[code]
    sig.fill_(start)
    symm_mem.barrier()
    steps = {0: [1, 2, 3], 1: [5, 5, 6], 2: [10, 10, 3]}[code]
    for v in steps:
        symm_mem.shmem_signal_op(sig, 0, v, 0, right)
        time.sleep(0.02)
    compare = {0: 3, 1: 5, 2: 10}[code]
    symm_mem.shmem_wait_for_signal(sig, sig, 0, compare, code)
    assert int(sig[0]) == steps[-1]
    symm_mem.barrier()


@pytest.mark.parametrize("form", ["int", "tensor", "keyword"])
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32, torch.int64],
                         ids=str)
def test_put_with_signal(me, npes, form, dtype):
    """Every rank puts its chunk into rank 0's buffer with ADD 1 on rank
    0's signal; rank 0 sees all data once the signal reaches world_size.
    Then a SET ring."""
    chunk = 6
    buf = symm_mem.empty((npes * chunk,), dtype=dtype)
    buf.zero_()
    sig = symm_mem.empty((2,), dtype=torch.int32)
    sig.zero_()
    symm_mem.barrier()
    src = values(dtype, chunk + 2, me)
    if form == "int":
        symm_mem.shmem_put_with_signal(buf, me * chunk, src, 2, chunk, sig, 0, 1, 1, 0)
    elif form == "tensor":
        symm_mem.shmem_put_with_signal(buf, i64(me * chunk), src, i64(2), i64(chunk), sig, i64(0),
                                       i32(1), 1, i64(0))
    else:
        symm_mem.shmem_put_with_signal(target=buf, target_offset=me * chunk, src=src, src_offset=2,
                                       size=chunk, signal=sig, signal_offset=0, signal_value=1,
                                       signal_op=1, target_rank=0)
    if me == 0:
        symm_mem.shmem_wait_for_signal(buf, sig, 0, npes, 0)
        want = torch.cat([values(dtype, chunk + 2, r)[2:] for r in range(npes)])
        assert torch.equal(buf, want)
    symm_mem.barrier()
    right, left = (me + 1) % npes, (me - 1) % npes
    symm_mem.shmem_put_with_signal(buf, 0, src, 0, chunk, sig, 1, 7, 0, right)
    symm_mem.shmem_wait_for_signal(buf, sig, 1, 7, 0)
    assert torch.equal(buf[:chunk], values(dtype, chunk + 2, left)[:chunk])
    # Size 0: only the signal.
    symm_mem.barrier()
    symm_mem.shmem_put_with_signal(buf, npes * chunk, src, 0, 0, sig, 1, 8, 0, right)
    symm_mem.shmem_wait_for_signal(buf, sig, 1, 8, 0)
    symm_mem.barrier()


def test_bad_arguments(me, npes):
    """Local mistakes raise at once, naming the routine and the value."""
    t = symm_mem.empty((8,), dtype=torch.float32)
    sig = symm_mem.empty((2,), dtype=torch.int32)
    src = torch.zeros(8)
    with pytest.raises(symm.SymmError, match=r"symm\.rfc\.shmem_put: target_rank 9 outside "
                       r"\[0,%d\)" % npes) as e:
        symm_mem.shmem_put(t, 0, src, 0, 4, 9)
    assert isinstance(e.value, ValueError)
    with pytest.raises(ValueError, match=r"shmem_get: target_rank -1 outside"):
        symm_mem.shmem_get(src, 0, t, 0, 4, -1)
    with pytest.raises(TypeError, match=r"shmem_put: target_offset is a float32 tensor"):
        symm_mem.shmem_put(t, torch.tensor([1.0]), src, 0, 4, 0)
    with pytest.raises(ValueError, match=r"shmem_put: size is a tensor of 2 elements"):
        symm_mem.shmem_put(t, 0, src, 0, torch.tensor([1, 2]), 0)
    with pytest.raises(ValueError, match=r"shmem_put: target_offset 6 \+ size 4 runs past "
                       r"target's 8 elements"):
        symm_mem.shmem_put(t, 6, src, 0, 4, 0)
    with pytest.raises(ValueError, match=r"shmem_put: src_offset -1 is negative"):
        symm_mem.shmem_put(t, 0, src, -1, 4, 0)
    with pytest.raises(ValueError, match=r"shmem_put: target is not in symmetric memory"):
        symm_mem.shmem_put(torch.zeros(8), 0, src, 0, 4, 0)
    with pytest.raises(ValueError, match=r"shmem_get: src is not in symmetric memory"):
        symm_mem.shmem_get(t, 0, src, 0, 4, 0)
    with pytest.raises(TypeError, match=r"shmem_put: src has dtype float16, target has dtype "
                       r"float32"):
        symm_mem.shmem_put(t, 0, src.half(), 0, 4, 0)
    with pytest.raises(TypeError, match=r"shmem_put: target_rank must be an int"):
        symm_mem.shmem_put(t, 0, src, 0, 4, "1")
    with pytest.raises(TypeError, match=r"shmem_signal_op: signal has dtype int64; signals are "
                       r"int32"):
        symm_mem.shmem_signal_op(symm_mem.empty((2,), dtype=torch.int64), 0, 1, 0, 0)
    with pytest.raises(ValueError, match=r"shmem_signal_op: signal_op 2 is not 0 \(SET\) or 1"):
        symm_mem.shmem_signal_op(sig, 0, 1, 2, 0)
    with pytest.raises(ValueError, match=r"shmem_signal_op: signal_offset 2 outside signal's 2"):
        symm_mem.shmem_signal_op(sig, 2, 1, 0, 0)
    with pytest.raises(ValueError, match=r"shmem_signal_op: signal_value 4294967296 does not fit"):
        symm_mem.shmem_signal_op(sig, 0, 1 << 32, 0, 0)
    with pytest.raises(ValueError, match=r"shmem_wait_for_signal: compare_op 3 is not 0 \(EQ\), "
                       r"1 \(GT\) or 2 \(LT\)"):
        symm_mem.shmem_wait_for_signal(t, sig, 0, 1, 3)
    with pytest.raises(ValueError, match=r"shmem_put_with_signal: signal_offset 5 outside"):
        symm_mem.shmem_put_with_signal(t, 0, src, 0, 4, sig, 5, 1, 0, 0)
    with pytest.raises(TypeError, match=r"empty: shape must be an int or a sequence"):
        symm_mem.empty("x", dtype=torch.float32)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32, torch.int32,
                                   torch.uint8], ids=str)
def test_allgather(me, npes, dtype):
    inp = values(dtype, 6, me).reshape(2, 3)              # a plain tensor
    out = symm_mem.empty((npes * 2, 3), dtype=dtype)
    symm_mem.shmem_allgather(out, inp)
    want = torch.cat([values(dtype, 6, r).reshape(2, 3) for r in range(npes)])
    assert torch.equal(out, want)
    plain = torch.zeros(npes * 6, dtype=dtype)           # a private output works too
    symm_mem.shmem_allgather(output_tensor=plain, input_tensor=inp)
    assert torch.equal(plain, want.reshape(-1))


def test_allgather_mismatch_raises_everywhere(me, npes):
    out = symm_mem.empty((npes * 4,), dtype=torch.float32)
    n_in = 4 if me != 0 else (3 if npes > 1 else 5)
    with pytest.raises(symm.SymmError) as e:
        symm_mem.shmem_allgather(out, torch.zeros(n_in))
    msg = str(e.value)
    if me == 0:
        assert "output_tensor has %d elements, need world_size %d x input_tensor's %d" % (
            npes * 4, npes, n_in) in msg, msg
    else:
        assert "rank 0 rejected its arguments" in msg, msg
    # Ranks that disagree in sizes with each one's arguments good on its own.
    if npes > 1:
        out2 = symm_mem.empty((npes * 4,), dtype=torch.float32)
        with pytest.raises(symm.SymmError, match="the ranks disagree on input_tensor's size"):
            size = 4 if me else 2
            symm_mem.shmem_allgather(out2 if me else torch.zeros(npes * 2), torch.zeros(size))
    symm_mem.barrier()


def alltoall_counts(npes, salt):
    """count[i][j]: elements rank i sends to rank j; zeros included."""
    return [[(i + 2 * j + salt) % 3 for j in range(npes)] for i in range(npes)]


def payload(i, j, cnt, dtype):
    return ((torch.arange(cnt) + 10 * i + 3 * j) % 120).to(dtype)


@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.bfloat16, torch.float16],
                         ids=str)
def test_alltoall_uneven(me, npes, dtype):
    """Variable sizes (zeros among them), receive_list as a list and as a
    tensor, three calls in a row on the same buffers."""
    cap = max(sum(alltoall_counts(npes, s)[i][me] for i in range(npes))
              for s in range(3) for me in range(npes)) + 2
    recv = symm_mem.empty((cap,), dtype=dtype)
    for salt in range(3):
        cnt = alltoall_counts(npes, salt)
        recv.fill_(-1)
        symm_mem.barrier()
        sends = [payload(me, j, cnt[me][j], dtype) for j in range(npes)]
        rl = [cnt[i][me] for i in range(npes)]
        if salt == 1:
            rl = torch.tensor(rl, dtype=torch.int64)
        symm_mem.shmem_alltoall(sends, recv, rl)
        got = torch.cat([payload(i, me, cnt[i][me], dtype) for i in range(npes)])
        total = got.numel()
        assert torch.equal(recv[:total], got), (recv, got)
        assert torch.equal(recv[total:], torch.full((cap - total,), -1).to(dtype))


def test_alltoall_rfc_example(me, npes):
    """The RFC document's example, with receive_list in elements."""
    send_list = [torch.full((2, 3), float(10 * me + j)) for j in range(npes)]
    recv = symm_mem.empty((2 * npes, 3), dtype=torch.float32)
    symm_mem.shmem_alltoall(send_list, recv, [2 * 3] * npes)
    want = torch.cat([torch.full((2, 3), float(10 * i + me)) for i in range(npes)])
    assert torch.equal(recv, want)
    # All empty.
    symm_mem.shmem_alltoall(send_tensor_list=[torch.zeros(0)] * npes, receive_tensor=recv,
                            receive_list=[0] * npes)


def test_alltoall_bad_sizes_raise_everywhere(me, npes):
    recv = symm_mem.empty((2 * npes,), dtype=torch.float32)
    sends = [torch.zeros(2) for _ in range(npes)]
    # Counted in bytes, as the RFC's document does: every rank says so.
    with pytest.raises(ValueError, match="counts elements, not bytes"):
        symm_mem.shmem_alltoall(sends, recv, [8] * npes)
    # One rank's receive_list is short: it says why, the others that it refused.
    rl = [2] * npes if me != npes - 1 else [2] * (npes + 1)
    with pytest.raises(symm.SymmError) as e:
        symm_mem.shmem_alltoall(sends, recv, rl)
    if me == npes - 1:
        assert "receive_list has %d entries, world_size is %d" % (npes + 1, npes) in str(e.value)
    else:
        assert "rank %d rejected its arguments" % (npes - 1) in str(e.value)
    # A sender whose tensor is not what its receiver expects.
    bad = [torch.zeros(3 if (me == 0 and j == npes - 1) else 2) for j in range(npes)]
    with pytest.raises(symm.SymmError) as e:
        symm_mem.shmem_alltoall(bad, recv, [2] * npes)
    if me == 0:
        assert "send_tensor_list[%d] has 3 elements, rank %d expects 2" % (npes - 1, npes - 1) \
            in str(e.value)
    else:
        assert "rank 0 rejected" in str(e.value)
    with pytest.raises(TypeError, match="send_tensor_list.0. has dtype int64, receive_tensor"):
        symm_mem.shmem_alltoall([torch.zeros(2, dtype=torch.int64)] * npes, recv, [2] * npes)
    symm_mem.barrier()


def rank_matrix(r, rows, cols, dtype):
    """Small multiples of 1/4: exact in every float dtype, as are their
    products' sums here."""
    return (((torch.arange(rows * cols) * (r + 3)) % 9 - 4) / 4).reshape(rows, cols).to(dtype)


FLOAT_DTYPES = [torch.float32, torch.float64, torch.float16, torch.bfloat16]


@pytest.mark.parametrize("block_size", [None, 1, 3, "tensor"])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=str)
def test_fused_all_gather_matmul(me, npes, dtype, block_size):
    m, k, n = 5, 4, 3
    a = rank_matrix(me, m, k, dtype)
    b = rank_matrix(99, k, n, dtype)
    gather_out = symm_mem.empty((npes * m, k), dtype=dtype)
    c = symm_mem.empty((npes * m, n), dtype=dtype)
    signal = symm_mem.empty((npes * m,), dtype=torch.int32)
    signal.zero_()
    symm_mem.barrier()
    bs = torch.tensor([2]) if block_size == "tensor" else block_size
    g, mm = symm_mem.fused_all_gather_matmul(a, b, c, gather_out, signal, block_size=bs)
    assert g is gather_out and mm is c
    a_all = torch.cat([rank_matrix(r, m, k, dtype) for r in range(npes)])
    assert torch.equal(g, a_all)
    want = (a_all.double() @ b.double()).to(dtype)   # exact: see rank_matrix
    assert tuple(mm.shape) == (npes * m, n) and mm.dtype == dtype
    assert torch.equal(mm, want), (mm, want)
    # The block counters, in the RFC's layout: one arrival per block.
    br = (2 if block_size == "tensor" else block_size) or max(1, m // min(npes, 4))
    nb = min(-(-m // br), signal.numel() // npes)
    counts = torch.zeros_like(signal)
    counts[:npes * nb] = 1
    assert torch.equal(signal, counts), (signal, counts)
    # Not reset: the counters go on counting, and the result is the same.
    symm_mem.fused_all_gather_matmul(a, b, c, gather_out, signal, block_size=bs)
    assert torch.equal(mm, want) and torch.equal(signal, 2 * counts)


def test_fused_all_gather_matmul_positional_plain_outputs(me, npes):
    """The RFC's positional form with private (non-symmetric) c and
    gather_out; numpy arrays work as well."""
    m, k, n = 3, 2, 4
    a = rank_matrix(me, m, k, torch.float32)
    b = rank_matrix(7, k, n, torch.float32)
    c, g = torch.zeros(npes * m, n), torch.zeros(npes * m, k)
    signal = symm_mem.empty((npes,), dtype=torch.int32)
    symm_mem.fused_all_gather_matmul(a, b, c, g, signal, None)
    a_all = torch.cat([rank_matrix(r, m, k, torch.float32) for r in range(npes)])
    assert torch.equal(g, a_all) and torch.allclose(c, a_all @ b)
    cn, gn = np.zeros((npes * m, n), np.float32), np.zeros((npes * m, k), np.float32)
    symm_mem.fused_all_gather_matmul(a.numpy(), b.numpy(), cn, gn, signal, 2)
    assert (gn == a_all.numpy()).all() and np.allclose(cn, (a_all @ b).numpy())
    c.zero_()
    g2, c2 = symm_mem.fused_all_gather_matmul(a=a, b=b, c=c, gather_out=g, signal=signal,
                                              block_size=torch.tensor(1))
    assert g2 is g and c2 is c and torch.allclose(c, a_all @ b)


@pytest.mark.parametrize("reduce_op", ["sum", "avg", "max", "min"])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=str)
def test_fused_matmul_reduce_scatter(me, npes, dtype, reduce_op):
    mm, k, n = 2 * npes, 3, 4
    x1 = rank_matrix(me, mm, k, dtype)
    x2 = rank_matrix(me + 10, k, n, dtype)
    symm_tensor = symm_mem.empty((mm, n), dtype=dtype)
    signal = symm_mem.empty((npes,), dtype=torch.int32)
    signal.zero_()
    symm_mem.barrier()
    if reduce_op == "sum":
        out = symm_mem.fused_matmul_reduce_scatter(x1, x2, symm_tensor, signal)
    else:
        out = symm_mem.fused_matmul_reduce_scatter(x1=x1, x2=x2, symm_tensor=symm_tensor,
                                                   signal=signal, reduce_op=reduce_op)
    prods = [rank_matrix(r, mm, k, dtype).double() @ rank_matrix(r + 10, k, n, dtype).double()
             for r in range(npes)]
    if reduce_op in ("sum", "avg"):
        full = sum(prods) / (npes if reduce_op == "avg" else 1)
    else:
        full = torch.stack(prods).amax(0) if reduce_op == "max" else torch.stack(prods).amin(0)
    want = full[me * 2:(me + 1) * 2]
    assert isinstance(out, torch.Tensor) and out.dtype == dtype and tuple(out.shape) == (2, n)
    tol = 1e-2 if dtype in (torch.float16, torch.bfloat16) else 1e-6
    assert torch.allclose(out.double(), want, rtol=tol, atol=tol), (out, want)
    # The result is this rank's rows of symm_tensor (a view of it), and the
    # caller's signal counted one block from every rank.
    assert out.data_ptr() == symm_tensor[me * 2].data_ptr()
    assert torch.equal(symm_tensor[me * 2:(me + 1) * 2], out)
    assert torch.equal(signal, torch.ones_like(signal)), signal


def test_fused_bad_arguments_raise_everywhere(me, npes):
    sig = symm_mem.empty((npes,), dtype=torch.int32)
    a = torch.zeros(2, 3, dtype=torch.int32)
    with pytest.raises(TypeError, match=r"fused_all_gather_matmul: a has dtype int32; this "
                       r"routine takes float16, bfloat16, float32, float64"):
        symm_mem.fused_all_gather_matmul(a, torch.zeros(3, 2, dtype=torch.int32),
                                         torch.zeros(2 * npes, 2, dtype=torch.int32),
                                         torch.zeros(2 * npes, 3, dtype=torch.int32), sig)
    # Only the last rank gets c's shape wrong.
    a = torch.zeros(2, 3)
    c_rows = 2 * npes + (1 if me == npes - 1 else 0)
    with pytest.raises(symm.SymmError) as e:
        symm_mem.fused_all_gather_matmul(a, torch.zeros(3, 2), torch.zeros(c_rows, 2),
                                         torch.zeros(2 * npes, 3), sig)
    if me == npes - 1:
        assert "c has shape (%d, 2), need (world_size*m, n) = (%d, 2)" % (c_rows, 2 * npes) \
            in str(e.value)
    else:
        assert "rank %d rejected" % (npes - 1) in str(e.value)
    with pytest.raises(ValueError, match=r"fused_matmul_reduce_scatter: reduce_op 'prod' is "
                       r"not one of sum, avg, max, min"):
        symm_mem.fused_matmul_reduce_scatter(torch.zeros(npes, 2), torch.zeros(2, 2),
                                             symm_mem.empty((npes, 2), dtype=torch.float32), sig,
                                             "prod")
    with pytest.raises(ValueError, match=r"symm_tensor is not in symmetric memory"):
        symm_mem.fused_matmul_reduce_scatter(torch.zeros(npes, 2), torch.zeros(2, 2),
                                             torch.zeros(npes, 2), sig)
    with pytest.raises(ValueError, match=r"signal has 1 elements, need world_size"):
        if npes == 1:
            raise ValueError("signal has 1 elements, need world_size")  # nothing smaller
        symm_mem.fused_matmul_reduce_scatter(torch.zeros(npes, 2), torch.zeros(2, 2),
                                             symm_mem.empty((npes, 2), dtype=torch.float32),
                                             symm_mem.empty((1,), dtype=torch.int32))
    symm_mem.barrier()


def test_rendezvous(me, npes):
    right, left = (me + 1) % npes, (me - 1) % npes
    t = symm_mem.empty((4, 2), dtype=torch.float32)
    t.copy_(torch.arange(8, dtype=torch.float32).reshape(4, 2) + 10 * me)
    groups = [None, "0"] + ([dist.group.WORLD] if dist.is_initialized() else [])
    h = None
    for g in groups:
        h2 = symm_mem.rendezvous(t, g)
        assert h is None or h2 is h  # the same allocation: the same handle
        h = h2
    assert (h.rank, h.world_size) == (me, npes)
    assert len(h.buffer_ptrs) == npes and h.buffer_ptrs[me] == t.data_ptr()
    if os.environ.get("SYMM_TRANSPORT") == "ucx":
        # Every peer through UCX: no copy but mine is mapped here.
        assert all((p is None) == (r != me) for r, p in enumerate(h.buffer_ptrs))
        h.barrier()
        pytest.skip("peers' buffers are not mapped under SYMM_TRANSPORT=ucx")
    assert all(p is not None for p in h.buffer_ptrs)  # one node: every copy is mapped
    assert h.signal_pad_size == symm_mem.get_signal_pad_size() == 2048
    peer = h.get_buffer(right, (4, 2), torch.float32)
    assert torch.equal(peer, torch.arange(8, dtype=torch.float32).reshape(4, 2) + 10 * right)
    assert torch.equal(h.get_buffer(right, 3, torch.float32, storage_offset=5),
                       torch.arange(5, 8, dtype=torch.float32) + 10 * right)
    h.barrier()
    peer[0, 0] = -me  # a store into my right neighbour's copy
    pad = h.get_signal_pad(right)
    assert pad.dtype == torch.int32 and pad.numel() == 512
    pad[me] = me + 1
    h.barrier()
    assert float(t[0, 0]) == -left
    mine = h.get_signal_pad(me)
    assert int(mine[left]) == left + 1 and int(mine.sum()) == left + 1
    with pytest.raises(ValueError, match="run past"):
        h.get_buffer(right, 9, torch.float32)
    symm_mem.set_signal_pad_size(4096)
    h3 = symm_mem.rendezvous(symm_mem.empty((3,), dtype=torch.int64))
    assert h3.signal_pad_size == 4096 and h3 is not h
    symm_mem.set_signal_pad_size(2048)
    with pytest.raises(ValueError, match="rendezvous: tensor is not in symmetric memory"):
        symm_mem.rendezvous(torch.zeros(3))
    h.barrier()


def test_barrier_completes_puts(me, npes):
    right, left = (me + 1) % npes, (me - 1) % npes
    t = symm_mem.empty((1000,), dtype=torch.float64)
    t.zero_()
    symm_mem.barrier()
    for i in range(10):
        symm_mem.shmem_put(t, 100 * i, torch.full((100,), float(me * 10 + i),
                                                  dtype=torch.float64), 0, 100, right)
    symm_mem.barrier()
    want = torch.cat([torch.full((100,), float(left * 10 + i), dtype=torch.float64)
                      for i in range(10)])
    assert torch.equal(t, want)
