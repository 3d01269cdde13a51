"""The shape of the code: no import cycles, no private names across modules, a clean foundation.

The layers themselves (each imports only the ones below it) are ``lint-imports``'s
contract in ``pyproject.toml``; these tests check what a layers contract cannot see.
An import inside a function counts like one at the top of a module: it ties the
two modules together all the same.
"""

from __future__ import annotations

import ast
import importlib
from collections import deque
from functools import cache
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("kg", "extractors", "queries", "visualizations")
#: What the foundation may not import: everything built on it.
ABOVE_CORE = ("kg.stores", "kg.build", "kg.cli", "extractors", "queries", "visualizations")


@cache
def graph() -> grimp.ImportGraph:
    return grimp.build_graph(*PACKAGES, cache_dir=None)


def strongly_connected(g: grimp.ImportGraph) -> list[list[str]]:
    """Groups of modules that import one another, directly or not (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups = []
    for root in sorted(g.modules):
        if root in index:
            continue
        work = [(root, iter(sorted(g.find_modules_directly_imported_by(root))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            v, edges = work[-1]
            w = next(edges, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(g.find_modules_directly_imported_by(w)))))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                group = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    group.append(w)
                    if w == v:
                        break
                if len(group) > 1 or g.direct_import_exists(importer=v, imported=v):
                    groups.append(sorted(group))
    return sorted(groups)


def shortest_cycle(g: grimp.ImportGraph, start: str, within: set[str]) -> list[str]:
    """The shortest chain of imports from ``start`` back to itself through ``within``."""
    came_from: dict[str, str] = {}
    queue = deque([start])
    while queue:
        v = queue.popleft()
        for w in sorted(g.find_modules_directly_imported_by(v) & within):
            if w == start and (v != start or within == {start}):  # a module importing itself
                chain = [v]
                while chain[-1] != start:
                    chain.append(came_from[chain[-1]])
                return [*reversed(chain), start]
            if w not in came_from:
                came_from[w] = v
                queue.append(w)
    return [start]


def where(g: grimp.ImportGraph, importer: str, imported: str) -> str:
    """``importer:LINE`` of the first import of ``imported``, for the messages."""
    details = g.get_import_details(importer=importer, imported=imported)
    lines = sorted({d["line_number"] for d in details})
    return f"{importer}:{','.join(map(str, lines))}" if lines else importer


def test_no_import_cycles():
    g = graph()
    cycles = []
    for group in strongly_connected(g):
        chain = shortest_cycle(g, group[0], set(group))
        steps = [f"{where(g, a, b)} -> {b}" for a, b in zip(chain, chain[1:], strict=False)]
        cycles.append(f"{' -> '.join(chain)}\n      " + "\n      ".join(steps)
                      + (f"\n    (a group of {len(group)} modules: {', '.join(group)})"
                         if len(group) > len(chain) - 1 else ""))
    assert not cycles, "import cycles:\n  " + "\n  ".join(cycles)


def test_strongly_connected_finds_a_cycle():
    g = grimp.ImportGraph()
    for m in ("p.a", "p.b", "p.c", "p.d"):
        g.add_module(m)
    g.add_import(importer="p.a", imported="p.b")
    g.add_import(importer="p.b", imported="p.c")
    g.add_import(importer="p.c", imported="p.a")
    g.add_import(importer="p.c", imported="p.d")
    assert strongly_connected(g) == [["p.a", "p.b", "p.c"]]
    assert shortest_cycle(g, "p.b", {"p.a", "p.b", "p.c"}) == ["p.b", "p.c", "p.a", "p.b"]


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def source_files() -> list[Path]:
    return sorted(f for p in PACKAGES for f in (ROOT / p).rglob("*.py"))


def is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def is_module(dotted: str) -> bool:
    """Whether ``dotted`` is a module or package of the repository (not a name in one)."""
    path = ROOT.joinpath(*dotted.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def absolute(node: ast.ImportFrom, importer: str, is_package: bool) -> str:
    """The module a ``from … import`` reads from, relative imports resolved."""
    if not node.level:
        return node.module or ""
    base = importer.split(".")
    if not is_package:
        base.pop()
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def private_imports(path: Path) -> list[str]:
    """``file:line: from x import _name`` for each private name imported from another module."""
    importer = module_name(path)
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom):
            continue
        source = absolute(node, importer, path.name == "__init__.py")
        for alias in node.names:
            if is_private(alias.name) and not is_module(f"{source}.{alias.name}"):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: "
                             f"from {source} import {alias.name}")
    return found


def test_no_private_names_imported_across_modules():
    found = [line for f in source_files() for line in private_imports(f)]
    assert not found, ("private names imported from another module (make them public, "
                       "with a docstring, or move them):\n  " + "\n  ".join(found))


def test_private_imports_are_found_in_relative_imports_too():
    tree = ast.parse("from .networks import _wrap, new_network\nfrom .. import x\n")
    first, second = (n for n in tree.body if isinstance(n, ast.ImportFrom))
    assert absolute(first, "visualizations.bridges", False) == "visualizations.networks"
    assert absolute(second, "kg.stores.out", False) == "kg"
    assert absolute(first, "visualizations", True) == "visualizations.networks"
    assert is_private("_wrap") and not is_private("__version__") and not is_private("wrap")


def test_core_imports_nothing_built_on_it():
    g = graph()
    core = {"kg.core"} | g.find_descendants("kg.core")
    bad = []
    for importer in sorted(core):
        for imported in sorted(g.find_modules_directly_imported_by(importer)):
            if imported.startswith(tuple(f"{p}." for p in ABOVE_CORE)) or imported in ABOVE_CORE:
                bad.append(f"{where(g, importer, imported)} imports {imported}")
    assert not bad, "kg.core imports what is built on it:\n  " + "\n  ".join(bad)


def test_every_package_is_in_the_graph():
    modules = graph().modules
    assert {"kg.core.model", "kg.stores.out", "kg.build", "kg.cli", "extractors.pipeline",
            "queries.engine", "visualizations.views"} <= modules
    assert len(modules) == len(source_files()) - sum(
        1 for f in source_files() if not (f.parent / "__init__.py").is_file())


#: Modules that must say what they export (``__all__``): the foundation, the stores,
#: the composition root and the pages.
WITH_ALL = ("kg.core", "kg.stores", "kg.cli", "kg.build", "visualizations")


def public_definitions(tree: ast.Module) -> set[str]:
    """Names a module defines at its top level (functions, classes, assignments), not ``_x``
    (``__version__`` is public)."""
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return {n for n in names if not is_private(n)}


def lazy_names(name: str, tree: ast.Module, names: list[str]) -> set[str]:
    """Those of ``names`` that the module provides through a PEP 562 ``__getattr__``."""
    if not any(isinstance(n, ast.FunctionDef) and n.name == "__getattr__" for n in tree.body):
        return set()
    module = importlib.import_module(name)
    return {n for n in names if hasattr(module, n)}


def declared_all(tree: ast.Module) -> list[str] | None:
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            return list(ast.literal_eval(node.value))
    return None


def test_public_modules_declare_all_and_all_names_exist():
    missing, unknown = [], []
    for path in source_files():
        name = module_name(path)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        exported = declared_all(tree)
        if exported is None:
            if name.startswith(WITH_ALL) and public_definitions(tree):
                missing.append(name)
            continue
        bound = public_definitions(tree) | {
            (a.asname or a.name).split(".")[0] for node in tree.body
            if isinstance(node, (ast.Import, ast.ImportFrom)) for a in node.names}
        bound |= lazy_names(name, tree, [n for n in exported if n not in bound])
        unknown += [f"{name}.{n}" for n in exported if n not in bound]
    assert not missing, "modules without __all__:\n  " + "\n  ".join(missing)
    assert not unknown, "__all__ names that the module does not have:\n  " + "\n  ".join(unknown)
