"""Symmetric arrays used after symm.finalize() (run under oshrun, any N):
symm's routines raise SymmError (a RuntimeError) naming the routine, the
argument and "used after symm.finalize()"; plain numpy access does not
crash: finalize put fresh zero pages where the heap was, so reads give 0
and writes stick in this process only. Prints one "ok:" line per check;
exits 1 on the first failure."""
import sys

import numpy as np

import symm


def check(cond, what):
    if not cond:
        print("FAIL on PE %d: %s" % (me, what))
        sys.exit(1)
    print("ok: %s" % what)


me, npes = symm.my_pe(), symm.n_pes()
a = symm.zeros(1000, dtype=np.int64)
a[:] = np.arange(1000) + 1000 * me
s = symm.zeros(1, dtype=np.uint64)
view = a[10:20]
peer = symm.peer_array(a, (me + 1) % npes)
freed = symm.zeros(8, dtype=np.int32)
freed[:] = 7
symm.free(freed)  # used after free and finalize: its pages are remapped too
symm.barrier_all()
check(int(peer[5]) == 1000 * ((me + 1) % npes) + 5, "peer_array sees the neighbour before finalize")
local = np.ones(1000, dtype=np.int64)
symm.finalize()


def raises(what, f):
    try:
        f()
    except RuntimeError as e:
        msg = str(e)
        check(isinstance(e, symm.SymmError) and "used after symm.finalize()" in msg
              and what in msg, "%s raises: %s" % (what, msg))
        return
    except Exception as e:  # noqa: BLE001 - anything else is the failure reported
        check(False, "%s raised %s: %s, not SymmError" % (what, type(e).__name__, e))
    check(False, "%s did not raise" % what)


raises("symm.put: target is an array used after", lambda: symm.put(a, local, 0))
raises("symm.get: source is an array used after", lambda: symm.get(local, a, 0))
raises("symm.put: target is an array used after", lambda: symm.put(view, local[:10], 0))
raises("symm.p: target", lambda: symm.p(a, 5, 0))
raises("symm.g: source", lambda: symm.g(a, 0))
raises("symm.atomic_fetch_add: target", lambda: symm.atomic_fetch_add(a, 1, 0))
raises("symm.wait_until: ivars", lambda: symm.wait_until(a, symm.CMP_GE, 0))
raises("symm.signal_fetch: signal", lambda: symm.signal_fetch(s))
raises("symm.broadcast: dest", lambda: symm.broadcast(a, a, 0))
raises("symm.reduce: dest", lambda: symm.reduce(a, a, "sum"))
raises("symm.free: array", lambda: symm.free(a))
raises("symm.peer_array: a", lambda: symm.peer_array(a, 0))
raises("symm.barrier_all: used after", symm.barrier_all)
raises("symm.zeros: used after", lambda: symm.zeros(4))

# Plain numpy: no SIGSEGV; the memory now reads as zeros, writes stay local.
check(int(a.sum()) == 0 and int(view[3]) == 0, "stale array reads zeros (sum %d)" % int(a.sum()))
check(int(peer.sum()) == 0, "a stale peer_array view reads zeros")
a[:] = 42
check(int(a[999]) == 42, "a write to a stale array lands in this process's zero page copy")
check(int(freed[0]) == 0, "an array freed before finalize reads zeros")
check(not symm.is_symmetric(a), "is_symmetric(stale array) is False")
print("after_finalize: PE %d ok" % me)
