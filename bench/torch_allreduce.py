"""torch.distributed all_reduce and DDP training, gloo against symm, side by
side in one run (issue 33's measurement). Run one process per rank, the
way torchrun starts them:

    python3 tests/python/torchrun_driver.py 2 /usr/bin/python3 bench/torch_allreduce.py
    python3 tests/python/torchrun_driver.py 4 /usr/bin/python3 bench/torch_allreduce.py --csv out.csv

(with PYTHONPATH=build/python, or symm installed). The default group is
symm's backend; a gloo group of the same ranks is made beside it. Rank 0
prints, for float32 all_reduce (SUM) of 4 KiB to --max bytes, the median
microseconds of gloo, of the symm backend, and their ratio; then a DDP
training loop of an MLP (--hidden; its gradients are tens of MiB) with
gloo, with gloo plus symm.torch.allreduce_hook, and with the symm backend:
median iteration time, samples/s, and the largest difference of the loss
from gloo's over the steps. --plot FILE.png draws the all_reduce rows
(matplotlib).
"""

import argparse
import statistics
import sys
import time

import torch
import torch.distributed as dist

import symm.torch as st


def timed_all_reduce(t, group, iters):
    out = []
    for _ in range(iters):
        dist.barrier(group=group)
        t0 = time.perf_counter()
        dist.all_reduce(t, group=group)
        out.append(time.perf_counter() - t0)
    return statistics.median(out) * 1e6


def allreduce_rows(gloo, max_bytes):
    rows = []
    nbytes = 4096
    while nbytes <= max_bytes:
        n = nbytes // 4
        t = torch.ones(n)
        iters = 30 if nbytes <= (1 << 20) else (8 if nbytes <= (16 << 20) else 3)
        timed_all_reduce(t, gloo, 2)  # warm both
        timed_all_reduce(t, None, 2)
        g = timed_all_reduce(t, gloo, iters)
        s = timed_all_reduce(t, None, iters)
        rows.append((nbytes, g, s))
        nbytes *= 4
    return rows


def train(group, hook, hidden, steps, batch):
    torch.manual_seed(7)
    model = torch.nn.Sequential(torch.nn.Linear(512, hidden), torch.nn.ReLU(),
                                torch.nn.Linear(hidden, hidden), torch.nn.ReLU(),
                                torch.nn.Linear(hidden, 10))
    ddp = torch.nn.parallel.DistributedDataParallel(model, process_group=group)
    if hook is not None:
        ddp.register_comm_hook(None, hook)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.01)
    g = torch.Generator().manual_seed(100 + dist.get_rank())
    times, losses = [], []
    for _ in range(steps):
        x = torch.randn(batch, 512, generator=g)
        y = torch.randint(0, 10, (batch,), generator=g)
        dist.barrier()
        t0 = time.perf_counter()
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(ddp(x), y)
        loss.backward()
        opt.step()
        times.append(time.perf_counter() - t0)
        losses.append(loss.item())
    grad_mib = sum(p.numel() for p in model.parameters()) * 4 / (1 << 20)
    return statistics.median(times[1:]), losses, grad_mib


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--max", type=int, default=256 << 20, help="largest all_reduce, bytes")
    ap.add_argument("--hidden", type=int, default=2048)
    ap.add_argument("--steps", type=int, default=8)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--csv")
    ap.add_argument("--plot")
    a = ap.parse_args()
    dist.init_process_group("symm")
    me, n = dist.get_rank(), dist.get_world_size()
    gloo = dist.new_group(backend="gloo")
    rows = allreduce_rows(gloo, a.max)
    runs = [("gloo", gloo, None), ("gloo + symm hook", gloo, st.allreduce_hook),
            ("symm backend", None, None)]
    results = [(name,) + train(g, h, a.hidden, a.steps, a.batch) for name, g, h in runs]
    if me == 0:
        print("# all_reduce float32 SUM, %d ranks: median us (torch %s)" % (n, torch.__version__))
        print("%12s %12s %12s %8s" % ("bytes", "gloo", "symm", "gloo/symm"))
        for b, g, s in rows:
            print("%12d %12.1f %12.1f %8.1fx" % (b, g, s, g / s))
        ref = results[0][2]
        print("# DDP, MLP 512-%d-%d-10 (%.1f MiB of gradients), batch %d per rank, %d steps"
              % (a.hidden, a.hidden, results[0][3], a.batch, a.steps))
        print("%-18s %12s %12s %14s" % ("sync", "iter ms", "samples/s", "max |dloss|"))
        for name, it, losses, _ in results:
            d = max(abs(x - y) for x, y in zip(losses, ref))
            print("%-18s %12.1f %12.0f %14.2e" % (name, it * 1e3, n * a.batch / it, d))
        if a.csv:
            with open(a.csv, "w") as f:
                f.write("ranks,bytes,gloo_us,symm_us\n")
                for b, g, s in rows:
                    f.write("%d,%d,%.2f,%.2f\n" % (n, b, g, s))
        if a.plot:
            import matplotlib
            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
            plt.loglog([r[0] for r in rows], [r[1] for r in rows], "o-", label="gloo")
            plt.loglog([r[0] for r in rows], [r[2] for r in rows], "s-", label="symm")
            plt.xlabel("bytes")
            plt.ylabel("median us")
            plt.title("all_reduce float32, %d ranks" % n)
            plt.legend()
            plt.savefig(a.plot)
    dist.barrier()
    sys.stdout.flush()


if __name__ == "__main__":
    main()
