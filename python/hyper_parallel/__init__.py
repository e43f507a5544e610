"""A shim installed with symm: only hyper_parallel.core.symmetric_memory,
the HyperParallel symmetric-memory RFC's API, on symm (symm.rfc). It is
not the HyperParallel library; where that is installed, whichever comes
first on sys.path is imported."""
