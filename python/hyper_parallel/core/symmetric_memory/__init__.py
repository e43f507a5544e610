"""hyper_parallel.core.symmetric_memory on symm: the HyperParallel
symmetric-memory RFC's API (symm.rfc), so RFC code runs unchanged with
device='cpu'. See symm/rfc.py for the conventions and what differs."""

from symm.rfc import *  # noqa: F401,F403 - the RFC's names, exactly
from symm.rfc import (COMPARE_EQ, COMPARE_GT, COMPARE_LT, SIGNAL_ADD, SIGNAL_SET,  # noqa: F401
                      SymmetricMemoryHandle, __all__)
