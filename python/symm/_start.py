"""How a process joins a job when its program names no unique id: under a
launcher (oshrun, mpirun with PMIx, SYMM_BOOTSTRAP), from torch.distributed
the way the HyperParallel RFC's manager starts CANN SHMEM, or alone.

torch.distributed start-up (the RFC's, with TLS kept on): rank and world
size come from torch.distributed once init_process_group() has run, else
from RANK and WORLD_SIZE. Rank 0 makes a unique id (a random job secret,
which keys the bootstrap's TLS, and PE 0's address: MASTER_ADDR at
MASTER_PORT + 13, the RFC's port; a free port when that one is taken) and
hands it to the other ranks through the torch.distributed store (the
default process group's; without one, a TCPStore rank 0 serves at
MASTER_PORT + 14). Every rank then joins with symm.init(uid=...). The heap
starts at SYMMETRIC_MEMORY_HEAP_SIZE (bytes, or with a K/M/G/T suffix;
default 1 GB as in the RFC; it grows on demand).

Owns only the choice of mode and the hand-over of the id; the job itself
(its watcher: a rank that dies ends the others) is the C library's.

Must never: import torch unless the job needs its store (RANK and
WORLD_SIZE set, no process group: torch's TCPStore), disable TLS, or let
the ranks wait on the store longer than the bootstrap timeout.
"""

import datetime
import errno
import os
import socket
import sys

from ._lib import SymmError

PORT_OFFSET = 13        # the RFC manager's bootstrap port: MASTER_PORT + 13
STORE_PORT_OFFSET = 14  # our TCPStore when torch.distributed is not initialised
UID_KEY = "symm/unique-id"

_SUFFIX = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def heap_size_from_env():
    """SYMMETRIC_MEMORY_HEAP_SIZE in bytes, or None when it is not set."""
    text = os.environ.get("SYMMETRIC_MEMORY_HEAP_SIZE")
    if text is None or text.strip() == "":
        return None
    t = text.strip().upper()
    if t.endswith("B"):
        t = t[:-1]
    unit = t[-1:] if t[-1:] in _SUFFIX and t[-1:] != "" else ""
    try:
        n = int(t[:-1] if unit else t)
    except ValueError:
        n = -1
    if n <= 0:
        raise SymmError("symm: SYMMETRIC_MEMORY_HEAP_SIZE=%r is not a positive size in bytes "
                        "(1073741824, or with a suffix: 1G)" % text)
    return n * _SUFFIX[unit]


def launched():
    """True when a launcher (or SYMM_BOOTSTRAP) tells this process its job."""
    if os.environ.get("SYMM_RANK") or os.environ.get("PMIX_RANK"):
        return True
    boot = os.environ.get("SYMM_BOOTSTRAP", "")
    return boot not in ("", "auto")


def _dist():
    """torch.distributed if the program imported torch, else None."""
    if "torch" not in sys.modules:
        return None
    try:
        import torch.distributed as dist
    except ImportError:  # pragma: no cover - a torch without distributed
        return None
    return dist if dist.is_available() else None


def _env_int(name):
    text = os.environ.get(name)
    if text is None or text == "":
        return None
    try:
        return int(text)
    except ValueError:
        raise SymmError("symm: %s=%r is not an integer" % (name, text))


def torch_world():
    """(rank, world_size, store or None) of a torch.distributed job: from
    the initialised default process group (with its store), else from RANK
    and WORLD_SIZE (store None: one is made); None outside such a job."""
    dist = _dist()
    if dist is not None and dist.is_initialized():
        from torch.distributed import distributed_c10d
        return dist.get_rank(), dist.get_world_size(), distributed_c10d._get_default_store()
    rank, size = _env_int("RANK"), _env_int("WORLD_SIZE")
    if rank is None or size is None:
        return None
    if size < 1 or not 0 <= rank < size:
        raise SymmError("symm: RANK=%d outside [0,%d) (WORLD_SIZE=%d)" % (rank, size, size))
    return rank, size, None


def _timeout():
    text = os.environ.get("SYMM_BOOT_TIMEOUT", "")
    try:
        t = float(text) if text else 120.0
    except ValueError:
        t = 120.0
    return max(1.0, t)


def _master():
    """(MASTER_ADDR, MASTER_PORT) or (None, None)."""
    addr = os.environ.get("MASTER_ADDR") or None
    port = _env_int("MASTER_PORT")
    return (addr, port) if addr and port else (None, None)


def _own_store(rank, size, timeout):
    """A TCPStore served by rank 0 at MASTER_PORT + 14, for jobs started
    the torchrun way that have not called init_process_group."""
    addr, port = _master()
    if addr is None:
        raise SymmError("symm: RANK=%d and WORLD_SIZE=%d are set but MASTER_ADDR and MASTER_PORT "
                        "are not: call torch.distributed.init_process_group() first, or set "
                        "them as torchrun does" % (rank, size))
    try:
        from torch.distributed import TCPStore  # the program may not have imported torch
    except ImportError as e:
        raise SymmError("symm: RANK=%d and WORLD_SIZE=%d are set (a torchrun-style job), but "
                        "torch.distributed, whose store hands over the job's id, cannot be "
                        "imported (%s): start with oshrun, or call symm.init(uid=...)"
                        % (rank, size, e))
    try:
        return TCPStore(addr, port + STORE_PORT_OFFSET, size, rank == 0,
                        datetime.timedelta(seconds=timeout))
    except (RuntimeError, OSError) as e:
        raise SymmError("symm: rank %d cannot reach the start-up store at %s:%d (MASTER_PORT + %d):"
                        " %s" % (rank, addr, port + STORE_PORT_OFFSET, STORE_PORT_OFFSET, e))


def _bind_error(ip, port):
    """None if this host can listen on ip:port, else the OSError."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind((ip, port))
        return None
    except OSError as e:
        return e
    finally:
        s.close()


def _session():
    """The SHMEM_UID_SESSION_ID to make rank 0's id with: MASTER_ADDR at
    MASTER_PORT + 13 when that address is this host's and the port is
    free, else None (symm picks an interface and a free port)."""
    if os.environ.get("SHMEM_UID_SESSION_ID"):
        return None  # the program chose; get_unique_id reads it
    addr, port = _master()
    if addr is None:
        return None
    try:
        ip = socket.gethostbyname(addr)
    except OSError as e:
        sys.stderr.write("symm: MASTER_ADDR %s does not resolve (%s); PE 0 listens on an address "
                         "of its own\n" % (addr, e))
        return None
    p = port + PORT_OFFSET
    if p > 65535:
        sys.stderr.write("symm: MASTER_PORT + %d is past 65535; PE 0 listens on a free port\n"
                         % PORT_OFFSET)
        return "%s:0" % ip
    err = _bind_error(ip, p)
    if err is None:
        return "%s:%d" % (ip, p)
    if err.errno == errno.EADDRNOTAVAIL:
        sys.stderr.write("symm: MASTER_ADDR %s (%s) is not an address of rank 0's host; PE 0 "
                         "listens on an address of its own\n" % (addr, ip))
        return None
    sys.stderr.write("symm: %s:%d (MASTER_ADDR, MASTER_PORT + %d) is not free here (%s); PE 0 "
                     "listens on a free port\n" % (ip, p, PORT_OFFSET, err.strerror or err))
    return "%s:0" % ip


def _make_uid(get_unique_id):
    session = _session()
    old = os.environ.get("SHMEM_UID_SESSION_ID")
    if session is not None:
        os.environ["SHMEM_UID_SESSION_ID"] = session
    try:
        return get_unique_id()
    finally:
        if session is not None:
            if old is None:
                del os.environ["SHMEM_UID_SESSION_ID"]
            else:
                os.environ["SHMEM_UID_SESSION_ID"] = old


def from_torch(rank, size, store, heap_size, get_unique_id, init):
    """Join the torch.distributed job's ranks into one symm job (collective
    over every rank). heap_size: bytes, or None for the environment's.
    get_unique_id and init: symm.runtime's (passed in: runtime calls this
    module, which then imports nothing of the package but _lib)."""
    timeout = _timeout()
    if heap_size is None:
        heap_size = heap_size_from_env()  # None: SHMEM_SYMMETRIC_SIZE, else 1G
    own = None
    if store is None:
        own = store = _own_store(rank, size, timeout)
    if rank == 0:
        try:
            uid = _make_uid(get_unique_id)
        except Exception as e:
            # The others are waiting for the id: tell them why none comes.
            store.set(UID_KEY, b"error:" + str(e).encode("utf-8", "replace"))
            raise
        store.set(UID_KEY, uid)
    else:
        try:
            store.wait([UID_KEY], datetime.timedelta(seconds=timeout))
            uid = store.get(UID_KEY)
        except RuntimeError as e:
            raise SymmError("symm: rank %d of %d got no unique id from rank 0 through the "
                            "torch.distributed store within %g s (SYMM_BOOT_TIMEOUT): %s"
                            % (rank, size, timeout, e))
        if uid.startswith(b"error:"):
            raise SymmError("symm: rank 0 could not start symm, so rank %d cannot: %s"
                            % (rank, uid[6:].decode("utf-8", "replace")))
    init(uid=uid, rank=rank, nranks=size, heap_size=heap_size, timeout=timeout)
    del own  # every rank has joined, so every rank has read the id


def auto(heap_size, get_unique_id, init):
    """Start symm in a process that names no unique id. Returns True when
    it did (from torch.distributed); False: the caller starts it under the
    launcher or as one PE. get_unique_id, init: as for from_torch."""
    if launched():
        return False
    world = torch_world()
    if world is None or world[1] == 1:
        return False
    from_torch(world[0], world[1], world[2], heap_size, get_unique_id, init)
    return True
