"""The import graph follows the layer table of the style guide (`STYLE.md`, "Which way imports go").

Every import statement in `trajkit/` counts, lazy ones inside functions included (a lazy import
hides a loop from Python, not from the reader); only names imported for the type checker
(`if TYPE_CHECKING:`) are left out. Two checks:

- each edge between top-level parts goes down the table below (a feature never imports another
  feature, the toolkit never imports the runtime);
- no import cycle spans more than one file, except inside `sdk/` (the runtime's public modules
  re-export each other at the SDK's paths).
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

from tests.support.fixtures import REPO

PACKAGE = REPO / "trajkit"

UTIL = {"errors", "gc_pause", "_extras", "redact", "controls", "trajkit", "_schemas"}
"""Leaf helpers any part may use: they import nothing of trajkit but each other."""
BASE = {"events", "store", "shapes", "corpus", "engine", "filters"} | UTIL
"""What every feature may read with (STYLE.md: store, shapes, events; corpus and engine run work
over them, filters choose conversations by their header)."""
ALLOWED: dict[str, set[str]] = {
    "events": set(),
    **{u: UTIL for u in UTIL},
    "store": {"events"} | UTIL,
    "schema": {"events", "store"} | UTIL,
    "shapes": {"events", "store"} | UTIL,
    "filters": {"events", "store", "shapes"} | UTIL,  # picks among what the registry finds
    "corpus": {"events", "store", "shapes"} | UTIL,
    "engine": {"events", "store", "shapes", "corpus"} | UTIL,
    "validate": BASE | {"schema"},
    "convert": BASE | {"validate.verdict"},
    "migrate": BASE | {"validate.verdict"},
    "recovery": BASE | {"convert"},
    "export": BASE | {"validate.verdict", "convert"},
    "views": BASE | {"validate.verdict", "convert"},
    "repair": BASE | {"validate", "recovery"},
    "serve": BASE | {"validate.verdict", "convert", "views"},
    "cli": BASE
    | {"schema", "validate", "convert", "migrate", "export", "views", "serve", "repair"},
    "__main__": {"cli"},
    "sdk": BASE | {"convert", "recovery", "validate.verdict"},
    "tools": BASE | {"convert", "sdk"},
}
"""Which parts each top-level part of `trajkit/` may import (`validate.verdict` is that module
only: the one verdict other features ask)."""


KNOWN_VIOLATIONS = {
    "trajkit.migrate.run -> trajkit.convert.tools",  # a base state naming the recorded tools
}
"""Edges still going the wrong way, each one being removed (issue 26); the list only shrinks."""
KNOWN_CYCLES: list[list[str]] = []
"""Cycles still to break (issue 26); the list only shrinks."""


def _module(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _runtime_nodes(tree: ast.AST) -> list[ast.AST]:
    """Every node of `tree` but those under `if TYPE_CHECKING:` (names for the type checker)."""
    out: list[ast.AST] = []
    todo = [tree]
    while todo:
        node = todo.pop()
        out.append(node)
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and ast.unparse(child.test).endswith("TYPE_CHECKING"):
                todo.extend(child.orelse)
            else:
                todo.append(child)
    return out


def import_graph() -> dict[str, set[str]]:
    """Module -> the trajkit modules it imports, at any depth of its body."""
    modules = {_module(p): p for p in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = defaultdict(set)
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in _runtime_nodes(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*anchor, *([node.module] if node.module else [])])
                targets = [base] + [f"{base}.{alias.name}" for alias in node.names]
            for target in targets:
                while target and target not in modules:  # a name imported from a module
                    target = target.rpartition(".")[0]
                if target.startswith("trajkit") and target != name:
                    graph[name].add(target)
    return graph


def _part(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "trajkit"


def _allowed(source: str, target: str) -> bool:
    part, target_part = _part(source), _part(target)
    if part == target_part:
        return True
    allowed = ALLOWED.get(part, set())
    return target_part in allowed or ".".join(target.split(".")[1:3]) in allowed


def layer_violations(graph: dict[str, set[str]]) -> list[str]:
    return sorted(f"{a} -> {b}" for a, bs in graph.items() for b in bs if not _allowed(a, b))


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_imports_go_down_the_layer_table() -> None:
    graph = import_graph()
    assert len(graph) > 100  # the reader found the package
    assert set(layer_violations(graph)) <= KNOWN_VIOLATIONS


def test_no_cycle_spans_files_outside_the_runtime() -> None:
    outside = [c for c in cycles(import_graph()) if not all(_part(m) == "sdk" for m in c)]
    assert [c for c in outside if c not in KNOWN_CYCLES] == []


def test_the_checks_see_a_lazy_upward_import_and_a_loop() -> None:
    """A lazy import inside a function is an edge; a two-module loop is a cycle."""
    graph = {
        "trajkit.store.reader": {"trajkit.convert.stream"},
        "trajkit.convert.stream": {"trajkit.store.reader"},
    }
    assert layer_violations(graph) == ["trajkit.store.reader -> trajkit.convert.stream"]
    assert cycles(graph) == [["trajkit.convert.stream", "trajkit.store.reader"]]
    source = PACKAGE / "export" / "chunks.py"
    assert "trajkit.export.shards" in import_graph()["trajkit.export.chunks"], source
