"""Setup and queries: init (launcher or unique id), finalize, PE numbers.

Owns the transition of this process between "not initialised",
"initialised" and "finalized". Everything else calls ensure() first, so the
first use initialises implicitly (under oshrun, mpirun, as torch.distributed's
ranks through its store (_start.py), or as one PE).
"""

from __future__ import annotations

import ctypes
import numbers
import os
import sys
from typing import Any, NoReturn, Optional, Tuple, Union

from . import _arrays, _lib, _start
from ._lib import SymmError, c_int, c_void_p, fn, state

SHMEM_THREAD_MULTIPLE = 3

# aclshmemx_init_status() values (CANN's).
STATUS_NOT_INITIALIZED = 0
STATUS_SHM_CREATED = 1
STATUS_IS_INITIALIZED = 2

_ACLSHMEMX_INIT_WITH_UNIQUEID = 1 << 3
_UID_INNER_LEN = 124


class _UniqueId(ctypes.Structure):
    _fields_ = [("version", ctypes.c_int32), ("my_pe", c_int), ("n_pes", c_int),
                ("internal", ctypes.c_char * _UID_INNER_LEN)]


class _OptionalAttr(ctypes.Structure):
    _fields_ = [("version", c_int), ("data_op_engine_type", c_int),
                ("shm_init_timeout", ctypes.c_uint32), ("shm_create_timeout", ctypes.c_uint32),
                ("control_operation_timeout", ctypes.c_uint32), ("sockFd", ctypes.c_int32)]


class _InitAttr(ctypes.Structure):
    _fields_ = [("my_pe", c_int), ("n_pes", c_int), ("ip_port", ctypes.c_char * 64),
                ("local_mem_size", ctypes.c_uint64), ("option_attr", _OptionalAttr),
                ("comm_args", c_void_p), ("instance_id", ctypes.c_uint64)]


UNIQUE_ID_SIZE = ctypes.sizeof(_UniqueId)
_UID_VERSION = (1 << 16) + UNIQUE_ID_SIZE
_OPT_VERSION = (1 << 16) + ctypes.sizeof(_OptionalAttr)


def _int_arg(v, routine, name):
    if isinstance(v, bool) or not isinstance(v, numbers.Integral):
        raise TypeError("symm.%s: %s must be an int, not %s" % (routine, name, type(v).__name__))
    return int(v)


def get_unique_id() -> bytes:
    """A unique id for a job whose processes are started by the program's own
    launcher (torchrun, a shell loop, ...): call it in the process that will
    be rank 0, ship the bytes to the other ranks by any means (a file, a
    torch.distributed store), and call init(uid=..., rank=..., nranks=...)
    everywhere. The id holds rank 0's address and a random secret."""
    if state.initialized:
        raise SymmError("symm.get_unique_id: call it before init (this process is PE %d)"
                        % state.my_pe)
    _lib.install_sink()
    uid = _UniqueId()
    uid.version = _UID_VERSION
    mark = _lib.log_mark()
    rc = fn("aclshmemx_get_uniqueid", c_int, [ctypes.POINTER(_UniqueId)])(ctypes.byref(uid))
    if rc != 0:
        _lib.fail("get_unique_id", "aclshmemx_get_uniqueid returned %d" % rc, mark)
    return ctypes.string_at(ctypes.addressof(uid), UNIQUE_ID_SIZE)


def init(uid: Optional[Union[bytes, bytearray, memoryview]] = None, rank: Optional[int] = None,
         nranks: Optional[int] = None, heap_size: Optional[int] = None,
         timeout: Optional[float] = None) -> None:
    """Start symm in this process. Without arguments: join the job of the
    launcher (oshrun, mpirun/srun with PMIx); else, in one of several
    torch.distributed ranks (init_process_group() called, or torchrun's
    RANK and WORLD_SIZE), join those ranks through the torch.distributed
    store (see symm/_start.py); else run as a job of one PE.
    With uid (bytes from get_unique_id), rank and nranks: form a job of
    nranks processes started by any launcher. heap_size: initial symmetric
    heap in bytes (it grows on demand). timeout: seconds the unique-id
    rendezvous may take. A second call while initialised does nothing."""
    with state.lock:
        if state.initialized:
            if uid is not None:
                raise SymmError("symm.init: already initialised (PE %d of %d); finalize first"
                                % (state.my_pe, state.n_pes))
            return
        if state.finalized:
            raise SymmError("symm.init: the library cannot be initialised again after finalize")
        if heap_size is not None:
            heap_size = _int_arg(heap_size, "init", "heap_size")
            if heap_size < 0:
                raise ValueError("symm.init: heap_size %d is negative" % heap_size)
        if uid is None:
            if rank is not None or nranks is not None:
                raise ValueError("symm.init: rank and nranks need a uid (symm.get_unique_id())")
            # Not under a launcher but one of torch.distributed's ranks (an
            # initialised process group, or torchrun's RANK/WORLD_SIZE):
            # the ranks join one job through its store (_start.py).
            if _start.auto(heap_size, get_unique_id, init):
                return
            if heap_size is None:
                heap_size = _start.heap_size_from_env()
            if heap_size:
                os.environ["SHMEM_SYMMETRIC_SIZE"] = str(heap_size)
            _lib.before_init()
            provided = c_int(0)
            rc = fn("shmem_init_thread", c_int, [c_int, ctypes.POINTER(c_int)])(
                SHMEM_THREAD_MULTIPLE, ctypes.byref(provided))
            if rc != 0:
                raise SymmError("symm.init: shmem_init_thread returned %d" % rc)
            state.via_uid = False
        else:
            uid = bytes(uid)
            if len(uid) != UNIQUE_ID_SIZE:
                raise ValueError("symm.init: uid has %d bytes, a unique id has %d (from "
                                 "symm.get_unique_id())" % (len(uid), UNIQUE_ID_SIZE))
            if rank is None or nranks is None:
                raise ValueError("symm.init: a uid needs rank and nranks")
            rank = _int_arg(rank, "init", "rank")
            nranks = _int_arg(nranks, "init", "nranks")
            if not 0 <= rank < nranks:
                raise ValueError("symm.init: rank %d outside [0,%d)" % (rank, nranks))
            u = _UniqueId.from_buffer_copy(uid)
            attr = _InitAttr()
            attr.option_attr.version = _OPT_VERSION
            attr.option_attr.data_op_engine_type = 1
            t = 120 if timeout is None else max(1, int(timeout))
            attr.option_attr.shm_init_timeout = t
            attr.option_attr.shm_create_timeout = t
            attr.option_attr.control_operation_timeout = t
            _lib.before_init()
            mark = _lib.log_mark()
            rc = fn("aclshmemx_set_attr_uniqueid_args", c_int,
                    [c_int, c_int, ctypes.c_int64, ctypes.POINTER(_UniqueId),
                     ctypes.POINTER(_InitAttr)])(rank, nranks, heap_size or 0, ctypes.byref(u),
                                                 ctypes.byref(attr))
            if rc != 0:
                _lib.fail("init", "aclshmemx_set_attr_uniqueid_args returned %d" % rc, mark)
            attr.option_attr.shm_init_timeout = t
            rc = fn("aclshmemx_init_attr", c_int, [c_int, ctypes.POINTER(_InitAttr)])(
                _ACLSHMEMX_INIT_WITH_UNIQUEID, ctypes.byref(attr))
            if rc != 0:
                _lib.fail("init", "aclshmemx_init_attr returned %d" % rc, mark)
            state.via_uid = True
        state.my_pe = fn("shmem_my_pe", c_int, [])()
        state.n_pes = fn("shmem_n_pes", c_int, [])()
        state.initialized = True
        _install_excepthook()


def _install_excepthook():
    """An uncaught exception ends the whole job (as a PE that dies does),
    instead of leaving this PE in finalize's barrier while its peers wait
    for it elsewhere. Not in interactive sessions."""
    if getattr(sys.excepthook, "_symm", False):
        return
    previous = sys.excepthook

    def hook(tp, value, tb):
        previous(tp, value, tb)
        if state.initialized and not hasattr(sys, "ps1") and not sys.flags.interactive:
            sys.stderr.write("symm: uncaught %s on PE %d: ending the job\n"
                             % (tp.__name__, state.my_pe))
            global_exit(1)
    hook._symm = True
    sys.excepthook = hook


def ensure(routine: Optional[str] = None, **arrays: Any) -> None:
    """Initialise on first use; refuse use after finalize, naming the routine
    and, where one of `arrays` (name=array) lived in the released heap, it."""
    if not state.initialized:
        if state.finalized:
            _arrays.check_not_retired(routine, arrays)
            raise SymmError("symm%s: used after symm.finalize(); symm cannot be used again"
                            % ("." + routine if routine else ""))
        init()


def finalize() -> None:
    """End symm in this process (collective: every PE calls it). Streams are
    destroyed, every symmetric array still alive becomes invalid (the heap is
    released). Also runs at exit. A second call does nothing."""
    with state.lock:
        if not state.initialized:
            return
        for hook in list(state.before_finalize):
            try:
                hook()
            except Exception as e:  # pragma: no cover - reported, finalize goes on
                sys.stderr.write("symm.finalize: %s\n" % e)
        spans = _arrays.exposed_spans()
        if state.via_uid:
            fn("aclshmem_finalize", c_int, [])()
        else:
            fn("shmem_finalize", None, [])()
        _arrays.retire(spans)
        state.initialized = False
        state.finalized = True
        _lib.remove_sink()


def initialized() -> bool:
    """True between init and finalize."""
    return state.initialized


def init_status() -> int:
    """STATUS_IS_INITIALIZED or STATUS_NOT_INITIALIZED (aclshmemx_init_status)."""
    return fn("aclshmemx_init_status", c_int, [])()


def my_pe() -> int:
    """This PE's number in the world team (initialises on first use)."""
    ensure()
    return state.my_pe


def n_pes() -> int:
    """The number of PEs of the job (initialises on first use)."""
    ensure()
    return state.n_pes


def global_exit(status: int = 1) -> NoReturn:
    """End the whole job with `status` (every PE). Never returns."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        if state.initialized:
            fn("shmem_global_exit", None, [c_int])(int(status))
        os._exit(int(status))


def wtime() -> float:
    """Seconds since an arbitrary point (monotonic), the C library's clock."""
    return fn("shmemx_wtime", ctypes.c_double, [])()


def heap_size() -> int:
    """Current size of this PE's symmetric heap in bytes (it grows on demand)."""
    ensure()
    return fn("shmemx_heap_size", ctypes.c_size_t, [])()


def heap_free() -> int:
    """Bytes still free in this PE's symmetric heap before it has to grow."""
    ensure()
    return fn("shmemx_heap_free", ctypes.c_size_t, [])()


def info_get_version() -> Tuple[int, int]:
    """(major, minor) of the OpenSHMEM specification implemented."""
    major, minor = c_int(), c_int()
    fn("shmem_info_get_version", None, [ctypes.POINTER(c_int), ctypes.POINTER(c_int)])(
        ctypes.byref(major), ctypes.byref(minor))
    return major.value, minor.value


def info_get_name() -> str:
    """The vendor string of the library, e.g. 'symm 0.1'."""
    buf = ctypes.create_string_buffer(256)
    fn("shmem_info_get_name", None, [ctypes.c_char_p])(buf)
    return buf.value.decode()


_lib.at_exit(finalize)
