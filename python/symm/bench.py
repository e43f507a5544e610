"""Benchmark of the fused operations against their unfused forms.

    oshrun -np 4 python3 -m symm.bench [--ag M,K,N] [--rs M,K,N] [--dtype float64]

All-gather + matmul: each PE holds a (M x K), b is K x N; the result is
(n_pes*M) x N. Matmul + reduce-scatter: each PE holds x ((n_pes*M) x K) and
w (K x N) and ends with its M x N slice of the sum. For each, as the
slowest PE's time of an iteration (median over iterations, or --stat min):
  comm alone        symm.allgather / symm.reduce_scatter alone
  matmul alone      the matmul alone
  unfused           communication then matmul / matmul then communication,
                    written out as a user would
  fused, auto       symm.fused_*() as called by default: the cost model
                    picks the form per call (marked * below: what it ran
                    on the last iteration, and why)
  fused, stream     mode="fused", overlap=True: the puts run on a stream's
                    thread while the caller computes
  fused, inline     mode="fused", overlap=False: the caller issues
                    non-blocking puts, then computes; peers compute on each
                    block as it arrives
  fused, unfused    mode="unfused": the plain pair inside the call
and reports speedup = unfused / that row and the overlap ratio
(comm + matmul - row) / comm: the share of the communication time the row
hid (1: all of it, 0 or less: none). --csv prints the same as CSV rows.

The default shapes give the communication a visible share of the time (on
one machine a put is a memcpy, far faster than numpy's matmul). Overlap
needs a free core for the stream's thread, or a transport that moves data
while the CPU computes (a network link slower than the CPU: see the
fused-operations tables of docs/performance.md for a two-namespace run over
a shaped link).
"""

import argparse
import sys
import time

import numpy as np

import symm


def _timed(fns, iters, warmup, scratch, stat=np.median):
    """{name: median (or stat) over iterations of the slowest PE's time of fn()}. The
    variants take turns within each iteration, so a machine whose speed
    drifts (other jobs, frequency) biases none of them."""
    times = {name: [] for name in fns}
    for i in range(warmup + iters):
        for name, fn in fns.items():
            symm.barrier_all()
            t0 = time.perf_counter()
            fn()
            scratch[0] = time.perf_counter() - t0
            symm.allreduce(scratch[1:2], scratch[0:1], "max")
            if i >= warmup:
                times[name].append(float(scratch[1]))
    return {name: float(stat(v)) for name, v in times.items()}


_FUSED = ("fused, auto", "fused, stream", "fused, inline", "fused, unfused")
_FORM_ROW = {"unfused": "fused, unfused", "stream": "fused, stream", "inline": "fused, inline"}


def _rows(title, t, comm_name, comp_name, unfused_name, plan, csv_rows, op):
    comm, comp, base = t[comm_name], t[comp_name], t[unfused_name]
    out = [title]
    for name in (comm_name, comp_name, unfused_name):
        out.append("  %-30s %10.3f ms" % (name, t[name] * 1e3))
        csv_rows.append((op, name, t[name] * 1e3, "", "", ""))
    chosen = _FORM_ROW.get(plan.form) if plan is not None else None
    for name in _FUSED:
        f = t[name]
        mark = "*" if name == chosen else " "
        out.append("%s %-30s %10.3f ms   speedup %5.2fx   overlap ratio %5.2f"
                   % (mark, name, f * 1e3, base / f, (comm + comp - f) / comm))
        csv_rows.append((op, name, f * 1e3, base / f, (comm + comp - f) / comm,
                         "chosen" if name == chosen else ""))
    if plan is not None:
        out.append("  auto ran: %s, %d block(s) of %d rows: %s"
                   % (plan.form, plan.blocks, plan.block_rows, plan.reason))
    return out


def _fused_fns(call):
    return {
        "fused, auto": lambda: call(mode="auto"),
        "fused, stream": lambda: call(mode="fused", overlap=True),
        "fused, inline": lambda: call(mode="fused", overlap=False),
        "fused, unfused": lambda: call(mode="unfused"),
    }


def run(ag, rs, dtype, iters, warmup, block_rows, stat=np.median):
    me, npes = symm.my_pe(), symm.n_pes()
    dt = np.dtype(dtype)
    rng = np.random.default_rng(me)
    scratch = symm.zeros(2)
    tol = 1e-3 if dt == np.float32 else 1e-10
    csv_rows = []

    # ---- all-gather + matmul ----
    m, k, n = ag
    a = rng.standard_normal((m, k)).astype(dt)
    b = np.random.default_rng(99).standard_normal((k, n)).astype(dt)
    a_sym = symm.like(a)
    g = symm.empty((npes * m, k), dt)
    c = np.empty((npes * m, n), dt)

    def unfused_ag():
        symm.allgather(g, a_sym)
        np.matmul(g, b, out=c)
    fns = {
        "all-gather alone": lambda: symm.allgather(g, a_sym),
        "matmul alone": lambda: np.matmul(g, b, out=c),
        "all-gather, then matmul": unfused_ag,
    }
    fns.update(_fused_fns(lambda **kw: symm.fused_all_gather_matmul(
        a_sym, b, gather_out=g, out=c, block_rows=block_rows, **kw)))
    t = _timed(fns, iters, warmup, scratch, stat)
    fns["fused, auto"]()
    plan = symm.fused_plan()
    a_all, cf = symm.fused_all_gather_matmul(a, b, block_rows=block_rows)
    ok = bool(np.allclose(cf, a_all @ b, rtol=tol, atol=tol))
    ok = ok and bool(np.array_equal(a_all[me * m:(me + 1) * m], a))
    lines = _rows("all-gather + matmul: a %dx%d per PE, b %dx%d -> %dx%d"
                  % (m, k, k, n, npes * m, n), t,
                  "all-gather alone", "matmul alone", "all-gather, then matmul", plan,
                  csv_rows, "all-gather+matmul")
    for x in (g, a_sym):
        symm.free(x)

    # ---- matmul + reduce-scatter ----
    m, k, n = rs
    M = npes * m
    x = rng.standard_normal((M, k)).astype(dt)
    w = np.random.default_rng(98).standard_normal((k, n)).astype(dt)
    p = symm.empty((M, n), dt)
    r = np.empty((m, n), dt)

    def unfused_rs():
        np.matmul(x, w, out=p)
        symm.reduce_scatter(r, p, "sum")
    fns = {
        "matmul alone": lambda: np.matmul(x, w, out=p),
        "reduce-scatter alone": lambda: symm.reduce_scatter(r, p, "sum"),
        "matmul, then reduce-scatter": unfused_rs,
    }
    fns.update(_fused_fns(lambda **kw: symm.fused_matmul_reduce_scatter(
        x, w, out=r, block_rows=block_rows, **kw)))
    t = _timed(fns, iters, warmup, scratch, stat)
    fns["fused, auto"]()
    plan = symm.fused_plan()
    unfused_rs()
    ref = r.copy()
    for kw in ({"mode": "fused", "overlap": True}, {"mode": "fused", "overlap": False},
               {"mode": "unfused"}):
        symm.fused_matmul_reduce_scatter(x, w, out=r, block_rows=block_rows, **kw)
        ok = ok and bool(np.allclose(r, ref, rtol=tol * 10, atol=tol * 10))
    lines += _rows("matmul + reduce-scatter: x %dx%d per PE, w %dx%d -> %dx%d"
                   % (M, k, k, n, m, n), t,
                   "reduce-scatter alone", "matmul alone", "matmul, then reduce-scatter", plan,
                   csv_rows, "matmul+reduce-scatter")
    symm.free(p)
    symm.free(scratch)
    return lines, ok, csv_rows


def _shape(text):
    try:
        m, k, n = (int(v) for v in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError("%r is not M,K,N" % text)
    if min(m, k, n) < 1:
        raise argparse.ArgumentTypeError("%r: sizes must be positive" % text)
    return m, k, n


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python3 -m symm.bench",
                                 description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n", 2)[2])
    ap.add_argument("--ag", type=_shape, default=(512, 4096, 4), metavar="M,K,N",
                    help="all-gather+matmul: a M x K per PE, b K x N (default 512,4096,4)")
    ap.add_argument("--rs", type=_shape, default=(256, 32, 4096), metavar="M,K,N",
                    help="matmul+reduce-scatter: x (n_pes*M) x K, w K x N (default 256,32,4096)")
    ap.add_argument("--dtype", default="float32", choices=["float32", "float64"])
    ap.add_argument("--iters", type=int, default=7)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--block-rows", type=int, default=None,
                    help="rows per block of the fused forms (default: theirs)")
    ap.add_argument("--stat", default="median", choices=["median", "min"],
                    help="statistic over iterations (min: least disturbed by other jobs)")
    ap.add_argument("--quick", action="store_true", help="small sizes, 2 iterations (a smoke test)")
    ap.add_argument("--csv", action="store_true", help="CSV rows instead of the table")
    args = ap.parse_args(argv)
    if args.quick:
        args.ag, args.rs, args.iters, args.warmup = (32, 64, 8), (16, 8, 64), 2, 1
    me, npes = symm.my_pe(), symm.n_pes()
    lines, ok, csv_rows = run(args.ag, args.rs, args.dtype, args.iters, args.warmup,
                              args.block_rows, np.min if args.stat == "min" else np.median)
    if me == 0 and args.csv:
        transport = "network" if symm.fused._layout()[0] else "mapped"
        print("op,row,ms,speedup,overlap_ratio,chosen,pes,peers,dtype")
        for op, name, ms, sp, ov, ch in csv_rows:
            print("%s,%s,%.4f,%s,%s,%s,%d,%s,%s"
                  % (op, name, ms, sp if sp == "" else "%.4f" % sp,
                     ov if ov == "" else "%.4f" % ov, ch, npes, transport, args.dtype))
    elif me == 0:
        print("symm.bench: %d PEs, %s, %s of %d iterations of the slowest PE's time; peers %s"
              % (npes, args.dtype, args.stat, args.iters,
                 "over the network" if symm.fused._layout()[0] else "mapped"))
        print("\n".join(lines))
        print("results checked against numpy: %s" % ("ok" if ok else "WRONG"))
    sys.stdout.flush()
    symm.barrier_all()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
