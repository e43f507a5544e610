"""The cost model of the fused operations: which form a call runs.

Three forms compute the same result:
  unfused   the plain pair: all-gather then matmul, or matmul then
            reduce-scatter (symm's collectives);
  stream    fused, blocks put with signals by a CPU stream's thread while
            the caller multiplies;
  inline    fused, the caller issues non-blocking puts with signals itself
            (a network transport moves them while it multiplies; to a mapped
            peer a put is the caller's own memcpy).

Per call the model predicts each form's time from what it measured on
earlier calls of the same shape: the matmul rate (seconds per flop), the
communication time of the plain collective, and for each fused form the
ratio of its measured to its predicted time (which absorbs what the model
leaves out: cache effects, the transport's real overlap). The inputs:

  T_mm   flops x seconds per flop
  T_c    the collective's measured time (unfused calls)
  c      the share of T_c that takes this PE's core away from the matmul:
         copies to mapped peers made by the caller (inline) or by a stream
         thread without a core of its own; over the network, the
         transport's own CPU work (tcp's copies), taken as NET_CPU_SHARE
  B      blocks per PE; each costs a message and a wait (t_blk)

  unfused  T_c + T_mm
  fused    max(T_mm + c T_c, T_c + T_mm (n-1) / (n B)) + B (n-1) t_blk + wake

(the matmul and the communication overlap, the last blocks' work cannot).
The fastest prediction wins; a fused form must beat the unfused one by
MARGIN, so a call is never slower than the plain pair by more than the
model's error, and the measured ratio corrects that error on the next
calls. A shape's first call runs unfused and measures; every RECHECK-th
call runs the form not chosen once more, so a changed machine (another job,
a slower link) is noticed.

Every PE must run the same form with the same blocks: the measurements go
through one max-reduction over TEAM_WORLD per call (which also stands for
the sync the fused forms need before they write into peers' buffers), and
the plan is computed from the reduced values, the same everywhere.
"""

import collections
import os


MARGIN = 0.97          # a fused form must predict <= 0.97 x unfused
RECHECK = 32           # calls between looks at the form not chosen
NET_CPU_SHARE = 0.3    # share of a network transfer's time its CPU work takes
BLOCK_COST_MAPPED = 4e-6
BLOCK_COST_NET = 25e-6
WAKE_SPARE = 50e-6     # waking a stream thread that has a core of its own
WAKE_BUSY = 1e-3       # ... that must take the core from some PE's matmul
BLOCKS = (1, 2, 4, 8, 16, 32)

Plan = collections.namedtuple("Plan", "form blocks block_rows reason predicted")
Plan.__doc__ = """What a fused call ran: form ('unfused', 'stream' or 'inline'),
blocks per PE and rows per block (fused forms), the reason in words, and
the predicted seconds of each form considered (empty on a measuring call)."""


class Shape:
    """What was measured on the calls of one shape (the same on every PE
    once reduced). Rates are the median of the last KEEP reduced
    measurements: a shape's first call pays for cold caches and new
    buffers, and one disturbed call must not move the plan."""

    KEEP = 5

    def __init__(self):
        self.calls = 0
        self._spf = collections.deque(maxlen=self.KEEP)   # seconds per flop
        self._comm = collections.deque(maxlen=self.KEEP)  # unfused communication time
        self._err = {"stream": collections.deque(maxlen=self.KEEP),
                     "inline": collections.deque(maxlen=self.KEEP)}
        self.last = {"unfused": -RECHECK, "stream": -RECHECK, "inline": -RECHECK}
        self.settle()
        # This PE's measurements of the last call, reduced on the next.
        self.pend = [0.0] * 4  # spf, comm, ratio stream, ratio inline

    def settle(self):
        """The medians the plan uses, computed once per call."""
        self.spf = _median(self._spf, 0.0)
        self.comm = _median(self._comm, 0.0)
        self.err = {f: _median(d, 1.0) for f, d in self._err.items()}


def _median(values, empty):
    v = sorted(values)
    if not v:
        return empty
    h = len(v) // 2
    return v[h] if len(v) % 2 else 0.5 * (v[h - 1] + v[h])


_shapes = {}


def shape(key):
    sh = _shapes.get(key)
    if sh is None:
        sh = _shapes[key] = Shape()
    return sh


def forget():
    _shapes.clear()


def spare_core(local_pes):
    """Whether each PE on this node can have a core for a stream thread."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return cores >= 2 * max(1, local_pes)


def agree(sh, reduce_max, facts, ident):
    """One max-reduction over the world of this PE's pending measurements,
    facts (the max of each over PEs is returned) and the call's identity
    (ident: must be equal on every PE). Returns (identity equal everywhere,
    reduced facts); sh takes the reduced measurements."""
    ident = [float(x) for x in ident]
    pend = sh.pend
    k, nf, ni = len(pend), len(facts), len(ident)
    r = reduce_max(pend + list(facts) + ident + [-x for x in ident])
    same = all(r[k + nf + i] == -r[k + nf + ni + i] for i in range(ni))
    spf, comm, rs, ri = r[:k]
    if spf > 0:
        sh._spf.append(spf)
    if comm > 0:
        sh._comm.append(comm)
    for name, ratio in (("stream", rs), ("inline", ri)):
        if ratio > 0:
            sh._err[name].append(ratio)
    sh.settle()
    sh.pend = [0.0] * k
    return same, r[k:k + nf]


def predict(form, sh, flops, n, B, net, spare):
    """Seconds form is predicted to take (before the measured correction)."""
    t_mm = flops * sh.spf
    t_c = sh.comm
    if form == "unfused":
        return t_c + t_mm
    if form == "stream":
        c = NET_CPU_SHARE if net else (0.0 if spare else 1.0)
        wake = WAKE_SPARE if spare else WAKE_BUSY
    else:
        c = NET_CPU_SHARE if net else 1.0
        wake = 0.0
    blk = BLOCK_COST_NET if net else BLOCK_COST_MAPPED
    return (max(t_mm + c * t_c, t_c + t_mm * (n - 1) / (n * B)) + B * (n - 1) * blk + wake)


def choose(sh, want, overlap, rows, block_rows, flops, n, net, spare):
    """The plan of this call. want: 'auto', 'fused' or 'unfused'; overlap:
    True (stream), False (inline) or 'auto'; rows: rows per PE to split;
    block_rows: the caller's, or None."""
    sh.calls += 1
    call = sh.calls
    if n == 1 or rows == 0:
        return Plan("unfused", 1, max(rows, 1), "one PE or no rows: nothing to overlap", {})
    fused_forms = ["stream", "inline"] if overlap == "auto" else (
        ["stream"] if overlap else ["inline"])

    def blocks_of(br):
        return max(1, -(-rows // br))

    cand = []
    if block_rows is not None:
        cand = [(blocks_of(block_rows), block_rows)]
    else:
        seen = set()
        for B in BLOCKS:
            br = max(1, -(-rows // B))
            b = blocks_of(br)
            if b not in seen:
                seen.add(b)
                cand.append((b, br))
    measured = sh.spf > 0 and sh.comm > 0
    if not measured:
        if want == "fused":
            f = fused_forms[0]
            b, br = cand[len(cand) // 2] if block_rows is None else cand[0]
            return Plan(f, b, br, "fused as asked; %s by default (nothing measured yet)" % f, {})
        return Plan("unfused", 1, rows, "first call of this shape: unfused, measuring the "
                    "matmul rate and the communication", {})
    pred = {"unfused": predict("unfused", sh, flops, n, 1, net, spare)}
    best = {}
    for f in fused_forms:
        tb = min(((predict(f, sh, flops, n, b, net, spare) * sh.err[f], b, br)
                  for b, br in cand), key=lambda x: x[0])
        best[f] = tb
        pred[f] = tb[0]
    fbest = min(fused_forms, key=lambda f: best[f][0])
    t_f, b, br = best[fbest]
    t_u = pred["unfused"]
    what = ("matmul %.3g ms, communication %.3g ms, %s, %s"
            % (flops * sh.spf * 1e3, sh.comm * 1e3,
               "peers over the network" if net else "peers mapped",
               "a spare core per PE" if spare else "no spare core"))
    if want == "unfused":
        return Plan("unfused", 1, rows, "unfused as asked", pred)
    if want == "fused":
        return Plan(fbest, b, br, "fused as asked: %s %d blocks predicted %.3g ms (%s)"
                    % (fbest, b, t_f * 1e3, what), pred)
    # auto: the best, with a look at the other now and then.
    if t_f <= MARGIN * t_u:
        if call - sh.last["unfused"] >= RECHECK:
            return Plan("unfused", 1, rows, "recheck: unfused once to measure the "
                        "communication again (%s predicted %.3g ms, unfused %.3g ms)"
                        % (fbest, t_f * 1e3, t_u * 1e3), pred)
        return Plan(fbest, b, br, "%s %d blocks predicted %.3g ms < unfused %.3g ms (%s)"
                    % (fbest, b, t_f * 1e3, t_u * 1e3, what), pred)
    raw = min(predict(f, sh, flops, n, bb, net, spare) for f in fused_forms for bb, _ in cand)
    if raw <= MARGIN * t_u and call - sh.last[fbest] >= RECHECK:
        return Plan(fbest, b, br, "recheck: %s once (the model predicts %.3g ms before its "
                    "measured correction, unfused %.3g ms)" % (fbest, raw * 1e3, t_u * 1e3),
                    pred)
    return Plan("unfused", 1, rows, "unfused predicted %.3g ms <= fused %.3g ms (%s %d blocks; "
                "%s)" % (t_u * 1e3, t_f * 1e3, fbest, b, what), pred)


def record(sh, plan, call_no, t_total, t_mm, flops_mm, t_comm):
    """After a call: this PE's measurements, reduced with the others' on the
    next call. t_mm seconds of flops_mm flops of matmul, t_comm the
    collective's time: from unfused calls only (a fused call's matmul shares
    the core with the transfer; that is the measured ratio's business).
    Fused calls record their time over the model's uncorrected prediction."""
    sh.last[plan.form] = call_no
    if plan.form == "unfused":
        if t_mm > 0 and flops_mm > 0:
            sh.pend[0] = t_mm / flops_mm
        if t_comm > 0:
            sh.pend[1] = t_comm
    else:
        p = plan.predicted.get(plan.form)
        if p:
            ratio = t_total / (p / sh.err[plan.form])
            sh.pend[2 if plan.form == "stream" else 3] = ratio
