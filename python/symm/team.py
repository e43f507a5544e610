"""Teams: TEAM_WORLD, TEAM_SHARED, the teams split from them, and teams
made by their members alone (create_group).

A Team wraps an OpenSHMEM team handle. Splits are collective over the
parent team and return None on PEs that are not members of the new team;
create_group is called by the members only (MPI_Comm_create_group).
Teams die at destroy() or finalize.
"""

from __future__ import annotations

import ctypes
import weakref
from typing import Optional, Sequence, Tuple

from . import _arrays, _lib, rma, runtime
from ._lib import c_int, c_long, c_void_p, fn, state

_live = weakref.WeakSet()


class Team:
    """A team of PEs. Collectives take one (default: TEAM_WORLD)."""

    def __init__(self, handle=None, var=None, name=None):
        self._h = handle
        self._var = var
        self._name = name or "team"
        if var is None:
            _live.add(self)

    @property
    def handle(self) -> int:
        """The C shmem_team_t (an address)."""
        if self._var is not None:
            runtime.ensure()
            return _lib.var_ptr(self._var)
        if self._h is None:
            raise ValueError("symm: %s was destroyed" % self._name)
        return self._h

    @property
    def valid(self) -> bool:
        """True until the team is destroyed (TEAM_WORLD and TEAM_SHARED: always)."""
        return self._var is not None or self._h is not None

    def my_pe(self) -> int:
        """This PE's number in the team."""
        return fn("shmem_team_my_pe", c_int, [c_void_p])(self.handle)

    def n_pes(self) -> int:
        """The number of PEs in the team."""
        return fn("shmem_team_n_pes", c_int, [c_void_p])(self.handle)

    def split_strided(self, start: int, stride: int, size: int) -> Optional[Team]:
        """The team of the parent's PEs start, start+stride, ... (size of
        them). Collective over this team; returns None on non-members."""
        h = self.handle
        start = _arrays.int_arg(start, "split_strided", "start")
        stride = _arrays.int_arg(stride, "split_strided", "stride")
        size = _arrays.int_arg(size, "split_strided", "size")
        new = c_void_p()
        mark = _lib.log_mark()
        rc = fn("shmem_team_split_strided", c_int,
                [c_void_p, c_int, c_int, c_int, c_void_p, c_long, ctypes.POINTER(c_void_p)])(
            h, start, stride, size, None, 0, ctypes.byref(new))
        if rc != 0:
            _lib.fail("split_strided", "cannot split (start %d, stride %d, size %d) of a "
                      "%d-PE team" % (start, stride, size, self.n_pes()), mark)
        if not new.value:
            return None
        return Team(new.value, name="team (%d, %d, %d) of %s" % (start, stride, size,
                                                                   self._name))

    def split_2d(self, xrange: int) -> Tuple[Optional[Team], Optional[Team]]:
        """(x team, y team): the team seen as a grid xrange wide; the x team
        holds this PE's row, the y team its column. Collective."""
        h = self.handle
        xrange = _arrays.int_arg(xrange, "split_2d", "xrange")
        x, y = c_void_p(), c_void_p()
        mark = _lib.log_mark()
        rc = fn("shmem_team_split_2d", c_int,
                [c_void_p, c_int, c_void_p, c_long, ctypes.POINTER(c_void_p), c_void_p, c_long,
                 ctypes.POINTER(c_void_p)])(h, xrange, None, 0, ctypes.byref(x), None, 0,
                                            ctypes.byref(y))
        if rc != 0:
            _lib.fail("split_2d", "cannot split a %d-PE team with xrange %d"
                      % (self.n_pes(), xrange), mark)
        return (Team(x.value, name="x team of %s" % self._name) if x.value else None,
                Team(y.value, name="y team of %s" % self._name) if y.value else None)

    def index(self) -> int:
        """An index the same on every member, unique among the live teams
        of each member (shmemx_team_index): names per-team resources."""
        return fn("shmemx_team_index", c_int, [c_void_p])(self.handle)

    def translate_pe(self, pe: int, dest_team: Optional[Team] = None) -> int:
        """PE pe of this team as numbered in dest_team (default TEAM_WORLD);
        -1 if it is not a member there."""
        pe = _arrays.int_arg(pe, "translate_pe", "pe")
        dest = TEAM_WORLD if dest_team is None else dest_team
        if not isinstance(dest, Team):
            raise TypeError("symm.translate_pe: dest_team must be a symm.Team")
        return fn("shmem_team_translate_pe", c_int, [c_void_p, c_int, c_void_p])(
            self.handle, pe, dest.handle)

    def sync(self) -> None:
        """Meet every PE of the team (no completion of puts)."""
        runtime.ensure("sync")
        if self is TEAM_WORLD:
            fn("shmem_sync_all", None, [])()
            return
        mark = _lib.log_mark()
        if fn("shmem_team_sync", c_int, [c_void_p])(self.handle) != 0:
            _lib.fail("sync", "shmem_team_sync failed", mark)

    def barrier(self) -> None:
        """Complete this PE's puts, then meet every PE of the team."""
        runtime.ensure("barrier")
        if self is TEAM_WORLD:
            fn("shmem_barrier_all", None, [])()
            del rma._nbi_keep[:]
            return
        rma.quiet()
        self.sync()

    def destroy(self) -> None:
        """Release the team (collective over its members)."""
        if self._var is not None:
            raise ValueError("symm.destroy: %s cannot be destroyed" % self._name)
        if self._h is None:
            return
        if state.initialized:
            fn("shmem_team_destroy", None, [c_void_p])(self._h)
        self._h = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.destroy()

    def __eq__(self, other):
        return isinstance(other, Team) and self.valid and other.valid and \
            self.handle == other.handle

    def __hash__(self):
        return id(self) if self._var is None else hash(self._var)

    def __repr__(self):
        if not self.valid:
            return "<symm.Team %s (destroyed)>" % self._name
        if not state.initialized:
            return "<symm.Team %s>" % self._name
        return "<symm.Team %s: PE %d of %d>" % (self._name, self.my_pe(), self.n_pes())


def create_group(pes: Sequence[int], name: Optional[str] = None) -> Team:
    """The team of world PEs pes (in team order), made by those PEs alone:
    every listed PE calls it with the same list, no other PE takes part
    (shmemx_team_create_group). PEs that share two groups make them in the
    same order. Raises SymmError on every member if it cannot be made."""
    pes = [_arrays.int_arg(p, "create_group", "pes[%d]" % i) for i, p in enumerate(pes)]
    arr = (c_int * max(1, len(pes)))(*pes)
    new = c_void_p()
    mark = _lib.log_mark()
    rc = fn("shmemx_team_create_group", c_int,
            [c_void_p, c_int, c_void_p, c_long, ctypes.POINTER(c_void_p)])(
        arr, len(pes), None, 0, ctypes.byref(new))
    if rc != 0 or not new.value:
        _lib.fail("create_group", "cannot make the team of PEs %s" % pes, mark)
    return Team(new.value, name=name or "group %s" % pes)


TEAM_WORLD = Team(var="SHMEM_TEAM_WORLD", name="TEAM_WORLD")
TEAM_SHARED = Team(var="SHMEM_TEAM_SHARED", name="TEAM_SHARED")


def team_arg(team: Optional[Team], routine: str) -> Team:
    """team, or TEAM_WORLD where it is None, checked to be a live symm.Team
    (TypeError or ValueError naming routine otherwise)."""
    if team is None:
        return TEAM_WORLD
    if not isinstance(team, Team):
        raise TypeError("symm.%s: team must be a symm.Team, not %s"
                        % (routine, type(team).__name__))
    if not team.valid:
        raise ValueError("symm.%s: %s was destroyed" % (routine, team._name))
    return team


def _forget_all():
    for t in list(_live):
        t._h = None


state.before_finalize.append(_forget_all)
