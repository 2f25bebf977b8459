"""`trajkit.events` is the bottom layer: it imports nothing else from trajkit (STYLE.md)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import trajkit.events

EVENTS_DIR = Path(trajkit.events.__file__).parent
REPO = EVENTS_DIR.parents[1]


def _imported_modules(path: Path, package: str) -> list[tuple[int, str]]:
    """Every module an `import` or `from ... import` names, at any depth (also in functions)."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: resolve against the module's package
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                found.append((node.lineno, f"{base}.{node.module}" if node.module else base))
            else:
                found.append((node.lineno, node.module or ""))
    return found


def _package_of(path: Path) -> str:
    return ".".join(path.relative_to(REPO).parts[:-1])  # __init__.py: its own package


def test_events_modules_import_nothing_from_the_rest_of_trajkit() -> None:
    files = sorted(EVENTS_DIR.rglob("*.py"))
    assert len(files) >= 12  # the walk sees the package, payloads/ included
    upward = [
        f"{f.relative_to(REPO)}:{line}: imports {name}"
        for f in files
        for line, name in _imported_modules(f, _package_of(f))
        if name.split(".")[0] == "trajkit" and not name.startswith("trajkit.events")
    ]
    assert upward == []


def test_the_walk_sees_function_level_and_relative_imports(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text(
        "def f():\n    from trajkit.convert.view import full_view\n    from .. import x\n"
    )
    names = [n for _, n in _imported_modules(probe, "trajkit.events.payloads")]
    assert names == ["trajkit.convert.view", "trajkit.events"]


def test_importing_every_events_module_loads_no_other_trajkit_module() -> None:
    names = sorted(
        ".".join(f.relative_to(REPO).with_suffix("").parts).removesuffix(".__init__")
        for f in EVENTS_DIR.rglob("*.py")
    )
    code = (
        "import importlib, sys\n"
        f"for name in {names!r}:\n"
        "    importlib.import_module(name)\n"
        "from trajkit.events import LLMConvertibleEvent, MessageEvent, Message, TextContent\n"
        "m = MessageEvent(source='user', llm_message=Message(role='user', "
        "content=[TextContent(text='hi')]))\n"
        "assert LLMConvertibleEvent.events_to_messages([m])[0].text == 'hi'\n"
        "print(sorted(m for m in sys.modules if m.startswith('trajkit') "
        "and m != 'trajkit' and not m.startswith('trajkit.events')))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO
    )
    assert out.stdout.strip() == "[]"
