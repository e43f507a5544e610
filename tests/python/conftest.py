"""Shared fixtures of the symm Python tests.

Every PE runs the same pytest session under oshrun, so every test is
collective: all PEs run the same tests in the same order, and no test is
skipped on only some PEs. A test that fails on one PE ends the whole job at
once (symm.global_exit), instead of leaving its peers waiting in the next
collective until the launcher's timeout.
"""

import sys

import numpy as np
import pytest

import symm


def pytest_runtest_logreport(report):
    if report.failed and symm.initialized():
        sys.stdout.flush()
        sys.stderr.write("FAIL on PE %d of %d: %s (%s)\n%s\n" % (
            symm.my_pe(), symm.n_pes(), report.nodeid, report.when, report.longreprtext))
        sys.stderr.flush()
        symm.global_exit(1)


@pytest.fixture(scope="session", autouse=True)
def _symm_job():
    symm.init()
    yield
    symm.barrier_all()


@pytest.fixture(autouse=True)
def _separate_tests():
    # No test's traffic reaches into the next one.
    symm.barrier_all()
    yield
    symm.barrier_all()


@pytest.fixture
def me():
    return symm.my_pe()


@pytest.fixture
def npes():
    return symm.n_pes()


def gathered(value, dtype=np.int64):
    """Every PE's value (one scalar each), in PE order: for checks that need
    what the others saw."""
    src = symm.full(1, value, dtype=dtype)
    dst = symm.zeros(symm.n_pes(), dtype=dtype)
    symm.allgather(dst, src)
    out = dst.copy()
    symm.free(dst)
    symm.free(src)
    return out
