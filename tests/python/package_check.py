"""The package's shape (issue 48, part 6), checked without a job:
- importing symm, symm.rfc and symm.torch loads no library and changes no
  environment variable;
- no import circle among the package's modules (top-level or inside
  functions), read from their source;
- py.typed is beside the package (PEP 561).
Usage: python3 package_check.py DIR (the directory holding symm/).
Prints "package: ok" or the first problems and exits 1.
"""
import ast
import os
import sys

pkg_root = sys.argv[1]
sys.path.insert(0, pkg_root)
problems = []

before = dict(os.environ)
import symm  # noqa: E402
import symm.rfc  # noqa: E402,F401
try:
    import symm.torch  # noqa: F401
except ImportError:
    pass  # torch not installed: symm.torch is optional
changed = sorted(k for k in set(before) | set(os.environ) if before.get(k) != os.environ.get(k))
if changed:
    problems.append("importing symm changed the environment: %s" % ", ".join(changed))
if symm._lib._loaded:
    problems.append("importing symm loaded %s" % symm._lib._loaded[0][1])

# The import graph of the package's modules, from their source.
mods = {}
for dirpath, _, files in os.walk(os.path.join(pkg_root, "symm")):
    for f in files:
        if f.endswith(".py"):
            path = os.path.join(dirpath, f)
            name = os.path.relpath(path, pkg_root)[:-3].replace(os.sep, ".")
            mods[name[:-9] if name.endswith(".__init__") else name] = path
edges = {m: set() for m in mods}
for m, path in mods.items():
    base = m.split(".") if path.endswith("__init__.py") else m.split(".")[:-1]
    for node in ast.walk(ast.parse(open(path).read())):
        if not isinstance(node, ast.ImportFrom) or node.level == 0:
            continue
        pkg = ".".join(base[:len(base) - (node.level - 1)])
        target = pkg + "." + node.module if node.module else pkg
        names = [target] if node.module and target in mods else []
        names += [target + "." + a.name for a in node.names if target + "." + a.name in mods]
        edges[m].update(n for n in names if n != m)
state = {}


def visit(m, stack):
    state[m] = 1
    stack.append(m)
    for n in sorted(edges[m]):
        if state.get(n) == 1:
            problems.append("import circle: " + " -> ".join(stack[stack.index(n):] + [n]))
        elif n not in state:
            visit(n, stack)
    stack.pop()
    state[m] = 2


for m in sorted(mods):
    if m not in state:
        visit(m, [])
if not os.path.exists(os.path.join(pkg_root, "symm", "py.typed")):
    problems.append("no symm/py.typed")
if problems:
    print("\n".join(problems[:10]))
    sys.exit(1)
print("package: ok (%d modules, no import circle)" % len(mods))
