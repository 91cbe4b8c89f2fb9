"""Architecture rules of ``dptheory``, checked on the source (``ast``) and in a fresh interpreter.

(a) The import graph has no cycle. Every module under ``dptheory/`` is parsed; every ``import`` and
    ``from … import`` counts, at module level and inside functions and classes (an import inside a function
    runs later but still ties the two modules together); imports under ``if TYPE_CHECKING:`` do not (they
    never run). Relative imports are resolved; ``from pkg import name`` is an edge to ``pkg.name`` when that
    is a module, else to ``pkg`` (the package's ``__init__``). Only edges inside ``dptheory`` count.
(b) A paper package (one paper's code: ``dptheory/proactive`` is seed 001, ``dptheory/isrl`` seed 002, and any
    future subpackage listed in ``PAPER_PACKAGES`` or whose docstring starts with "Seed NNN") imports no other
    paper package. What two papers share lives outside them (``dptheory.accounting``, ``dptheory.mechanisms``, …).
(c) ``import dptheory`` is light: in a fresh interpreter it loads none of ``HEAVY`` (sympy, cvxpy,
    matplotlib), and the public names still resolve (lazily): ``dpt.F_inf``, ``dpt.proactive``, ``dpt.isrl``.
"""

from __future__ import annotations

import ast
import functools
import importlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "dptheory"

#: one paper's package each (seed in the comment); subpackages whose docstring starts with "Seed NNN" are added
PAPER_PACKAGES = (
    "dptheory.proactive",  # seed 001
    "dptheory.isrl",  # seed 002
    "dptheory.treeagg",  # seed 000 (when it exists)
    "dptheory.blt",  # seed 003 (when it exists)
)
HEAVY = ("sympy", "cvxpy", "matplotlib")
LAZY_NAMES = ("F_inf", "proactive", "isrl", "blt", "BLT")


def _modules() -> dict[str, Path]:
    """Module name -> file, for every ``.py`` under ``dptheory/``."""
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _is_package(name: str, modules: dict[str, Path]) -> bool:
    return modules[name].name == "__init__.py"


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    """ids of the import nodes under ``if TYPE_CHECKING:`` (or ``typing.TYPE_CHECKING``)."""
    skip = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If):
            t = node.test
            if (isinstance(t, ast.Name) and t.id == "TYPE_CHECKING") or (
                    isinstance(t, ast.Attribute) and t.attr == "TYPE_CHECKING"):
                skip |= {id(n) for stmt in node.body for n in ast.walk(stmt)}
    return skip


def import_graph() -> dict[str, set[str]]:
    """``module -> modules of dptheory it imports`` (see the module docstring for what counts)."""
    modules = _modules()
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        skip = _type_checking_nodes(tree)
        pkg = name if _is_package(name, modules) else name.rpartition(".")[0]
        for node in ast.walk(tree):
            if id(node) in skip:
                continue
            targets = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base_parts = pkg.split(".")
                    base_parts = base_parts[:len(base_parts) - (node.level - 1)]
                    base = ".".join(base_parts + ([node.module] if node.module else []))
                else:
                    base = node.module or ""
                for a in node.names:
                    sub = f"{base}.{a.name}"
                    targets.append(sub if sub in modules else base)
            for t in targets:
                # "import dptheory.x.y" binds dptheory but imports dptheory.x.y; keep the deepest known module
                while t and t not in modules and "." in t:
                    t = t.rpartition(".")[0]
                if t in modules and t != name:
                    graph[name].add(t)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), each sorted."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10 * len(graph) + 100))
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(out)


def _path_in(graph, comp: list[str]) -> str:
    """One closed import path through a cycle, for the message."""
    members, start = set(comp), comp[0]
    path, seen, v = [start], {start}, start
    while True:
        nxt = sorted(w for w in graph[v] if w in members)
        w = next((x for x in nxt if x == start), None) or next((x for x in nxt if x not in seen), nxt[0])
        path.append(w)
        if w == start or w in seen:
            return " -> ".join(path)
        seen.add(w)
        v = w


def paper_packages() -> set[str]:
    modules = _modules()
    found = {p for p in PAPER_PACKAGES if p in modules}
    for name, path in modules.items():
        if path.name == "__init__.py" and name.count(".") == 1:
            doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
            if re.match(r"\s*Seed\s00\d\b", doc):
                found.add(name)
    return found


def _package_of(module: str, packages: set[str]) -> str | None:
    return next((p for p in packages if module == p or module.startswith(p + ".")), None)


def test_import_graph_has_no_cycle():
    graph = import_graph()
    found = cycles(graph)
    assert not found, "import cycles in dptheory (module-level and function-level imports):\n" + "\n".join(
        f"  {{{', '.join(c)}}}: e.g. {_path_in(graph, c)}" for c in found)


def test_paper_packages_do_not_import_each_other():
    graph = import_graph()
    packages = paper_packages()
    assert {"dptheory.proactive", "dptheory.isrl", "dptheory.blt"} <= packages
    bad = sorted(f"{m} imports {t}" for m, targets in graph.items() for t in targets
                 if (pm := _package_of(m, packages)) and (pt := _package_of(t, packages)) and pm != pt)
    assert not bad, ("a paper package imports another one; move what they share out of both "
                     "(e.g. to dptheory.accounting):\n  " + "\n  ".join(bad))


@functools.lru_cache(maxsize=None)
def _fresh_interpreter(code: str) -> dict:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep))
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, f"a fresh `import dptheory` failed:\n{proc.stderr[-3000:]}"
    return json.loads(proc.stdout.strip().splitlines()[-1])


_PROBE = f"""
import json, sys
import dptheory as dpt
loaded = [m for m in {HEAVY!r} if m in sys.modules]
resolved, errors = [], {{}}
for name in {LAZY_NAMES!r}:
    try:
        getattr(dpt, name)
        resolved.append(name)
    except Exception as exc:
        errors[name] = f"{{type(exc).__name__}}: {{exc}}"
print(json.dumps({{"file": dpt.__file__, "heavy_after_import": loaded, "resolved": resolved, "errors": errors}}))
"""


def test_import_dptheory_loads_no_heavy_dependency():
    out = _fresh_interpreter(_PROBE)
    assert Path(out["file"]).resolve().is_relative_to(PACKAGE), f"imported {out['file']}, not this checkout"
    assert not out["heavy_after_import"], (f"`import dptheory` loads {out['heavy_after_import']}; import them inside "
                                           "the functions that need them, or load those modules lazily")


def test_public_names_resolve_after_a_light_import():
    out = _fresh_interpreter(_PROBE)
    assert out["resolved"] == list(LAZY_NAMES), f"names that do not resolve on dptheory: {out['errors']}"


@pytest.mark.parametrize("package", ["dptheory", "dptheory.accounting"])
def test_every_lazily_exported_name_is_public_in_its_module(package):
    """The package faces (PEP 562) name each export once, from the module whose ``__all__`` lists it."""
    pkg = importlib.import_module(package)
    for module, names in pkg._EXPORTS.items():
        mod = importlib.import_module(f"{package}.{module}")
        assert set(names) <= set(mod.__all__), (module, set(names) - set(mod.__all__))
        for name in names:
            assert getattr(pkg, name) is getattr(mod, name)
    if package == "dptheory.accounting":  # the accounting face exports every public name of its modules
        assert sorted(pkg.__all__) == sorted(n for m in pkg._EXPORTS for n in importlib.import_module(f"{package}.{m}").__all__)
