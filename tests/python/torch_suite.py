"""PyTorch's own distributed suite (torch.testing._internal.distributed.
distributed_test, DistributedTest._DistTestBase: what torch's
test_distributed_spawn.py runs per backend) against the symm backend.

The suite runs with gloo's skip decisions (BACKEND=gloo: the tests torch
runs for gloo, CPU only) while every init_process_group(backend="gloo") it
makes becomes init_process_group("symm"), so groups made without a backend
are symm's too. Usage (the package on PYTHONPATH, SYMM_LIBRARY set):

    WORLD_SIZE=2 python3 tests/python/torch_suite.py [-k PATTERN ...] [-v]

Each test spawns WORLD_SIZE processes, as for gloo. SYMM_SUITE_BACKEND=gloo
runs the same selection on gloo itself, for the comparison. Torch limits a few
checks to the name "gloo" (monitored_barrier's): those fail by name, not
by behaviour; docs/user-guide/python.md lists what fails and why.
"""

import os
import sys
import tempfile

os.environ.setdefault("BACKEND", "gloo")
os.environ.setdefault("WORLD_SIZE", "2")
os.environ.setdefault("TEMP_DIR", tempfile.mkdtemp(prefix="symm_torch_suite_"))
# Torch's harness writes XML reports when CI is set, through xmlrunner, which
# Debian does not package; the report is of no use here, the exit status is.
os.environ.pop("CI", None)

import types  # noqa: E402
import unittest  # noqa: E402

if "expecttest" not in sys.modules:
    try:
        import expecttest  # noqa: F401
    except ImportError:  # not packaged by Debian: torch's harness needs its TestCase only
        sys.modules["expecttest"] = types.SimpleNamespace(TestCase=unittest.TestCase,
                                                         ACCEPT=False)

import torch.distributed as dist  # noqa: E402

import symm.torch  # noqa: E402,F401  (registers "symm")

_init = dist.init_process_group


def _as_symm(*args, **kwargs):
    if kwargs.get("backend", args[0] if args else None) == "gloo":
        if args:
            args = ("symm",) + tuple(args[1:])
        else:
            kwargs["backend"] = "symm"
    return _init(*args, **kwargs)


if os.environ.get("SYMM_SUITE_BACKEND", "symm") == "symm":
    dist.init_process_group = _as_symm
# else (SYMM_SUITE_BACKEND=gloo): the same tests on gloo itself, to compare.

from torch.testing._internal.common_utils import run_tests  # noqa: E402
from torch.testing._internal.distributed.distributed_test import (  # noqa: E402
    DistributedTest, TestDistBackend)


class TestSymmBackend(TestDistBackend, DistributedTest._DistTestBase):
    def setUp(self):
        super().setUp()
        self._spawn_processes()


if __name__ == "__main__":
    sys.exit(run_tests())
