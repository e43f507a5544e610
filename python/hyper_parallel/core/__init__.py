"""Shim (see hyper_parallel/__init__.py): only symmetric_memory is here."""
