"""Only `store/` knows the layout of a conversation folder: no other module spells out the path
of `base_state.json` or joins `"events"` onto a folder (they ask `trajkit.store.layout`)."""

from __future__ import annotations

import ast

from tests.support.fixtures import REPO

PACKAGE = REPO / "trajkit"
NAMES = {"base_state.json", "events"}

KNOWN = {
    "trajkit/shapes/v0/containers.py",  # a V0 session's own events/ folder
}
"""Modules still spelling out the layout (issue 26); the set only shrinks."""


def layout_literals(source: str) -> list[int]:
    """Lines that name a part of the layout as a path: `x / "events"`, `"…/base_state.json"`,
    or a comparison of a name with one of them."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div | ast.Add):
            parts = [node.left, node.right]
        elif isinstance(node, ast.Compare):
            parts = [node.left, *node.comparators]
        else:
            continue
        for part in parts:
            if isinstance(part, ast.Constant) and str(part.value).strip("/") in NAMES:
                lines.append(node.lineno)
    return lines


def test_no_module_outside_store_spells_out_the_layout() -> None:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        name = path.relative_to(REPO).as_posix()
        if name.startswith("trajkit/store/"):
            continue
        if lines := layout_literals(path.read_text(encoding="utf-8")):
            found[name] = lines
    assert set(found) <= KNOWN, {k: v for k, v in found.items() if k not in KNOWN}


def test_the_check_sees_each_spelling() -> None:
    for line in (
        'p = folder / "events"',
        'p = folder / "base_state.json"',
        'p = Path(label + "/base_state.json")',
        'ok = path.name == "events"',
    ):
        assert layout_literals(line) == [1], line
    assert layout_literals('row = {"events": 3}') == []
