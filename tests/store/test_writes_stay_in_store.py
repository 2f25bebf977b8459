"""Only `trajkit/store/` renames, fsyncs or opens a conversation file for writing (issue 13.5).

The store's helpers (`atomic_write`, `atomic_writer(temp_dir=)`, `staged_folder`,
`write_new_file`, `move_file`, `ConversationWriter`) are the one home of crash safety and of the
checks on what a write may go through, so this test reads every other module's syntax tree and
fails on:
- a call to `os.replace`, `os.rename`, `os.renames`, `os.fsync` or `os.fdatasync` (or one of
  them imported from `os`);
- a call that opens or creates a file or folder for writing (`open(..., "w")`,
  `os.open(..., O_CREAT)`, `.write_bytes()`, `.write_text()`, `.open("w")`, `.touch()`,
  `.mkdir()`, `os.mkdir()`, `os.makedirs()`) anywhere, output and cache folders included
  (`make_folder` creates those);
- except in the few runtime modules of `WORKSPACE_WRITERS`, which write the agent's own files
  (its workspace, its config, a private temp folder): there only a write in a function whose
  source names a conversation file (`base_state`, `events/`, `event_file_name`, `.eventlog`)
  is refused.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

TRAJKIT = Path(__file__).resolve().parents[2] / "trajkit"
OS_WRITES = {"replace", "rename", "renames", "fsync", "fdatasync"}
CONVERSATION_NAMES = re.compile(
    r"base_state|BASE_STATE|EVENTS_DIR|events_dir|event_file_name|eventlog|[\"']events[\"']"
)
WRITE_METHODS = {"write_bytes", "write_text", "touch", "mkdir"}
OS_MAKES = {"mkdir", "makedirs"}
WORKSPACE_WRITERS = {
    "cli/__init__.py": "opens os.devnull to silence a closed stdout",
    "sdk/conversation/local.py": "creates the agent's workspace folder",
    "sdk/llm/llm_profile_store.py": "saves LLM profiles in the user's config folder",
    "sdk/logger.py": "creates the log folder the user asked for",
    "tools/file_editor/editor.py": "the agent creates and edits files in its workspace",
    "tools/planning_file_editor/__init__.py": "the planning agent's plan file, in its workspace",
    "tools/tom_consult/definition.py": "the user-profile notes, in the user's config folder",
    "tools/terminal/session.py": "the shell's command script, in a private temp folder",
}
"""Modules outside `store/` that may write files that are neither conversations nor outputs."""


def _opens_for_writing(call: ast.Call) -> bool:
    func = call.func
    if (
        isinstance(func, ast.Name)
        and func.id == "open"
        or (isinstance(func, ast.Attribute) and func.attr == "open" and not _is_os(func.value))
    ):
        modes = [a for a in call.args[1:2] if isinstance(func, ast.Name)]
        modes += [a for a in call.args[:1] if isinstance(func, ast.Attribute)]
        modes += [k.value for k in call.keywords if k.arg == "mode"]
        return any(
            isinstance(m, ast.Constant) and isinstance(m.value, str) and set(m.value) & set("wax+")
            for m in modes
        )
    if isinstance(func, ast.Attribute) and func.attr == "open" and _is_os(func.value):
        flags = ast.unparse(call.args[1]) if len(call.args) > 1 else ""
        return any(f in flags for f in ("O_WRONLY", "O_RDWR", "O_CREAT", "O_APPEND"))
    if isinstance(func, ast.Attribute) and _is_os(func.value):
        return func.attr in OS_MAKES
    return isinstance(func, ast.Attribute) and func.attr in WRITE_METHODS


def _is_os(node: ast.expr) -> bool:
    return isinstance(node, ast.Name) and node.id == "os"


def offenders_in(source: str, name: str, *, workspace: bool = True) -> list[str]:
    """`name:line: what` for each forbidden write in `source` (see the module docstring).

    `workspace`: `source` may write files that are not conversations (`WORKSPACE_WRITERS`).
    """
    tree = ast.parse(source)
    found: list[str] = []
    functions = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "os":
            found += [
                f"{name}:{node.lineno}: imports os.{a.name}"
                for a in node.names
                if a.name in OS_WRITES
            ]
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Attribute) and _is_os(func.value) and func.attr in OS_WRITES:
            found.append(f"{name}:{node.lineno}: os.{func.attr}")
        elif _opens_for_writing(node):
            inside = [f for f in functions if f.lineno <= node.lineno <= (f.end_lineno or 0)]
            scope = min(inside, key=lambda f: (f.end_lineno or 0) - f.lineno, default=None)
            text = ast.get_source_segment(source, scope) if scope else ast.unparse(node)
            if text and CONVERSATION_NAMES.search(text):
                found.append(
                    f"{name}:{node.lineno}: writes a conversation file ({ast.unparse(node)})"
                )
            elif not workspace:
                found.append(
                    f"{name}:{node.lineno}: writes outside the store ({ast.unparse(node)})"
                )
    return sorted(found, key=lambda f: int(f.split(":")[1]))


def test_nothing_outside_store_writes_into_a_conversation_or_renames():
    offenders = []
    for path in sorted(TRAJKIT.rglob("*.py")):
        rel = path.relative_to(TRAJKIT).as_posix()
        if rel.startswith("store/"):
            continue
        source = path.read_text(encoding="utf-8")
        offenders += offenders_in(source, rel, workspace=rel in WORKSPACE_WRITERS)
    assert offenders == []


def test_every_workspace_writer_still_writes():
    """An exemption that is no longer needed goes (the list only shrinks)."""
    for rel in WORKSPACE_WRITERS:
        source = (TRAJKIT / rel).read_text(encoding="utf-8")
        assert offenders_in(source, rel, workspace=False), f"{rel}: no write left; drop it"


def test_the_check_catches_each_kind_of_write():
    source = """
import os
from os import replace

def save(folder):
    with open(folder / "base_state.json", "w") as f:
        f.write("{}")

def append(folder, name):
    (folder / "events" / name).write_bytes(b"{}")

def make(folder):
    (folder / "events").mkdir()

def flush(fd, a, b):
    os.fsync(fd)
    os.rename(a, b)

def unrelated(path):
    open(path, "w").write("a workspace file")  # not a conversation file
    return open(path).read()

def output(out):
    os.makedirs(out / "tables")
"""
    everywhere = [
        "imports os.replace",
        "writes a conversation file",
        "writes a conversation file",
        "writes a conversation file",
        "os.fsync",
        "os.rename",
    ]
    assert _kinds(offenders_in(source, "m.py", workspace=False)) == [
        *everywhere,
        "writes outside the store",  # the workspace file
        "writes outside the store",  # the output folder
    ]
    assert _kinds(offenders_in(source, "m.py")) == everywhere  # a workspace writer


def _kinds(found: list[str]) -> list[str]:
    return [line.split(": ", 1)[1].split(" (")[0] for line in found]
