"""DDP training throughput, gloo against symm (issue 45's measurement).
One process per rank, started the way torchrun starts them:

    python3 tests/python/torchrun_driver.py 2 /usr/bin/python3 bench/torch_train.py
    python3 tests/python/torchrun_driver.py 4 /usr/bin/python3 bench/torch_train.py --model mlp

(with PYTHONPATH=build/python, or symm installed; bench/torch_netns.sh runs
it across two network namespaces). The default group is the symm backend;
a gloo group of the same ranks is made beside it. Three ways to sync the
gradients take turns, --rounds times, each round --steps steps of each:

- gloo: DDP on the gloo group;
- symm: DDP on the symm backend;
- gloo + hook: DDP on the gloo group with symm.torch.allreduce_hook.

Each way trains its own copy of the model from the same seed on the same
data, so the losses must agree (the largest difference is printed). Rank 0
prints, per way, the median over the rounds of samples/s (every rank's
samples; a round's figure is its steps over their wall time, the first
step of each round left out), the lowest and highest round, and the
median's ratio to gloo's.

Models: --model transformer (default: a 2-layer causal transformer
language model, vocabulary --vocab, width --width, --seq tokens per
sample) or mlp (512-hidden-hidden-10).
"""

import argparse
import statistics
import sys
import time

import torch
import torch.distributed as dist

import symm.torch as st


class TinyLM(torch.nn.Module):
    """Embedding, a causal TransformerEncoder, and a vocabulary head."""

    def __init__(self, vocab, width, layers, seq):
        super().__init__()
        self.emb = torch.nn.Embedding(vocab, width)
        self.pos = torch.nn.Parameter(torch.zeros(seq, width))
        layer = torch.nn.TransformerEncoderLayer(width, max(1, width // 64), 4 * width,
                                                 dropout=0.0, batch_first=True)
        self.body = torch.nn.TransformerEncoder(layer, layers)
        self.head = torch.nn.Linear(width, vocab)
        mask = torch.triu(torch.full((seq, seq), float("-inf")), diagonal=1)
        self.register_buffer("mask", mask)

    def forward(self, x):
        h = self.emb(x) + self.pos[:x.shape[1]]
        return self.head(self.body(h, mask=self.mask))


def make_model(a):
    torch.manual_seed(7)
    if a.model == "mlp":
        return torch.nn.Sequential(torch.nn.Linear(512, a.hidden), torch.nn.ReLU(),
                                   torch.nn.Linear(a.hidden, a.hidden), torch.nn.ReLU(),
                                   torch.nn.Linear(a.hidden, 10))
    return TinyLM(a.vocab, a.width, a.layers, a.seq)


def batches(a, rank):
    """The rank's endless data: the same for every way of syncing."""
    g = torch.Generator().manual_seed(100 + rank)
    while True:
        if a.model == "mlp":
            yield torch.randn(a.batch, 512, generator=g), torch.randint(0, 10, (a.batch,),
                                                                       generator=g)
        else:
            x = torch.randint(0, a.vocab, (a.batch, a.seq + 1), generator=g)
            yield x[:, :-1], x[:, 1:]


class Way:
    """One way of syncing: its DDP model, optimizer, data and results."""

    def __init__(self, name, group, hook, a):
        self.name = name
        self.a = a
        self.ddp = torch.nn.parallel.DistributedDataParallel(make_model(a), process_group=group)
        if hook is not None:
            self.ddp.register_comm_hook(None, hook)
        self.opt = torch.optim.SGD(self.ddp.parameters(), lr=0.01)
        self.data = batches(a, dist.get_rank())
        self.rates, self.losses = [], []

    def step(self):
        x, y = next(self.data)
        self.opt.zero_grad()
        out = self.ddp(x)
        loss = torch.nn.functional.cross_entropy(out.reshape(-1, out.shape[-1]), y.reshape(-1))
        loss.backward()
        self.opt.step()
        self.losses.append(loss.item())

    def round(self):
        dist.barrier()
        self.step()  # the first step of a round is not timed (caches, threads)
        dist.barrier()
        t0 = time.perf_counter()
        for _ in range(self.a.steps):
            self.step()
        dist.barrier()
        dt = time.perf_counter() - t0
        self.rates.append(dist.get_world_size() * self.a.batch * self.a.steps / dt)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", choices=["transformer", "mlp"], default="transformer")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--steps", type=int, default=20, help="timed steps per round and way")
    ap.add_argument("--batch", type=int, default=8, help="samples per rank and step")
    ap.add_argument("--vocab", type=int, default=2048)
    ap.add_argument("--width", type=int, default=128)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--seq", type=int, default=32)
    ap.add_argument("--hidden", type=int, default=2048, help="the MLP's hidden width")
    ap.add_argument("--ways", default="gloo,symm,hook",
                    help="which ways, in turn: gloo, symm, hook (gloo + symm's hook)")
    a = ap.parse_args()
    dist.init_process_group("symm")
    me, n = dist.get_rank(), dist.get_world_size()
    gloo = dist.new_group(backend="gloo")
    table = {"gloo": ("gloo", gloo, None), "symm": ("symm", None, None),
             "hook": ("gloo + hook", gloo, st.allreduce_hook)}
    ways = [Way(*table[w], a) for w in a.ways.split(",")]
    for _ in range(a.rounds):
        for w in ways:
            w.round()
    if me == 0:
        params = sum(p.numel() for p in ways[0].ddp.parameters())
        what = ("MLP 512-%d-%d-10" % (a.hidden, a.hidden) if a.model == "mlp" else
                "transformer LM, %d layers, width %d, vocabulary %d, %d tokens"
                % (a.layers, a.width, a.vocab, a.seq))
        print("# DDP %s (%.1f MiB of gradients), %d ranks, batch %d per rank, %d rounds of %d "
              "steps (torch %s)" % (what, params * 4 / (1 << 20), n, a.batch, a.rounds,
                                    a.steps, torch.__version__))
        print("%-14s %10s %10s %10s %8s %13s" % ("sync", "samples/s", "lowest", "highest",
                                                 "vs gloo", "max |dloss|"))
        ref = statistics.median(ways[0].rates)
        for w in ways:
            med = statistics.median(w.rates)
            d = max(abs(x - y) for x, y in zip(w.losses, ways[0].losses))
            print("%-14s %10.1f %10.1f %10.1f %7.2fx %13.2e" % (w.name, med, min(w.rates),
                                                                max(w.rates), med / ref, d))
    dist.barrier()
    sys.stdout.flush()


if __name__ == "__main__":
    main()
