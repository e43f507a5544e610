"""setuptools hook of the symm package (the metadata is in pyproject.toml).

If SYMM_LIBRARY names libsymm.so when the package is built
(SYMM_LIBRARY=/opt/symm/lib/libsymm.so pip install --no-build-isolation ./python),
the installed package remembers it in symm/_config.py; otherwise symm finds
the library at run time through SYMM_LIBRARY or the loader's search path.
With SYMM_HYPER_PARALLEL=1 the hyper_parallel shim package
(hyper_parallel.core.symmetric_memory, symm.rfc under the HyperParallel RFC's
module name) is installed too; by default only symm is.
"""
import os

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildPy(build_py):
    def run(self):
        super().run()
        lib = os.environ.get("SYMM_LIBRARY")
        if lib and not self.dry_run:
            path = os.path.join(self.build_lib, "symm", "_config.py")
            with open(path, "w") as f:
                f.write("# Written by setup.py: the library this package was built for.\n")
                f.write("LIBRARIES = [%r]\n" % os.path.abspath(lib))


PACKAGES = ["symm", "symm.torch"]
if os.environ.get("SYMM_HYPER_PARALLEL") == "1":
    PACKAGES += ["hyper_parallel", "hyper_parallel.core", "hyper_parallel.core.symmetric_memory"]

setup(cmdclass={"build_py": BuildPy}, packages=PACKAGES)
